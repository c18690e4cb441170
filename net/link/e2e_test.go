package link

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/netsim"
	"rtype/net/wire"
)

// This file runs a server-like and a client-like end of the link against
// each other. The endpoints (e2eServer, e2eClient) only see datagrams and
// times; the in-memory test below carries the datagrams through the netsim
// impairment model in memory (netsim.Pipe) on simulated time,
// relay_test.go through real sockets and the netsim relay on the wall
// clock: the same model both ways.

// ---- The simulated world of the server ----

type simEnt struct {
	alive          bool
	gen            uint8
	kind           uint8
	x, y, vx, vy   float32
	frame          int
	frameEvery     int
	framesToChange int
}

// simWorld moves, creates and destroys entities at random, 60 ticks a
// second. Slot i is network index i+1.
type simWorld struct {
	r       *rand.Rand
	ents    []simEnt
	players []wire.PlayerState
}

func newSimWorld(r *rand.Rand, slots int) *simWorld {
	w := &simWorld{r: r, ents: make([]simEnt, slots)}
	for i := range w.ents {
		if r.IntN(10) < 7 {
			w.spawn(i)
		}
	}
	w.players = []wire.PlayerState{
		{Player: 0, HasShip: true, Ship: wire.MakeID(1, 0), Lives: 3},
		{Player: 3, HasShip: true, Ship: wire.MakeID(2, 0), Lives: 3},
	}
	return w
}

func (w *simWorld) spawn(i int) {
	r := w.r
	e := &w.ents[i]
	e.alive = true
	e.gen++
	e.kind = uint8(1 + r.IntN(4))
	e.x, e.y = float32(r.IntN(1280)), float32(r.IntN(720))
	e.vx, e.vy = 0, 0
	if r.IntN(3) > 0 { // a third of them stand still
		e.vx, e.vy = float32(r.IntN(1200)-600), float32(r.IntN(400)-200)
	}
	e.frame, e.frameEvery = r.IntN(16), 5+r.IntN(30)
	e.framesToChange = e.frameEvery
}

func (w *simWorld) step() {
	r := w.r
	for i := range w.ents {
		e := &w.ents[i]
		if !e.alive {
			if r.IntN(400) == 0 {
				w.spawn(i)
			}
			continue
		}
		e.x += e.vx / 60
		e.y += e.vy / 60
		if e.x < -100 || e.x > 1380 || e.y < -100 || e.y > 820 || r.IntN(600) == 0 {
			e.alive = false
			continue
		}
		if r.IntN(120) == 0 {
			e.vx, e.vy = float32(r.IntN(1200)-600), float32(r.IntN(400)-200)
		}
		if e.framesToChange--; e.framesToChange == 0 {
			e.frame = (e.frame + 1) % 20 // 16-19 are sent as 15
			e.framesToChange = e.frameEvery
		}
	}
	for i := range w.players {
		p := &w.players[i]
		if r.IntN(10) == 0 {
			p.Score += uint32(r.IntN(500))
		}
		if r.IntN(300) == 0 {
			p.HasShip = !p.HasShip
			if p.HasShip {
				p.Ship = wire.MakeID(uint32(1+r.IntN(len(w.ents))), uint8(r.IntN(256)))
				p.Lives = uint8(r.IntN(5))
			} else {
				p.Ship = wire.NoEntity
			}
		}
	}
}

// entities appends the world as a snapshot carries it, sorted by wire.Less.
func (w *simWorld) entities(dst []wire.Entity) []wire.Entity {
	for i := range w.ents {
		if e := &w.ents[i]; e.alive {
			dst = append(dst, wire.MakeEntity(wire.MakeID(uint32(i+1), e.gen), e.kind, e.x, e.y, e.vx, e.vy, e.frame))
		}
	}
	return dst
}

// ---- The endpoints ----

type e2eServer struct {
	tb       testing.TB
	link     *Link
	hist     *History
	enc      wire.SnapshotEncoder
	world    *simWorld
	changing bool
	tick     uint32
	cur      []wire.Entity
	buf      []byte
	send     func(d []byte, now time.Time)

	total    int        // events to queue
	perTick  func() int // events queued at a tick
	queued   int        // events queued so far
	expected [][]byte   // bytes of each event
	client   *e2eClient // for the instrument: what it accepted
	snapSeqs map[uint32][]uint16

	// room, when set, holds events back (for later ticks) while that many
	// are unacknowledged, as a server could to stay clear of 5.3's limit.
	room, heldBack int

	deltas, fulls, multi int
	maxUnacked           int
	maxAge               uint32
	recvDup              int
}

func newE2EServer(tb testing.TB, r *rand.Rand, now time.Time, total int, perTick func() int) *e2eServer {
	s := &e2eServer{
		tb: tb, link: New(testSession, now), hist: new(History), world: newSimWorld(r, 350),
		changing: true, total: total, perTick: perTick, snapSeqs: map[uint32][]uint16{},
	}
	s.link.Baselines = s.hist
	return s
}

func (s *e2eServer) fail(format string, args ...any) {
	s.tb.Helper()
	s.tb.Fatalf("server tick %d: %s", s.tick, fmt.Sprintf(format, args...))
}

// step is one tick of the server at now.
func (s *e2eServer) step(now time.Time) {
	s.tick++
	if s.changing {
		s.world.step()
	}
	for n := s.perTick(); n > 0 && s.queued < s.total; n-- {
		if s.room > 0 && s.link.Unacked() >= s.room {
			s.heldBack += n
			break
		}
		ev := linktest.EventFor(s.queued)
		if err := s.link.QueueEvent(ev); err != nil {
			rtt, _ := s.link.RTT()
			s.fail("QueueEvent %d: %v (Unacked %d, RTT %v, R %v, loss %.2f)", s.queued, err, s.link.Unacked(),
				rtt, s.link.ResendAfter(), s.link.Loss(now))
		}
		s.expected = append(s.expected, wire.AppendEvent(nil, ev))
		s.queued++
	}
	s.maxUnacked = max(s.maxUnacked, s.link.Unacked())
	if s.tick%3 == 0 { // 20 snapshots a second
		s.cur = s.world.entities(s.cur[:0])
		baseTick, base, ok := s.hist.Baseline()
		if ok {
			s.checkBaseline(baseTick)
			if base == nil {
				base = []wire.Entity{} // an empty baseline is still one
			}
			s.deltas++
			s.maxAge = max(s.maxAge, s.tick-baseTick)
		} else {
			s.fulls++
		}
		payloads := s.enc.Encode(s.tick, s.world.players, base, baseTick, s.cur)
		s.hist.Add(s.tick, s.cur)
		if len(payloads) > 1 {
			s.multi++
		}
		for _, p := range payloads {
			s.buf = s.link.AppendSnapshot(s.buf[:0], p, s.tick, now)
			h, _ := linktest.MustParse(s.tb, s.buf, wire.ToClient)
			s.snapSeqs[s.tick] = append(s.snapSeqs[s.tick], h.Seq)
			s.send(s.buf, now)
		}
	}
	for {
		var ok bool
		s.buf, ok = s.link.AppendEvents(s.buf[:0], now)
		if !ok {
			break
		}
		if len(s.buf) > wire.MaxDatagram {
			s.fail("event datagram of %d bytes", len(s.buf))
		}
		s.send(s.buf, now)
	}
}

// checkBaseline is the instrument: the baseline must be a snapshot every
// datagram of which the client accepted, that it still holds whole.
func (s *e2eServer) checkBaseline(tick uint32) {
	seqs := s.snapSeqs[tick]
	if len(seqs) == 0 {
		s.fail("baseline %d was never sent", tick)
	}
	for _, q := range seqs {
		if !s.client.accepted[q] {
			s.fail("baseline %d: its datagram %d was never accepted by the client", tick, q)
		}
	}
	if r := s.client.rb.Get(tick); r == nil || r.Parts != len(seqs) {
		s.fail("baseline %d not held whole by the client (%v)", tick, r)
	}
}

func (s *e2eServer) receive(b []byte, now time.Time) {
	h, _, err := wire.ParseHeader(b, wire.ToServer)
	if err != nil {
		s.fail("ParseHeader: %v", err)
	}
	if s.link.Seen(h.Seq) {
		s.recvDup++
		return
	}
	if h.Type != wire.TypeAck {
		s.fail("unexpected %v datagram", h.Type)
	}
	s.link.Accept(h, len(b), now)
}

type e2eClient struct {
	tb        testing.TB
	link      *Link
	rb        Rebuilder
	snap      wire.Snapshot
	fresh     []wire.EventFrame
	buf       []byte
	send      func(d []byte, now time.Time)
	server    *e2eServer // for the expected bytes of events
	accepted  map[uint16]bool
	delivered []int
	got       int
	newest    uint32
	hasNewest bool
	noBase    int
	otherBase int
	dups      int
}

func newE2EClient(tb testing.TB, now time.Time, total int) *e2eClient {
	return &e2eClient{tb: tb, link: New(testSession, now), accepted: map[uint16]bool{}, delivered: make([]int, total)}
}

func (c *e2eClient) receive(b []byte, now time.Time) {
	tb := c.tb
	tb.Helper()
	h, p, err := wire.ParseHeader(b, wire.ToClient)
	if err != nil {
		tb.Fatalf("client: ParseHeader: %v", err)
	}
	if c.link.Seen(h.Seq) {
		c.dups++
		return
	}
	switch h.Type {
	case wire.TypeSnapshot:
		if err := c.snap.Decode(p); err != nil {
			tb.Fatalf("client: Decode of snapshot datagram %d: %v", h.Seq, err)
		}
		r, err := c.rb.Rebuild(&c.snap)
		switch {
		case errors.Is(err, ErrNoBaseline):
			c.noBase++
			return // dropped, not acknowledged
		case errors.Is(err, ErrOtherBaseline):
			c.otherBase++
			return
		case err != nil:
			tb.Fatalf("client: Rebuild of tick %d (datagram %d): %v", c.snap.Tick, h.Seq, err)
		}
		if !c.hasNewest || r.Tick > c.newest {
			c.newest, c.hasNewest = r.Tick, true
		}
	case wire.TypeEvent:
		c.fresh, err = c.link.ReceiveEvents(p, c.fresh[:0])
		if err != nil {
			tb.Fatalf("client: ReceiveEvents: %v", err)
		}
		for _, f := range c.fresh {
			k := int(f.ID) // fewer than 65536 events: the id is the number
			if k >= len(c.server.expected) {
				tb.Fatalf("client: event id %d never queued", f.ID)
			}
			if !bytes.Equal(f.Data, c.server.expected[k]) {
				tb.Fatalf("client: event %d changed in transit", k)
			}
			var ev wire.Event
			if err := wire.ParseEvent(f.Data, &ev); err != nil || ev.Tick != uint32(k) {
				tb.Fatalf("client: event %d does not parse back: %v", k, err)
			}
			c.delivered[k]++
			if c.delivered[k] > 1 {
				tb.Fatalf("client: event %d delivered twice", k)
			}
			c.got++
		}
	default:
		tb.Fatalf("client: unexpected %v datagram", h.Type)
	}
	c.link.Accept(h, len(b), now)
	c.accepted[h.Seq] = true
}

func (c *e2eClient) sendAck(now time.Time) {
	c.buf, _ = c.link.AppendDatagram(c.buf[:0], wire.TypeAck, nil, now)
	c.send(c.buf, now)
}

// inSync reports whether the client's newest rebuilt snapshot is the
// server's world.
func (c *e2eClient) inSync(ents []wire.Entity, players []wire.PlayerState) bool {
	if !c.hasNewest {
		return false
	}
	r := c.rb.Get(c.newest)
	if r == nil || !equalEntities(r.Entities, ents) || r.NumPlayers != len(players) {
		return false
	}
	for i, p := range r.PlayerStates() {
		if p != players[i] {
			return false
		}
	}
	return true
}

// ---- The in-memory test ----

func TestEndToEndInMemory(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			runInMemory(t, seed, 10000)
		})
	}
}

func runInMemory(t *testing.T, seed uint64, total int) {
	r := rand.New(rand.NewPCG(seed, 0xE2E))
	bad := netsim.Impairment{Loss: 0.2, Dup: 0.05, Reorder: 0.1, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}
	down := netsim.NewPipe(bad, int64(2*seed))
	up := netsim.NewPipe(bad, int64(2*seed+1))
	// 10 a tick on average: at 20 (1200/s), five losses in a row of one
	// event (0.2^5) stall the window near its 1024 limit (5.3).
	srv := newE2EServer(t, r, t0, total, func() int { return r.IntN(21) })
	cli := newE2EClient(t, t0, total)
	srv.client, cli.server = cli, srv
	srv.send, cli.send = down.Send, up.Send
	buf := make([]byte, 0, wire.MaxDatagram)

	tickAt := func(k int) time.Time { return t0.Add(time.Duration(k) * time.Second / 60) }
	srvTicks, cliTicks := 0, 0
	var stopAt, syncAt time.Time
	var rttAtStop time.Duration
	stopped, synced := false, false
	var final []wire.Entity
	var finalPlayers []wire.PlayerState
	end := t0.Add(60 * time.Second)
	for now := t0; ; now = now.Add(time.Millisecond) {
		if now.After(end) {
			t.Fatalf("not done after 60 s of simulated time: %d/%d events delivered (queued %d, unacked %d), stopped %v synced %v",
				cli.got, total, srv.queued, srv.link.Unacked(), stopped, synced)
		}
		for b, ok := down.Receive(buf[:0], now); ok; b, ok = down.Receive(buf[:0], now) {
			cli.receive(b, now)
		}
		for b, ok := up.Receive(buf[:0], now); ok; b, ok = up.Receive(buf[:0], now) {
			srv.receive(b, now)
		}
		for !tickAt(srvTicks).After(now) {
			srv.step(now)
			srvTicks++
		}
		// The client acknowledges every 1/60 s, out of phase with the
		// server.
		for !tickAt(cliTicks).Add(7 * time.Millisecond).After(now) {
			cli.sendAck(now)
			cliTicks++
		}
		if !stopped && srv.queued == total && cli.got == total {
			// Every event delivered: the world freezes, the network heals.
			stopped, stopAt = true, now
			rttAtStop, _ = srv.link.RTT()
			srv.changing = false
			down.SetImpairment(netsim.Impairment{})
			up.SetImpairment(netsim.Impairment{})
			final = srv.world.entities(nil)
			finalPlayers = append([]wire.PlayerState(nil), srv.world.players...)
		}
		if stopped && !synced && cli.inSync(final, finalPlayers) {
			synced, syncAt = true, now
		}
		if stopped && now.Sub(stopAt) >= time.Second {
			break
		}
	}
	if !synced || syncAt.Sub(stopAt) > 250*time.Millisecond {
		t.Fatalf("the client's newest snapshot did not match the world within 250 ms (synced %v after %v)", synced, syncAt.Sub(stopAt))
	}
	if !cli.inSync(final, finalPlayers) {
		t.Fatalf("the client left the world's state after it synced")
	}
	for k, n := range cli.delivered {
		if n != 1 {
			t.Fatalf("event %d delivered %d times", k, n)
		}
	}
	if srv.link.Unacked() != 0 {
		t.Fatalf("%d events unacknowledged at the end", srv.link.Unacked())
	}
	// The run must have exercised what it claims to.
	if ds := down.Stats(); srv.deltas == 0 || srv.fulls == 0 || srv.multi == 0 || ds.Dropped == 0 || ds.Duplicated == 0 || ds.Reordered == 0 || cli.dups == 0 {
		t.Fatalf("weak run: %d deltas, %d fulls, %d multi-datagram, down %v, %d duplicates seen", srv.deltas, srv.fulls, srv.multi, ds, cli.dups)
	}
	st := srv.link.Stats()
	t.Logf("seed %d: events in %v, synced %v after stop; snapshots %d delta / %d full / %d multi-datagram, max baseline age %d; "+
		"max unacked %d; events sent %d resent %d; RTT before healing %v; client dropped %d no-baseline %d other-baseline, %d duplicates",
		seed, stopAt.Sub(t0), syncAt.Sub(stopAt), srv.deltas, srv.fulls, srv.multi, srv.maxAge,
		srv.maxUnacked, st.EventsSent, st.EventsResent, rttAtStop, cli.noBase, cli.otherBase, cli.dups)
}
