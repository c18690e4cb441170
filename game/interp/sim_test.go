package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

// The simulation: a server that ticks at 60 Hz and sends a snapshot every
// 3 ticks, a link with latency, jitter, loss and duplication, a client
// world that records frames like client.World, and a display that calls
// Update and Entities every frame, on a synthetic clock.

const (
	tickRate  = 60
	startTick = 600 // the server's tick at the simulation's start
)

// base is the local time of the simulation's start.
var base = time.Unix(1_000_000, 0)

// server gives the state of the world at a tick.
type server func(tick uint32) []client.Entity

// q rounds like the protocol: positions to 1/8 pixel.
func q(v float64) float32 { return float32(math.Round(v*8) / 8) }

// mover is an entity moving at a constant velocity from (x0, y0) at
// startTick.
func mover(id uint32, x0, y0, vx, vy float64) func(tick uint32) client.Entity {
	return func(tick uint32) client.Entity {
		s := float64(int64(tick)-startTick) / tickRate
		return client.Entity{ID: id, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer,
			X: q(x0 + vx*s), Y: q(y0 + vy*s), VX: float32(vx), VY: float32(vy), Tick: tick}
	}
}

// movers is a world of constant-velocity entities.
func movers(ms ...func(uint32) client.Entity) server {
	return func(tick uint32) []client.Entity {
		es := make([]client.Entity, 0, len(ms))
		for _, m := range ms {
			es = append(es, m(tick))
		}
		return es
	}
}

// netLink describes the network between the server and the client.
type netLink struct {
	latency time.Duration // one way
	jitter  time.Duration // uniform in ±jitter around latency
	loss    float64       // probability a snapshot is lost
	dup     float64       // probability a snapshot arrives twice
	stepAt  time.Duration // when > 0, the latency grows by step from then
	step    time.Duration
	// jitterUntil, when > 0, ends the jitter for snapshots sent from then.
	jitterUntil time.Duration
}

// fakeWorld records frames like client.World: a snapshot older than the
// newest frame adds none, one of the same tick replaces it.
type fakeWorld struct {
	frames    []client.Frame // oldest first, at most client.HistoryLen
	respawned uint32         // tick of the newest Death received
}

func (w *fakeWorld) apply(tick uint32, es []client.Entity) {
	if n := len(w.frames); n > 0 {
		switch newest := w.frames[n-1].Tick; {
		case tick < newest:
			return
		case tick == newest:
			w.frames = w.frames[:n-1]
		}
	}
	if len(w.frames) == client.HistoryLen {
		w.frames = append(w.frames[:0], w.frames[1:]...)
	}
	es = slices.Clone(es)
	for i := range es {
		if es[i].Kind == wire.KindPlayerShip {
			es[i].Respawned = w.respawned
		}
	}
	w.frames = append(w.frames, client.Frame{Tick: tick, Entities: es})
}

// arrival is a datagram reaching the client.
type arrival struct {
	at    time.Duration
	tick  uint32
	death bool
}

// sim is a scenario.
type sim struct {
	name                 string
	link                 netLink
	world                server
	deaths               []uint32      // ticks of Deaths of the ship (a reliable event)
	dur                  time.Duration // simulated time
	stopAt               time.Duration // when > 0, the server sends nothing from then
	fps                  int           // display rate, 60 if 0
	cfg                  Config
	seed                 uint64
	newestFirst, shuffle bool // how the history is handed to Update
}

// frameRec is what the display saw in one frame.
type frameRec struct {
	at            time.Duration
	render        float64
	delay         time.Duration
	behind        time.Duration
	extrapolating bool
	drawn         []Drawn
}

// find returns the drawn entity id of the frame.
func (f *frameRec) find(id uint32) (Drawn, bool) {
	for _, d := range f.drawn {
		if d.ID == id {
			return d, true
		}
	}
	return Drawn{}, false
}

// schedule returns the arrivals of the scenario, by time.
func (s *sim) schedule() []arrival {
	rng := rand.New(rand.NewPCG(s.seed, 42))
	var out []arrival
	lat := func(send time.Duration) time.Duration {
		d := s.link.latency
		if s.link.jitter > 0 && (s.link.jitterUntil == 0 || send < s.link.jitterUntil) {
			d += time.Duration((rng.Float64()*2 - 1) * float64(s.link.jitter))
		}
		if s.link.stepAt > 0 && send >= s.link.stepAt {
			d += s.link.step
		}
		return d
	}
	for tick := uint32(startTick); ; tick += 3 {
		send := time.Duration(tick-startTick) * time.Second / tickRate
		if send > s.dur || (s.stopAt > 0 && send >= s.stopAt) {
			break
		}
		if rng.Float64() < s.link.loss {
			continue
		}
		out = append(out, arrival{at: send + lat(send), tick: tick})
		if rng.Float64() < s.link.dup {
			out = append(out, arrival{at: send + lat(send) + 10*time.Millisecond, tick: tick})
		}
	}
	for _, d := range s.deaths {
		send := time.Duration(d-startTick) * time.Second / tickRate
		out = append(out, arrival{at: send + s.link.latency, tick: d, death: true})
	}
	slices.SortStableFunc(out, func(a, b arrival) int { return int(a.at - b.at) })
	return out
}

// run plays the scenario and returns what was drawn in every frame.
func (s *sim) run(t testing.TB) []frameRec {
	t.Helper()
	fps := s.fps
	if fps == 0 {
		fps = 60
	}
	ip := New(s.cfg)
	arr := s.schedule()
	var w fakeWorld
	var frames []client.Frame
	var recs []frameRec
	rng := rand.New(rand.NewPCG(s.seed, 7))
	for f := 0; ; f++ {
		at := time.Duration(f) * time.Second / time.Duration(fps)
		if at > s.dur {
			break
		}
		for len(arr) > 0 && arr[0].at <= at {
			a := arr[0]
			arr = arr[1:]
			if a.death {
				w.respawned = max(w.respawned, a.tick)
				continue
			}
			w.apply(a.tick, s.world(a.tick))
		}
		frames = append(frames[:0], w.frames...)
		switch {
		case s.newestFirst:
			slices.Reverse(frames)
		case s.shuffle:
			rng.Shuffle(len(frames), func(i, j int) { frames[i], frames[j] = frames[j], frames[i] })
		}
		ip.Update(frames, base.Add(at))
		recs = append(recs, frameRec{
			at: at, render: ip.RenderTick(), delay: ip.Delay(), behind: ip.Behind(),
			extrapolating: ip.Extrapolating(), drawn: ip.Entities(nil),
		})
	}
	return recs
}

// path returns the drawn x and y of entity id from time from on, and
// whether it was drawn in all those frames.
func path(recs []frameRec, id uint32, from time.Duration) (xs, ys []float32, ok bool) {
	ok = true
	for i := range recs {
		if recs[i].at < from {
			continue
		}
		d, found := recs[i].find(id)
		if !found {
			ok = false
			continue
		}
		xs, ys = append(xs, d.DrawX), append(ys, d.DrawY)
	}
	return xs, ys, ok
}

// checkMonotonic fails when the render tick ever decreases.
func checkMonotonic(t *testing.T, recs []frameRec) {
	t.Helper()
	for i := 1; i < len(recs); i++ {
		if recs[i].render < recs[i-1].render {
			t.Fatalf("render tick went back at %v: %.3f after %.3f", recs[i].at, recs[i].render, recs[i-1].render)
		}
	}
}

// extrapolatedShare returns the share of frames after skip that
// extrapolated.
func extrapolatedShare(recs []frameRec, skip time.Duration) float64 {
	n, e := 0, 0
	for _, r := range recs {
		if r.at < skip {
			continue
		}
		n++
		if r.extrapolating {
			e++
		}
	}
	return float64(e) / float64(max(n, 1))
}

// lineDeviation returns the largest distance of the points from the line
// through (x0, y0) of direction (vx, vy).
func lineDeviation(xs, ys []float32, x0, y0, vx, vy float64) float64 {
	n := math.Hypot(vx, vy)
	var worst float64
	for i := range xs {
		dx, dy := float64(xs[i])-x0, float64(ys[i])-y0
		worst = max(worst, math.Abs(dx*vy-dy*vx)/n)
	}
	return worst
}
