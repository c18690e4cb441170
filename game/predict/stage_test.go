package predict

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/sim"
)

// stagePredictor returns a Predictor of a Stage game (7.12): the speeds of
// sim's arms rules.
func stagePredictor() *Predictor {
	return New(Config{Rules: sim.DefaultRules(), StageSpeeds: sim.DefaultArmsRules().ShipSpeeds})
}

// standing is a ship standing at (300, 300) since tick 0.
var standing = wire.Motion{Model: wire.ModelLinear, X0: wire.QuantizePos(300), Y0: wire.QuantizePos(300)}

// TestStageSpeedUps: a Stage ship moves at 270 px/s, then at the speed of
// its speed-ups from the tick after their Arms; an Arms that arrives after
// the prediction passed its tick predicts again.
func TestStageSpeedUps(t *testing.T) {
	p := stagePredictor()
	p.Motion(standing, 100, 10, true, at(0), false)
	for k := uint32(11); k <= 16; k++ { // ticks 101 to 106
		p.Step(k, right, at(int(k)))
	}
	if x, _, _ := p.Predicted(); x != 300+6*4.5 {
		t.Fatalf("6 ticks right without a speed-up: x %v, want %v (270 px/s)", x, 300+6*4.5)
	}
	// A speed-up taken at tick 102: 330 px/s from tick 103 on.
	p.SpeedUps(1, 102, at(17))
	if x, _, _ := p.Predicted(); x != 300+2*4.5+4*5.5 {
		t.Fatalf("speed-up at tick 102: x %v, want %v", x, 300+2*4.5+4*5.5)
	}
	// The next snapshot (tick 103, step 13 applied) and step 17.
	p.Motion(wire.Motion{Model: wire.ModelLinear, T0: 102, X0: wire.QuantizePos(309), Y0: wire.QuantizePos(300), VX: wire.QuantizeVel(330)}, 103, 13, true, at(18), false)
	p.Step(17, right, at(19))
	if x, _, _ := p.Predicted(); x != 300+2*4.5+5*5.5 {
		t.Fatalf("after the snapshot of tick 103: x %v, want %v", x, 300+2*4.5+5*5.5)
	}
	// A death at tick 105 takes the speed-ups away: 270 px/s again (its
	// respawn would come with the snapshot).
	p.SpeedUps(0, 105, at(20))
	if x, _, _ := p.Predicted(); x != 300+2*4.5+3*5.5+2*4.5 {
		t.Fatalf("speed-ups lost at tick 105: x %v, want %v", x, 300+2*4.5+3*5.5+2*4.5)
	}
}

// TestStageSpeedsAlongEachAxis: 3 speed-ups, 450 px/s along an axis,
// 450·√2/2 on each for a diagonal, quantized to 1/16 px/s as the server's
// (7.5).
func TestStageSpeedsAlongEachAxis(t *testing.T) {
	p := stagePredictor()
	p.SpeedUps(3, 50, at(0))
	p.Motion(standing, 100, 0, true, at(0), false)
	p.Step(1, right|down, at(1))
	want := float64(wire.QuantizeVel(450*0.7071067811865476)) / 16 / 60
	if x, y, _ := p.Predicted(); !near(float64(x), 300+want, 1e-4) || !near(float64(y), 300+want, 1e-4) {
		t.Fatalf("a diagonal step at 450 px/s: (%v, %v), want %v on each axis", x, y, 300+want)
	}
}

// TestClassicIgnoresSpeedUps: without StageSpeeds the ship moves at
// Rules.ShipSpeed whatever an Arms says.
func TestClassicIgnoresSpeedUps(t *testing.T) {
	p := New(Config{Rules: sim.DefaultRules()})
	p.SpeedUps(3, 50, at(0))
	p.Motion(standing, 100, 0, true, at(0), false)
	p.Step(1, left, at(1))
	if x, _, _ := p.Predicted(); x != 300-6 {
		t.Fatalf("a Classic step left: x %v, want 294 (360 px/s)", x)
	}
}

// TestSpeedTableBounded: the speed-ups kept are bounded, the newest win,
// and a snapshot forgets those no later tick needs.
func TestSpeedTableBounded(t *testing.T) {
	var s speedTable
	for k := uint32(1); k <= 20; k++ {
		s.set(10*k, uint8(k%4))
	}
	if s.n > len(s.tick) {
		t.Fatalf("%d kept, at most %d", s.n, len(s.tick))
	}
	if got := s.at(201); got != 0 { // 20 % 4
		t.Fatalf("speed-ups after tick 200: %d, want 0", got)
	}
	if got := s.at(200); got != 3 { // 19 % 4, of tick 190
		t.Fatalf("speed-ups at tick 200: %d, want 3", got)
	}
	if s.set(200, 0) {
		t.Fatal("the same Arms again changed the table")
	}
	s.forget(195)
	if s.n != 2 || s.at(196) != 3 || s.at(201) != 0 {
		t.Fatalf("after a snapshot of tick 195: %d kept, %d at 196, %d at 201; want 2, 3, 0", s.n, s.at(196), s.at(201))
	}
}

func TestStageNoAllocs(t *testing.T) {
	p := stagePredictor()
	k := 0
	var tick uint32 = 100
	items := []wire.Motion{
		{Model: wire.ModelLinear, T0: 100, X0: wire.QuantizePos(340), Y0: wire.QuantizePos(290), VX: wire.QuantizeVel(-40)},
		{Model: wire.ModelLinear, T0: 100, X0: wire.QuantizePos(600), Y0: wire.QuantizePos(300), VX: wire.QuantizeVel(-40)},
	}
	testutil.NoAllocs(t, 1000, "a step, a snapshot with items, an Arms and a Position", func() {
		k++
		p.Step(uint32(k), uint8(k/7)&(right|up), at(k))
		if k%3 == 0 {
			tick += 3
			p.Items(items)
			p.Motion(standing, tick, uint32(k-2), true, at(k), false)
		}
		if k%50 == 0 {
			p.SpeedUps(uint8(k/50%4), tick-1, at(k))
		}
		p.Position(at(k).Add(5 * time.Millisecond))
	})
}

// TestProtocolStageSpeeds: PROTOCOL.md 7.12 gives a client the Stage
// speeds that sim moves ships at, and the Predictor of the View uses them.
func TestProtocolStageSpeeds(t *testing.T) {
	md, err := os.ReadFile("../../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(\d+), (\d+), (\d+), (\d+) px/s with 0 to 3 speed-ups`).FindSubmatch(md)
	if m == nil {
		t.Fatal("PROTOCOL.md 7.12 does not give the Stage speeds")
	}
	speeds := sim.DefaultArmsRules().ShipSpeeds
	for i, s := range m[1:] {
		if v, _ := strconv.Atoi(string(s)); float64(v) != speeds[i] {
			t.Errorf("PROTOCOL.md: %d speed-ups, %d px/s; sim's %v", i, v, speeds[i])
		}
	}
}

// TestResetForgetsSpeedUps: a player without a ship has no speed-ups, and
// its next ship may be another game's: Reset starts the table again.
func TestResetForgetsSpeedUps(t *testing.T) {
	p := stagePredictor()
	p.SpeedUps(2, 5000, at(0)) // an old game's
	p.Reset()
	p.Motion(standing, 5100, 0, true, at(0), false)
	p.Step(1, right, at(1))
	if x, _, _ := p.Predicted(); x != 300+4.5 {
		t.Fatalf("a step right after Reset: x %v, want %v (270 px/s)", x, 300+4.5)
	}
}

// TestStagePickupPredicted: a speed-up item in the ship's way is taken at
// the tick the ship touches it (the server's test, sim.Touch), and speeds
// the ship up from the next tick; the Arms that tells it, arriving later,
// changes nothing, nor does the item still in sight after it.
func TestStagePickupPredicted(t *testing.T) {
	p := stagePredictor()
	// An item standing 40 px right of the ship: the boxes (33 and 24 px
	// wide) touch once the gap between the centres is below 28.5 px, at
	// the third step right (4.5 px a tick: 31, 26.5).
	item := wire.Motion{Model: wire.ModelLinear, X0: wire.QuantizePos(340), Y0: wire.QuantizePos(300)}
	p.Items([]wire.Motion{item})
	p.Motion(standing, 100, 0, true, at(0), false)
	for k := uint32(1); k <= 5; k++ { // ticks 101 to 105
		p.Step(k, right, at(int(k)))
	}
	want := float32(300 + 3*4.5 + 2*5.5) // taken at tick 103
	if x, _, _ := p.Predicted(); x != want {
		t.Fatalf("through the item: x %v, want %v", x, want)
	}
	p.SpeedUps(1, 103, at(6)) // the server's word
	if x, _, _ := p.Predicted(); x != want {
		t.Fatalf("after the Arms of tick 103: x %v, want %v", x, want)
	}
	// A snapshot of tick 102 (step 2), the item still in it.
	p.Items([]wire.Motion{item})
	p.Motion(wire.Motion{Model: wire.ModelLinear, T0: 100, X0: wire.QuantizePos(300), Y0: wire.QuantizePos(300), VX: wire.QuantizeVel(270)}, 102, 2, true, at(7), false)
	if x, _, _ := p.Predicted(); x != want {
		t.Fatalf("after the snapshot of tick 102: x %v, want %v", x, want)
	}
	// Without StageSpeeds, items are ignored.
	c := New(Config{Rules: sim.DefaultRules()})
	c.Items([]wire.Motion{item})
	c.Motion(standing, 100, 0, true, at(0), false)
	for k := uint32(1); k <= 5; k++ {
		c.Step(k, right, at(int(k)))
	}
	if x, _, _ := c.Predicted(); x != 300+5*6 {
		t.Fatalf("Classic: x %v, want %v", x, 300+5*6)
	}
}
