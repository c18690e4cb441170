package view

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
)

// game2 is game for a v2 session (PROTOCOL.md Part II): the real
// simulation and a real v2 client world joined by a delay line, with v2
// snapshots (motions), v2 Spawns, and numbered input steps applied by the
// server in order (7.4). Each datagram is lost with probability loss; the
// events are not (the link resends them), they keep their order.
type game2 struct {
	t      *testing.T
	w      *sim.World
	cw     *client.World
	clk    *clock
	me     uint8
	oneWay time.Duration
	jitter time.Duration
	loss   float64
	rng    *rand.Rand
	phase  time.Duration
	ran    uint32

	steps   []client.Step // sent, in order
	inputs  []input2      // in flight
	queue   map[uint32]uint8
	last    uint32
	hasLast bool
	// after is the own ship's position at the tick each step was applied,
	// appliedAt that tick.
	after     map[uint32][2]float64
	appliedAt map[uint32]uint32
	starved   int
	starvedAt []uint32 // the ticks
	droppedAt []uint32 // the ticks a step was dropped (more than 4 waited)

	mail    []datagram2
	lastEv  time.Time
	drained []wire.Event
	ents    []wire2.Entity
	pls     []wire2.Player
	// mode is the game's mode (Mode), Classic when 0.
	mode uint8
}

type input2 struct {
	arrival time.Time
	step    uint32
	actions []uint8 // newest first
}

type datagram2 struct {
	arrival time.Time
	snap    *link2.Rebuilt
	events  []wire.Event
}

// newGame2 starts a v2 game; rules default to no waves and no death.
func newGame2(t *testing.T, clk *clock, rules *sim.Rules, oneWay, jitter time.Duration, loss float64, seed uint64) *game2 {
	r := sim.DefaultRules()
	r.FirstWave = 1 << 30
	r.JoinInvulnTicks = 1 << 30
	if rules != nil {
		r = *rules
	}
	g := &game2{t: t, w: sim.New(r, seed), cw: client.NewWorld(wire.NewFeatures(wire.Version2, wire.Revision)), clk: clk, oneWay: oneWay, jitter: jitter, loss: loss,
		rng: rand.New(rand.NewPCG(seed, 9)), phase: 7 * time.Millisecond,
		queue: map[uint32]uint8{}, after: map[uint32][2]float64{}, appliedAt: map[uint32]uint32{}}
	g.w.AddPlayer(g.me, "Ripley")
	g.send(t0, nil, g.w.TakeEvents())
	return g
}

func (g *game2) delay() time.Duration {
	if g.jitter == 0 {
		return g.oneWay
	}
	return g.oneWay + time.Duration(g.rng.Int64N(2*int64(g.jitter)+1)) - g.jitter
}

func (g *game2) lost() bool { return g.loss > 0 && g.rng.Float64() < g.loss }

func (g *game2) send(at time.Time, snap *link2.Rebuilt, events []wire.Event) {
	if snap != nil && g.lost() {
		return
	}
	d := datagram2{arrival: at.Add(g.delay()), snap: snap}
	if len(events) > 0 {
		d.events = append([]wire.Event(nil), events...)
		if d.arrival.Before(g.lastEv) {
			d.arrival = g.lastEv
		}
		g.lastEv = d.arrival
	}
	g.mail = append(g.mail, d)
}

func (g *game2) tickAt(j uint32) time.Time { return t0.Add(g.phase + time.Duration(j)*tickDur) }

// applyStep is the server's step of 7.4 before each tick.
func (g *game2) applyStep() bool {
	for len(g.queue) > 4 {
		delete(g.queue, lowest(g.queue))
		g.droppedAt = append(g.droppedAt, g.ran)
	}
	if len(g.queue) == 0 {
		if g.hasLast {
			g.starved++
			g.starvedAt = append(g.starvedAt, g.ran)
		}
		return false
	}
	low := lowest(g.queue)
	g.w.SetInput(g.me, g.queue[low])
	delete(g.queue, low)
	g.last, g.hasLast = low, true
	return true
}

func lowest(q map[uint32]uint8) uint32 {
	low := ^uint32(0)
	for k := range q {
		low = min(low, k)
	}
	return low
}

func (g *game2) advance() {
	now := g.clk.now
	for !g.tickAt(g.ran + 1).After(now) {
		g.ran++
		ts := g.tickAt(g.ran)
		keep := g.inputs[:0]
		for _, in := range g.inputs {
			if in.arrival.After(ts) {
				keep = append(keep, in)
				continue
			}
			for i, a := range in.actions {
				s := in.step - uint32(i)
				if _, ok := g.queue[s]; !ok && (!g.hasLast || s > g.last) {
					g.queue[s] = a
				}
			}
		}
		g.inputs = keep
		applied := g.applyStep()
		g.w.Step()
		if applied {
			if m, _, ok := g.w.Motion(g.w.Ship(g.me)); ok {
				x, y, _, _ := m.At(float64(g.w.Tick()))
				g.after[g.last] = [2]float64{x, y}
				g.appliedAt[g.last] = g.w.Tick()
			}
		}
		g.send(ts, nil, g.w.TakeEvents())
		if g.w.Tick()%wire.SnapshotTicks == 0 {
			g.ents = wire2.AppendEntities(g.ents[:0], g.w.AppendEntities(nil))
			g.pls = wire2.AppendPlayers(g.pls[:0], g.w.AppendPlayers(nil))
			for i := range g.pls {
				if g.pls[i].Player == g.me {
					g.pls[i].HasStep, g.pls[i].LastStep = g.hasLast, g.last
				}
			}
			r := &link2.Rebuilt{Frame: wire2.Frame{Tick: g.w.Tick(), Players: slices.Clone(g.pls), Entities: slices.Clone(g.ents)}}
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
			g.cw.ApplyFrame(d.snap, d.arrival)
		}
		for i := range d.events {
			if g.cw.ApplyEvent(&d.events[i]) {
				g.drained = append(g.drained, d.events[i])
			}
		}
	}
	g.mail = keep
}

func (g *game2) Player() uint8 { return g.me }

// SetInput sends an Input of the next step with the last 8 steps, as
// net/client does at each tick with a ship (7.4).
func (g *game2) SetInput(actions uint8) {
	now := g.clk.now
	st := client.Step{Step: uint32(len(g.steps)), Actions: actions, Sent: now}
	g.steps = append(g.steps, st)
	if g.lost() {
		return
	}
	in := input2{arrival: now.Add(g.delay()), step: st.Step}
	for i := 0; i < 8 && i <= int(st.Step); i++ {
		in.actions = append(in.actions, g.steps[int(st.Step)-i].Actions)
	}
	g.inputs = append(g.inputs, in)
}

func (g *game2) Steps(after uint32, dst []client.Step) []client.Step {
	for _, st := range g.steps {
		if after == ^uint32(0) || st.Step > after {
			dst = append(dst, st)
		}
	}
	return dst
}

func (g *game2) Rules() (wire.LoginExt, bool) {
	r := g.w.Rules()
	return wire.LoginExt{ShipSpeed: uint16(r.ShipSpeed), ShipW: uint8(r.ShipW), ShipH: uint8(r.ShipH),
		AreaW: uint16(r.AreaW), AreaH: uint16(r.AreaH), TickRate: uint8(r.TickRate), SnapshotTicks: wire.SnapshotTicks,
		BlinkTicks: uint8(r.BlinkTicks)}, true
}

func (g *game2) Frames(dst []client.Frame) []client.Frame { return g.cw.Frames(dst) }

func (g *game2) DrainEvents(dst []wire.Event) []wire.Event {
	dst = append(dst, g.drained...)
	g.drained = g.drained[:0]
	return dst
}

func (g *game2) Players() [wire.MaxPlayers]client.Player { return g.cw.Players() }

func (g *game2) Mode() uint8 {
	if g.mode == 0 {
		return wire.ModeClassic
	}
	return g.mode
}

func (g *game2) Stats() client.Stats {
	return client.Stats{RTT: 2 * g.oneWay, HasRTT: true, Version: 2}
}

// irregularBetween reports whether the server did not apply the steps
// one per tick at a tick in (from, to]: it repeated a step's actions (its
// queue was empty) or dropped a step (more than 4 waited), 7.4.
func (g *game2) irregularBetween(from, to uint32) bool {
	for _, list := range [][]uint32{g.starvedAt, g.droppedAt} {
		for _, s := range list {
			if s > from && s <= to {
				return true
			}
		}
	}
	return false
}
