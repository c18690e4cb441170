package link2

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// TestSharedSnapshotsSameBytes: peers that share the encoding get, tick
// after tick, the very datagrams SnapshotSender sends each alone, while
// each acknowledges what it likes (so that their baselines differ), and
// more baselines than the cache holds.
func TestSharedSnapshotsSameBytes(t *testing.T) {
	w := newSimWorld(rand.New(rand.NewPCG(3, 4)), 60)
	rng := rand.New(rand.NewPCG(5, 6))
	const peers = maxSharedBases + 3
	alone := make([]*sender, peers)
	shared := make([]*sender, peers)
	for i := range alone {
		alone[i], shared[i] = newSender(300), newSender(300)
	}
	var sh SharedSnapshots
	sh.s.enc.MaxPayload = 300
	sent, skipped := 0, 0
	for range 200 {
		for range 3 {
			w.step()
		}
		f := frame(w)
		for i := range peers {
			want := alone[i].s.Datagrams(alone[i].l, f.Tick, f.Players, f.Entities, at(int(f.Tick)))
			want = cloneAll(want)
			got := sh.Datagrams(shared[i].l, f.Tick, f.Players, f.Entities, at(int(f.Tick)))
			if len(got) != len(want) {
				t.Fatalf("tick %d peer %d: %d datagrams shared, %d alone", f.Tick, i, len(got), len(want))
			}
			for k := range got {
				if !bytes.Equal(got[k], want[k]) {
					t.Fatalf("tick %d peer %d datagram %d:\n shared % X\n  alone % X", f.Tick, i, k, got[k], want[k])
				}
				h, _ := linktest.MustParse2(t, got[k], wire.ToClient)
				alone[i].seqs[f.Tick] = append(alone[i].seqs[f.Tick], h.Seq)
			}
			if len(got) == 0 {
				skipped++
			}
			sent += len(got)
			// Each peer acknowledges most of what it got, at its own pace.
			if rng.IntN(4) != 0 {
				for _, q := range alone[i].seqs[f.Tick] {
					alone[i].ack(q)
					shared[i].ack(q)
				}
			}
		}
	}
	if sent < 500 || skipped == 0 {
		t.Fatalf("%d datagrams sent, %d snapshots skipped: the test needs both", sent, skipped)
	}
}

func cloneAll(ds [][]byte) [][]byte {
	out := make([][]byte, len(ds))
	for i, d := range ds {
		out[i] = bytes.Clone(d)
	}
	return out
}

// BenchmarkSharedSnapshots2 is one tick's snapshot for 8 peers with the
// same baseline: encoded once.
func BenchmarkSharedSnapshots(b *testing.B) {
	benchPeers(b, true)
}

// BenchmarkAloneSnapshots2 is the same with SnapshotSender: encoded 8
// times.
func BenchmarkAloneSnapshots(b *testing.B) {
	benchPeers(b, false)
}

func benchPeers(b *testing.B, share bool) {
	w := newSimWorld(rand.New(rand.NewPCG(3, 4)), 60)
	var sh SharedSnapshots
	var alone SnapshotSender
	peers := make([]*sender, 8)
	for i := range peers {
		peers[i] = newSender(0)
	}
	sent := make([][]uint16, len(peers))
	b.ReportAllocs()
	for b.Loop() {
		// The world and the peers' acknowledgements are not measured.
		b.StopTimer()
		for range 3 {
			w.step()
		}
		f := frame(w)
		for i, p := range peers {
			for _, q := range sent[i] {
				p.ack(q)
			}
			sent[i] = sent[i][:0]
		}
		b.StartTimer()
		for i, p := range peers {
			var ds [][]byte
			if share {
				ds = sh.Datagrams(p.l, f.Tick, f.Players, f.Entities, at(int(f.Tick)))
			} else {
				ds = alone.Datagrams(p.l, f.Tick, f.Players, f.Entities, at(int(f.Tick)))
			}
			for _, d := range ds {
				sent[i] = append(sent[i], uint16(d[6])|uint16(d[7])<<8)
			}
		}
	}
}
