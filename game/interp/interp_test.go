package interp

import (
	"math"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

const ms = time.Millisecond

// checkClock fails when the render tick ever decreases, or runs faster
// than 1 + MaxSkew times the local clock, once started.
func checkClock(t *testing.T, recs []frameRec, fps int) {
	t.Helper()
	checkMonotonic(t, recs)
	if fps == 0 {
		fps = 60
	}
	top := (1 + DefaultMaxSkew) * tickRate / float64(fps)
	for i := 1; i < len(recs); i++ {
		if recs[i-1].render == 0 {
			continue // not started
		}
		if step := recs[i].render - recs[i-1].render; step > top+1e-6 {
			t.Fatalf("render clock too fast at %v: %.4f ticks in a frame, at most %.4f", recs[i].at, step, top)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	want := Config{
		InitialDelay: 100 * ms, MinDelay: 50 * ms, MaxDelay: 500 * ms,
		MaxExtrapolation: 250 * ms, TickRate: 60, SnapshotTicks: 3,
		OffsetWindow: 2 * time.Second, ResetAfter: time.Second,
		ShrinkPerSecond: 10 * ms, MaxSkew: 0.1,
	}
	tests := []struct {
		name string
		in   Config
		want Config
	}{
		{"zero", Config{}, want},
		{"initial below min", Config{InitialDelay: 10 * ms}, func() Config { c := want; c.InitialDelay = 50 * ms; return c }()},
		{"initial above max", Config{InitialDelay: time.Second}, func() Config { c := want; c.InitialDelay = 500 * ms; return c }()},
		{"max below min", Config{MinDelay: 80 * ms, MaxDelay: 60 * ms}, func() Config {
			c := want
			c.MinDelay, c.MaxDelay = 80*ms, 80*ms
			c.InitialDelay = 80 * ms
			return c
		}()},
		{"skew capped", Config{MaxSkew: 3}, func() Config { c := want; c.MaxSkew = 0.5; return c }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip := New(tt.in)
			if got := ip.Config(); got != tt.want {
				t.Errorf("Config() = %+v, want %+v", got, tt.want)
			}
			if ip.Delay() != tt.want.InitialDelay {
				t.Errorf("Delay() = %v, want %v", ip.Delay(), tt.want.InitialDelay)
			}
			if ip.RenderTick() != 0 || ip.Behind() != 0 || ip.Extrapolating() {
				t.Errorf("fresh Interpolator: RenderTick %v, Behind %v, Extrapolating %v", ip.RenderTick(), ip.Behind(), ip.Extrapolating())
			}
			if got := ip.Entities(nil); len(got) != 0 {
				t.Errorf("Entities without frames = %v", got)
			}
		})
	}
}

// TestLinkConditions plays an entity moving at a constant velocity over
// links of every kind: its drawn path must be smooth (no step off the
// ideal one by 0.5 px or more, no stall, no step back) and on its straight
// line, the render clock monotonic, and the delay must follow the link.
func TestLinkConditions(t *testing.T) {
	const vx, vy = 120, -30
	world := movers(mover(1, 100, 500, vx, vy), mover(7, 1200, 100, -80, 10))
	tests := []struct {
		name      string
		link      netLink
		fps       int
		maxStalls int
		maxDev    float32 // of a step, in px; 0.5 if 0
		// maxExtrap is the share of the frames after 3 s that may be
		// extrapolated past the newest snapshot.
		maxExtrap float64
		// The delay at the end must be within [delayLo, delayHi].
		delayLo, delayHi time.Duration
	}{
		{name: "on time", link: netLink{latency: 30 * ms}, delayLo: 50 * ms, delayHi: 52 * ms},
		{name: "on time 144 Hz", link: netLink{latency: 30 * ms}, fps: 144, delayLo: 50 * ms, delayHi: 65 * ms},
		{name: "on time 30 Hz", link: netLink{latency: 30 * ms}, fps: 30, delayLo: 50 * ms, delayHi: 100 * ms},
		{name: "jitter ±20 ms", link: netLink{latency: 60 * ms, jitter: 20 * ms}, delayLo: 80 * ms, delayHi: 130 * ms},
		{name: "jitter ±20 ms 144 Hz", link: netLink{latency: 60 * ms, jitter: 20 * ms}, fps: 144, delayLo: 80 * ms, delayHi: 130 * ms},
		{name: "jitter ±50 ms", link: netLink{latency: 100 * ms, jitter: 50 * ms}, delayLo: 130 * ms, delayHi: 300 * ms},
		{name: "loss 5%", link: netLink{latency: 40 * ms, jitter: 5 * ms, loss: .05}, maxExtrap: .02, delayLo: 70 * ms, delayHi: 160 * ms},
		{name: "loss 20%", link: netLink{latency: 40 * ms, jitter: 5 * ms, loss: .2}, maxExtrap: .03, delayLo: 120 * ms, delayHi: 200 * ms},
		{name: "duplicated and reordered", link: netLink{latency: 60 * ms, jitter: 40 * ms, dup: .2}, maxExtrap: .01, delayLo: 100 * ms, delayHi: 300 * ms},
		{name: "latency step down 300 ms", link: netLink{latency: 330 * ms, stepAt: 4 * time.Second, step: -300 * ms}, delayLo: 50 * ms, delayHi: 100 * ms},
		// The link goes silent for 300 ms: the entities freeze once
		// extrapolated for 250 ms (stalls, then a jump when snapshots come
		// back), then the clock slows down by 10% until it is behind the
		// snapshots again.
		{name: "latency step up 300 ms", link: netLink{latency: 30 * ms, stepAt: 4 * time.Second, step: 300 * ms}, maxStalls: 3, maxDev: 3, maxExtrap: .4, delayLo: 50 * ms, delayHi: 100 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				s := sim{link: tt.link, world: world, dur: 15 * time.Second, fps: tt.fps, seed: seed}
				recs := s.run(t)
				checkClock(t, recs, tt.fps)
				fps := tt.fps
				if fps == 0 {
					fps = 60
				}
				xs, ys, ok := path(recs, 1, 500*ms)
				if !ok {
					t.Fatalf("seed %d: entity not drawn in every frame after 0.5 s", seed)
				}
				dev, stalls, back := Smoothness(xs, 1/float64(fps), vx)
				maxDev := tt.maxDev
				if maxDev == 0 {
					maxDev = 0.5
				}
				if dev >= maxDev || stalls > tt.maxStalls || back > 0 {
					t.Errorf("seed %d: path: max step deviation %.3f px, %d stalls, %d steps back", seed, dev, stalls, back)
				}
				if d := lineDeviation(xs, ys, 100, 500, vx, vy); d >= 0.5 {
					t.Errorf("seed %d: path off its line by %.3f px", seed, d)
				}
				if share := extrapolatedShare(recs, 3*time.Second); share > tt.maxExtrap {
					t.Errorf("seed %d: %.2f%% of the frames extrapolated, want at most %.2f%%", seed, 100*share, 100*tt.maxExtrap)
				}
				last := recs[len(recs)-1]
				if last.delay < tt.delayLo || last.delay > tt.delayHi {
					t.Errorf("seed %d: delay at the end %v, want within [%v, %v]", seed, last.delay, tt.delayLo, tt.delayHi)
				}
				if last.behind < 0 {
					t.Errorf("seed %d: still extrapolating at the end (behind %v)", seed, last.behind)
				}
			}
		})
	}
}

// TestDelayFollowsLink checks that the delay grows over a bad link, and
// is then larger on average than over a clean one.
func TestDelayFollowsLink(t *testing.T) {
	world := movers(mover(1, 100, 500, 120, 0))
	run := func(l netLink) time.Duration { // the mean delay after 2 s
		s := sim{link: l, world: world, dur: 10 * time.Second, seed: 9, cfg: Config{InitialDelay: 50 * ms}}
		var sum, n time.Duration
		for _, r := range s.run(t) {
			if r.at >= 2*time.Second {
				sum += r.delay
				n++
			}
		}
		return sum / n
	}
	clean := run(netLink{latency: 30 * ms})
	if clean != 50*ms {
		t.Errorf("clean link: delay %v, want 50ms", clean)
	}
	for _, l := range []netLink{
		{latency: 60 * ms, jitter: 20 * ms},
		{latency: 40 * ms, loss: .05},
		{latency: 40 * ms, loss: .2},
	} {
		if d := run(l); d < clean+20*ms {
			t.Errorf("%+v: delay %v, want at least %v", l, d, clean+20*ms)
		}
	}
}

// TestDelayShrinks plays 5 s of a jittery link, then a clean one: the
// delay grows, then falls back to the minimum by at most 1 ms per 100 ms,
// with a smooth path all along.
func TestDelayShrinks(t *testing.T) {
	s := sim{
		link:  netLink{latency: 80 * ms, jitter: 40 * ms, jitterUntil: 5 * time.Second},
		world: movers(mover(1, 100, 500, 120, 0)), dur: 25 * time.Second, seed: 3,
	}
	recs := s.run(t)
	checkClock(t, recs, 60)
	var at5 time.Duration
	for i := 1; i < len(recs); i++ {
		r := recs[i]
		if r.at <= 5*time.Second {
			at5 = r.delay
			continue
		}
		if fall := recs[i-1].delay - r.delay; fall > 10*ms/60+time.Microsecond {
			t.Fatalf("delay fell by %v in a frame at %v", fall, r.at)
		}
	}
	if at5 < 120*ms {
		t.Errorf("delay after 5 s of jitter = %v, want at least 120ms", at5)
	}
	if end := recs[len(recs)-1].delay; end > 55*ms {
		t.Errorf("delay after 20 s of a clean link = %v, want at most 55ms", end)
	}
	xs, _, _ := path(recs, 1, 500*ms)
	if dev, stalls, back := Smoothness(xs, 1.0/60, 120); dev >= 0.5 || stalls > 0 || back > 0 {
		t.Errorf("path: max step deviation %.3f px, %d stalls, %d steps back", dev, stalls, back)
	}
}

// TestSnapshotsStop stops the server at 3 s: the entity keeps moving
// along its velocity for MaxExtrapolation past the newest snapshot, then
// freezes; the render clock goes on.
func TestSnapshotsStop(t *testing.T) {
	const vx, vy = 120, 60
	m := mover(1, 100, 200, vx, vy)
	s := sim{link: netLink{latency: 30 * ms}, world: movers(m), dur: 5 * time.Second, stopAt: 3 * time.Second, seed: 1}
	recs := s.run(t)
	checkClock(t, recs, 60)
	const newest = startTick + 3*60 - 3 // the last snapshot sent
	sawExtrap, sawFrozen := false, false
	for _, r := range recs {
		if r.render <= newest {
			if r.extrapolating {
				t.Fatalf("at %v: Extrapolating before the newest snapshot", r.at)
			}
			continue
		}
		if !r.extrapolating {
			t.Fatalf("at %v: render tick %.2f past the newest %d, not Extrapolating", r.at, r.render, newest)
		}
		d, ok := r.find(1)
		if !ok {
			t.Fatalf("at %v: entity not drawn", r.at)
		}
		e := m(newest)
		ahead := min(r.render-newest, 15) / tickRate
		wx, wy := e.X+float32(vx*ahead), e.Y+float32(vy*ahead)
		if math.Abs(float64(d.DrawX-wx)) > 1e-3 || math.Abs(float64(d.DrawY-wy)) > 1e-3 {
			t.Fatalf("at %v (%.2f ticks past): drawn at (%.3f, %.3f), want (%.3f, %.3f)", r.at, r.render-newest, d.DrawX, d.DrawY, wx, wy)
		}
		if r.render-newest < 15 {
			sawExtrap = true
		} else {
			sawFrozen = true
		}
		if want := time.Duration((newest - r.render) / tickRate * float64(time.Second)); (r.behind - want).Abs() > time.Microsecond {
			t.Fatalf("at %v: Behind() = %v, want %v", r.at, r.behind, want)
		}
	}
	if !sawExtrap || !sawFrozen {
		t.Errorf("extrapolated %v, frozen %v: want both", sawExtrap, sawFrozen)
	}
	last := recs[len(recs)-1]
	if last.render < newest+60 {
		t.Errorf("render clock stopped: %.2f at the end, newest %d", last.render, newest)
	}
}

// TestRespawn kills a moving ship: it is drawn on its path up to its
// Death, then at its spawn point at once and on its new path, never in
// between.
func TestRespawn(t *testing.T) {
	const death = startTick + 121
	ship := func(tick uint32) client.Entity {
		e := client.Entity{ID: 2, Kind: wire.KindPlayerShip, Owner: 0, VX: 200, Tick: tick}
		if tick < death {
			e.X, e.Y = q(100+200*float64(tick-startTick)/tickRate), 100
		} else {
			e.X, e.Y = q(50+200*float64(tick-death)/tickRate), 600
		}
		return e
	}
	for _, l := range []netLink{{latency: 30 * ms}, {latency: 60 * ms, jitter: 20 * ms}, {latency: 40 * ms, loss: .2}} {
		for seed := uint64(1); seed <= 5; seed++ {
			s := sim{link: l, seed: seed, dur: 4 * time.Second, deaths: []uint32{death},
				world: func(tick uint32) []client.Entity { return []client.Entity{ship(tick)} }}
			recs := s.run(t)
			checkClock(t, recs, 60)
			respawned := false
			deathX := 100 + 200*float32(death-startTick)/tickRate
			for _, r := range recs {
				d, ok := r.find(2)
				if !ok {
					continue
				}
				switch d.DrawY {
				case 100:
					if respawned {
						t.Fatalf("%+v seed %d at %v: back on the old path at x %.2f", l, seed, r.at, d.DrawX)
					}
					if d.DrawX > deathX+0.1 {
						t.Fatalf("%+v seed %d at %v: past the point of Death: x %.2f > %.2f", l, seed, r.at, d.DrawX, deathX)
					}
				case 600:
					// At once at the spawn point: at the position of the
					// first snapshot after the Death, or one after.
					if !respawned && (d.DrawX < 50 || d.DrawX > 50+200*6.0/tickRate+0.1) {
						t.Fatalf("%+v seed %d at %v: appeared at x %.2f, not at the spawn point", l, seed, r.at, d.DrawX)
					}
					if r.render < death {
						t.Fatalf("%+v seed %d at %v: respawned before the Death (render %.2f)", l, seed, r.at, r.render)
					}
					respawned = true
				default:
					t.Fatalf("%+v seed %d at %v: drawn between the paths at (%.2f, %.2f)", l, seed, r.at, d.DrawX, d.DrawY)
				}
			}
			if !respawned {
				t.Fatalf("%+v seed %d: never respawned", l, seed)
			}
		}
	}
}

// TestSpawnAndDestroy runs entities spawned and destroyed while the game
// runs: a new one appears at its spawn position, a destroyed one is not
// drawn once the render time passes its last snapshot.
func TestSpawnAndDestroy(t *testing.T) {
	const spawn, destroy = startTick + 90, startTick + 150 // entity 5's life
	base := mover(1, 100, 500, 120, 0)
	five := mover(5, 400, 300, -60, 30)
	world := func(tick uint32) []client.Entity {
		es := []client.Entity{base(tick)}
		if tick >= spawn && tick < destroy {
			e := five(tick)
			e.Spawned = spawn
			es = append(es, e)
		}
		return es
	}
	for _, l := range []netLink{{latency: 30 * ms}, {latency: 60 * ms, jitter: 20 * ms}} {
		s := sim{link: l, world: world, dur: 4 * time.Second, seed: 2}
		recs := s.run(t)
		checkClock(t, recs, 60)
		first := true
		for _, r := range recs {
			d, ok := r.find(5)
			switch {
			case r.render > destroy-3:
				if ok {
					t.Fatalf("%+v at %v: destroyed entity drawn (render %.2f)", l, r.at, r.render)
				}
			case r.render > spawn:
				if !ok {
					t.Fatalf("%+v at %v: live entity not drawn (render %.2f)", l, r.at, r.render)
				}
			}
			if ok && r.render < spawn {
				t.Fatalf("%+v at %v: drawn at render tick %.2f, before its Spawn at %d", l, r.at, r.render, spawn)
			}
			if ok && first {
				// It enters at its spawn position, moved by at most the
				// frame's worth of render time past the Spawn: moving,
				// not waiting for its first snapshot.
				first = false
				sp := five(spawn)
				s := float32(r.render-spawn) / tickRate
				if dx, dy := d.DrawX-(sp.X+sp.VX*s), d.DrawY-(sp.Y+sp.VY*s); dx*dx+dy*dy > 0.25 {
					t.Fatalf("%+v: first drawn at (%.2f, %.2f) at render tick %.2f, want (%.2f, %.2f) on its path from the spawn",
						l, d.DrawX, d.DrawY, r.render, sp.X+sp.VX*s, sp.Y+sp.VY*s)
				}
			}
		}
		if first {
			t.Fatalf("%+v: spawned entity never drawn", l)
		}
	}
}

// TestHistoryOrder hands the same history oldest first, newest first and
// shuffled: what is drawn must be the same.
func TestHistoryOrder(t *testing.T) {
	l := netLink{latency: 60 * ms, jitter: 30 * ms, loss: .1, dup: .1}
	world := movers(mover(1, 100, 500, 120, 0), mover(2, 900, 100, -30, 20), mover(3, 500, 500, 0, -40))
	ref := (&sim{link: l, world: world, dur: 5 * time.Second, seed: 4}).run(t)
	for _, s := range []sim{
		{link: l, world: world, dur: 5 * time.Second, seed: 4, newestFirst: true},
		{link: l, world: world, dur: 5 * time.Second, seed: 4, shuffle: true},
	} {
		recs := s.run(t)
		for i := range recs {
			a, b := &ref[i], &recs[i]
			if a.render != b.render || a.delay != b.delay || len(a.drawn) != len(b.drawn) {
				t.Fatalf("newest first %v, shuffled %v: frame %d differs: render %v/%v delay %v/%v", s.newestFirst, s.shuffle, i, a.render, b.render, a.delay, b.delay)
			}
			for k := range a.drawn {
				if a.drawn[k] != b.drawn[k] {
					t.Fatalf("frame %d: drawn %+v, want %+v", i, b.drawn[k], a.drawn[k])
				}
			}
		}
	}
}

// TestNewGame plays a game from tick 600, then a new one from tick 0 with
// a new client history: the clock resets at once and the new game is
// drawn smoothly.
func TestNewGame(t *testing.T) {
	const lat = 30 * ms
	ip := New(Config{})
	game2 := 4 * time.Second
	var w fakeWorld
	var frames []client.Frame
	var drawn []Drawn
	next := uint32(startTick) // next snapshot tick of the current game
	game := 1
	var prevRender float64
	var xs []float32
	reset := false
	for f := 0; f <= 10*60; f++ {
		at := time.Duration(f) * time.Second / 60
		if game == 1 && at >= game2 {
			game, next, w = 2, 0, fakeWorld{}
		}
		for {
			var send time.Duration
			if game == 1 {
				send = time.Duration(next-startTick) * time.Second / tickRate
			} else {
				send = game2 + time.Duration(next)*time.Second/tickRate
			}
			if send+lat > at {
				break
			}
			x := q(float64(next) * 2) // 120 px/s
			if game == 2 {
				x = q(1000 - float64(next)) // -60 px/s
			}
			w.apply(next, []client.Entity{{ID: 1, Kind: wire.KindBydosSlave, X: x, Y: 50, VX: 120, Tick: next}})
			if game == 2 {
				w.frames[len(w.frames)-1].Entities[0].VX = -60
			}
			next += 3
		}
		frames = append(frames[:0], w.frames...)
		ip.Update(frames, base.Add(at))
		drawn = ip.Entities(drawn)
		r := ip.RenderTick()
		switch {
		case game == 1 || len(frames) == 0:
			if r < prevRender {
				t.Fatalf("at %v: render tick went back in game 1", at)
			}
		case !reset: // the first frame of game 2
			reset = true
			if r > 10 {
				t.Fatalf("at %v: render tick %.2f after the new game, want about 0", at, r)
			}
			if ip.Delay() != DefaultInitialDelay {
				t.Errorf("delay after the new game = %v, want %v", ip.Delay(), DefaultInitialDelay)
			}
		default:
			if r < prevRender {
				t.Fatalf("at %v: render tick went back in game 2", at)
			}
		}
		prevRender = r
		if game == 2 && len(drawn) == 1 {
			if lo := 1000 - 60*float32((at-game2).Seconds()); drawn[0].DrawX > 1000 || drawn[0].DrawX < lo {
				t.Fatalf("at %v: game 2 entity drawn at x %.2f", at, drawn[0].DrawX)
			}
			if at > game2+500*ms {
				xs = append(xs, drawn[0].DrawX)
			}
		}
	}
	if !reset {
		t.Fatal("game 2 never drawn")
	}
	if dev, stalls, back := Smoothness(xs, 1.0/60, -60); dev >= 0.5 || stalls > 0 || back > 0 {
		t.Errorf("game 2 path: max step deviation %.3f px, %d stalls, %d steps back", dev, stalls, back)
	}
	if ip.Delay() != 50*ms {
		t.Errorf("delay at the end = %v, want 50ms", ip.Delay())
	}
}

// TestUpdateNoFrames checks that Update without frames does nothing bad,
// before and after the first frames.
func TestUpdateNoFrames(t *testing.T) {
	ip := New(Config{})
	ip.Update(nil, base)
	if ip.RenderTick() != 0 || len(ip.Entities(nil)) != 0 {
		t.Fatalf("without frames: render %v", ip.RenderTick())
	}
	f := []client.Frame{{Tick: 300, Entities: []client.Entity{{ID: 1, X: 5, Tick: 300}}}}
	ip.Update(f, base.Add(time.Second))
	if got, want := ip.RenderTick(), 300-0.1*tickRate; math.Abs(got-want) > 1e-9 {
		t.Fatalf("render tick at the first frame = %v, want %v", got, want)
	}
	if d := ip.Entities(nil); len(d) != 1 || d[0].DrawX != 5 {
		t.Fatalf("Entities = %+v", d)
	}
	r := ip.RenderTick()
	ip.Update(nil, base.Add(time.Second+100*ms))
	if ip.RenderTick() <= r || len(ip.Entities(nil)) != 0 {
		t.Fatalf("frames gone: render %v (was %v)", ip.RenderTick(), r)
	}
	// A clock going back is taken as standing still.
	r = ip.RenderTick()
	ip.Update(f, base)
	if ip.RenderTick() != r {
		t.Fatalf("clock going back moved the render tick from %v to %v", r, ip.RenderTick())
	}
}

// TestRenderTickAt: between two Updates at 60 Hz, a 144 Hz display reads
// the render clock at its own times; the readings never go back, change
// nothing, and the next Update goes on from the same clock (its render
// tick is the reading at its time), through jitter, loss and a step of
// the latency.
func TestRenderTickAt(t *testing.T) {
	s := &sim{link: netLink{latency: 60 * ms, jitter: 20 * ms, loss: 0.05, stepAt: 4 * time.Second, step: 80 * ms},
		world: movers(mover(1, 100, 500, 120, 0)), dur: 8 * time.Second, seed: 3}
	ip := New(Config{})
	arr := s.schedule()
	var w fakeWorld
	var frames []client.Frame
	last, draws := -1.0, 0
	for u := 0; ; u++ {
		at := time.Duration(u) * time.Second / 60
		if at > s.dur {
			break
		}
		for len(arr) > 0 && arr[0].at <= at {
			w.apply(arr[0].tick, s.world(arr[0].tick))
			arr = arr[1:]
		}
		frames = append(frames[:0], w.frames...)
		want := ip.RenderTickAt(base.Add(at))
		if again := ip.RenderTickAt(base.Add(at)); again != want {
			t.Fatalf("two readings at the same time: %v then %v", want, again)
		}
		started := ip.started
		ip.Update(frames, base.Add(at))
		if got := ip.RenderTick(); started && math.Abs(got-want) > 1e-9 {
			t.Fatalf("at %v the Update set the render tick to %.6f, the clock read %.6f", at, got, want)
		}
		// The display's frames until the next Update.
		for ; time.Duration(draws)*time.Second/144 < at+time.Second/60; draws++ {
			d := time.Duration(draws) * time.Second / 144
			if d < at {
				continue
			}
			r := ip.RenderTickAt(base.Add(d))
			if r < last {
				t.Fatalf("at %v the render tick went back from %.4f to %.4f", d, last, r)
			}
			last = r
		}
	}
}

// A v2 server skips the snapshots that would change nothing (PROTOCOL.md
// 7.9): with Sparse, a snapshot every 200 ms on a clean link is no loss
// and the delay stays at its floor; without, the same gaps read as 3
// snapshots lost in 4 and the delay grows.
func TestSparseSnapshotsAreNoLoss(t *testing.T) {
	delay := func(sparse bool) time.Duration {
		ip := New(Config{Sparse: sparse})
		t0 := time.Unix(1000, 0)
		var frames []client.Frame
		for k := 0; k < 60*5; k++ { // 5 s of 60 Hz Updates
			now := t0.Add(time.Duration(k) * time.Second / 60)
			if k%12 == 0 {
				frames = append(frames, client.Frame{Tick: uint32(600 + k), Received: now.Add(-30 * ms)})
				if len(frames) > 20 {
					frames = frames[1:]
				}
			}
			ip.Update(frames, now)
		}
		return ip.Delay()
	}
	sparse, dense := delay(true), delay(false)
	t.Logf("delay after 5 s of a snapshot every 200 ms: %v sparse, %v counted as loss", sparse, dense)
	if sparse > DefaultMinDelay+10*ms || dense <= sparse {
		t.Fatalf("delay %v with Sparse (want at most %v), %v without", sparse, DefaultMinDelay+10*ms, dense)
	}
}
