package predict

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/internal/testutil"
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
	testutil.NoAllocs(t, 1000, "a step of Input, Snapshot and Position", func() {
		k++
		p.Input(uint8(k/7)&(right|up), at(k))
		if k%3 == 0 {
			tick++
			p.Snapshot(float32(300+k%50), 300, tick, at(k), 50*time.Millisecond, false)
		}
		p.Position(at(k))
	})
}

// zigzagResult are the figures of a zigzagRun.
type zigzagResult struct {
	predMax, interpMax, predMean, interpMean, maxJump float64
	// predicted are the errors of Predicted (without the correction
	// offset) at every frame measured.
	predicted []float64
	frames    int
}

// zigzagRun plays a zigzag against the real server simulation (sim.World)
// with a one-way delay each way, plus a uniform jitter in [-jitter,
// +jitter] on each Input and each snapshot (so they may arrive out of
// order: the server keeps the newest Input it has, PROTOCOL.md 4.2), the
// client's round-trip estimate being 2 × oneWay, and snapshots every 3
// ticks. It measures the drawn own ship against the server's position once
// it has applied the frame's input, with the prediction and with the
// interpolation (modelled as the server's position interpDelay behind the
// newest snapshot), and the largest jump of the drawn position between two
// frames.
func zigzagRun(t *testing.T, oneWay, jitter time.Duration, seed uint64, interpDelay time.Duration) zigzagResult {
	t.Helper()
	var predErr, interpErr, maxJump float64
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
	rng := rand.New(rand.NewPCG(seed, 1))
	delay := func() int64 {
		if jitter == 0 {
			return ow
		}
		return ow + rng.Int64N(2*int64(jitter)+1) - int64(jitter)
	}
	var res zigzagResult

	type sent struct {
		at, arrival int64
		actions     uint8
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
		ents = wire.AppendEntities(ents[:0], w.Tick(), w.AppendEntities(nil))
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
		at     int64
		x, y   float64
		px, py float64 // Predicted
		// arrival is when the frame's input reached the server.
		arrival int64
	}
	var drawn []drawnAt
	for k := 0; k < frames; k++ {
		now := int64(k) * frameNs
		a := zigzag(k)
		inputs = append(inputs, sent{now, now + delay(), a})
		p.Input(a, t0.Add(time.Duration(now)))
		// The server runs its ticks up to now + the one-way delay: the
		// inputs they apply are all known.
		for ; int64(j)*tickNs+phaseNs <= now+ow-int64(jitter); j++ {
			ts := int64(j)*tickNs + phaseNs
			// The newest Input arrived by ts, if newer than the last one
			// applied.
			for k := srvNext; k < len(inputs); k++ {
				if inputs[k].arrival <= ts {
					w.SetInput(0, inputs[k].actions)
					srvNext = k + 1
				}
			}
			w.Step()
			x, y := shipPos()
			serverX, serverY = append(serverX, x), append(serverY, y)
			if j%3 == 0 {
				snaps = append(snaps, snap{tick: w.Tick(), x: x, y: y, arrival: ts + delay()})
			}
		}
		// Deliver the snapshots arrived by now, newest only (as the game
		// feeds the newest frame).
		last := -1
		for k := next; k < len(snaps); k++ {
			if snaps[k].arrival <= now && snaps[k].tick > 0 {
				last = k
			}
		}
		for next < len(snaps) && snaps[next].arrival <= now {
			next++
		}
		if last >= 0 {
			s := snaps[last]
			snaps[last].tick = 0 // delivered
			p.Snapshot(float32(s.x), float32(s.y), s.tick, t0.Add(time.Duration(s.arrival)), rtt, false)
		}
		x, y, _, ok := p.Position(t0.Add(time.Duration(now)))
		if !ok {
			continue
		}
		qx, qy, _ := p.Predicted()
		drawn = append(drawn, drawnAt{now, float64(x), float64(y), float64(qx), float64(qy), inputs[len(inputs)-1].arrival})
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
		// frame's input (its first tick after the input's arrival).
		rx, ry, ok1 := serverAfter(d.arrival)
		// The interpolation shows the server as it was interpDelay before
		// the newest snapshot, itself one way old.
		ix, iy, ok2 := serverAfter(d.at - ow - int64(interpDelay))
		if !ok1 || !ok2 {
			continue
		}
		e := math.Hypot(d.x-rx, d.y-ry)
		ie := math.Hypot(ix-rx, iy-ry)
		res.predicted = append(res.predicted, math.Hypot(d.px-rx, d.py-ry))
		predErr, interpErr = max(predErr, e), max(interpErr, ie)
		sumP, sumI = sumP+e, sumI+ie
		n++
	}
	res.predMax, res.interpMax, res.predMean, res.interpMean, res.maxJump = predErr, interpErr, sumP/float64(n), sumI/float64(n), maxJump
	res.frames = n
	return res
}

// wirePrecision is the largest distance between a prediction replayed from
// a snapshot's position and the server's position as a snapshot gives it:
// the wire rounds each coordinate to an eighth of a pixel, so both are off
// by up to 1/16 px on each axis.
var wirePrecision = math.Hypot(1.0/8, 1.0/8)

// TestTracksTheServerWhileZigzagging: at a constant round trip, whatever
// its length, the drawn own ship is where the server puts it once it has
// the same inputs, within the wire's precision at every frame (about
// 0.18 px, diagonally) and within 0.1 px on average.
func TestTracksTheServerWhileZigzagging(t *testing.T) {
	step := 360.0 / 60
	for _, ow := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 33 * time.Millisecond, 40 * time.Millisecond, 75 * time.Millisecond} {
		r := zigzagRun(t, ow, 0, 0, 70*time.Millisecond)
		t.Logf("one way %v: drawn own ship vs server with the same inputs: predicted max %.3f px mean %.3f px; interpolated max %.1f px mean %.1f px; largest frame-to-frame move %.2f px",
			ow, r.predMax, r.predMean, r.interpMax, r.interpMean, r.maxJump)
		if r.predMax > wirePrecision {
			t.Errorf("one way %v: prediction off by %.3f px (the wire's precision is %.3f)", ow, r.predMax, wirePrecision)
		}
		if r.predMean > 0.1 {
			t.Errorf("one way %v: mean prediction error %.3f px, want 0.1 or less", ow, r.predMean)
		}
		if r.maxJump > step+1 {
			t.Errorf("one way %v: the drawn ship jumped %.2f px in a frame (a step is %.0f)", ow, r.maxJump, step)
		}
	}
}

// TestJitteredRoundTrip: when the delay varies (± jitter each way), the
// client cannot tell at which server tick each Input was applied (v1 has
// no input acknowledgement), so the prediction is off by whole steps
// (6 px) after each turn of the zigzag until the next snapshot shows
// where the server put the ship: the claim of 0.1 px does not hold. This
// records what does: the median error of the prediction is at most one
// step, the worst about four, and the drawn ship stays several times
// closer to the server than the interpolation.
func TestJitteredRoundTrip(t *testing.T) {
	step := 360.0 / 60
	for _, ow := range []time.Duration{20 * time.Millisecond, 40 * time.Millisecond} {
		for _, j := range []time.Duration{5 * time.Millisecond, 20 * time.Millisecond} {
			for seed := range uint64(3) {
				r := zigzagRun(t, ow, j, seed, 70*time.Millisecond)
				e := slices.Clone(r.predicted)
				slices.Sort(e)
				within := 0
				for _, v := range e {
					if v <= 0.1 {
						within++
					}
				}
				p50, p99 := e[len(e)/2], e[len(e)*99/100]
				t.Logf("%v ± %v each way, seed %d: drawn max %.1f px mean %.2f px (interpolated mean %.1f px); prediction p50 %.2f px p99 %.1f px, within 0.1 px at %.0f%% of the frames",
					ow, j, seed, r.predMax, r.predMean, r.interpMean, p50, p99, 100*float64(within)/float64(len(e)))
				if p50 > step+0.2 || r.predMax > 5*step || r.predMean > r.interpMean/4 {
					t.Errorf("%v ± %v, seed %d: prediction p50 %.2f px, drawn max %.1f px, mean %.2f px against the interpolation's %.1f px",
						ow, j, seed, p50, r.predMax, r.predMean, r.interpMean)
				}
			}
		}
	}
}

// TestBetweenInputs: between two Inputs the ship goes on with the held
// actions for the time since, up to one step; without actions it stands;
// a release stops it at the next Input.
func TestBetweenInputs(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	p.Input(0, at(0))
	p.Snapshot(300, 300, 1, at(0), 0, false)
	if x, _, _, _ := p.Position(at(0).Add(8 * time.Millisecond)); x != 300 {
		t.Fatalf("standing ship drawn at x=%v between Inputs", x)
	}
	p.Input(right, at(1))
	for _, c := range []struct {
		after time.Duration
		want  float64
	}{{0, 306}, {time.Second / 120, 309}, {time.Second / 60, 312}, {time.Second, 312}} {
		if x, _, _, _ := p.Position(at(1).Add(c.after)); !near(float64(x), c.want, 1e-3) {
			t.Errorf("%v after an Input holding right: x=%v, want %v", c.after, x, c.want)
		}
	}
	p.Input(0, at(2))
	if x, _, _, _ := p.Position(at(2).Add(time.Second / 120)); x != 306 {
		t.Errorf("released: x=%v, want 306", x)
	}
}
