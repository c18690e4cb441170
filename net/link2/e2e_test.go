package link2

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/link/linktest"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// The v2 counterpart of e2e_test.go: a server-like end sends a changing
// world with SnapshotSender and events framed as 7.7 says, a client-like
// end rebuilds it with Rebuilder, through netsim.Pipe on simulated time.

// simWorld2 changes entities' motions, animations and kinds, creates and
// removes entities, and changes players, at random, 60 ticks a second.
// Slot i is network index i+1.
type simWorld struct {
	r       *rand.Rand
	tick    uint32
	alive   []bool
	gens    []uint8
	ents    []wire2.Entity
	players []wire2.Player
}

func newSimWorld(r *rand.Rand, slots int) *simWorld {
	w := &simWorld{r: r, tick: 600, alive: make([]bool, slots), gens: make([]uint8, slots), ents: make([]wire2.Entity, slots)}
	for i := range w.ents {
		if r.IntN(10) < 7 {
			w.spawn(i)
		}
	}
	w.players = []wire2.Player{
		{PlayerState: wire.PlayerState{Player: 0, HasShip: true, Ship: wire.MakeID(1, 0), Lives: 3}, InvulnStart: 500, InvulnTicks: 120},
		{PlayerState: wire.PlayerState{Player: 3, HasShip: true, Ship: wire.MakeID(2, 0), Lives: 3}},
	}
	return w
}

// motion returns a random motion from the current tick.
func (w *simWorld) motion() wire.Motion {
	r := w.r
	m := wire.Motion{Model: wire.Model(r.IntN(3)), T0: w.tick - uint32(r.IntN(30)),
		X0: int16(r.IntN(10240)), Y0: int16(r.IntN(5760)), VX: int16(r.IntN(20000) - 10000), VY: int16(r.IntN(6000) - 3000)}
	if m.Model == wire.ModelSine {
		m.Amp, m.Period, m.Phase = uint16(r.IntN(400)), uint16(1+r.IntN(200)), uint16(r.Uint32())
	}
	return m
}

func (w *simWorld) anim() wire.Anim {
	return wire.Anim{Frame0: uint8(w.r.IntN(8)), Ticks: uint8(w.r.IntN(10)), Count: uint8(w.r.IntN(9))}
}

func (w *simWorld) spawn(i int) {
	w.alive[i] = true
	w.gens[i]++
	m := w.motion()
	w.ents[i] = wire2.MakeEntity(wire.MakeID(uint32(i+1), w.gens[i]), uint8(1+w.r.IntN(4)), &m, w.anim())
}

func (w *simWorld) step() {
	r := w.r
	w.tick++
	for i := range w.ents {
		e := &w.ents[i]
		switch {
		case !w.alive[i]:
			if r.IntN(400) == 0 {
				w.spawn(i)
			}
		case r.IntN(900) == 0:
			w.alive[i] = false
		case r.IntN(200) == 0: // a turn
			m := w.motion()
			*e = wire2.MakeEntity(e.ID, e.Kind(), &m, e.Anim())
		case r.IntN(400) == 0: // an animation
			m := e.Motion()
			*e = wire2.MakeEntity(e.ID, e.Kind(), &m, w.anim())
		case r.IntN(3000) == 0: // another kind, same id
			m := e.Motion()
			*e = wire2.MakeEntity(e.ID, uint8(1+r.IntN(4)), &m, e.Anim())
		}
	}
	for i := range w.players {
		p := &w.players[i]
		if r.IntN(30) == 0 {
			p.Score += uint32(r.IntN(500))
		}
		if r.IntN(300) == 0 {
			p.HasShip = !p.HasShip
			p.Ship = wire.NoEntity
			if p.HasShip {
				p.Ship = wire.MakeID(uint32(1+r.IntN(len(w.ents))), uint8(r.IntN(256)))
				p.Lives = uint8(r.IntN(5))
				p.InvulnStart, p.InvulnTicks = w.tick, 120
			}
		}
	}
}

// entities appends the live entities, sorted by wire.Less.
func (w *simWorld) entities(dst []wire2.Entity) []wire2.Entity {
	for i := range w.ents {
		if w.alive[i] {
			dst = append(dst, w.ents[i])
		}
	}
	return dst
}

type e2eServer struct {
	tb       testing.TB
	link     *link.Link
	snd      SnapshotSender
	world    *simWorld
	changing bool
	cur      []wire2.Entity
	buf      []byte
	send     func(d []byte, now time.Time)
	client   *e2eClient
	snapSeqs map[uint32][]uint16

	total, queued int
	perTick       func() int
	expected      [][]byte

	sent, skipped, deltas, fulls, multi int
}

func (s *e2eServer) fail(format string, args ...any) {
	s.tb.Helper()
	s.tb.Fatalf("server tick %d: %s", s.world.tick, fmt.Sprintf(format, args...))
}

func (s *e2eServer) step(now time.Time) {
	if s.changing {
		s.world.step()
	} else {
		s.world.tick++ // the world stands still; time goes on
	}
	tick := s.world.tick
	for n := s.perTick(); n > 0 && s.queued < s.total; n-- {
		ev := linktest.EventFor(s.queued)
		if err := s.link.QueueEvent(ev); err != nil {
			s.fail("QueueEvent %d: %v", s.queued, err)
		}
		s.expected = append(s.expected, wire2.AppendEvent(nil, ev))
		s.queued++
	}
	if tick%3 == 0 {
		s.cur = s.world.entities(s.cur[:0])
		var base *wire2.Frame
		if h := baselines(s.link); h != nil {
			base = h.Baseline()
		}
		ds := s.snd.Datagrams(s.link, tick, s.world.players, s.cur, now)
		switch {
		case len(ds) == 0:
			s.skipped++
		case base != nil:
			s.checkBaseline(base.Tick)
			s.deltas++
		default:
			s.fulls++
		}
		if len(ds) > 1 {
			s.multi++
		}
		for _, d := range ds {
			h, _, err := wire2.ParseHeader(d, wire.ToClient)
			if err != nil || h.Type != wire.TypeSnapshot {
				s.fail("snapshot datagram: %v", err)
			}
			s.snapSeqs[tick] = append(s.snapSeqs[tick], h.Seq)
			s.sent++
			s.send(d, now)
		}
	}
	for {
		var ok bool
		if s.buf, ok = s.link.AppendEvents(s.buf[:0], now); !ok {
			break
		}
		s.send(s.buf, now)
	}
}

// checkBaseline: the baseline is a snapshot every datagram of which the
// client accepted and holds whole.
func (s *e2eServer) checkBaseline(tick uint32) {
	seqs := s.snapSeqs[tick]
	for _, q := range seqs {
		if !s.client.accepted[q] {
			s.fail("baseline %d: its datagram %d was never accepted by the client", tick, q)
		}
	}
	if r := s.client.rb.Get(tick); len(seqs) == 0 || r == nil || r.Parts != len(seqs) {
		s.fail("baseline %d not held whole by the client", tick)
	}
}

func (s *e2eServer) receive(b []byte, now time.Time) {
	h, _, err := wire2.ParseHeader(b, wire.ToServer)
	if err != nil || h.Type != wire.TypeAck {
		s.fail("datagram from the client: %v, type %v", err, h.Type)
	}
	if !s.link.Seen(h.Seq) {
		s.link.Accept(h, len(b), now)
	}
}

type e2eClient struct {
	tb        testing.TB
	link      *link.Link
	rb        Rebuilder
	snap      wire2.Snapshot
	fresh     []wire.EventFrame
	buf       []byte
	send      func(d []byte, now time.Time)
	server    *e2eServer
	accepted  map[uint16]bool
	delivered []int
	got       int
	newest    uint32
	hasNewest bool
	noBase    int
	dups      int
}

func (c *e2eClient) receive(b []byte, now time.Time) {
	tb := c.tb
	h, p, err := wire2.ParseHeader(b, wire.ToClient)
	if err != nil {
		tb.Fatalf("client: ParseHeader2: %v", err)
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
		case errors.Is(err, link.ErrNoBaseline):
			c.noBase++
			return // dropped, not acknowledged
		case err != nil:
			tb.Fatalf("client: Rebuild of tick %d (datagram %d): %v", c.snap.Tick, h.Seq, err)
		}
		if !c.hasNewest || r.Tick > c.newest {
			c.newest, c.hasNewest = r.Tick, true
		}
	case wire.TypeEvent:
		if c.fresh, err = c.link.ReceiveEvents(p, c.fresh[:0]); err != nil {
			tb.Fatalf("client: ReceiveEvents: %v", err)
		}
		for _, f := range c.fresh {
			k := int(f.ID) // ids are event numbers: 32 bits, no wrap
			if k >= len(c.server.expected) || !bytes.Equal(f.Data, c.server.expected[k]) {
				tb.Fatalf("client: event %d never queued, or changed in transit", k)
			}
			if c.delivered[k]++; c.delivered[k] > 1 {
				tb.Fatalf("client: event %d delivered twice", k)
			}
			c.got++
		}
		c.link.Accept(h, len(b), now)
		c.accepted[h.Seq] = true
		c.sendAck(now) // at once (7.7)
		return
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
func (c *e2eClient) inSync(ents []wire2.Entity, players []wire2.Player) bool {
	if !c.hasNewest {
		return false
	}
	r := c.rb.Get(c.newest)
	return r != nil && slices.Equal(r.Entities, ents) && slices.Equal(r.Players, players)
}

// TestEndToEndInMemory2 is TestEndToEndInMemory for v2 sessions: 20%
// loss, 5% duplicates, 10% reordered, 40 ± 20 ms each way. Every event
// arrives exactly once; once the world stops changing and the network
// heals, the client's newest rebuilt snapshot equals the server's world
// within 250 ms, and the server, having nothing new to say, slows down to
// a snapshot every 200 ms (7.9).
func TestEndToEndInMemory(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			runInMemory(t, seed, 10000)
		})
	}
}

func runInMemory(t *testing.T, seed uint64, total int) {
	r := rand.New(rand.NewPCG(seed, 0xE2E2))
	bad := netsim.Impairment{Loss: 0.2, Dup: 0.05, Reorder: 0.1, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}
	down := netsim.NewPipe(bad, int64(2*seed))
	up := netsim.NewPipe(bad, int64(2*seed+1))
	srv := &e2eServer{tb: t, link: link.NewV2(testSession, t0), world: newSimWorld(r, 350), changing: true,
		total: total, perTick: func() int { return r.IntN(21) }, snapSeqs: map[uint32][]uint16{}}
	cli := &e2eClient{tb: t, link: link.NewV2(testSession, t0), accepted: map[uint16]bool{}, delivered: make([]int, total)}
	srv.client, cli.server = cli, srv
	srv.send, cli.send = down.Send, up.Send
	buf := make([]byte, 0, wire.MaxDatagram)

	tickAt := func(k int) time.Time { return t0.Add(time.Duration(k) * time.Second / 60) }
	srvTicks, cliTicks := 0, 0
	var stopAt, syncAt time.Time
	stopped, synced := false, false
	var final []wire2.Entity
	var finalPlayers []wire2.Player
	var sentAtStop, skippedAtStop int
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
		for ; !tickAt(srvTicks).After(now); srvTicks++ {
			srv.step(now)
		}
		// The client sends an Ack (an Input would do) every 1/60 s.
		for ; !tickAt(cliTicks).Add(7 * time.Millisecond).After(now); cliTicks++ {
			cli.sendAck(now)
		}
		if !stopped && srv.queued == total && cli.got == total {
			stopped, stopAt = true, now
			srv.changing = false
			down.SetImpairment(netsim.Impairment{})
			up.SetImpairment(netsim.Impairment{})
			final = srv.world.entities(nil)
			finalPlayers = slices.Clone(srv.world.players)
			sentAtStop, skippedAtStop = srv.sent, srv.skipped
		}
		if stopped && !synced && cli.inSync(final, finalPlayers) {
			synced, syncAt = true, now
		}
		if stopped && now.Sub(stopAt) >= 2*time.Second {
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
	// In the 2 s of a still world, a snapshot every 200 ms (10), give or
	// take the first ones that carry the last changes.
	if n := srv.sent - sentAtStop; n < 9 || n > 14 {
		t.Fatalf("%d snapshot datagrams in the 2 s of a still world, want about 10 (7.9)", n)
	}
	if ds := down.Stats(); srv.deltas == 0 || srv.fulls == 0 || srv.multi == 0 || srv.skipped == skippedAtStop || ds.Dropped == 0 || ds.Duplicated == 0 || ds.Reordered == 0 || cli.dups == 0 {
		t.Fatalf("weak run: %d deltas, %d fulls, %d multi-datagram, %d skipped, down %v, %d duplicates seen",
			srv.deltas, srv.fulls, srv.multi, srv.skipped, ds, cli.dups)
	}
	rtt, _ := srv.link.RTT()
	st := srv.link.Stats()
	t.Logf("seed %d: events in %v, synced %v after stop; snapshots %d delta / %d full / %d multi-datagram / %d skipped; "+
		"events sent %d resent %d; RTT %v; client dropped %d no-baseline, %d duplicates",
		seed, stopAt.Sub(t0), syncAt.Sub(stopAt), srv.deltas, srv.fulls, srv.multi, srv.skipped,
		st.EventsSent, st.EventsResent, rtt, cli.noBase, cli.dups)
}
