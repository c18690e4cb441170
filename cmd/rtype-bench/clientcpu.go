package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"rtype/game/view"
	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/sim"
	"rtype/vocab"
)

// Section 3: the client's CPU per drawn frame, headless. A busy world of
// about 300 entities runs in process with the server's side of the link
// (its events, and its snapshots through link.SnapshotSender as the server
// sends them: not timed); its datagrams go straight to the client's side,
// which does what net/client does with them, and the game's own view
// (rtype/game/view, the code the game runs) makes every frame:
//
//	rebuild: ParseHeader, Seen, Snapshot.Decode, Rebuilder.Rebuild,
//	         World.ApplySnapshotAt, Link.Accept (every third frame)
//	events:  ParseHeader, Seen, Link.ReceiveEvents, ParseEvent,
//	         World.ApplyEventAt, Link.Accept
//	frames:  World.Frames (what Client.Frames copies under its lock),
//	         called by View.Update
//	view:    the rest of View.Update (events to effects, prediction,
//	         interpolation clocks, HUD) and View.Frame (interpolation and
//	         prediction at the frame's time, sprites, effects, HUD)
//
// The view is player 0's, holding the actions the server applies to
// player 0 (busyActions), so that its own ship is predicted as in a game.
// The client's Input datagram goes back to the server's link at every
// frame, so that its baselines are 3 ticks old, as on a good network.
// Frames are 1/60 s apart on a simulated clock: one tick per frame.

// clientStage names the timed stages.
const (
	stRebuild = iota
	stEvents
	stFrames
	stView
	numStages
)

var stageNames = [numStages]string{"rebuild", "events", "frames", "view"}

// clientPipe is the in-process server and client of section 3.
type clientPipe struct {
	w     *sim.World
	i     int // input step
	sl    *link.Link
	hist  link.History
	snd   link.SnapshotSender
	vents []vocab.Entity
	vpls  []vocab.Player
	ents  []wire.Entity
	pls   []wire.PlayerState
	inbox [][]byte // datagrams of this frame
	nin   int
	out   []byte

	cl     *link.Link
	world  *client.World
	rb     link.Rebuilder
	snap   wire.Snapshot
	fr     []wire.EventFrame
	ev     wire.Event
	events []wire.Event // applied, for the view's DrainEvents
	v      *view.View
	vf     view.Frame
	now    time.Time
	// framesTime and framesAllocs are what World.Frames took inside the
	// view's Update, measured with timeFrames and countFrames.
	framesTime              time.Duration
	framesAllocs            uint64
	timeFrames, countFrames bool
	ms                      runtime.MemStats

	// Counters.
	snapshots, records, snapBytes, nevents int
}

func newClientPipe(seed uint64) *clientPipe {
	now := time.Unix(1_000_000, 0)
	p := &clientPipe{
		w:     newBusyWorld(busyRules(3, 3), seed, 1200),
		i:     1200,
		sl:    link.New(1, now),
		cl:    link.New(1, now),
		world: client.NewWorld(wire.Features{}),
		now:   now,
		out:   make([]byte, 0, wire.MaxDatagram),
	}
	p.sl.Baselines = &p.hist
	p.v = view.New(p, view.Config{Rules: p.w.Rules(), Clock: func() time.Time { return p.now }, Name: "ship0"})
	// The joining client gets the world as events (4.6).
	var evs []wire.Event
	evs = p.w.AppendJoins(evs)
	evs = p.w.AppendSpawns(evs)
	for k := range evs {
		p.sl.QueueEvent(&evs[k])
	}
	return p
}

// The client side of the pipe is the view's Source, as a *client.Client
// is the game's.

// Player is the view's player: 0.
func (p *clientPipe) Player() uint8 { return 0 }

// SetInput is ignored: the server holds busyInput's actions.
func (p *clientPipe) SetInput(uint8) {}

// Frames copies the world's frame history, as Client.Frames does under its
// lock, and measures it when asked.
func (p *clientPipe) Frames(dst []client.Frame) []client.Frame {
	switch {
	case p.timeFrames:
		t0 := time.Now()
		dst = p.world.Frames(dst)
		p.framesTime += time.Since(t0)
	case p.countFrames:
		runtime.ReadMemStats(&p.ms)
		m0 := p.ms.Mallocs
		dst = p.world.Frames(dst)
		runtime.ReadMemStats(&p.ms)
		p.framesAllocs += p.ms.Mallocs - m0
	default:
		dst = p.world.Frames(dst)
	}
	return dst
}

// DrainEvents appends the events applied since the last call.
func (p *clientPipe) DrainEvents(dst []wire.Event) []wire.Event {
	dst = append(dst, p.events...)
	clear(p.events)
	p.events = p.events[:0]
	return dst
}

// Players returns the world's player table.
func (p *clientPipe) Players() [wire.MaxPlayers]client.Player { return p.world.Players() }

// Stats returns the round-trip time of the link, the measure the view
// uses.
func (p *clientPipe) Stats() client.Stats {
	rtt, ok := p.cl.RTT()
	return client.Stats{RTT: rtt, HasRTT: ok}
}

// push queues a datagram for the client.
func (p *clientPipe) push(d []byte) {
	if p.nin == len(p.inbox) {
		p.inbox = append(p.inbox, make([]byte, 0, wire.MaxDatagram))
	}
	p.inbox[p.nin] = append(p.inbox[p.nin][:0], d...)
	p.nin++
}

// serve runs one server tick and queues its datagrams: the snapshot every
// third tick, then the events, as server.stepGame does.
func (p *clientPipe) serve() {
	busyInput(p.w, p.i)
	p.i++
	p.w.Step()
	evs := p.w.TakeEvents()
	for k := range evs {
		p.sl.QueueEvent(&evs[k])
	}
	p.nin = 0
	if tick := p.w.Tick(); tick%3 == 0 {
		p.vents = p.w.AppendEntities(p.vents[:0])
		p.vpls = p.w.AppendPlayers(p.vpls[:0])
		p.ents = wire.AppendEntities(p.ents[:0], tick, p.vents)
		p.pls = wire.AppendPlayers(p.pls[:0], p.vpls)
		for _, d := range p.snd.Datagrams(p.sl, tick, p.pls, p.ents, p.now) {
			p.push(d)
		}
	}
	for {
		var ok bool
		p.out, ok = p.sl.AppendEvents(p.out[:0], p.now)
		if !ok {
			break
		}
		p.push(p.out)
	}
}

// receive is the client's handling of one datagram (net/client's receive
// without its lock and counters). It returns its stage.
func (p *clientPipe) receive(d []byte) int {
	h, pl, err := wire.ParseHeader(d, wire.ToClient)
	if err != nil || p.cl.Seen(h.Seq) {
		return stEvents
	}
	switch h.Type {
	case wire.TypeSnapshot:
		if p.snap.Decode(pl) != nil {
			return stRebuild
		}
		r, err := p.rb.Rebuild(&p.snap)
		if err != nil {
			return stRebuild
		}
		p.world.ApplySnapshotAt(r, p.now)
		p.cl.Accept(h, len(d), p.now)
		p.snapshots++
		p.records += len(p.snap.Records)
		p.snapBytes += len(d)
		return stRebuild
	case wire.TypeEvent:
		p.fr, err = p.cl.ReceiveEvents(pl, p.fr[:0])
		if err != nil {
			return stEvents
		}
		p.cl.Accept(h, len(d), p.now)
		for _, f := range p.fr {
			if wire.ParseEvent(f.Data, &p.ev) == nil {
				if p.world.ApplyEventAt(&p.ev, p.now) {
					p.events = append(p.events, p.ev)
				}
				p.nevents++
			}
		}
	}
	return stEvents
}

// ack sends the client's Input of the frame to the server's link.
func (p *clientPipe) ack() {
	p.out, _ = p.cl.AppendDatagram(p.out[:0], wire.TypeInput, []byte{busyActions(0, p.i-1)}, p.now)
	if h, _, err := wire.ParseHeader(p.out, wire.ToServer); err == nil {
		p.sl.Accept(h, len(p.out), p.now)
	}
}

// frame runs one frame. With timed, it adds each stage's time to t; with
// allocs, each stage's allocations to a (reading the memory statistics
// around each stage: slow, so not together with timed).
func (p *clientPipe) frame(t *[numStages]time.Duration, a *[numStages]uint64) {
	var ms runtime.MemStats
	mark := func() uint64 {
		if a == nil {
			return 0
		}
		runtime.ReadMemStats(&ms)
		return ms.Mallocs
	}
	p.serve()
	for k := range p.inbox[:p.nin] {
		m0 := mark()
		t0 := time.Now()
		st := p.receive(p.inbox[k])
		if t != nil {
			t[st] += time.Since(t0)
		}
		if a != nil {
			a[st] += mark() - m0
		}
	}
	// The game's frame: Update with the actions held, then the frame drawn
	// at the same time (a 60 Hz display). World.Frames, inside Update, is
	// measured apart (Frames above).
	p.framesTime, p.framesAllocs = 0, 0
	p.timeFrames, p.countFrames = t != nil, a != nil
	m0, t0 := mark(), time.Now()
	p.v.Update(busyActions(0, p.i-1))
	p.v.Frame(&p.vf, p.now)
	t1, m1 := time.Now(), mark()
	p.timeFrames, p.countFrames = false, false
	if t != nil {
		t[stFrames] += p.framesTime
		t[stView] += t1.Sub(t0) - p.framesTime
	}
	if a != nil {
		a[stFrames] += p.framesAllocs
		a[stView] += m1 - m0 - p.framesAllocs
	}
	p.ack()
	p.now = p.now.Add(time.Second / 60)
}

func runClientCPU(ctx context.Context, o *opts) ([]row, error) {
	warm, timed, counted := 1200, 3600, 600
	if o.quick {
		warm, timed, counted = 300, 300, 60
	}
	p := newClientPipe(o.seed)
	for range warm {
		p.frame(nil, nil)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// Timing pass.
	p.snapshots, p.records, p.snapBytes, p.nevents = 0, 0, 0, 0
	var t [numStages]time.Duration
	totals := make([]time.Duration, 0, timed)
	drawnSum := 0
	for range timed {
		var ft [numStages]time.Duration
		p.frame(&ft, nil)
		var sum time.Duration
		for s := range ft {
			t[s] += ft[s]
			sum += ft[s]
		}
		totals = append(totals, sum)
		drawnSum += len(p.vf.Sprites)
	}
	snaps, recs, bytes, evs := p.snapshots, p.records, p.snapBytes, p.nevents
	// Allocation pass.
	var a [numStages]uint64
	for range counted {
		p.frame(nil, &a)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	f := float64(timed)
	per := func(s int) time.Duration { return t[s] / time.Duration(timed) }
	var total time.Duration
	for s := range t {
		total += t[s]
	}
	mean := total / time.Duration(timed)
	allocs := ""
	var allocSum uint64
	for s := range a {
		allocs += fmt.Sprintf("%s %s, ", stageNames[s], frac(float64(a[s])/float64(counted)))
		allocSum += a[s]
	}
	cond := fmt.Sprintf("%.0f entities drawn", float64(drawnSum)/f)
	snapPer := time.Duration(0)
	if snaps > 0 {
		snapPer = t[stRebuild] / time.Duration(snaps)
	}
	return []row{
		{"Rebuild: Decode, Rebuild, ApplySnapshot (+ header, Accept)", cond,
			fmt.Sprintf("%s per frame (%s per snapshot)", dur(per(stRebuild)), dur(snapPer)),
			fmt.Sprintf("%.1f records, %.0f B per snapshot datagram (3-tick baselines)", float64(recs)/float64(max(1, snaps)), float64(bytes)/float64(max(1, snaps)))},
		{"Event application: ReceiveEvents, ParseEvent, ApplyEvent", cond, fmt.Sprintf("%s per frame", dur(per(stEvents))),
			fmt.Sprintf("%.1f events per frame", float64(evs)/f)},
		{"Frame history copy (World.Frames, as Client.Frames)", cond, fmt.Sprintf("%s per frame", dur(per(stFrames))), "20 frames of the last second"},
		{"The game's view (rtype/game/view): Update + Frame, without the copy above", cond, fmt.Sprintf("%s per frame", dur(per(stView))),
			"events to effects, own ship predicted, interpolation at the frame's time, HUD"},
		{"Total per frame, headless", cond,
			fmt.Sprintf("mean %s, p50 %s, p99 %s, max %s", dur(mean), dur(quantile(totals, 0.5)), dur(quantile(totals, 0.99)), dur(quantile(totals, 1))),
			fmt.Sprintf("%.1f%% of a 16.7 ms frame; %d frames of 1/60 s", 100*mean.Seconds()*60, timed)},
		{"Allocations per frame in steady state", cond,
			fmt.Sprintf("%s (%s)", frac(float64(allocSum)/float64(counted)), allocs[:len(allocs)-2]),
			fmt.Sprintf("over %d frames after %d of warm-up; target 0", counted, warm+timed)},
		{"CPU side of drawing 300 entities", "not measured here",
			"see `BenchmarkDrawFrame300` in package render (below)", "cmd/ must not link Ebitengine"},
	}, nil
}
