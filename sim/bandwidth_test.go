package sim_test

import (
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
)

// The bytes per second one client receives, v1 against v2, computed
// offline from the same world states (PROTOCOL.md 4.3, 4.8, 7.8, 7.9):
//
//   - v1: a Snapshot every 3 ticks, each against the one before (baseline
//     age 3: every snapshot acknowledged at once, the smallest 4.8 allows);
//   - v2: at the same ticks, against the last one sent, sent only when it
//     carries a record or a changed player, or 200 ms after the last one
//     (7.9);
//   - seed 003: the byte-aligned layout of shared/seeds/003 (a 12-byte
//     header, 4 counts, 23 bytes per player, 8 per missile or Bydos), as
//     cmd/rtype-bench counts it;
//   - events: each tick's events in Event datagrams (v1: 18-byte header,
//     count, 3 bytes of framing per event; v2: 20, count, 5), sent once.
//
// Headers are counted, IP and UDP (28 bytes per datagram) are not.

// bwMeter counts the bytes of one client.
type bwMeter struct {
	ticks                  int
	v1, v2, seed           int // snapshot bytes
	v1Dgrams, v2Dgrams     int
	v1Events, v2Events     int // event bytes
	v1EvDgrams, v2EvDgrams int

	enc1    wire.SnapshotEncoder
	enc2    wire2.SnapshotEncoder
	base1   []wire.Entity
	cur1    []wire.Entity
	pl1     []wire.PlayerState
	cur2    wire2.Frame
	base2   wire2.Frame
	hasBase bool
	lastV2  uint32
	ents2   []wire2.Entity
	pl2     []wire2.Player
	evbuf   []byte
	// tail is the v2 events' bytes as a revision-4 session gets them
	// (EventsInSnapshot): each event a frame of the snapshot's tail
	// (FrameOverhead2 and its bytes), with no datagram of its own;
	// v2Events counts them in Event datagrams, a header each tick.
	tail int
}

const (
	v1Header   = wire.HeaderSize
	v2Header   = wire2.HeaderSize
	seedHeader = 12 + 4
	seedPlayer = 23
	seedEntity = 8
)

func (m *bwMeter) snapshot(w *sim.World) {
	tick := w.Tick()
	m.cur1 = entities1(w, m.cur1[:0])
	m.pl1 = players1(w, m.pl1[:0])
	var base1 []wire.Entity
	if m.hasBase {
		base1 = m.base1
		if base1 == nil {
			base1 = []wire.Entity{}
		}
	}
	for _, p := range m.enc1.Encode(tick, m.pl1, base1, tick-3, m.cur1) {
		m.v1 += v1Header + len(p)
		m.v1Dgrams++
	}
	m.base1 = append(m.base1[:0], m.cur1...)

	m.seed += seedHeader + seedPlayer*len(m.pl1)
	for i := range m.cur1 {
		if m.cur1[i].Kind != wire.KindPlayerShip {
			m.seed += seedEntity
		}
	}

	m.ents2 = entities2(w, m.ents2[:0])
	m.pl2 = players2(w, m.pl2[:0])
	m.cur2.Set(tick, m.pl2, m.ents2)
	var base2 *wire2.Frame
	if m.hasBase {
		base2 = &m.base2
	}
	payloads := m.enc2.EncodeFrame(&m.cur2, base2)
	if base2 == nil || m.enc2.Changes() > 0 || tick-m.lastV2 >= 12 {
		for _, p := range payloads {
			m.v2 += v2Header + len(p)
			m.v2Dgrams++
		}
		m.base2.Set(tick, m.pl2, m.ents2)
		m.lastV2 = tick
	}
	m.hasBase = true
}

// events counts the Event datagrams of one tick's events.
func (m *bwMeter) events(evs []wire.Event) {
	count := func(hdr, overhead int, enc func([]byte, *wire.Event) []byte) (bytes, dgrams int) {
		size, n := 0, 0
		for i := range evs {
			m.evbuf = enc(m.evbuf[:0], &evs[i])
			e := overhead + len(m.evbuf)
			if n == 0 || size+e > wire.MaxDatagram || n == 255 {
				bytes += size
				size, n = hdr+1, 0
				dgrams++
			}
			size += e
			n++
		}
		return bytes + size, dgrams
	}
	if len(evs) == 0 {
		return
	}
	b, d := count(v1Header, wire.FrameOverhead, wire.AppendEvent)
	m.v1Events, m.v1EvDgrams = m.v1Events+b, m.v1EvDgrams+d
	for i := range evs {
		m.tail += wire2.FrameOverhead + len(wire2.AppendEvent(m.evbuf[:0], &evs[i]))
	}
	b, d = count(v2Header, wire2.FrameOverhead, wire2.AppendEvent)
	m.v2Events, m.v2EvDgrams = m.v2Events+b, m.v2EvDgrams+d
}

func (m *bwMeter) perSecond(bytes int) float64 { return float64(bytes) * 60 / float64(m.ticks) }

// runBusy plays 7200 ticks (120 s) of a busy 4-player game with the
// default rules: the waves, plus Bydos and missiles topped up to 40 and
// 100 (as BenchmarkStep's world), each player holding a move for 0.25 to
// 1 s, firing most of the time.
func runBusy(m *bwMeter) {
	w := sim.New(sim.DefaultRules(), 7)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	r := rand.New(rand.NewPCG(7, 7))
	var until [4]uint32
	m.events(w.TakeEvents())
	for w.Tick() < 7200 {
		for p := range uint8(4) {
			if w.Tick() >= until[p] {
				a := uint8(r.IntN(16))
				if r.IntN(4) > 0 {
					a |= wire.ActionFire
				}
				w.SetInput(p, a)
				until[p] = w.Tick() + uint32(15+r.IntN(46))
			}
		}
		w.Step()
		w.TopUp(40, 100)
		m.events(w.TakeEvents())
		m.ticks++
		if w.Tick()%wire.SnapshotTicks == 0 {
			m.snapshot(w)
		}
	}
}

// runStill plays 7200 ticks of four ships standing still, nothing else
// alive (no waves), from their join on (their blink included).
func runStill(m *bwMeter) {
	w := sim.New(sim.DefaultRules(), 7)
	w.NoWaves()
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	m.events(w.TakeEvents())
	for w.Tick() < 7200 {
		w.Step()
		m.events(w.TakeEvents())
		m.ticks++
		if w.Tick()%wire.SnapshotTicks == 0 {
			m.snapshot(w)
		}
	}
}

func logMeter(t testing.TB, name string, m *bwMeter) {
	t.Logf("%s, per client, %d s: snapshots v1 %.0f B/s (%.1f dgrams/s), v2 %.0f B/s (%.1f dgrams/s), v2/v1 %.3f, seed-003 %.0f B/s, v2/seed-003 %.3f",
		name, m.ticks/60, m.perSecond(m.v1), m.perSecond(m.v1Dgrams), m.perSecond(m.v2), m.perSecond(m.v2Dgrams),
		float64(m.v2)/float64(m.v1), m.perSecond(m.seed), float64(m.v2)/float64(m.seed))
	t.Logf("%s, events sent once: v1 %.0f B/s, v2 %.0f B/s; snapshots and events: v1 %.0f B/s, v2 %.0f B/s, v2/v1 %.3f",
		name, m.perSecond(m.v1Events), m.perSecond(m.v2Events), m.perSecond(m.v1+m.v1Events), m.perSecond(m.v2+m.v2Events),
		float64(m.v2+m.v2Events)/float64(m.v1+m.v1Events))
}

// TestBandwidthV1V2 checks the targets of issue 12 on these offline
// states: busy, v2 at most 0.4 × v1 and 0.35 × seed 003; four still
// ships, v2 at most 0.5 × v1.
func TestBandwidthV1V2(t *testing.T) {
	var busy, still bwMeter
	runBusy(&busy)
	runStill(&still)
	logMeter(t, "busy", &busy)
	logMeter(t, "four still ships", &still)
	if r := float64(busy.v2) / float64(busy.v1); r > 0.4 {
		t.Errorf("busy: v2/v1 snapshots %.3f, want at most 0.4", r)
	}
	if r := float64(busy.v2) / float64(busy.seed); r > 0.35 {
		t.Errorf("busy: v2/seed-003 %.3f, want at most 0.35", r)
	}
	if r := float64(still.v2) / float64(still.v1); r > 0.5 {
		t.Errorf("four still ships: v2/v1 %.3f, want at most 0.5", r)
	}
}

func BenchmarkBandwidthBusy(b *testing.B) {
	var m bwMeter
	for b.Loop() {
		m = bwMeter{}
		runBusy(&m)
	}
	b.ReportMetric(m.perSecond(m.v1), "v1-B/s")
	b.ReportMetric(m.perSecond(m.v2), "v2-B/s")
	b.ReportMetric(m.perSecond(m.seed), "seed003-B/s")
	b.ReportMetric(float64(m.v2)/float64(m.v1), "v2/v1")
}

// busyStates records every third tick of runBusy's game: what a server
// encodes for each client.
type busyState struct {
	tick uint32
	e1   []wire.Entity
	p1   []wire.PlayerState
	f2   wire2.Frame
}

func recordBusy(n int) []busyState {
	w := sim.New(sim.DefaultRules(), 7)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	r := rand.New(rand.NewPCG(7, 7))
	var until [4]uint32
	var out []busyState
	for len(out) < n {
		for p := range uint8(4) {
			if w.Tick() >= until[p] {
				w.SetInput(p, uint8(r.IntN(16))|wire.ActionFire)
				until[p] = w.Tick() + uint32(15+r.IntN(46))
			}
		}
		w.Step()
		w.TopUp(40, 100)
		w.TakeEvents()
		if w.Tick()%wire.SnapshotTicks == 0 && w.Tick() > 600 {
			s := busyState{tick: w.Tick(), e1: entities1(w, nil), p1: players1(w, nil)}
			s.f2.Set(w.Tick(), players2(w, nil), entities2(w, nil))
			out = append(out, s)
		}
	}
	return out
}

// BenchmarkEncodeBusyV1 and BenchmarkEncodeBusyV2: the CPU of one
// client's snapshot of a busy game (about 140 entities), each against the
// snapshot before it, v1 and v2, on the same states.
func BenchmarkEncodeBusyV1(b *testing.B) {
	states := recordBusy(200)
	var enc wire.SnapshotEncoder
	bytes, i := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		k := 1 + i%(len(states)-1)
		cur, base := &states[k], &states[k-1]
		for _, p := range enc.Encode(cur.tick, cur.p1, base.e1, base.tick, cur.e1) {
			bytes += len(p)
		}
		i++
	}
	b.ReportMetric(float64(bytes)/float64(i), "bytes/snapshot")
}

func BenchmarkEncodeBusyV2(b *testing.B) {
	states := recordBusy(200)
	var enc wire2.SnapshotEncoder
	bytes, i := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		k := 1 + i%(len(states)-1)
		for _, p := range enc.EncodeFrame(&states[k].f2, &states[k-1].f2) {
			bytes += len(p)
		}
		i++
	}
	b.ReportMetric(float64(bytes)/float64(i), "bytes/snapshot")
}
