package sim

import (
	"testing"

	"rtype/sim/stage"
	"rtype/vocab"
)

// A Hatch is shut and unhurt, opens when its delay is over (a tell
// first), fires its burst up at the ship while open and hurt, then shuts
// again; on the ceiling its frames are 4 higher.
func TestHatchOpensFiresAndShuts(t *testing.T) {
	w := foesWorld(t, 1)
	place(w, 0, 300, 300)
	s := put(t, w, foeSpawn{kind: vocab.KindHatch, x: 900, y: 700, fireInterval: 120, drop: noDrop})
	c := put(t, w, foeSpawn{kind: vocab.KindHatch, x: 1000, y: 20, drop: noDrop})
	e := w.ent(s)
	if hh := w.half[vocab.KindHatch].h; e.y != 720-hh || w.ent(c).y != hh {
		t.Fatalf("hatches at y %g and %g", e.y, w.ent(c).y)
	}
	if e.frame != 0 || w.ent(c).frame != hatchCeiling || w.cold(e).hp != 6 {
		t.Fatalf("frames %d, %d, hp %d", e.frame, w.ent(c).frame, w.cold(e).hp)
	}
	// Shut: a hit takes nothing, and it is absorbed.
	if !w.damageFoe(s, 3, 0) || w.cold(e).hp != 6 {
		t.Fatalf("a shut hatch took a hit: hp %d", w.cold(e).hp)
	}
	var frames []uint8
	var opened, shut uint32
	var evs []vocab.Event
	for range 400 {
		w.Step()
		evs = append(evs, w.TakeEvents()...)
		if n := len(frames); n == 0 || frames[n-1] != e.frame {
			frames = append(frames, e.frame)
			switch e.frame {
			case hatchOpening:
				if opened == 0 {
					opened = w.tick
				}
			case 0:
				if opened != 0 && shut == 0 {
					shut = w.tick
				}
			}
		}
	}
	if len(frames) < 4 || frames[0] != 0 || frames[1] != hatchOpening || frames[2] != hatchOpened || frames[3] != 0 {
		t.Fatalf("frames %v, want 0 1 2 0 ...", frames)
	}
	if opened == 0 || opened > 121 {
		t.Errorf("opened at tick %d: its delay is at most 120 ticks", opened)
	}
	if open := shut - opened; open != hatchTell+1+(hatchBurst-1)*hatchGap+hatchLinger {
		t.Errorf("open for %d ticks", open)
	}
	if w.ent(c).frame != hatchCeiling {
		t.Errorf("the hatch without fire opened: frame %d", w.ent(c).frame)
	}
	shots := spawnsOf(evs, vocab.KindEnemyMissile)
	if len(shots)%hatchBurst != 0 || len(shots) < hatchBurst {
		t.Fatalf("%d shots, want bursts of %d", len(shots), hatchBurst)
	}
	for _, ev := range shots {
		if ev.Motion.VY >= 0 || ev.Motion.VX >= 0 {
			t.Errorf("a shot not up-left at the ship: %+v", ev.Motion)
		}
	}
	// Open, it is hurt: run to its next opening and hit it.
	for e.frame == 0 {
		w.Step()
		w.TakeEvents()
	}
	if !w.damageFoe(s, 2, 0) || w.cold(e).hp != 4 {
		t.Errorf("an open hatch: hp %d after a hit of 2, want 4", w.cold(e).hp)
	}
	w.damageFoe(s, 4, 0)
	if e.alive {
		t.Error("the hatch survived its hit points")
	}
	if w.pl[0].score != 300 {
		t.Errorf("score %d, want 300", w.pl[0].score)
	}
}

// crawlerStage is a stage with a ceiling of 60 px, and a floor that rises
// to 160 px and comes down again where the crawlers of its waves at 20 s
// cross it (they overtake the ground at 30 px/s).
const crawlerStage = "rtype-stage 1\nname c\ntitle Crawl\nscroll 60px/s\nlength 30:00\n" +
	"at 0px terrain length=2000px ceiling=60\n" +
	"at 880px terrain length=120px floor=0..160\n" +
	"at 1000px terrain length=60px floor=160\n" +
	"at 1060px terrain length=120px floor=160..0\n" +
	"at 20s wave enemy=crawler y=floor speed=90\n" +
	"at 20s wave enemy=crawler y=ceiling speed=90 fire=1s\n" +
	"at 29:00 boss\n"

// A Crawler follows its floor's contour up and down (never sinking into
// it, at most 50 px above it: it looks ahead), keeps to its ceiling, sends a new motion only when the contour
// turns, and fires only at a ship off its hull side.
func TestCrawlerFollowsTheContour(t *testing.T) {
	st, err := stage.Parse("c.stage", []byte(crawlerStage))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewStage(livelyRules(), st, 3, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.AddPlayer(0, "P")
	w.SetShipPos(0, 100, 300)
	var fl, ce int32
	for range 20*60 + 2 {
		w.Step()
	}
	for s := int32(1); s < w.hi; s++ {
		if e := w.ent(s); e.alive && e.kind == vocab.KindCrawler {
			if e.y > 360 {
				fl = s
			} else {
				ce = s
			}
		}
	}
	if fl == 0 || ce == 0 {
		t.Fatal("no crawlers")
	}
	f, c := w.ent(fl), w.ent(ce)
	hw, hh := w.half[vocab.KindCrawler].w, w.half[vocab.KindCrawler].h
	if f.frame != 0 || c.frame != 1 || c.y != 60+hh {
		t.Fatalf("frames %d, %d; ceiling crawler at y %g", f.frame, c.frame, c.y)
	}
	w.TakeEvents()
	maxOff, top := 0.0, 720.0
	moves, t0 := 0, f.mo.T0
	var evs []vocab.Event
	for range 60 * 14 {
		w.Step()
		evs = append(evs, w.TakeEvents()...)
		if !f.alive {
			break
		}
		if f.mo.T0 != t0 {
			moves, t0 = moves+1, f.mo.T0
		}
		_, floor := w.st.st.Edges(w.StageDistance(), f.x-hw, f.x+hw)
		if f.x > 50 && f.x < 1230 {
			gap := 720 - floor - (f.y + hh) // from its bottom down to the floor under it
			if gap < -6 {
				t.Fatalf("tick %d: the floor crawler at y %g sinks %g px into its floor", w.tick, f.y, -gap)
			}
			maxOff = max(maxOff, gap)
			top = min(top, f.y)
		}
		if c.alive && c.y != 60+hh {
			t.Fatalf("tick %d: the ceiling crawler left its ceiling: y %g", w.tick, c.y)
		}
	}
	if top > 720-160-hh+4 {
		t.Errorf("the floor crawler rose to y %g only: the floor's top is at %g", top, 720-160-hh)
	}
	if maxOff > 50 { // it looks ahead: it rises before a ramp's foot
		t.Errorf("the floor crawler was up to %g px above its floor", maxOff)
	}
	if moves < 3 || moves > 50 {
		t.Errorf("%d motions of the floor crawler over a rise and a fall", moves)
	}
	shots := spawnsOf(evs, vocab.KindEnemyMissile)
	if len(shots) == 0 {
		t.Fatal("the ceiling crawler never fired at the ship below it")
	}
	for _, ev := range shots {
		if ev.Motion.VY <= 0 {
			t.Errorf("a ceiling crawler fired up: %+v", ev.Motion)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
