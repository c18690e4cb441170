package view

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"rtype/net/wire"
	"rtype/render/model"
	"rtype/sim"
)

// Stage mode (PROTOCOL.md 7.12): what the View makes of the Stage, Health
// and Arms events, and what it predicts of the own arms (the wave
// cannon's charge, the attached Force, a launch) so they answer on the
// next frame like the ship.

// SourceMode is what a View also uses of a v2 session's connection (a
// *client.Client): the game's mode. A Source without it plays Classic.
type SourceMode interface {
	// Mode is the mode of the game joined (wire.ModeClassic or
	// wire.ModeStage).
	Mode() uint8
}

// armsNumbers are the few numbers of the player's arms the View predicts
// with: the server's (sim's arms rules).
type armsNumbers struct {
	// ChargeTicks are the ticks Fire is held (the press counting as the
	// first) to reach each charge level, 1 to 3.
	ChargeTicks [3]int
	// FrontDX and BackDX place an attached Force from its ship's center.
	FrontDX, BackDX float64
	// LaunchSpeed is the speed of a launched Force, px/s.
	LaunchSpeed float64
}

// armsRules returns the arms' numbers: those of sim's arms rules, which
// the server plays by.
func armsRules() armsNumbers {
	a := sim.DefaultArmsRules()
	return armsNumbers{
		ChargeTicks: a.ChargeTicks,
		FrontDX:     a.ForceDX,
		BackDX:      -a.ForceDX,
		LaunchSpeed: a.ForceLaunchSpeed,
	}
}

// Timing of Stage mode's banners, in seconds.
const (
	// introShow is how long "STAGE 1" and the title show.
	introShow = 3.5
	// clearShow is how long "STAGE CLEAR" shows; the results follow it
	// until the next loop's intro.
	clearShow = 2.5
	// warnMin is the shortest a warning shows (its Value says when the
	// attack strikes).
	warnMin = 2.0
	// warnMax bounds a warning's Value.
	warnMax = 6.0
	// bannerFade is how long a banner fades in and out.
	bannerFade = 0.35
	// launchWait is how long a predicted launch waits for the server's
	// word (beyond the round trip) before the Force is drawn attached
	// again.
	launchWait = 0.3
	// launchBlend is how long a launched Force glides from its predicted
	// place to the server's.
	launchBlend = 0.15
	// maxStageText bounds a title, boss or attack name, in characters.
	maxStageText = 40
	// maxForce, maxSpeed and maxBits bound the arms a server tells
	// (7.12: Force level 1 to 3, 3 speed-ups, 2 bits).
	maxForce, maxSpeed, maxBits = 3, 3, 2
	// healthKept is how many entities' last Health the View keeps (the
	// boss bar's entity may be told after its Health).
	healthKept = 8
)

// Music is the music a View asks for (Result.Music).
type Music uint8

// The music.
const (
	MusicMain        Music = iota // the title and Classic games
	MusicStage                    // a stage
	MusicBoss                     // a boss fight
	MusicClear                    // a stage cleared
	MusicNone                     // silence
	MusicWarship                  // stage 2's, the warship ("warship")
	MusicWarshipBoss              // the warship boss's fight ("warship-boss")
)

// health is an entity's last Health.
type health struct {
	id        uint32
	hp, maxHP uint16
}

// launch is a launch of the own Force predicted from the Force key.
type launch struct {
	active    bool
	at        float64 // T of the press
	x0, y0    float64 // where the Force left
	dir       float64 // +1 forwards, -1 backwards
	confirmed bool    // the server's Arms said it is loose
	confAt    float64 // T of that
}

// stageState is the View's Stage mode.
type stageState struct {
	active bool
	rules  armsNumbers
	music  Music

	introAt     float64 // T of the last StageIntro, -Inf
	introBanner string  // "STAGE 1", "LOOP 2"
	introTitle  string
	warnAt      float64 // T of the last StageWarning, -Inf
	warnFor     float64 // its length, s
	warnName    string
	clearAt     float64 // T of the last StageClear, -Inf
	clearLoop   uint32
	clearSub    string // "LOOP 1 cleared"
	results     bool   // from StageClear to the next StageIntro

	bossID   uint32 // the boss bar's entity, 0 none
	bossName string
	healths  [healthKept]health
	healthN  int // next slot of healths

	arms    [wire.MaxPlayers]wire.Arms
	armsSet [wire.MaxPlayers]bool

	held   int     // ticks Fire is held (the own charge), 0 released
	heldAt float64 // T of the Update that counted the last one
	launch launch
}

// newStageState returns the Stage state of a game in mode mode.
func newStageState(mode uint8) stageState {
	s := stageState{active: mode == wire.ModeStage, rules: armsRules(),
		introAt: math.Inf(-1), warnAt: math.Inf(-1), clearAt: math.Inf(-1)}
	if s.active {
		s.music = MusicStage
	}
	return s
}

// sourceMode returns the mode of src's game.
func sourceMode(src Source) uint8 {
	if m, ok := src.(SourceMode); ok {
		return m.Mode()
	}
	return wire.ModeClassic
}

// stageText cleans a text of a Stage event (wire.CleanText) and bounds it
// to maxStageText characters.
// introBanner returns the banner and the line under it of a StageIntro
// of title for loop: "LOOP 2" over the title from the second loop on; for
// the first, a title "STAGE 1 - THE BYDO FRONT" is split ("STAGE 1" over
// "THE BYDO FRONT", not the number twice), any other is under "STAGE
// START" (the event does not say the stage's number).
func introBanner(title string, loop uint32) (banner, sub string) {
	if loop >= 2 {
		return "LOOP " + strconv.FormatUint(uint64(loop), 10), title
	}
	for _, dash := range []string{" - ", " – ", " — ", ": "} {
		head, rest, ok := strings.Cut(title, dash)
		if ok && len(head) <= 12 && strings.HasPrefix(strings.ToUpper(head), "STAGE ") && strings.TrimSpace(rest) != "" {
			return strings.ToUpper(head), strings.TrimSpace(rest)
		}
	}
	return "STAGE START", title
}

func stageText(s string) string {
	s = wire.CleanText(s)
	if utf8.RuneCountInString(s) <= maxStageText {
		return s
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxStageText-1 {
			break
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String()) + wire.Ellipsis
}

// stageInput counts the ticks the own Fire is held (the charge, predicted:
// the server charges on the same inputs) and starts a predicted launch
// when the Force key goes down with the Force attached.
func (v *View) stageInput(actions, prev uint8, t float64, now time.Time) {
	s := &v.stage
	if !s.active {
		return
	}
	x, y, _, ship := v.pred.Position(now)
	if actions&wire.ActionFire != 0 && ship {
		s.held++
	} else {
		s.held = 0
	}
	s.heldAt = t
	l := &s.launch
	if l.active && !l.confirmed && t-l.at > v.stats.RTT.Seconds()+launchWait {
		*l = launch{} // the server did not launch it
	}
	if l.active && l.confirmed && t-l.confAt > launchBlend {
		*l = launch{}
	}
	if actions&wire.ActionForce == 0 || prev&wire.ActionForce != 0 || !ship || l.active {
		return
	}
	switch s.arms[v.me].ForceAt {
	case wire.ForceFront:
		*l = launch{active: true, at: t, x0: float64(x) + s.rules.FrontDX, y0: float64(y), dir: 1}
		v.sounds = append(v.sounds, Cue{SoundForceLaunch, 0.8})
	case wire.ForceBack:
		*l = launch{active: true, at: t, x0: float64(x) + s.rules.BackDX, y0: float64(y), dir: -1}
		v.sounds = append(v.sounds, Cue{SoundForceLaunch, 0.8})
	}
}

// stageEvent applies a Stage, Health or Arms event.
func (v *View) stageEvent(ev *wire.Event, t float64) {
	s := &v.stage
	quiet := v.quiet(ev, t)
	switch ev.Type {
	case wire.EventHealth:
		s.healths[s.healthN] = health{id: ev.ID, hp: ev.HP, maxHP: ev.MaxHP}
		s.healthN = (s.healthN + 1) % healthKept
	case wire.EventArms:
		v.armsChanged(ev, t, quiet)
	case wire.EventStage:
		if v.terrain.event(ev, false, v.log()) {
			v.notices.Add(model.Notice{Text: unknownStage, Start: t, Player: wire.NoPlayer})
		}
		switch ev.What {
		case wire.StageIntro:
			s.introAt = t
			s.introBanner, s.introTitle = introBanner(stageText(ev.Name), ev.Value)
			s.results, s.clearAt = false, math.Inf(-1)
			s.bossID = 0
			s.music = MusicStage
		case wire.StageWarning:
			s.warnAt, s.warnName = t, stageText(ev.Name)
			s.warnFor = min(max(float64(ev.Value)/float64(v.cfg.Rules.TickRate), warnMin), warnMax)
			if !quiet {
				v.sounds = append(v.sounds, Cue{SoundBossAlarm, 1})
			}
		case wire.StageMusic:
			switch strings.ToLower(ev.Name) {
			case "stage":
				s.music = MusicStage
			case "boss":
				s.music = MusicBoss
			case "clear":
				s.music = MusicClear
			case "warship":
				s.music = MusicWarship
			case "warship-boss":
				s.music = MusicWarshipBoss
			case "":
				s.music = MusicNone
			}
		case wire.StageBoss:
			s.bossID, s.bossName = ev.Value, stageText(ev.Name)
			if !quiet {
				v.sounds = append(v.sounds, Cue{SoundBossAlarm, 1})
			}
		case wire.StageClear:
			s.clearAt, s.clearLoop, s.results = t, ev.Value, true
			s.clearSub = "LOOP " + strconv.FormatUint(uint64(ev.Value), 10) + " cleared"
			s.bossID = 0
		case wire.StageContinue:
			if p := ev.Value; p < wire.MaxPlayers {
				name := v.names[p]
				if name == "" {
					name = "Player " + strconv.Itoa(int(p)+1)
				}
				text := name + " continues with 1 life"
				if v.own(uint8(p)) {
					text = "You continue with 1 life"
				}
				v.notices.Add(model.Notice{Text: text, Start: t, Player: uint8(p)})
			}
		}
	}
}

// armsChanged takes a player's new arms; the own ones sound when an item
// was taken or the Force docked or left.
func (v *View) armsChanged(ev *wire.Event, t float64, quiet bool) {
	s := &v.stage
	p := ev.Player
	if p >= wire.MaxPlayers {
		return
	}
	old, had := s.arms[p], s.armsSet[p]
	a := ev.Arms // bounded: the HUD may index by them
	a.Force, a.Laser, a.Speed, a.Bits = min(a.Force, maxForce), min(a.Laser, wire.LaserYellow), min(a.Speed, maxSpeed), min(a.Bits, maxBits)
	a.ForceAt = min(a.ForceAt, wire.ForceLoose)
	s.arms[p], s.armsSet[p] = a, true
	if !v.own(p) {
		return
	}
	attached := func(at uint8) bool { return at == wire.ForceFront || at == wire.ForceBack }
	if a.ForceAt == wire.ForceLoose && s.launch.active && !s.launch.confirmed {
		s.launch.confirmed, s.launch.confAt = true, t
	} else if a.ForceAt != wire.ForceLoose {
		s.launch = launch{}
	}
	if quiet || !had {
		return
	}
	switch {
	case attached(a.ForceAt) && !attached(old.ForceAt) && old.ForceAt != wire.ForceNone:
		v.sounds = append(v.sounds, Cue{SoundForceAttach, 0.9})
	case a.ForceAt == wire.ForceLoose && attached(old.ForceAt) && !s.launch.confirmed:
		v.sounds = append(v.sounds, Cue{SoundForceLaunch, 0.8}) // not the own key's: it sounded
	}
	if a.Force > old.Force || a.Speed > old.Speed || a.Bits > old.Bits || (a.Force > 0 && a.Laser != old.Laser) {
		v.sounds = append(v.sounds, Cue{SoundPickup, 0.9})
	}
}

// stageDestroyed hides the boss bar when its entity is gone; a boss
// killed blows up with its own sound.
func (v *View) stageDestroyed(ev *wire.Event, t float64, k kindOf, known bool) {
	s := &v.stage
	if ev.ID == s.bossID {
		s.bossID = 0
	}
	if known && (k.kind == wire.KindBoss || k.kind == wire.KindMidBoss) {
		v.terrain.event(ev, true, nil)
	}
	if known && ev.Reason == wire.DestroyKilled && (k.kind == wire.KindBoss || k.kind == wire.KindMidBoss) {
		v.queue(ev, t, pendingFx{
			fx:    model.Effect{Kind: model.FxBossExplosion, X: float64(ev.X), Y: float64(ev.Y), Owner: wire.NoPlayer},
			hasFx: true, snd: Cue{SoundBossExplosion, 1}, hasSnd: true,
		})
	}
}

// bossHealth returns the last Health of the boss bar's entity, full when
// none came yet.
func (s *stageState) bossHealth() (hp, maxHP int) {
	for k := range healthKept {
		h := &s.healths[(s.healthN-1-k+2*healthKept)%healthKept]
		if h.id == s.bossID && h.maxHP > 0 {
			return int(min(h.hp, h.maxHP)), int(h.maxHP)
		}
	}
	return 1, 1
}

// charge returns the own predicted charge at t: the ticks Fire is held,
// going on between two Updates while it is.
func (s *stageState) charge(t float64, rate int) float64 {
	if s.held == 0 {
		return 0
	}
	return float64(s.held) + min(max((t-s.heldAt)*float64(rate), 0), 1)
}

// chargeHUD fills the meter from held ticks.
func (s *stageState) chargeHUD(h *model.StageHUD, held float64) {
	full := float64(s.rules.ChargeTicks[2])
	h.ChargeMarks = h.ChargeMarks[:0]
	for _, ticks := range s.rules.ChargeTicks {
		h.ChargeMarks = append(h.ChargeMarks, float64(ticks)/full)
	}
	h.Charge = min(held/full, 1)
	h.ChargeLevel = 0
	for _, ticks := range s.rules.ChargeTicks {
		if held >= float64(ticks) {
			h.ChargeLevel++
		}
	}
}

// chargeLevel is the charge of the last Update, 0 to 1 (the hum).
func (v *View) chargeLevel() float64 {
	s := &v.stage
	if !s.active || s.held == 0 {
		return 0
	}
	return min(float64(s.held)/float64(s.rules.ChargeTicks[2]), 1)
}

// fade is the opacity of a banner shown from at for length seconds, at t.
func fade(t, at, length float64) float64 {
	d := t - at
	if d < 0 || d >= length {
		return 0
	}
	return min(1, d/bannerFade, (length-d)/bannerFade)
}

// stageHUD fills dst.Stage at t.
func (v *View) stageHUD(dst *Frame, t float64) {
	s := &v.stage
	h := &dst.Stage
	marks := h.ChargeMarks
	*h = model.StageHUD{ChargeMarks: marks[:0]}
	if !s.active {
		return
	}
	h.Active = true
	if dst.Own.Shown && !v.watch {
		s.chargeHUD(h, s.charge(t, v.cfg.Rules.TickRate))
	}
	var a wire.Arms
	if v.me < wire.MaxPlayers {
		a = s.arms[v.me]
	}
	h.Arms = model.Arms{Force: a.Force, Laser: a.Laser, Speed: a.Speed, Bits: a.Bits, ForceAt: a.ForceAt}
	if s.bossID != 0 {
		h.BossShown, h.BossName = true, s.bossName
		h.BossHP, h.BossMax = s.bossHealth()
	}
	// The banners, the warning first.
	if al := fade(t, s.warnAt, s.warnFor); al > 0 {
		h.Banner, h.BannerSub, h.BannerAlpha = "WARNING", s.warnName, al
		h.Warning = al * (0.55 + 0.45*math.Cos(2*math.Pi*2*(t-s.warnAt)))
	} else if al := fade(t, s.clearAt, clearShow); al > 0 {
		h.Banner, h.BannerSub, h.BannerAlpha = "STAGE CLEAR", s.clearSub, al
	} else if al := fade(t, s.introAt, introShow); al > 0 {
		h.Banner, h.BannerSub, h.BannerAlpha = s.introBanner, s.introTitle, al
	}
	if s.results && t-s.clearAt >= clearShow {
		h.ResultsShown = true
		h.Results.Loop = int(s.clearLoop)
		for p, pl := range v.players {
			if !pl.Present {
				continue
			}
			name := pl.Name
			if name == "" {
				name = v.names[p]
			}
			h.Results.Lines[p] = model.ResultLine{Present: true, Name: name, Score: pl.Score, Lives: int(pl.Lives)}
			h.Results.Total += pl.Score
		}
	}
}

// ownForce places the own Force's sprite at render tick r, the own ship
// being at (sx, sy) (predicted): attached, at the ship plus its offset; on
// a predicted launch, leaving from where it was; loose, led to the
// server's present like the own missiles (lead in ticks). It reports
// false when the interpolation's place stands.
func (v *View) ownForce(sp *model.Sprite, motion *wire.Motion, hasMotion bool, r, lead float64, sx, sy float64, shipOK bool, t float64) bool {
	s := &v.stage
	if !s.active || !shipOK {
		return false
	}
	l := &s.launch
	switch at := s.arms[v.me].ForceAt; {
	case l.active:
		px := l.x0 + l.dir*s.rules.LaunchSpeed*(t-l.at)
		py := l.y0
		if l.confirmed && hasMotion {
			// Glide to the server's motion, led to its present.
			w := min(max((t-l.confAt)/launchBlend, 0), 1)
			mx, my, _, _ := motion.At(r + lead)
			px, py = px+(mx-px)*w, py+(my-py)*w
		}
		sp.X, sp.Y = px, py
	case at == wire.ForceFront:
		sp.X, sp.Y = sx+s.rules.FrontDX, sy
	case at == wire.ForceBack:
		sp.X, sp.Y = sx+s.rules.BackDX, sy
	case at == wire.ForceLoose && hasMotion:
		sp.X, sp.Y, _, _ = motion.At(r + lead)
	default:
		return false
	}
	return true
}
