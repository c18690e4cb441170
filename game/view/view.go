// Package view is what the player of a game sees, without drawing it: it
// owns the client's frames, the interpolation of the world (game/interp),
// the prediction of the own ship (game/predict), the timeline that turns
// the server's events into effects, sounds and notices, and the HUD's
// figures (in a Stage game, PROTOCOL.md 7.12, also the charge meter, the
// boss's bar, the banners and the results: stage.go), and hands out one
// Frame per drawn frame, for any render time.
//
// It is headless (no Ebitengine, directly or not), so the game, the
// benchmark tool and the tests run exactly this code, the tests without a
// display. Time comes from an injected clock.
//
// A View is driven like an Ebitengine game: Update, 60 times per second,
// takes the actions held and the news of the connection (state changes);
// Frame, at every drawn frame, places everything at that frame's own time
// and changes nothing, so a 144 Hz display shows 144 distinct positions
// per second and two Frames at the same time are the same.
package view

import (
	"cmp"
	"log/slog"
	"math"
	"slices"
	"time"

	"rtype/game/interp"
	"rtype/game/predict"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render/model"
	"rtype/sim"
	"rtype/sim/stage"
)

// Source is the connection a View shows: a *client.Client.
type Source interface {
	// Player is the local player's number.
	Player() uint8
	// SetInput sets the actions sent with the next Inputs.
	SetInput(actions uint8)
	// Frames copies the frame history into dst.
	Frames(dst []client.Frame) []client.Frame
	// DrainEvents appends the events applied since the last call.
	DrainEvents(dst []wire.Event) []wire.Event
	// Players returns the player table.
	Players() [wire.MaxPlayers]client.Player
	// Stats returns the connection's measures.
	Stats() client.Stats
}

// PredictionSource is what a View also uses of a v2 session's connection (a
// *client.Client; a Source without these methods is taken as v1).
type PredictionSource interface {
	// Rules returns the rules of a v2 LoginAccepted (7.1), and false in a
	// v1 session: the own ship is predicted with them.
	Rules() (wire.LoginExt, bool)
	// Steps appends the input steps sent after step after (7.4).
	Steps(after uint32, dst []client.Step) []client.Step
}

// Config configures a View. Zero fields take the defaults given with each.
type Config struct {
	// Rules are the server's rules the own ship is predicted with (its
	// movement) and its shots leave from (MissileDX). The protocol does
	// not carry them (PROTOCOL.md, "Conventions"): a client hosting the
	// game passes those of its server; one joining another server passes
	// sim.DefaultRules(), the reference server's. Required: a zero
	// TickRate is an error of the caller and New panics.
	Rules sim.Rules
	// Clock is the local clock (time.Now).
	Clock func() time.Time
	// Epoch is the origin of Frame.T, the time of animations and effects
	// in seconds (the View's creation).
	Epoch time.Time
	// Name is the local player's name until the server's PlayerJoined
	// says it.
	Name string
	// Palette names the players' colours in the notices (the normal
	// palette's names by default).
	Palette model.Palette
	// HUDHeight is the players' panels' height (model.HUDHeight when 0;
	// more at a UI scale above 100 %): what flies under them makes them
	// see-through.
	HUDHeight float64
	// Interp configures the interpolation (its defaults).
	Interp interp.Config
	// Predict configures the prediction's smoothing (its defaults); its
	// Rules are replaced by Rules.
	Predict predict.Config
	// Stage is the stage a Stage game plays, whose terrain the frames
	// show (Frame.Terrain), and Warp the warp it started with (as
	// -warp). A nil Stage is looked for by the title of the game's
	// StageIntro among the built-in stages; none found, no terrain is
	// drawn (and the log says so).
	Stage *stage.Stage
	Warp  string
	// Log is where the View says what it cannot show; nil: slog.Default.
	Log *slog.Logger
}

// Timing of what the View shows, in seconds.
const (
	// fxMaxWait is the longest an effect waits for the render clock to
	// reach its event's tick.
	fxMaxWait = 0.6
	// burstQuiet is how long after the first events (the world as it was
	// when we joined: its players and entities) the Spawns make no shot
	// sound or flash and the players already there are "here" rather than
	// "joined", when the server does not send our own PlayerJoined.
	burstQuiet = 0.1
	// hitFlash is how long the screen flashes when the own ship blows up.
	hitFlash = 0.4
	// outFadeIn is how long "you are out" takes to show.
	outFadeIn = 0.5
	// ownLabel is how long "YOU" shows under the own ship.
	ownLabel = 6.0
	// statsEvery is how often the connection's measures are read.
	statsEvery = 0.25
	// keepSpare is how many entity kinds beyond the newest frame's
	// entities the View keeps before forgetting those of gone entities.
	keepSpare = 64
)

// View is what the player sees of a game. It is not safe for concurrent
// use: Update and Frame are called from the game loop.
type View struct {
	cfg   Config
	src   Source
	me    uint8
	clock func() time.Time
	epoch time.Time
	start float64 // T of New
	// muzzleDX places the own ship's muzzle flash: the missile leaves
	// from the nose (Rules.MissileDX ahead of the ship's center), and the
	// flash's bright core sits 4 px behind the sprite's center.
	muzzleDX float32

	ip     *interp.Interpolator
	frames []client.Frame
	events []wire.Event
	// newest is the tick of the newest frame, 0 before one.
	newest uint32

	pred     *predict.Predictor
	predTick uint32 // tick of the last snapshot fed to pred
	predFed  bool   // one was fed since the ship appeared

	// v2: the session's steps, fed to pred as they are sent (7.4).
	src2     PredictionSource // nil in a v1 session
	steps    []client.Step
	stepFed  uint32 // the newest step fed
	stepsFed bool
	blink    uint32        // blink_ticks (7.1, 7.5)
	items    []wire.Motion // the speed-ups in sight, for pred (Stage)

	players  [wire.MaxPlayers]client.Player
	names    [wire.MaxPlayers]string // every player's name, even after it left
	present  [wire.MaxPlayers]bool   // joined and not left, from the events
	joinTick uint32                  // the tick of our own PlayerJoined
	joinSeen bool
	evSeen   bool    // events came
	firstEv  float64 // T of the first events

	kinds   map[uint32]kindOf // kind of each live entity, from the Spawns
	pending []pendingFx
	fx      model.Effects
	notices model.Notices
	sounds  []Cue

	hitAt   float64 // T the own ship blew up, -Inf if never
	out     bool    // the local player is out of lives
	outAt   float64 // T it ran out
	actions uint8
	stats   client.Stats
	statsAt float64
	net     Net

	stage   stageState   // Stage mode (stage.go)
	terrain terrainClock // its terrain's scroll (terrain.go)

	// watch: a spectator's View (PROTOCOL.md 7.17; src.Player() is
	// wire.NoPlayer): no own ship, nothing predicted nor sent; me is the
	// player followed (its HUD panel marked, its Arms shown), or
	// wire.NoPlayer for the free view (watch.go).
	watch bool
}

// kindOf is what the View remembers of a live entity.
type kindOf struct {
	kind uint8
	tick uint32 // of its Spawn
}

// New returns the View of src's game.
func New(src Source, cfg Config) *View {
	if cfg.Rules.TickRate <= 0 {
		panic("view: Config.Rules not set")
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	now := cfg.Clock()
	if cfg.Epoch.IsZero() {
		cfg.Epoch = now
	}
	var src2 PredictionSource
	if s2, ok := src.(PredictionSource); ok {
		if ext, v2 := s2.Rules(); v2 {
			// Predict with the rules the server told (7.1).
			src2 = s2
			cfg.Rules = toldRules(cfg.Rules, ext)
		}
	}
	if src2 != nil {
		cfg.Interp.Sparse = true // 7.9: snapshots only when something changed
	}
	pc := cfg.Predict
	pc.Rules = cfg.Rules
	if sourceMode(src) == wire.ModeStage {
		// A Stage ship's speed is its speed-ups' (7.12), not ship_speed.
		pc.StageSpeeds = sim.DefaultArmsRules().ShipSpeeds
	}
	v := &View{
		cfg: cfg, src: src, me: src.Player(), clock: cfg.Clock, epoch: cfg.Epoch,
		muzzleDX: float32(cfg.Rules.MissileDX) - 4,
		ip:       interp.New(cfg.Interp),
		pred:     predict.New(pc),
		kinds:    map[uint32]kindOf{},
		statsAt:  math.Inf(-1),
		hitAt:    math.Inf(-1),
		src2:     src2,
		blink:    uint32(max(cfg.Rules.BlinkTicks, 1)),
	}
	v.start = v.t(now)
	v.watch = v.me >= wire.MaxPlayers
	if !v.watch {
		v.names[v.me] = cfg.Name
	}
	v.stage = newStageState(sourceMode(src))
	v.terrain = newTerrainClock(cfg.Stage, cfg.Warp)
	return v
}

// toldRules returns r with the rules of a v2 LoginAccepted (7.1): those
// the server says it plays by, which the prediction uses.
func toldRules(r sim.Rules, ext wire.LoginExt) sim.Rules {
	if ext.TickRate > 0 {
		r.TickRate = int(ext.TickRate)
	}
	if ext.ShipSpeed > 0 {
		r.ShipSpeed = float64(ext.ShipSpeed)
	}
	if ext.ShipW > 0 && ext.ShipH > 0 {
		r.ShipW, r.ShipH = float64(ext.ShipW), float64(ext.ShipH)
	}
	if ext.AreaW > 0 && ext.AreaH > 0 {
		r.AreaW, r.AreaH = float64(ext.AreaW), float64(ext.AreaH)
	}
	if ext.BlinkTicks > 0 {
		r.BlinkTicks = int(ext.BlinkTicks)
	}
	return r
}

// t returns now in seconds since the epoch (Frame.T's clock).
func (v *View) t(now time.Time) float64 { return now.Sub(v.epoch).Seconds() }

// Now reads the View's clock: the time to ask a Frame for.
func (v *View) Now() time.Time { return v.clock() }

// Me returns the local player's number.
func (v *View) Me() uint8 { return v.me }

// Players returns the player table of the last Update.
func (v *View) Players() [wire.MaxPlayers]client.Player { return v.players }

// Names returns every player's name known, even of those who left.
func (v *View) Names() [wire.MaxPlayers]string {
	names := v.names
	for p, pl := range v.players {
		if pl.Name != "" {
			names[p] = pl.Name
		}
	}
	return names
}

// Sound is a sound the View asks for.
type Sound uint8

// The sounds.
const (
	SoundShot Sound = iota
	SoundExplosion
	SoundDeath
	SoundJoin
	// Stage mode.
	SoundBeam          // a wave-cannon beam leaves
	SoundPickup        // the own ship took an item
	SoundForceAttach   // the own Force docked
	SoundForceLaunch   // the own Force left
	SoundBossAlarm     // a boss comes, an attack is announced
	SoundBossExplosion // a boss blew up
)

// Cue is a sound to play now, at a volume from 0 to 1.
type Cue struct {
	Sound  Sound
	Volume float64
}

// Result is what an Update tells the game.
type Result struct {
	// Sounds are the sounds to play, valid until the next Update.
	Sounds []Cue
	// GameOver is true when the GameOver event arrived; Scores are then
	// its scores.
	GameOver bool
	Scores   []wire.Score
	// Music is the music to play (MusicMain in a Classic game).
	Music Music
	// Charge is the own wave cannon's charge, predicted from the Fire
	// held, 0 (not charging) to 1 (full): the hum's level.
	Charge float64
}

// Update takes the actions the player holds (wire.Action* bits: they are
// sent to the server and predicted) and the news of the connection at the
// clock's present: frames, events, players, measures. It is called once
// per game tick (60 per second), in phases, in order.
func (v *View) Update(actions uint8) Result {
	now := v.clock()
	t := v.t(now)
	clear(v.sounds)
	v.sounds = v.sounds[:0]
	if !v.watch {
		v.input(actions, t, now)
	}
	v.receive(now)
	if v.src2 != nil && !v.watch {
		v.feedSpeedUps(now)
		v.feedSteps()
	}
	if !v.watch {
		v.feedPrediction(now)
	}
	res := v.timeline(t, now)
	res.Music, res.Charge = v.stage.music, v.chargeLevel()
	if res.GameOver {
		return res
	}
	v.release(t)
	v.updatePlayers(t)
	v.measure(t)
	v.forget()
	res.Sounds = v.sounds
	return res
}

// input sends the actions and records them for the prediction. The
// Force key (bit 5) exists in v2 sessions only (7.12).
func (v *View) input(actions uint8, t float64, now time.Time) {
	if v.src2 == nil {
		actions &= wire.ActionsMask
	} else {
		actions &= wire.ActionsMaskStage
	}
	prev := v.actions
	v.actions = actions
	v.src.SetInput(actions)
	if v.src2 == nil {
		v.pred.Input(actions, now)
	}
	v.stageInput(actions, prev, t, now)
}

// feedSpeedUps gives the predictor the own Arms events of a Stage game
// (7.12): the ship's speed from the tick after each. They go before the
// snapshot of this Update (feedPrediction), which then replays the steps
// with them.
func (v *View) feedSpeedUps(now time.Time) {
	if !v.stage.active {
		return
	}
	for i := range v.events {
		if ev := &v.events[i]; ev.Type == wire.EventArms && ev.Player == v.me {
			v.pred.SpeedUps(min(ev.Arms.Speed, maxSpeed), ev.Tick, now)
		}
	}
}

// feedSteps gives the predictor the v2 input steps sent since the last
// call (7.4): it replays exactly what the server will apply.
func (v *View) feedSteps() {
	after := ^uint32(0)
	if v.stepsFed {
		after = v.stepFed
	}
	v.steps = v.src2.Steps(after, v.steps[:0])
	for _, st := range v.steps {
		v.pred.Step(st.Step, st.Actions, st.Sent)
		v.stepFed, v.stepsFed = st.Step, true
	}
}

// receive takes the frames and events that arrived, and brings the
// interpolation's clocks to now. A newest frame older than the one before
// is a new game: the entities of the old one are forgotten.
func (v *View) receive(now time.Time) {
	v.frames = v.src.Frames(v.frames)
	v.ip.Update(v.frames, now)
	clear(v.events) // drop the names
	v.events = v.src.DrainEvents(v.events[:0])
	if f := v.newestFrame(); f != nil {
		if f.Tick < v.newest {
			clear(v.kinds)
			v.pending = v.pending[:0]
			v.stage.bossID, v.stage.results = 0, false
		}
		v.newest = f.Tick
	}
}

// newestFrame returns the frame of the highest tick, nil without frames.
func (v *View) newestFrame() *client.Frame {
	var f *client.Frame
	for i := range v.frames {
		if f == nil || v.frames[i].Tick > f.Tick {
			f = &v.frames[i]
		}
	}
	return f
}

// feedPrediction gives the predictor the own ship's position in the newest
// frame when its tick is newer than the last one fed, and forgets the ship
// when the newest frame has none.
func (v *View) feedPrediction(now time.Time) {
	f := v.newestFrame()
	if f == nil || (f.Tick <= v.predTick && v.predFed) {
		return
	}
	pl := f.Players[v.me]
	if !pl.HasShip {
		v.pred.Reset()
		v.predFed = false
		return
	}
	i, ok := slices.BinarySearchFunc(f.Entities, pl.Ship, func(e client.Entity, id uint32) int { return cmp.Compare(e.ID, id) })
	if !ok {
		return
	}
	e := &f.Entities[i]
	received := f.Received
	if received.IsZero() {
		received = now
	}
	respawned := v.predFed && e.Respawned > v.predTick
	if e.HasMotion {
		if v.stage.active {
			// The speed-ups the ship may pick up (7.12).
			v.items = v.items[:0]
			for i := range f.Entities {
				if it := &f.Entities[i]; it.Kind == wire.KindPowerUp && it.Frame == wire.ItemSpeed && it.HasMotion && len(v.items) < predict.MaxItems {
					v.items = append(v.items, it.Motion)
				}
			}
			v.pred.Items(v.items)
		}
		// v2: the ship's motion and the last step applied (7.4, 7.5).
		v.pred.Motion(e.Motion, f.Tick, pl.LastStep, pl.HasStep, received, respawned)
	} else {
		v.pred.Snapshot(e.X, e.Y, f.Tick, received, v.stats.RTT, respawned)
	}
	v.predTick, v.predFed = f.Tick, true
}

// release starts the effects due at t, the render clock having reached
// their tick or they having waited fxMaxWait, with their sounds.
func (v *View) release(t float64) {
	rt := v.ip.RenderTick()
	keep := v.pending[:0]
	for _, p := range v.pending {
		if float64(p.tick) > rt && t-p.received < fxMaxWait {
			keep = append(keep, p)
			continue
		}
		if p.hasFx {
			p.fx.Start = t
			v.fx.Add(p.fx)
			if p.fx.Kind == model.FxShipExplosion && v.own(p.fx.Owner) {
				v.hitAt = t
			}
		}
		if p.hasSnd {
			v.sounds = append(v.sounds, p.snd)
		}
	}
	clear(v.pending[len(keep):])
	v.pending = keep
	v.fx.Update(t)
	v.notices.Update(t)
}

// updatePlayers takes the player table and notices when the local player
// is out of lives.
func (v *View) updatePlayers(t float64) {
	v.players = v.src.Players()
	if v.watch {
		return // nobody's lives are ours
	}
	me := v.players[v.me]
	out := me.Present && !me.HasShip && me.Lives == 0 && t-v.start > 1
	if out && !v.out {
		v.outAt = t
	}
	v.out = out
}

// measure reads the connection's measures, every statsEvery.
func (v *View) measure(t float64) {
	v.net.Actions = v.actions
	if t-v.statsAt < statsEvery {
		return
	}
	v.statsAt = t
	v.stats = v.src.Stats()
	v.net.Stats = v.stats
	v.net.Delay, v.net.Behind, v.net.Extrapolating = v.ip.Delay(), v.ip.Behind(), v.ip.Extrapolating()
}

// forget bounds the kinds remembered by the live entities: when they
// exceed the newest frame's entities by keepSpare, those neither in it
// nor spawned after it are dropped (their Destroy was lost with a game).
func (v *View) forget() {
	f := v.newestFrame()
	if f == nil || len(v.kinds) <= len(f.Entities)+keepSpare {
		return
	}
	for id, k := range v.kinds {
		if k.tick > f.Tick {
			continue
		}
		if _, ok := slices.BinarySearchFunc(f.Entities, id, func(e client.Entity, id uint32) int { return cmp.Compare(e.ID, id) }); !ok {
			delete(v.kinds, id)
		}
	}
}
