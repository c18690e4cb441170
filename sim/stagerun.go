package sim

import (
	"errors"
	"math"

	"rtype/sim/stage"
	"rtype/vocab"
)

// StageResultsTicks is how long the results show between a loop's
// StageClear and the next loop's StageIntro: 8 s.
const StageResultsTicks = 8 * vocab.TickRate

// The Value of a StageMarker event: what the marker is (STAGES.md).
const (
	MarkerPlain      = 0 // a marker of the stage file
	MarkerCheckpoint = 1 // a checkpoint
	MarkerMidBoss    = 2 // the mid-boss comes
	MarkerBoss       = 3 // the end boss comes
)

// runPhase is where the stage's run is.
type runPhase uint8

const (
	phaseIdle    runPhase = iota // no player has joined yet
	phasePlay                    // the timeline runs
	phaseBoss                    // the timeline waits for a boss to be beaten
	phaseResults                 // the loop is cleared: the results show
)

// waveRun is a wave whose members are still entering.
type waveRun struct {
	wv    *stage.Wave
	start uint32 // world tick of its first rank
	step  uint32 // ticks between two ranks
	n     int    // members, scaled
	next  int    // members spawned so far
	hp    int32
	fire  int32
	speed float64
}

// stageRun plays a stage's timeline (PROTOCOL.md 7.12, STAGES.md). Every
// time of the stage is already a tick, and its waves are started in a
// list with room for all of them, so a tick allocates nothing.
type stageRun struct {
	st   *stage.Stage   // the stage being played
	camp []*stage.Stage // the campaign, st among them
	at   int            // st's place in camp

	// Where the first loop starts (a warp) and the music cue in effect
	// there ("" for none).
	first     int
	firstTick uint32
	music     string

	loop  int // 1 first
	phase runPhase
	i     int    // the next entry
	t     uint32 // the timeline's tick (it stops while a boss fights)
	boss  stage.EntryKind
	left  int // ticks of results left

	waves []waveRun // entering, in the order they started
	fs    foeSpawn  // the foe being spawned

	// For tests: holdBoss overrides bossActive (1 a boss fights, -1 none
	// does, 0 ask w.bossActive); onSpawn sees every foe asked for.
	holdBoss int8
	onSpawn  func(*foeSpawn)
}

// newStageRun prepares the timeline of st for w, warped as opt says.
func newStageRun(w *World, st *stage.Stage, opt StageOptions) (*stageRun, error) {
	if st == nil || len(st.Entries) == 0 || st.Entries[len(st.Entries)-1].Kind != stage.EntryBoss {
		return nil, errors.New("sim: NewStage: no stage, or a stage without its end boss (use package stage to read one)")
	}
	first, tick, err := st.Warp(opt.Warp)
	if err != nil {
		return nil, err
	}
	r := &stageRun{st: st, camp: []*stage.Stage{st}, first: first, firstTick: tick, loop: 1}
	for i, c := range opt.Campaign {
		if c == st || c != nil && c.Sum == st.Sum {
			r.camp, r.at = opt.Campaign, i
		}
	}
	n := 0
	for _, c := range r.camp {
		if c == nil || len(c.Entries) == 0 || c.Entries[len(c.Entries)-1].Kind != stage.EntryBoss {
			return nil, errors.New("sim: NewStage: a stage of the campaign without its end boss")
		}
		waves := 0
		for i := range c.Entries {
			if c.Entries[i].Kind == stage.EntryWave {
				waves++
			}
		}
		n = max(n, waves)
	}
	for i := range st.Entries {
		if e := &st.Entries[i]; e.Kind == stage.EntryMusic && i < first {
			r.music = e.Name
		}
	}
	r.waves = make([]waveRun, 0, n)
	return r, nil
}

// runStage advances the stage's timeline by one tick: waves, markers,
// music cues, bosses, the clear and the next loop. The timeline starts
// when the first player joins, and stops when the game is over.
func (w *World) runStage() {
	r := w.st
	if !w.started || w.over {
		return
	}
	switch r.phase {
	case phaseIdle:
		r.i, r.t = r.first, r.firstTick
		r.beginLoop(w)
		if r.music != "" {
			w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageMusic, Name: r.music})
		}
	case phaseResults:
		if r.left--; r.left > 0 {
			return
		}
		r.next()
		r.i, r.t = 0, 0
		r.beginLoop(w)
	case phaseBoss:
		if r.bossOn(w) {
			r.enter(w)
			return
		}
		if r.boss == stage.EntryBoss {
			r.clear(w)
			return
		}
		r.phase = phasePlay
	}
	r.play(w)
}

// next goes on to the campaign's next stage, or, after its last, to the
// next loop from its first.
func (r *stageRun) next() {
	if r.at++; r.at == len(r.camp) {
		r.at = 0
		r.loop++
	}
	r.st = r.camp[r.at]
}

// beginLoop announces the stage (StageFile: its name and checksum, for
// the clients' terrain; StageIntro: its title and the loop) and starts
// its timeline.
func (r *stageRun) beginLoop(w *World) {
	w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageFile, Value: r.st.FileSum(), Name: r.st.Name})
	w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageIntro, Value: uint32(r.loop), Name: r.st.Title})
	r.phase = phasePlay
}

// clear ends the loop: StageClear, the clear music, the results.
func (r *stageRun) clear(w *World) {
	w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageClear, Value: uint32(r.loop)})
	w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageMusic, Name: "clear"})
	r.phase = phaseResults
	r.left = StageResultsTicks
	r.waves = r.waves[:0]
}

func (r *stageRun) bossOn(w *World) bool {
	if r.holdBoss != 0 {
		return r.holdBoss > 0
	}
	return w.bossActive()
}

// play does the entries due at the timeline's tick, lets the waves'
// members enter, and advances the timeline; a boss stops it.
func (r *stageRun) play(w *World) {
	es := r.st.Entries
	for r.i < len(es) && es[r.i].Tick <= r.t {
		e := &es[r.i]
		r.i++
		switch e.Kind {
		case stage.EntryWave:
			r.startWave(w, &e.Wave)
		case stage.EntryMarker:
			w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageMarker, Value: MarkerPlain, Name: e.Name})
		case stage.EntryCheckpoint:
			w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageMarker, Value: MarkerCheckpoint, Name: e.Name})
			w.onCheckpoint()
		case stage.EntryMusic:
			w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageMusic, Name: e.Name})
		case stage.EntryMidBoss, stage.EntryBoss:
			kind, v := vocab.KindMidBoss, uint32(MarkerMidBoss)
			if e.Kind == stage.EntryBoss {
				kind, v = vocab.KindBoss, MarkerBoss
				if e.Boss != 0 {
					kind = e.Boss // Mother Bydos, or the warship
				}
			}
			w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageMarker, Value: v, Name: e.Name})
			w.spawnBoss(kind, r.loop)
			r.phase, r.boss = phaseBoss, e.Kind
			r.enter(w)
			return
		}
	}
	r.enter(w)
	r.t++
}

// startWave starts a wave, scaled for the players in the game and the
// loop; its first rank enters at once.
func (r *stageRun) startWave(w *World, wv *stage.Wave) {
	players := 0
	for p := range w.pl {
		if w.pl[p].in {
			players++
		}
	}
	sc := wv.Scale(players, r.loop)
	wr := waveRun{wv: wv, start: w.tick, n: sc.Count, hp: sc.HP, fire: int32(sc.Fire), speed: sc.Speed}
	if wv.Formation.Staggered() && sc.Speed > 0 {
		wr.step = uint32(max(1, math.Round(wv.Spacing/sc.Speed*vocab.TickRate)))
	}
	if len(r.waves) < cap(r.waves) {
		r.waves = append(r.waves, wr)
	}
}

// enter lets in the members of the waves whose rank is due, and forgets
// the waves whose members all entered.
func (r *stageRun) enter(w *World) {
	k := 0
	for j := range r.waves {
		wr := &r.waves[j]
		for wr.next < wr.n && w.tick >= wr.start+uint32(rank(wr.wv.Formation, wr.next, wr.n))*wr.step {
			r.spawnMember(w, wr, wr.next)
			wr.next++
		}
		if wr.next < wr.n {
			r.waves[k] = *wr
			k++
		}
	}
	r.waves = r.waves[:k]
}

// vRank is the rank of member i of a V: the leader 0, then pairs.
func vRank(i int) int { return (i + 1) / 2 }

// rank is the rank of member i of n in a formation: members of rank k
// enter k steps after the first.
func rank(f stage.Formation, i, n int) int {
	switch f {
	case stage.Line, stage.Random:
		return i
	case stage.V:
		return vRank(i)
	case stage.Wedge:
		return vRank(n-1) - vRank(n-1-i)
	}
	return 0
}

// offset is the height of member i of n relative to the formation's
// centre, for spacing s (Random's is drawn when it enters).
func offset(f stage.Formation, i, n int, s float64) float64 {
	switch f {
	case stage.Column:
		return (float64(i) - float64(n-1)/2) * s
	case stage.Wedge:
		i = n - 1 - i
		fallthrough
	case stage.V:
		k := float64(vRank(i))
		if i%2 == 1 {
			return -k * s
		}
		return k * s
	}
	return 0
}

// spawnMember brings in member i of a wave: at the screen's edge, at the
// height of its place in the formation (within the area), with the
// wave's motion, scaled hit points and fire, and its drop.
func (r *stageRun) spawnMember(w *World, wr *waveRun, i int) {
	wv := wr.wv
	hw, hh := w.half[wv.Enemy].w, w.half[wv.Enemy].h
	ar := &w.r
	var y float64
	x := ar.AreaW + hw
	if wv.From == stage.FromLeft {
		x = -hw
	}
	switch wv.Edge {
	case stage.EdgeFloor, stage.EdgeCeiling: // on the terrain, or the area's edge
		y = w.mountY(x, hw, hh, wv.Edge == stage.EdgeFloor, float64(i)*wv.Spacing*b2f(wv.Formation == stage.Column))
	default:
		y = wv.Y + offset(wv.Formation, i, wr.n, wv.Spacing)
		if wv.Formation == stage.Random {
			y += w.uniform(-wv.Spread, wv.Spread)
		}
	}
	y = min(max(y, hh), ar.AreaH-hh)
	f := &r.fs
	*f = foeSpawn{kind: wv.Enemy, x: x, y: y, vx: -wr.speed, vy: wv.VY,
		amp: wv.Amp, period: int(wv.Period), phase: wv.Phase,
		hp: wr.hp, fireInterval: wr.fire, drop: noDrop, score: wv.Score,
		loop: r.loop, scaled: true, mounted: wv.Edge != stage.EdgeNone}
	if wv.From == stage.FromLeft {
		f.vx = wr.speed
	}
	for _, d := range wv.Drops {
		if d.Member == stage.MemberAll || d.Member == i || d.Member == stage.MemberLast && i == wr.n-1 {
			f.drop = d.Item
			break
		}
	}
	w.spawnFoe(f)
	if r.onSpawn != nil {
		r.onSpawn(f)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
