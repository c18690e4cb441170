package wire2

import (
	"bytes"
	"math/rand/v2"
	"rtype/net/wire"
	"testing"
)

// TestEncodeWithIsEncode: a snapshot whose records were encoded once
// (EncodeRecords) and copied after each client's header (EncodeWith) is,
// byte for byte, the payload Encode makes of it alone, for random worlds,
// players (their steps of 0 to 5 varint groups, so that the records start
// at each of the 4 bit offsets a header can end at: a player record takes
// an even number of bits), full or delta; and when Encode splits the
// snapshot, EncodeWith declines.
func TestEncodeWithIsEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 22))
	var alone, shared SnapshotEncoder
	var recs Records
	declined, offsets := 0, map[int]bool{}
	for i := range 3000 {
		tick := 1000 + r.Uint32N(1<<20)
		base := randWorld(r, r.IntN(120), tick-30)
		cur := mutate(r, base, tick)
		players := randPlayers(r, tick)
		basePlayers := randPlayers(r, tick-30)
		if r.IntN(2) == 0 {
			basePlayers = append([]Player(nil), players...) // unchanged players
		}
		if r.IntN(5) == 0 {
			base = nil // a full snapshot
		}
		limit := []int{0, 200, 600}[r.IntN(3)]
		alone.MaxPayload, shared.MaxPayload = limit, limit
		var want [][]byte
		if base == nil {
			want = alone.Encode(tick, players, nil, nil, 0, cur)
		} else {
			want = alone.Encode(tick, players, basePlayers, base, tick-30, cur)
		}
		shared.EncodeRecords(&recs, tick, base, cur)
		got, ok := shared.EncodeWith(tick, players, basePlayers, base != nil, tick-30, &recs)
		if !ok {
			if len(want) == 1 {
				t.Fatalf("case %d: EncodeWith declined a snapshot of one payload", i)
			}
			declined++
			continue
		}
		if len(want) != 1 || !bytes.Equal(got[0], want[0]) {
			t.Fatalf("case %d: EncodeWith\n % X\nEncode (%d payloads)\n % X", i, got[0], len(want), want[0])
		}
		if shared.Changes() != alone.Changes() {
			t.Fatalf("case %d: Changes %d, Encode's %d", i, shared.Changes(), alone.Changes())
		}
		var w wire.BitWriter
		shared.WriteHeader(&w)
		offsets[w.Len()%8] = true
	}
	if declined == 0 || len(offsets) < 4 {
		t.Fatalf("%d declined, records at %d bit offsets of 4: the test measured little", declined, len(offsets))
	}
}

// TestAppendBits: appendBits writes what WriteBits would, bit by bit,
// after any number of bits.
func TestAppendBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var src, got, want wire.BitWriter
		n := r.IntN(200)
		for range n {
			src.WriteBits(r.Uint32N(2), 1)
		}
		pre := r.IntN(40)
		for range pre {
			b := r.Uint32N(2)
			got.WriteBits(b, 1)
			want.WriteBits(b, 1)
		}
		got.Append(&src)
		var rd wire.BitReader
		rd.Reset(src.Bytes())
		for range n {
			want.WriteBits(rd.ReadBits(1), 1)
		}
		got.WriteBits(5, 3) // what follows lands where it should
		want.WriteBits(5, 3)
		if got.Len() != want.Len() || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%d bits after %d: % X, want % X", n, pre, got.Bytes(), want.Bytes())
		}
	}
}
