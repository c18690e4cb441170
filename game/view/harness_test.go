package view

import (
	"math/rand/v2"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/sim"
)

// t0 is the tests' time origin.
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// tickDur is a server tick.
const tickDur = time.Second / wire.TickRate

// clock is an injected clock the tests move.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// game is a real simulation (sim.World) and a real client world
// (net/client.World) joined by a delay line instead of sockets: a View's
// Source. Each Input and each server datagram (a snapshot every
// wire.SnapshotTicks ticks, the events of each tick) takes oneWay plus a
// uniform jitter in [-jitter, +jitter]; events keep their order (the link
// delivers them in order), snapshots may not. The server keeps the
// newest Input it has received (PROTOCOL.md 4.2). It is driven by the
// test: advance runs the server and delivers what arrived by the clock's
// present.
type game struct {
	t       *testing.T
	w       *sim.World
	cw      *client.World
	clk     *clock
	me      uint8
	oneWay  time.Duration
	jitter  time.Duration
	rng     *rand.Rand
	phase   time.Duration // server tick 0 is at t0 + phase
	ran     uint32        // server ticks run
	inputs  []sentInput   // in flight or applied
	applied time.Time     // send time of the newest Input applied
	mail    []datagram    // in flight to the client
	lastEv  time.Time     // arrival of the last event datagram
	drained []wire.Event  // events applied, not drained yet
	ents    []wire.Entity
	pls     []wire.PlayerState
	// shipX, shipY are player me's ship's position after each server tick
	// (index: tick), as the wire gives it; history the entities.
	shipX, shipY []float64
	history      [][]wire.Entity
}

type sentInput struct {
	sent, arrival time.Time
	actions       uint8
}

type datagram struct {
	arrival time.Time
	snap    *link.Rebuilt
	events  []wire.Event
}

// newGame starts a game whose player me is the View's; rules default to
// no waves and no death.
func newGame(t *testing.T, clk *clock, rules *sim.Rules, oneWay, jitter time.Duration, seed uint64) *game {
	r := sim.DefaultRules()
	r.FirstWave = 1 << 30
	r.JoinInvulnTicks = 1 << 30
	if rules != nil {
		r = *rules
	}
	g := &game{t: t, w: sim.New(r, seed), cw: client.NewWorld(wire.Features{}), clk: clk, oneWay: oneWay, jitter: jitter,
		rng: rand.New(rand.NewPCG(seed, 7)), phase: 7 * time.Millisecond}
	g.w.AddPlayer(g.me, "Ripley")
	g.send(t0, nil, g.w.TakeEvents())
	return g
}

// delay returns one datagram's delay.
func (g *game) delay() time.Duration {
	if g.jitter == 0 {
		return g.oneWay
	}
	return g.oneWay + time.Duration(g.rng.Int64N(2*int64(g.jitter)+1)) - g.jitter
}

// send puts a datagram on its way at time at.
func (g *game) send(at time.Time, snap *link.Rebuilt, events []wire.Event) {
	d := datagram{arrival: at.Add(g.delay()), snap: snap}
	if len(events) > 0 {
		d.events = append([]wire.Event(nil), events...)
		if d.arrival.Before(g.lastEv) {
			d.arrival = g.lastEv
		}
		g.lastEv = d.arrival
	}
	g.mail = append(g.mail, d)
}

// tickAt returns the time of server tick j.
func (g *game) tickAt(j uint32) time.Time { return t0.Add(g.phase + time.Duration(j)*tickDur) }

// advance runs the server's ticks due by the clock's present and
// delivers the datagrams arrived by then.
func (g *game) advance() {
	now := g.clk.now
	for !g.tickAt(g.ran + 1).After(now) {
		g.ran++
		ts := g.tickAt(g.ran)
		for _, in := range g.inputs {
			if !in.arrival.After(ts) && in.sent.After(g.applied) {
				g.w.SetInput(g.me, in.actions)
				g.applied = in.sent
			}
		}
		g.w.Step()
		g.send(ts, nil, g.w.TakeEvents())
		g.ents = wire.AppendEntities(g.ents[:0], g.w.Tick(), g.w.AppendEntities(nil))
		x, y := g.ship()
		for uint32(len(g.shipX)) <= g.w.Tick() {
			g.shipX, g.shipY = append(g.shipX, x), append(g.shipY, y)
			g.history = append(g.history, append([]wire.Entity(nil), g.ents...))
		}
		if g.w.Tick()%wire.SnapshotTicks == 0 {
			r := &link.Rebuilt{Tick: g.w.Tick(), Entities: append([]wire.Entity(nil), g.ents...)}
			g.pls = wire.AppendPlayers(g.pls[:0], g.w.AppendPlayers(nil))
			r.NumPlayers = copy(r.Players[:], g.pls)
			g.send(ts, r, nil)
		}
	}
	keep := g.mail[:0]
	for _, d := range g.mail {
		if d.arrival.After(now) {
			keep = append(keep, d)
			continue
		}
		if d.snap != nil {
			g.cw.ApplySnapshotAt(d.snap, d.arrival)
		}
		for i := range d.events {
			if g.cw.ApplyEvent(&d.events[i]) {
				g.drained = append(g.drained, d.events[i])
			}
		}
	}
	g.mail = keep
}

// ship returns player me's ship's position in the entities of the last
// tick, as the wire gives it.
func (g *game) ship() (x, y float64) {
	id := g.w.Ship(g.me)
	for _, e := range g.ents {
		if e.ID == id {
			return float64(e.X()), float64(e.Y())
		}
	}
	return -1, -1
}

// serverAt returns player me's ship's position after the first server
// tick at or after at (the one that applies an Input arrived at at), and
// whether the server ran it.
func (g *game) serverAt(at time.Time) (x, y float64, ok bool) {
	j := int((at.Sub(t0.Add(g.phase)) + tickDur - 1) / tickDur)
	if j < 0 || j >= len(g.shipX) {
		return 0, 0, false
	}
	return g.shipX[j], g.shipY[j], true
}

// entityAt returns entity id after server tick j, as the wire gives it.
func (g *game) entityAt(j int, id uint32) (wire.Entity, bool) {
	if j < 0 || j >= len(g.history) {
		return wire.Entity{}, false
	}
	for _, e := range g.history[j] {
		if e.ID == id {
			return e, true
		}
	}
	return wire.Entity{}, false
}

// presentTick returns the server's last tick at local time at.
func (g *game) presentTick(at time.Time) int { return int(at.Sub(t0.Add(g.phase)) / tickDur) }

func (g *game) Player() uint8 { return g.me }

func (g *game) SetInput(actions uint8) {
	now := g.clk.now
	g.inputs = append(g.inputs, sentInput{sent: now, arrival: now.Add(g.delay()), actions: actions})
}

func (g *game) Frames(dst []client.Frame) []client.Frame { return g.cw.Frames(dst) }

func (g *game) DrainEvents(dst []wire.Event) []wire.Event {
	dst = append(dst, g.drained...)
	g.drained = g.drained[:0]
	return dst
}

func (g *game) Players() [wire.MaxPlayers]client.Player { return g.cw.Players() }

func (g *game) Stats() client.Stats { return client.Stats{RTT: 2 * g.oneWay, HasRTT: true} }

// newView returns a View of src on clk with the reference rules.
func newView(src Source, clk *clock) *View {
	return New(src, Config{Rules: sim.DefaultRules(), Clock: clk.Now, Epoch: t0, Name: "Ripley"})
}

// sim0 are the reference rules the tests' games and Views use.
var sim0 = sim.DefaultRules()
