package view

import (
	"math"
	"reflect"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/render/model"
)

// drive runs a View the way Ebitengine runs the game: an Update every
// 1/60 s (after advancing the game to it) and a Frame at every refresh of
// a display of the given rate, in time order, from the clock's present
// for d; frame is called with each Frame.
func drive(g interface{ advance() }, clk *clock, v *View, hz int, d time.Duration, actions func(time.Time) uint8, frame func(f *Frame)) {
	var f Frame
	update, draw := 0, 0
	start := clk.now
	for {
		tu := start.Add(time.Duration(update) * time.Second / 60)
		td := start.Add(time.Duration(draw) * time.Second / time.Duration(hz))
		if tu.Sub(start) > d && td.Sub(start) > d {
			return
		}
		if !td.Before(tu) { // at the same time, the Update first
			clk.now = tu
			g.advance()
			var a uint8
			if actions != nil {
				a = actions(tu)
			}
			v.Update(a)
			update++
			continue
		}
		frame(v.Frame(&f, td))
		draw++
	}
}

// TestInterpolatedAt144Hz: another player's ship flies right at a constant
// 360 px/s; a display refreshing 144 times per second, with the game's
// Updates at 60 per second, shows it at 144 distinct positions per
// second, each further right than the one before. Sampled at the Updates
// (what the game did before: positions taken in Update, Draw replaying
// them), it moved only 60 times. The own ship, flying right too at the
// prediction, also shows at 144 distinct positions.
func TestInterpolatedAt144Hz(t *testing.T) {
	for _, jitter := range []time.Duration{0, 10 * time.Millisecond} {
		clk := &clock{now: t0}
		g := newGame(t, clk, nil, 30*time.Millisecond, jitter, 1)
		g.w.AddPlayer(1, "Hicks")
		g.w.SetInput(1, wire.ActionRight)
		g.send(t0, nil, g.w.TakeEvents())
		v := newView(g, clk)
		var xs, own []float64
		atUpdate := map[float64]bool{}
		right := func(time.Time) uint8 { return wire.ActionRight }
		drive(g, clk, v, 144, 2500*time.Millisecond, right, func(f *Frame) {
			if f.T < 1.5 || f.T >= 2.5 {
				return
			}
			if f.Own.Predicted {
				own = append(own, f.Own.X)
			}
			for _, sp := range f.Sprites {
				if sp.Kind == wire.KindPlayerShip && sp.Owner == 1 {
					xs = append(xs, sp.X)
				}
			}
			for _, d := range v.ip.Entities(nil) {
				if d.Kind == wire.KindPlayerShip && d.Owner == 1 {
					atUpdate[float64(d.DrawX)] = true
				}
			}
		})
		if len(xs) != 144 {
			t.Fatalf("jitter %v: the ship was drawn %d times in a second at 144 Hz, want 144", jitter, len(xs))
		}
		for i := 1; i < len(xs); i++ {
			if xs[i] <= xs[i-1] {
				t.Fatalf("jitter %v: frame %d at x=%v, frame %d at x=%v: not moving right", jitter, i-1, xs[i-1], i, xs[i])
			}
		}
		if len(own) != 144 {
			t.Fatalf("jitter %v: the own ship was drawn %d times in a second at 144 Hz, want 144", jitter, len(own))
		}
		for i := 1; i < len(own); i++ {
			if own[i] <= own[i-1] {
				t.Fatalf("jitter %v: own ship at x=%v then x=%v: not moving right", jitter, own[i-1], own[i])
			}
		}
		if s := (own[len(own)-1] - own[0]) / (143.0 / 144); math.Abs(s-360) > 10 {
			t.Errorf("jitter %v: own ship drawn at %.0f px/s, it flies at 360", jitter, s)
		}
		speed := (xs[len(xs)-1] - xs[0]) / (143.0 / 144)
		t.Logf("jitter %v: 144 distinct positions from x=%.1f to %.1f (%.0f px/s); sampled at the Updates: %d distinct", jitter, xs[0], xs[len(xs)-1], speed, len(atUpdate))
		if math.Abs(speed-360) > 36 {
			t.Errorf("jitter %v: drawn at %.0f px/s, the ship flies at 360", jitter, speed)
		}
		if len(atUpdate) > 61 {
			t.Errorf("jitter %v: %d distinct positions at the Updates: the contrast is wrong", jitter, len(atUpdate))
		}
	}
}

// TestFrameChangesNothing: asking for frames at other times, earlier or
// later, changes nothing: the frame at a time is the same before and
// after, and allocates nothing once its buffers have grown.
func TestFrameChangesNothing(t *testing.T) {
	clk := &clock{now: t0}
	g := newGame(t, clk, nil, 20*time.Millisecond, 5*time.Millisecond, 2)
	g.w.AddPlayer(1, "Hicks")
	g.w.SetInput(1, wire.ActionDown)
	g.send(t0, nil, g.w.TakeEvents())
	v := newView(g, clk)
	drive(g, clk, v, 60, 2*time.Second, func(time.Time) uint8 { return wire.ActionRight | wire.ActionFire }, func(*Frame) {})
	at := clk.now.Add(5 * time.Millisecond)
	var a, b, scratch Frame
	v.Frame(&a, at)
	for _, d := range []time.Duration{-30 * time.Millisecond, 0, 3 * time.Millisecond, time.Second, 10 * time.Second} {
		v.Frame(&scratch, at.Add(d))
	}
	v.Frame(&b, at)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the frame at the same time changed:\n%+v\n%+v", a, b)
	}
	if len(a.Sprites) < 3 || !a.Own.Predicted {
		t.Fatalf("a frame without the world: %d sprites, own %+v", len(a.Sprites), a.Own)
	}
	testutil.NoAllocs(t, 2000, "Frame", func() { v.Frame(&scratch, at) })
}

// TestOwnShipPredictedAgainstTheSimulation: the own ship zigzags, through
// the real simulation 40 ms away each way; it is drawn at the prediction,
// where the server puts it once it has the same inputs, within the wire's
// precision, while the interpolation would draw it tens of pixels behind.
func TestOwnShipPredictedAgainstTheSimulation(t *testing.T) {
	clk := &clock{now: t0}
	g := newGame(t, clk, nil, 40*time.Millisecond, 0, 3)
	v := newView(g, clk)
	zigzag := func(at time.Time) uint8 {
		k := int(at.Sub(t0) / (time.Second / 60))
		return [...]uint8{wire.ActionRight | wire.ActionFire, wire.ActionUp, wire.ActionRight | wire.ActionDown, wire.ActionLeft, wire.ActionDown, wire.ActionUp | wire.ActionLeft}[(k/17)%6]
	}
	type drawn struct {
		x, y, ix, iy float64
		arrival      time.Time
		predicted    bool
	}
	var ds []drawn
	drive(g, clk, v, 60, 6*time.Second, zigzag, func(f *Frame) {
		if f.T < 1 || !f.Own.Shown {
			return
		}
		in := g.inputs[len(g.inputs)-1]
		ds = append(ds, drawn{f.Own.X, f.Own.Y, f.Own.InterpX, f.Own.InterpY, in.arrival, f.Own.Predicted})
	})
	clk.now = clk.now.Add(time.Second)
	g.advance()
	var worst, sum, lag float64
	n := 0
	for _, d := range ds {
		rx, ry, ok := g.serverAt(d.arrival)
		if !ok {
			continue
		}
		if !d.predicted {
			t.Fatal("the own ship is not drawn at the prediction")
		}
		e := math.Hypot(d.x-rx, d.y-ry)
		worst, sum, lag = max(worst, e), sum+e, lag+math.Hypot(d.ix-rx, d.iy-ry)
		n++
	}
	if n < 250 {
		t.Fatalf("only %d frames measured", n)
	}
	t.Logf("%d frames: drawn own ship vs the server with the same inputs: max %.3f px, mean %.3f px; interpolated mean %.1f px", n, worst, sum/float64(n), lag/float64(n))
	if worst > math.Hypot(1.0/8, 1.0/8) || sum/float64(n) > 0.1 {
		t.Errorf("prediction off by %.3f px at worst, %.3f px on average", worst, sum/float64(n))
	}
	if lag/float64(n) < 20 {
		t.Errorf("the interpolation lags only %.1f px on average: the test does not test", lag/float64(n))
	}
}

// TestOwnShotFlashesAtThePredictedNose: holding fire, each own shot flashes
// in the Update its Spawn arrives in, at the predicted ship's nose (not
// where the interpolated world will show the missile leave ~100 ms
// later), with the loud shot sound; and the own missiles are drawn ahead of
// the interpolation, leaving from the predicted ship.
func TestOwnShotFlashesAtThePredictedNose(t *testing.T) {
	clk := &clock{now: t0}
	g := newGame(t, clk, nil, 40*time.Millisecond, 0, 4)
	v := newView(g, clk)
	var f Frame
	flashes := 0
	for k := range 180 {
		clk.now = t0.Add(time.Duration(k) * time.Second / 60)
		g.advance()
		before := len(v.fx.List)
		res := v.Update(wire.ActionFire)
		v.Frame(&f, clk.now)
		shots := 0
		for _, c := range res.Sounds {
			if c.Sound == SoundShot {
				shots++
				if c.Volume != 0.8 {
					t.Errorf("own shot at volume %v, want 0.8", c.Volume)
				}
			}
		}
		for _, e := range v.fx.List[min(before, len(v.fx.List)):] {
			if e.Kind != model.FxMuzzle {
				continue
			}
			flashes++
			if e.Start != f.T {
				t.Errorf("muzzle flash starts at %v, the Update was at %v", e.Start, f.T)
			}
			if want := f.Own.X + sim0.MissileDX - 4; math.Abs(e.X-want) > 0.01 || math.Abs(e.Y-f.Own.Y) > 0.01 {
				t.Errorf("muzzle flash at (%.1f, %.1f), the predicted nose is at (%.1f, %.1f)", e.X, e.Y, want, f.Own.Y)
			}
			shots--
		}
		if shots != 0 {
			t.Errorf("update %d: %d shot sounds more than flashes", k, shots)
		}
	}
	if flashes < 5 {
		t.Fatalf("%d muzzle flashes in 3 s of fire", flashes)
	}
	// The own missiles are drawn led to about the server's present: the
	// newest snapshot plus one way, which lags the present by the time
	// since that snapshot arrived (up to a snapshot interval); the
	// interpolation would draw them ~100 ms of flight behind. A new one
	// leaves from the nose, not a lead's flight ahead of it, and catches
	// up within its first quarter second.
	worst, sum, interpSum, n := 0.0, 0.0, 0.0, 0
	first, firstWorst := map[uint32]bool{}, 0.0
	drive(g, clk, v, 60, 4*time.Second, func(time.Time) uint8 { return wire.ActionFire }, func(f *Frame) {
		if f.T < 3.2 {
			return
		}
		j := g.presentTick(clk.now)
		interpX, spawned := map[uint32]float64{}, map[uint32]uint32{}
		for _, d := range v.ip.EntitiesAt(nil, f.RenderTick) {
			interpX[d.ID], spawned[d.ID] = float64(d.DrawX), d.Spawned
		}
		for _, sp := range f.Sprites {
			if sp.Kind != wire.KindPlayerMissile || sp.Owner != 0 {
				continue
			}
			if age := f.RenderTick - float64(spawned[sp.ID]); !first[sp.ID] && spawned[sp.ID] > 0 && age < 1 {
				first[sp.ID] = true
				firstWorst = max(firstWorst, math.Abs(sp.X-(f.Own.X+sim0.MissileDX)))
			}
			e, ok := g.entityAt(j, sp.ID)
			if !ok || float64(e.X()) > 1200 || f.RenderTick-float64(spawned[sp.ID]) < 0.25*wire.TickRate {
				continue
			}
			lag := float64(e.X()) - sp.X
			worst, sum, n = max(worst, math.Abs(lag)), sum+lag, n+1
			interpSum += float64(e.X()) - interpX[sp.ID]
		}
	})
	interpLag := interpSum / float64(n)
	t.Logf("%d muzzle flashes; own missiles drawn behind the server's present by %.1f px on average, %.1f px at worst (%d drawn, past their first 0.25 s); the interpolation alone: %.1f px on average; first drawn at most %.1f px from the nose", flashes, sum/float64(n), worst, n, interpLag, firstWorst)
	// Within its first tick on the render clock it has flown (and caught
	// up) at most two ticks of flight from the nose.
	if near := 2*sim0.MissileSpeed/wire.TickRate + 1; len(first) < 10 || firstWorst > near {
		t.Errorf("a new own missile (of %d) was first drawn %.1f px from the ship's nose, want at most %.0f", len(first), firstWorst, near)
	}
	if n < 60 || worst > sim0.MissileSpeed*float64(wire.SnapshotTicks+1)/wire.TickRate || sum/float64(n) > interpLag/2 {
		t.Errorf("own missiles drawn %.1f px behind the server's present on average, %.1f px at worst (%d drawn)", sum/float64(n), worst, n)
	}
}
