package view

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render/model"
)

// stageRig is a View of a v2 game in mode mode, stepped by the test at 60
// Updates a second (a drawn frame each), on a real simulation and a real
// v2 client world (harness2_test.go). The world plays Classic's rules
// with no waves: the events of Stage mode are fed by the test, as the
// server's Stage game would send them, on the same ordered channel.
type stageRig struct {
	t      *testing.T
	clk    *clock
	g      *game2
	src    Source
	v      *View
	f      Frame
	res    Result
	sounds []Sound // of every Update so far
}

func newStageRig(t *testing.T, mode uint8, wrap func(*game2) Source) *stageRig {
	clk := &clock{now: t0}
	g := newGame2(t, clk, nil, 30*time.Millisecond, 0, 0, 1)
	g.mode = mode
	var src Source = g
	if wrap != nil {
		src = wrap(g)
	}
	s := &stageRig{t: t, clk: clk, g: g, src: src, v: newView(src, clk)}
	s.run(500*time.Millisecond, 0) // the ship, its prediction and the join
	return s
}

// tick moves the clock a tick on, runs the game, Updates the View with
// actions and draws a frame at the new present.
func (s *stageRig) tick(actions uint8) *Frame {
	s.clk.now = s.clk.now.Add(tickDur)
	s.g.advance()
	s.res = s.v.Update(actions)
	for _, c := range s.res.Sounds {
		s.sounds = append(s.sounds, c.Sound)
	}
	return s.v.Frame(&s.f, s.clk.now)
}

// run ticks for d with actions held.
func (s *stageRig) run(d time.Duration, actions uint8) *Frame {
	for end := s.clk.now.Add(d); s.clk.now.Before(end); {
		s.tick(actions)
	}
	return &s.f
}

// feed hands the View events of the server's present tick, as the client
// delivers them (DrainEvents).
func (s *stageRig) feed(evs ...wire.Event) {
	for _, ev := range evs {
		ev.Tick = s.g.w.Tick()
		s.g.drained = append(s.g.drained, ev)
	}
}

// heard reports whether sound c was asked for since the last call.
func (s *stageRig) heard(c Sound) bool {
	defer func() { s.sounds = s.sounds[:0] }()
	return slices.Contains(s.sounds, c)
}

func stageEv(what uint8, value uint32, name string) wire.Event {
	return wire.Event{Type: wire.EventStage, What: what, Value: value, Name: name}
}

func TestStageHUDOnlyInStageGames(t *testing.T) {
	c := newStageRig(t, 0, nil)
	if f := c.tick(wire.ActionFire); f.Stage.Active || f.Stage.Charge != 0 || c.res.Music != MusicMain {
		t.Fatalf("Classic game: %+v, music %d", f.Stage, c.res.Music)
	}
	s := newStageRig(t, wire.ModeStage, nil)
	if f := s.tick(0); !f.Stage.Active || s.res.Music != MusicStage {
		t.Fatalf("Stage game: active %v, music %d", f.Stage.Active, s.res.Music)
	}
}

// TestIntroBanner: the first loop's banner takes the stage's number from
// a title "STAGE N - NAME" (not the number twice on screen); later loops
// are "LOOP N" over the whole title.
func TestIntroBanner(t *testing.T) {
	for _, c := range []struct {
		title       string
		loop        uint32
		banner, sub string
	}{
		{"STAGE 1 - THE BYDO FRONT", 1, "STAGE 1", "THE BYDO FRONT"},
		{"Stage 2 – Caves", 1, "STAGE 2", "Caves"},
		{"Stage 3: the core", 1, "STAGE 3", "the core"},
		{"The Bydo Empire", 1, "STAGE START", "The Bydo Empire"},
		{"STAGE 1 - ", 1, "STAGE START", "STAGE 1 - "},
		{"Backstage - of a long name", 1, "STAGE START", "Backstage - of a long name"},
		{"STAGE 1 - THE BYDO FRONT", 2, "LOOP 2", "STAGE 1 - THE BYDO FRONT"},
		{"", 3, "LOOP 3", ""},
	} {
		if b, s := introBanner(c.title, c.loop); b != c.banner || s != c.sub {
			t.Errorf("introBanner(%q, %d) = %q, %q; want %q, %q", c.title, c.loop, b, s, c.banner, c.sub)
		}
	}
}

func TestStageBannersBossBarAndResults(t *testing.T) {
	s := newStageRig(t, wire.ModeStage, nil)
	long := strings.Repeat("Bydo ", 100)
	s.feed(stageEv(wire.StageIntro, 1, "The\x00 Bydo\u202e Empire"))
	s.tick(0)
	f := s.tick(0) // it fades in
	if f.Stage.Banner != "STAGE START" || f.Stage.BannerSub != "The Bydo Empire" || f.Stage.BannerAlpha <= 0 || f.Stage.BannerAlpha >= 1 {
		t.Fatalf("intro: %q / %q at %.2f", f.Stage.Banner, f.Stage.BannerSub, f.Stage.BannerAlpha)
	}
	if f = s.run(time.Second, 0); f.Stage.BannerAlpha != 1 {
		t.Fatalf("intro after 1 s: alpha %.2f", f.Stage.BannerAlpha)
	}
	if f = s.run(time.Duration(introShow*float64(time.Second)), 0); f.Stage.Banner != "" || f.Stage.BannerAlpha != 0 {
		t.Fatalf("intro after %.1f s: %q at %.2f", introShow+1, f.Stage.Banner, f.Stage.BannerAlpha)
	}

	// The boss: its Health may come first; the bar shows its fraction.
	s.feed(wire.Event{Type: wire.EventSpawn, ID: 77, Kind: wire.KindBoss, Owner: wire.NoPlayer},
		wire.Event{Type: wire.EventHealth, ID: 77, HP: 300, MaxHP: 400},
		wire.Event{Type: wire.EventHealth, ID: 78, HP: 5, MaxHP: 10},
		stageEv(wire.StageMusic, 0, "boss"),
		stageEv(wire.StageBoss, 77, long))
	f = s.tick(0)
	if !f.Stage.BossShown || f.Stage.BossHP != 300 || f.Stage.BossMax != 400 || s.res.Music != MusicBoss || !s.heard(SoundBossAlarm) {
		t.Fatalf("boss: shown %v %d/%d, music %d", f.Stage.BossShown, f.Stage.BossHP, f.Stage.BossMax, s.res.Music)
	}
	if n := utf8.RuneCountInString(f.Stage.BossName); n != maxStageText || !strings.HasSuffix(f.Stage.BossName, wire.Ellipsis) {
		t.Errorf("a long boss name is %d characters: %q", n, f.Stage.BossName)
	}
	s.feed(wire.Event{Type: wire.EventHealth, ID: 77, HP: 100, MaxHP: 400})
	if f = s.tick(0); float64(f.Stage.BossHP)/float64(f.Stage.BossMax) != 0.25 {
		t.Fatalf("boss bar %d/%d, want 1/4", f.Stage.BossHP, f.Stage.BossMax)
	}

	// An attack announced: WARNING, its name, the red flash, the alarm.
	s.feed(stageEv(wire.StageWarning, 90, "Tail\n sweep"))
	s.tick(0)
	f = s.tick(0)
	if f.Stage.Banner != "WARNING" || f.Stage.BannerSub != "Tail sweep" || !s.heard(SoundBossAlarm) {
		t.Fatalf("warning: %q / %q", f.Stage.Banner, f.Stage.BannerSub)
	}
	flash := 0.0
	for range 60 {
		flash = max(flash, s.tick(0).Stage.Warning)
	}
	if flash < 0.5 {
		t.Errorf("the warning's red flash peaks at %.2f", flash)
	}
	if f = s.run(2*time.Second, 0); f.Stage.Banner != "" || f.Stage.Warning != 0 {
		t.Errorf("a 1.5 s warning still shows after 3 s: %q, flash %.2f", f.Stage.Banner, f.Stage.Warning)
	}

	// The boss dies: the bar goes, it blows up with its sound.
	s.heard(0)
	s.feed(wire.Event{Type: wire.EventDestroy, ID: 77, Reason: wire.DestroyKilled})
	f = s.run(700*time.Millisecond, 0)
	if f.Stage.BossShown || !s.heard(SoundBossExplosion) {
		t.Fatalf("boss killed: bar %v, explosion sound missing", f.Stage.BossShown)
	}

	// The clear: its banner, then the results until the next intro.
	s.feed(stageEv(wire.StageMusic, 0, "clear"), stageEv(wire.StageClear, 1, ""))
	s.tick(0)
	f = s.tick(0)
	if f.Stage.Banner != "STAGE CLEAR" || f.Stage.BannerSub != "LOOP 1 cleared" || f.Stage.ResultsShown || s.res.Music != MusicClear {
		t.Fatalf("clear: %q / %q, results %v, music %d", f.Stage.Banner, f.Stage.BannerSub, f.Stage.ResultsShown, s.res.Music)
	}
	f = s.run(time.Duration(clearShow*float64(time.Second)), 0)
	r := f.Stage.Results
	if !f.Stage.ResultsShown || f.Stage.Banner != "" || r.Loop != 1 || !r.Lines[0].Present || r.Lines[0].Name != "Ripley" || r.Lines[1].Present {
		t.Fatalf("results: shown %v, banner %q, %+v", f.Stage.ResultsShown, f.Stage.Banner, r)
	}
	if r.Total != r.Lines[0].Score || r.Lines[0].Lives != int(s.v.Players()[0].Lives) {
		t.Errorf("results %+v, players %+v", r, s.v.Players())
	}
	if f = s.run(5*time.Second, 0); !f.Stage.ResultsShown {
		t.Fatal("the results went before the next loop")
	}
	s.feed(stageEv(wire.StageMusic, 0, "stage"), stageEv(wire.StageIntro, 2, "The Bydo Empire"))
	s.tick(0)
	f = s.tick(0)
	if f.Stage.ResultsShown || f.Stage.Banner != "LOOP 2" || f.Stage.BannerSub != "The Bydo Empire" || s.res.Music != MusicStage {
		t.Fatalf("loop 2: results %v, %q / %q, music %d", f.Stage.ResultsShown, f.Stage.Banner, f.Stage.BannerSub, s.res.Music)
	}
}

func TestStageArmsAndTheirSounds(t *testing.T) {
	s := newStageRig(t, wire.ModeStage, nil)
	me := s.v.Me()
	arms := func(a wire.Arms) wire.Event { return wire.Event{Type: wire.EventArms, Player: me, Arms: a} }
	s.feed(arms(wire.Arms{}), wire.Event{Type: wire.EventArms, Player: 9, Arms: wire.Arms{Force: 3}})
	s.tick(0)
	s.heard(0)
	s.feed(arms(wire.Arms{Force: 1, ForceAt: wire.ForceLoose}))
	if s.tick(0); !s.heard(SoundPickup) {
		t.Error("the Force taken: no pickup sound")
	}
	s.feed(arms(wire.Arms{Force: 1, ForceAt: wire.ForceBack}))
	f := s.tick(0)
	if !s.heard(SoundForceAttach) || f.Stage.Arms != (model.Arms{Force: 1, ForceAt: wire.ForceBack}) {
		t.Errorf("the Force docked: arms %+v", f.Stage.Arms)
	}
	s.feed(arms(wire.Arms{Force: 1, ForceAt: wire.ForceLoose}))
	if s.tick(0); !s.heard(SoundForceLaunch) {
		t.Error("the Force left: no launch sound")
	}
	s.feed(arms(wire.Arms{Force: 1, ForceAt: wire.ForceLoose, Speed: 1, Laser: wire.LaserBlue}))
	if f = s.tick(0); !s.heard(SoundPickup) || f.Stage.Arms.Speed != 1 || f.Stage.Arms.Laser != wire.LaserBlue {
		t.Errorf("speed-up: arms %+v", f.Stage.Arms)
	}
	// Another player's arms are not ours.
	s.feed(wire.Event{Type: wire.EventArms, Player: me ^ 1, Arms: wire.Arms{Force: 3, Bits: 2}})
	if f = s.tick(0); s.heard(SoundPickup) || f.Stage.Arms.Bits != 0 {
		t.Errorf("another's pickup: arms %+v", f.Stage.Arms)
	}
	// A beam: loud when it is ours.
	s.feed(wire.Event{Type: wire.EventSpawn, ID: 500, Kind: wire.KindWaveBeam, Owner: me})
	if s.tick(0); !s.heard(SoundBeam) {
		t.Error("own beam: no sound")
	}
}

// TestStageChargePredicted: the charge meter answers the Fire key on the
// next frame, from the Fire held, with the levels of the arms rules.
func TestStageChargePredicted(t *testing.T) {
	s := newStageRig(t, wire.ModeStage, nil)
	if f := s.tick(0); f.Stage.Charge != 0 || !f.Own.Shown {
		t.Fatalf("before Fire: charge %.3f, own ship %v", f.Stage.Charge, f.Own.Shown)
	}
	rules := armsRules()
	full := rules.ChargeTicks[2]
	f := s.tick(wire.ActionFire)
	if f.Stage.Charge <= 0 || f.Stage.ChargeLevel != 0 || s.res.Charge <= 0 {
		t.Fatalf("the frame after Fire went down: charge %.3f level %d (hum %.3f)", f.Stage.Charge, f.Stage.ChargeLevel, s.res.Charge)
	}
	if len(f.Stage.ChargeMarks) != 3 || f.Stage.ChargeMarks[2] != 1 || f.Stage.ChargeMarks[0] >= f.Stage.ChargeMarks[1] {
		t.Fatalf("marks %v", f.Stage.ChargeMarks)
	}
	held := 1
	for lvl, ticks := range rules.ChargeTicks {
		for ; held < ticks-1; held++ {
			f = s.tick(wire.ActionFire | wire.ActionRight)
		}
		if f.Stage.ChargeLevel != lvl {
			t.Fatalf("%d ticks held: level %d, want %d", held, f.Stage.ChargeLevel, lvl)
		}
		f = s.tick(wire.ActionFire | wire.ActionRight)
		held++
		if f.Stage.ChargeLevel != lvl+1 || math.Abs(f.Stage.Charge-min(1, float64(ticks)/float64(full))) > 1.0/float64(full)+1e-9 {
			t.Fatalf("%d ticks held: level %d charge %.3f, want level %d", held, f.Stage.ChargeLevel, f.Stage.Charge, lvl+1)
		}
	}
	if f = s.run(time.Second, wire.ActionFire); f.Stage.Charge != 1 || s.res.Charge != 1 {
		t.Fatalf("held long: charge %.3f, hum %.3f", f.Stage.Charge, s.res.Charge)
	}
	// A drawn frame between two Updates goes on charging.
	f = s.tick(0)
	if f.Stage.Charge != 0 || f.Stage.ChargeLevel != 0 || s.res.Charge != 0 {
		t.Fatalf("released: charge %.3f level %d hum %.3f", f.Stage.Charge, f.Stage.ChargeLevel, s.res.Charge)
	}
	s.tick(wire.ActionFire)
	a := s.v.Frame(&Frame{}, s.clk.now).Stage.Charge
	b := s.v.Frame(&Frame{}, s.clk.now.Add(tickDur/2)).Stage.Charge
	if b <= a {
		t.Errorf("between Updates the charge stands: %.4f then %.4f", a, b)
	}
}

// forceSrc adds the own Force to every frame of a game: an entity sitting
// still at (200, 100), so that the View's placement is seen.
type forceSrc struct{ *game2 }

const forceID = 4000

func (s forceSrc) Frames(dst []client.Frame) []client.Frame {
	dst = s.game2.Frames(dst)
	m := wire.Linear(1, 200, 100, 0, 0)
	for i := range dst {
		f := &dst[i]
		f.Entities = append(f.Entities, client.Entity{ID: forceID, Kind: wire.KindForce, Owner: s.me, X: 200, Y: 100,
			Tick: f.Tick, Spawned: 1, HasMotion: true, Motion: m})
		slices.SortFunc(f.Entities, func(a, b client.Entity) int { return cmp.Compare(a.ID, b.ID) })
	}
	return dst
}

func ownForce(f *Frame) (model.Sprite, bool) {
	for _, sp := range f.Sprites {
		if sp.Kind == wire.KindForce {
			return sp, true
		}
	}
	return model.Sprite{}, false
}

// TestStageOwnForcePredicted: the own attached Force is drawn at the
// predicted ship plus its offset, front or back, at every frame; a launch
// leaves on the next frame; without the server's word the Force is drawn
// attached again.
func TestStageOwnForcePredicted(t *testing.T) {
	s := newStageRig(t, wire.ModeStage, func(g *game2) Source { return forceSrc{g} })
	me := s.v.Me()
	rules := armsRules()
	f := s.tick(0)
	if sp, ok := ownForce(f); !ok || sp.X != 200 || sp.Y != 100 {
		t.Fatalf("without arms the Force is where the server has it: %+v %v", sp, ok)
	}
	s.feed(wire.Event{Type: wire.EventArms, Player: me, Arms: wire.Arms{Force: 1, ForceAt: wire.ForceFront}})
	for i := range 40 {
		a := uint8(wire.ActionRight | wire.ActionDown)
		if i >= 20 {
			a = wire.ActionUp
		}
		f = s.tick(a)
		sp, ok := ownForce(f)
		if !ok || !f.Own.Predicted || sp.X != f.Own.X+rules.FrontDX || sp.Y != f.Own.Y {
			t.Fatalf("tick %d: Force %+v (%v), own ship at (%.2f, %.2f) predicted %v", i, sp, ok, f.Own.X, f.Own.Y, f.Own.Predicted)
		}
		// A frame between two Updates too.
		var g Frame
		s.v.Frame(&g, s.clk.now.Add(tickDur/3))
		if sp, _ := ownForce(&g); sp.X != g.Own.X+rules.FrontDX || sp.Y != g.Own.Y {
			t.Fatalf("tick %d + 1/3: Force at (%.2f, %.2f), ship at (%.2f, %.2f)", i, sp.X, sp.Y, g.Own.X, g.Own.Y)
		}
	}
	s.feed(wire.Event{Type: wire.EventArms, Player: me, Arms: wire.Arms{Force: 1, ForceAt: wire.ForceBack}})
	f = s.tick(wire.ActionLeft)
	if sp, _ := ownForce(f); sp.X != f.Own.X+rules.BackDX || sp.Y != f.Own.Y {
		t.Fatalf("back: Force at (%.2f, %.2f), ship at (%.2f, %.2f)", sp.X, sp.Y, f.Own.X, f.Own.Y)
	}

	// The Force key: the launch shows on the next frame, backwards.
	s.heard(0)
	start := f.Own.X + rules.BackDX
	f = s.tick(wire.ActionForce)
	sp, _ := ownForce(f)
	if !s.heard(SoundForceLaunch) || sp.X > start || sp.X < start-rules.LaunchSpeed/30 {
		t.Fatalf("launch: Force at %.2f, was at %.2f", sp.X, start)
	}
	f = s.run(100*time.Millisecond, wire.ActionForce) // held: one launch
	if sp, _ := ownForce(f); sp.X > start-rules.LaunchSpeed*0.09 {
		t.Fatalf("0.1 s after the launch: Force at %.2f, left from %.2f", sp.X, start)
	}
	// The server never said it left: it is drawn attached again.
	f = s.run(time.Second, 0)
	if sp, _ := ownForce(f); sp.X != f.Own.X+rules.BackDX {
		t.Fatalf("launch not confirmed: Force at %.2f, ship at %.2f", sp.X, f.Own.X)
	}
	// Confirmed: it glides to the server's motion (here, sitting still).
	s.tick(wire.ActionForce)
	s.feed(wire.Event{Type: wire.EventArms, Player: me, Arms: wire.Arms{Force: 1, ForceAt: wire.ForceLoose}})
	f = s.run(500*time.Millisecond, 0)
	if sp, _ := ownForce(f); sp.X != 200 || sp.Y != 100 {
		t.Fatalf("loose: Force at (%.2f, %.2f), the server's (200, 100)", sp.X, sp.Y)
	}
}

// TestForceBitSentInV2Only: the Force key is bit 5 of a v2 Input (7.12);
// a v1 session never sends it (4.2: bits 5-7 are 0).
func TestForceBitSentInV2Only(t *testing.T) {
	clk := &clock{now: t0}
	g1 := newGame(t, clk, nil, 0, 0, 1)
	v1 := newView(g1, clk)
	v1.Update(wire.ActionForce | wire.ActionFire)
	if got := g1.inputs[len(g1.inputs)-1].actions; got != wire.ActionFire {
		t.Errorf("v1 Input %#x, want %#x", got, wire.ActionFire)
	}
	g2 := newGame2(t, clk, nil, 0, 0, 0, 1)
	v2 := newView(g2, clk)
	v2.Update(wire.ActionForce | wire.ActionFire | 0xc0)
	if got := g2.steps[len(g2.steps)-1].Actions; got != wire.ActionForce|wire.ActionFire {
		t.Errorf("v2 step %#x, want %#x", got, wire.ActionForce|wire.ActionFire)
	}
}

// TestStageFrameAllocatesNothing: a Stage game's Frame, with the boss bar,
// a banner, the charge and the own Force, reuses its storage.
func TestStageFrameAllocatesNothing(t *testing.T) {
	s := newStageRig(t, wire.ModeStage, func(g *game2) Source { return forceSrc{g} })
	s.feed(wire.Event{Type: wire.EventArms, Player: s.v.Me(), Arms: wire.Arms{Force: 1, ForceAt: wire.ForceFront}},
		wire.Event{Type: wire.EventHealth, ID: 77, HP: 3, MaxHP: 4}, stageEv(wire.StageBoss, 77, "Boss"),
		stageEv(wire.StageWarning, 120, "Sweep"))
	s.run(500*time.Millisecond, wire.ActionFire)
	var f Frame
	now := s.clk.now
	s.v.Frame(&f, now)
	if !f.Stage.BossShown || f.Stage.Banner != "WARNING" || f.Stage.Charge == 0 {
		t.Fatalf("not the busy HUD: %+v", f.Stage)
	}
	if n := testing.AllocsPerRun(100, func() { s.v.Frame(&f, now) }); n != 0 {
		t.Errorf("Frame allocates %v times", n)
	}
}

// TestStageHostileEvents: whatever a server sends in Stage, Health and
// Arms events, the View neither fails nor shows out-of-range values.
func TestStageHostileEvents(t *testing.T) {
	s := newStageRig(t, wire.ModeStage, func(g *game2) Source { return forceSrc{g} })
	rng := rand.New(rand.NewPCG(5, 6))
	junk := func() string {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return string(b)
	}
	for range 3000 {
		ev := wire.Event{Type: wire.EventType(7 + rng.IntN(3)), What: uint8(rng.IntN(10)), Value: rng.Uint32() >> uint(rng.IntN(32)),
			Name: junk(), ID: uint32(rng.IntN(100)), HP: uint16(rng.Uint32()), MaxHP: uint16(rng.Uint32()), Player: uint8(rng.IntN(6)),
			Arms: wire.Arms{Force: uint8(rng.Uint32()), Laser: uint8(rng.Uint32()), Speed: uint8(rng.Uint32()), Bits: uint8(rng.Uint32()), ForceAt: uint8(rng.Uint32())}}
		s.feed(ev)
		f := s.tick(uint8(rng.IntN(64)))
		h := &f.Stage
		a := h.Arms
		if a.Force > 3 || a.Laser > wire.LaserYellow || a.Speed > 3 || a.Bits > 2 || a.ForceAt > wire.ForceLoose {
			t.Fatalf("arms out of range: %+v", a)
		}
		if h.BossShown && (h.BossHP > h.BossMax || h.BossMax <= 0) {
			t.Fatalf("boss bar %d/%d", h.BossHP, h.BossMax)
		}
		for _, txt := range []string{h.Banner, h.BannerSub, h.BossName} {
			if !utf8.ValidString(txt) || utf8.RuneCountInString(txt) > maxStageText || strings.ContainsAny(txt, "\n\r\x00\u202e") {
				t.Fatalf("text %q", txt)
			}
		}
		if h.Charge < 0 || h.Charge > 1 || h.BannerAlpha < 0 || h.BannerAlpha > 1 || h.Warning < 0 || h.Warning > 1 {
			t.Fatalf("fractions out of range: %+v", h)
		}
		if sp, ok := ownForce(f); ok && (math.IsNaN(sp.X) || math.IsInf(sp.X, 0)) {
			t.Fatalf("Force at %v", sp.X)
		}
	}
}

func TestStageContinueNotice(t *testing.T) {
	s := newStageRig(t, wire.ModeStage, nil)
	s.feed(stageEv(wire.StageContinue, uint32(s.v.Me()), ""), stageEv(wire.StageContinue, 2, ""), stageEv(wire.StageContinue, 9, ""))
	f := s.tick(0)
	var texts []string
	for _, n := range f.Notices {
		texts = append(texts, n.Text)
	}
	if !slices.Contains(texts, "You continue with 1 life") || !slices.Contains(texts, "Player 3 continues with 1 life") || len(texts) > 3 {
		t.Errorf("notices %q", texts)
	}
}
