package link2

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/link/linktest"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
)

// busyState is one snapshot's worth of a busy game, in both versions'
// forms: what a server encodes for each client.
type busyState struct {
	tick uint32
	e1   []wire.Entity
	p1   []wire.PlayerState
	e2   []wire2.Entity
	p2   []wire2.Player
}

// busyStates plays a four-player game and records every third tick after
// the first 10 s, n of them: the busy game of cmd/rtype-bench (ships that
// never die, moving along the top and firing every 4 ticks, waves of 6 Bydos every 100
// ticks), about 140 entities each.
func busyStates(n int) []busyState {
	rules := sim.DefaultRules()
	rules.Lives, rules.JoinInvulnTicks = 255, 1<<30
	rules.FirstWave, rules.FireInterval = 1, 4
	rules.WaveSize, rules.WaveSizeMax = 6, 6
	rules.WaveInterval, rules.WaveIntervalMin, rules.WaveIntervalStep, rules.WaveSpeedStep = 100, 100, 0, 0
	w := sim.New(rules, 7)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	ents := 0
	var out []busyState
	for i := 0; len(out) < n; i++ {
		// Every ship fires and hugs the top edge (its missiles rarely
		// hit), going left then right, a second each, out of step.
		if i%60 == 0 {
			for p := range uint8(4) {
				lr := []uint8{wire.ActionLeft, wire.ActionRight}[(i/60+int(p))%2]
				w.SetInput(p, wire.ActionFire|wire.ActionUp|lr)
			}
		}
		w.Step()
		w.TakeEvents()
		if w.Tick()%wire.SnapshotTicks == 0 && w.Tick() > 600 {
			out = append(out, busyState{tick: w.Tick(),
				e1: wire.AppendEntities(nil, w.Tick(), w.AppendEntities(nil)), p1: wire.AppendPlayers(nil, w.AppendPlayers(nil)),
				e2: wire2.AppendEntities(nil, w.AppendEntities(nil)), p2: wire2.AppendPlayers(nil, w.AppendPlayers(nil))})
			ents += len(out[len(out)-1].e1)
		}
	}
	if ents < 100*n {
		panic(fmt.Sprintf("busyStates: %d entities a state, not a busy game", ents/n))
	}
	return out
}

// senderBench drives one client's link on the server side: a snapshot of
// the next state, then the client's acknowledgement of all its datagrams
// (so the next baseline is this one, as on a good link).
type senderBench struct {
	states []busyState
	l      *link.Link
	s1     link.SnapshotSender
	s2     SnapshotSender
	k      int
	peer   uint16
	now    time.Time
	bytes  int
	sent   int
}

func newSenderBench(states []busyState, v2 bool) *senderBench {
	b := &senderBench{states: states, now: t0}
	if v2 {
		b.l = link.NewV2(testSession, t0)
	} else {
		b.l = link.New(testSession, t0)
		b.l.Baselines = new(link.History)
	}
	return b
}

// step sends the snapshot of the next state. The states repeat with their
// ticks moved on, so ticks keep growing.
func (b *senderBench) step() {
	st := &b.states[b.k%len(b.states)]
	lap := uint32(b.k / len(b.states))
	tick := st.tick + lap*(b.states[len(b.states)-1].tick+3)
	b.k++
	b.now = b.now.Add(50 * time.Millisecond)
	var ds [][]byte
	if b.l.Version() == wire.Version2 {
		ds = b.s2.Datagrams(b.l, tick, st.p2, st.e2, b.now)
	} else {
		ds = b.s1.Datagrams(b.l, tick, st.p1, st.e1, b.now)
	}
	for _, d := range ds {
		b.bytes += len(d)
	}
	b.sent += len(ds)
	h := wire.Header{Type: wire.TypeAck, Seq: b.peer, Ack: b.l.Next() - 1, AckBits: 0xFFFFFFFF, Session: testSession}
	b.peer++
	b.l.Accept(h, wire2.HeaderSize, b.now)
}

// BenchmarkSnapshotSenderBusy and BenchmarkSnapshotSenderBusy: the CPU
// per client of one snapshot of a busy game (sim states, about 140
// entities), v1 and v2 on the same states, each against the one before
// (acknowledged at once), history and link bookkeeping included. Issue 12:
// v2 costs no more than v1, and allocates nothing.
func BenchmarkSnapshotSenderV1Busy(b *testing.B) { benchSender(b, false) }
func BenchmarkSnapshotSenderBusy(b *testing.B)   { benchSender(b, true) }

func benchSender(b *testing.B, v2 bool) {
	sb := newSenderBench(busyStates(200), v2)
	for range link.Snapshots * len(sb.states) { // every history slot has held every state
		sb.step()
	}
	sb.bytes, sb.sent = 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sb.step()
	}
	b.ReportMetric(float64(sb.bytes)/float64(b.N), "bytes/snapshot")
	ents := 0
	for i := range sb.states {
		ents += len(sb.states[i].e1)
	}
	b.ReportMetric(float64(ents)/float64(len(sb.states)), "entities")
}

// The busy senders of both versions allocate nothing per snapshot once
// warm (the exact count, testutil.NoAllocs).
func TestSnapshotSendersNoAllocs(t *testing.T) {
	states := busyStates(60)
	for _, v2 := range []bool{false, true} {
		sb := newSenderBench(states, v2)
		for range link.Snapshots * len(states) { // every history slot has held every state
			sb.step()
		}
		testutil.NoAllocs(t, 3*len(states), "a busy snapshot of version "+map[bool]string{false: "1", true: "2"}[v2], sb.step)
	}
}

// rebuildBench2 rebuilds, tick after tick, a delta between two busy
// states, alternately forth and back, each against the snapshot of the
// tick before: the client's work for one v2 Snapshot datagram of a busy
// game, decoding apart.
type rebuildBench struct {
	rb    Rebuilder
	snaps [2]wire2.Snapshot
	want  [2][]wire2.Entity
	tick  uint32
}

func newRebuildBench(tb testing.TB) *rebuildBench {
	states := busyStates(20)
	var f [2]wire2.Frame
	t := states[10].tick + states[10].tick%2 // even: state k at ticks of parity k
	f[0].Set(t, states[0].p2, states[0].e2)
	f[1].Set(t, states[10].p2, states[10].e2)
	b := &rebuildBench{tick: t, want: [2][]wire2.Entity{f[0].Entities, f[1].Entities}}
	var enc wire2.SnapshotEncoder
	full := enc.EncodeFrame(&f[0], nil)
	var s wire2.Snapshot
	for _, p := range full {
		if err := s.Decode(p); err != nil {
			tb.Fatal(err)
		}
		if _, err := b.rb.Rebuild(&s); err != nil {
			tb.Fatal(err)
		}
	}
	for k := range 2 {
		cur, base := f[(k+1)%2], f[k]
		cur.Tick, base.Tick = t+1, t
		ps := enc.EncodeFrame(&cur, &base)
		if len(ps) != 1 {
			tb.Fatalf("%d datagrams", len(ps))
		}
		if err := b.snaps[(k+1)%2].Decode(ps[0]); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// step rebuilds the next tick: state tick%2 against state (tick+1)%2 (the
// first state at an even tick, as the full snapshot's).
func (b *rebuildBench) step() {
	b.tick++
	s := &b.snaps[b.tick%2]
	s.Tick = b.tick
	r, err := b.rb.Rebuild(s)
	if err != nil || len(r.Entities) != len(b.want[b.tick%2]) {
		panic(fmt.Sprintf("Rebuild of tick %d: %v", b.tick, err))
	}
}

// BenchmarkRebuildBusy is the client's cost of rebuilding one v2
// Snapshot datagram of a busy game (about 140 entities) from its baseline.
func BenchmarkRebuildBusy(b *testing.B) {
	rb := newRebuildBench(b)
	for range 2 * link.Kept {
		rb.step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rb.step()
	}
}

// Rebuilder allocates nothing per datagram once its kept snapshots have
// grown (the exact count, testutil.NoAllocs), and rebuilds the states
// exactly.
func TestRebuilder2NoAllocs(t *testing.T) {
	rb := newRebuildBench(t)
	for range 2 * link.Kept {
		rb.step()
	}
	for k := range 2 {
		if got := rb.rb.Get(rb.tick - uint32(k)); got == nil || !slices.Equal(got.Entities, rb.want[(rb.tick-uint32(k))%2]) {
			t.Fatalf("tick %d not rebuilt as its state", rb.tick-uint32(k))
		}
	}
	testutil.NoAllocs(t, 500, "Rebuilder.Rebuild of a busy delta", rb.step)
}

// BenchmarkReceiveEvents2 delivers a v2 datagram of 10 new events (7.7).
func BenchmarkReceiveEvents(b *testing.B) {
	l := link.NewV2(testSession, t0)
	payload := []byte{10}
	var offs []int // of the ids, to renumber the payload in place
	for i := range 10 {
		offs = append(offs, len(payload))
		payload = wire2.AppendEventFrame(payload, uint32(i), wire2.AppendEvent(nil, linktest.EventFor(i)))
	}
	fresh := make([]wire.EventFrame, 0, 16)
	next := uint32(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, off := range offs {
			binary.LittleEndian.PutUint32(payload[off:], next)
			next++
		}
		var err error
		fresh, err = l.ReceiveEvents(payload, fresh[:0])
		if err != nil || len(fresh) != 10 {
			b.Fatalf("%v, %d delivered", err, len(fresh))
		}
	}
}
