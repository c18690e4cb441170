package predict

import (
	"math"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/sim"
)

const (
	up    = wire.ActionUp
	down  = wire.ActionDown
	left  = wire.ActionLeft
	right = wire.ActionRight
	fire  = wire.ActionFire
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// at returns t0 plus k steps of 1/60 s.
func at(k int) time.Time { return t0.Add(time.Duration(k) * time.Second / 60) }

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestNoInputEqualsServer(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	if _, _, _, ok := p.Position(t0); ok {
		t.Fatal("a position before any snapshot")
	}
	for k := range 30 {
		p.Input(0, at(k))
	}
	p.Snapshot(200, 300, 10, at(25), 50*time.Millisecond, false)
	x, y, f, ok := p.Position(at(30))
	if !ok || x != 200 || y != 300 || f != 0 {
		t.Fatalf("got (%v, %v) frame %d ok %v, want (200, 300) frame 0", x, y, f, ok)
	}
	// Fire alone does not move.
	for k := 30; k < 60; k++ {
		p.Input(fire, at(k))
	}
	if x, y, _, _ := p.Position(at(60)); x != 200 || y != 300 {
		t.Fatalf("fire moved the ship to (%v, %v)", x, y)
	}
}

func TestHoldRightOneSecond(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	p.Input(0, at(0))
	p.Snapshot(100, 300, 1, at(0), 0, false)
	for k := 1; k <= 60; k++ {
		p.Input(right, at(k))
	}
	x, y, f, _ := p.Position(at(60))
	if !near(float64(x), 460, 1e-3) || y != 300 || f != 0 {
		t.Fatalf("after 1 s right: (%v, %v) frame %d, want (460, 300) frame 0", x, y, f)
	}
	// Clamped at the edge: the center stays at 1280 - 33/2.
	for k := 61; k <= 60*5; k++ {
		p.Input(right, at(k))
	}
	if x, _, _, _ := p.Position(at(300)); x != 1263.5 {
		t.Fatalf("at the right edge x = %v, want 1263.5", x)
	}
	// And the top edge, with the frame going back to level when clamped.
	for k := 301; k <= 600; k++ {
		p.Input(up, at(k))
		if k == 302 {
			if _, _, f, _ := p.Position(at(k)); f != 1 {
				t.Fatalf("climbing frame %d, want 1", f)
			}
		}
	}
	if _, y, f, _ := p.Position(at(600)); y != 8.5 || f != 0 {
		t.Fatalf("at the top edge y = %v frame %d, want 8.5 frame 0", y, f)
	}
}

func TestDiagonalNormalized(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	p.Input(0, at(0))
	p.Snapshot(400, 400, 1, at(0), 0, false)
	for k := 1; k <= 60; k++ {
		p.Input(right|down, at(k))
	}
	x, y, f, _ := p.Position(at(60))
	d := 360 / math.Sqrt2
	if !near(float64(x), 400+d, 1e-3) || !near(float64(y), 400+d, 1e-3) || f != 2 {
		t.Fatalf("after 1 s right+down: (%v, %v) frame %d, want (%.2f, %.2f) frame 2", x, y, f, 400+d, 400+d)
	}
}

func TestReplaysOnlyInputsAfterCutoff(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	for k := 0; k <= 30; k++ {
		p.Input(right, at(k))
	}
	// Received at step 30 with a 10-step round trip: the server has the
	// inputs up to step 20, the 10 after are replayed.
	rtt := 10 * time.Second / 60
	p.Snapshot(500, 200, 1, at(30), rtt, false)
	x, _, _ := p.Predicted()
	if !near(float64(x), 560, 1e-3) {
		t.Fatalf("predicted x = %v, want 500 + 10 steps of 6 = 560", x)
	}
}

func TestRespawnSnaps(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	p.Input(right, at(0))
	p.Snapshot(600, 300, 1, at(0), 0, false)
	for k := 1; k <= 10; k++ {
		p.Input(right, at(k))
	}
	// A Death: the ship is back at its spawn point, no glide.
	p.Snapshot(100, 180, 4, at(10), 0, true)
	if x, y, _, _ := p.Position(at(10)); x != 100 || y != 180 {
		t.Fatalf("after a respawn drawn at (%v, %v), want (100, 180)", x, y)
	}
	// A jump above SnapTo snaps too, even without the flag.
	p.Snapshot(400, 180, 7, at(10), 0, false)
	if x, _, _, _ := p.Position(at(10)); x != 400 {
		t.Fatalf("after a 300 px jump drawn at x=%v, want 400", x)
	}
	// Reset forgets the ship.
	p.Reset()
	if _, _, _, ok := p.Position(at(10)); ok {
		t.Fatal("a position after Reset")
	}
}

func TestCorrectionDecays(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	p.Input(0, at(0))
	p.Snapshot(300, 300, 1, at(0), 0, false)
	// The server says 20 px further right: no jump, then a glide.
	p.Snapshot(320, 300, 2, at(0), 0, false)
	x0, _, _, _ := p.Position(at(0))
	if x0 != 300 {
		t.Fatalf("drawn at %v right after the correction, want 300 (no jump)", x0)
	}
	ct := p.Config().CorrectionTime
	x1, _, _, _ := p.Position(at(0).Add(ct))
	want := 320 - 20*math.Exp(-1)
	if !near(float64(x1), want, 0.01) {
		t.Fatalf("after CorrectionTime drawn at %v, want %.2f", x1, want)
	}
	x2, _, _, _ := p.Position(at(0).Add(10 * ct))
	if !near(float64(x2), 320, 0.01) {
		t.Fatalf("after 10 CorrectionTimes drawn at %v, want 320", x2)
	}
	// Older or equal ticks are ignored.
	p.Snapshot(0, 0, 2, at(0), 0, false)
	if x, _, _ := p.Predicted(); x != 320 {
		t.Fatalf("an old snapshot moved the prediction to %v", x)
	}
}

func TestNoAllocs(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	k := 0
	var tick uint32
	allocs := testing.AllocsPerRun(1000, func() {
		k++
		p.Input(uint8(k/7)&(right|up), at(k))
		if k%3 == 0 {
			tick++
			p.Snapshot(float32(300+k%50), 300, tick, at(k), 50*time.Millisecond, false)
		}
		p.Position(at(k))
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per step", allocs)
	}
}

// simRun plays a zigzag against the real server simulation (sim.World)
// with a one-way delay each way, snapshots every 3 ticks, and returns the
// largest error of the drawn own ship to the server's position once it
// has the same inputs, with the prediction and with the interpolation
// (modelled as the server's position interpDelay behind the newest
// snapshot), and the largest jump of the drawn position between two frames.
func simRun(t *testing.T, oneWay time.Duration, interpDelay time.Duration) (predErr, interpErr, meanPred, meanInterp, maxJump float64) {
	t.Helper()
	rules := sim.DefaultRules()
	rules.FirstWave = 1 << 30 // no enemies
	rules.JoinInvulnTicks = 0
	w := sim.New(rules, 1)
	w.AddPlayer(0, "p")
	p := New(Config{Rules: sim.DefaultRules()})

	const (
		tickNs   = int64(time.Second) / 60
		frameNs  = int64(time.Second) / 60
		phaseNs  = 7 * int64(time.Millisecond) // server ticks vs client frames
		duration = 8 * int64(time.Second)
	)
	ow := int64(oneWay)
	rtt := 2 * oneWay

	type sent struct {
		at      int64
		actions uint8
	}
	type snap struct {
		tick     uint32
		x, y     float64
		arrival  int64
		respawnd bool
	}
	var inputs []sent
	var snaps []snap
	// serverPos[j] is the ship's position after server tick j.
	var serverX, serverY []float64
	var ents []wire.Entity
	shipPos := func() (float64, float64) {
		ents = w.AppendEntities(ents[:0])
		for _, e := range ents {
			if e.ID == w.Ship(0) {
				return float64(e.F[wire.FieldX]) / 8, float64(e.F[wire.FieldY]) / 8
			}
		}
		t.Fatal("no ship")
		return 0, 0
	}
	zigzag := func(k int) uint8 {
		switch (k / 17) % 6 { // changes every 283 ms
		case 0:
			return right | fire
		case 1:
			return up
		case 2:
			return right | down
		case 3:
			return left
		case 4:
			return down
		default:
			return up | left
		}
	}

	j := 0 // next server tick
	srvNext := int(0)
	next := 0 // next snapshot to deliver
	var prevX, prevY float64
	hasPrev := false
	var sumP, sumI float64
	var n int
	frames := int(duration / frameNs)
	type drawnAt struct {
		at   int64
		x, y float64
	}
	var drawn []drawnAt
	for k := 0; k < frames; k++ {
		now := int64(k) * frameNs
		a := zigzag(k)
		inputs = append(inputs, sent{now, a})
		p.Input(a, t0.Add(time.Duration(now)))
		// The server runs its ticks up to now + the one-way delay: the
		// inputs they apply are all known.
		for ; int64(j)*tickNs+phaseNs <= now+ow; j++ {
			ts := int64(j)*tickNs + phaseNs
			for srvNext < len(inputs) && inputs[srvNext].at+ow <= ts {
				w.SetInput(0, inputs[srvNext].actions)
				srvNext++
			}
			w.Step()
			x, y := shipPos()
			serverX, serverY = append(serverX, x), append(serverY, y)
			if j%3 == 0 {
				snaps = append(snaps, snap{tick: w.Tick(), x: x, y: y, arrival: ts + ow})
			}
		}
		// Deliver the snapshots arrived by now, newest only (as the game
		// feeds the newest frame).
		last := -1
		for next < len(snaps) && snaps[next].arrival <= now {
			last = next
			next++
		}
		if last >= 0 {
			s := snaps[last]
			p.Snapshot(float32(s.x), float32(s.y), s.tick, t0.Add(time.Duration(s.arrival)), rtt, false)
		}
		x, y, _, ok := p.Position(t0.Add(time.Duration(now)))
		if !ok {
			continue
		}
		drawn = append(drawn, drawnAt{now, float64(x), float64(y)})
		if hasPrev {
			maxJump = max(maxJump, math.Hypot(float64(x)-prevX, float64(y)-prevY))
		}
		prevX, prevY, hasPrev = float64(x), float64(y), true
	}
	// serverAfter returns the server's position after its first tick at
	// or after local time ts: the one that applies an input sent one way
	// before.
	serverAfter := func(ts int64) (float64, float64, bool) {
		jj := int((ts - phaseNs + tickNs - 1) / tickNs)
		if jj < 0 || jj >= len(serverX) {
			return 0, 0, false
		}
		return serverX[jj], serverY[jj], true
	}
	for _, d := range drawn {
		if d.at < int64(time.Second) {
			continue
		}
		// The reference: the server's position once it has applied this
		// frame's input.
		rx, ry, ok1 := serverAfter(d.at + ow)
		// The interpolation shows the server as it was interpDelay before
		// the newest snapshot, itself one way old.
		ix, iy, ok2 := serverAfter(d.at - ow - int64(interpDelay))
		if !ok1 || !ok2 {
			continue
		}
		e := math.Hypot(d.x-rx, d.y-ry)
		ie := math.Hypot(ix-rx, iy-ry)
		predErr, interpErr = max(predErr, e), max(interpErr, ie)
		sumP, sumI = sumP+e, sumI+ie
		n++
	}
	return predErr, interpErr, sumP / float64(n), sumI / float64(n), maxJump
}

func TestTracksTheServerWhileZigzagging(t *testing.T) {
	step := 360.0 / 60
	for _, ow := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 75 * time.Millisecond} {
		pe, ie, mp, mi, jump := simRun(t, ow, 70*time.Millisecond)
		t.Logf("one way %v: drawn own ship vs server with the same inputs: predicted max %.1f px mean %.2f px; interpolated max %.1f px mean %.1f px; largest frame-to-frame move %.2f px",
			ow, pe, mp, ie, mi, jump)
		// The server applies an input at its first tick after it arrives:
		// up to one tick of phase, so up to two steps off at a turn.
		if pe > 2*step+0.5 {
			t.Errorf("one way %v: prediction off by %.1f px", ow, pe)
		}
		if mp > 3 {
			t.Errorf("one way %v: mean prediction error %.2f px", ow, mp)
		}
		if jump > step+1 {
			t.Errorf("one way %v: the drawn ship jumped %.2f px in a frame (a step is %.0f)", ow, jump, step)
		}
	}
}
