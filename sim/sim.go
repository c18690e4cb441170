// Package sim is the authoritative game simulation of R-Type: a pure,
// deterministic step over the world's state and the players' held inputs
// (the rules of README.md, "How the game plays", and PROTOCOL.md section 4). It has no sockets, clocks,
// goroutines or global state; every random draw comes from one PCG
// generator seeded by New, so the same seed and the same calls give the
// same entities and events, tick for tick.
//
// A server drives it so, at 60 ticks per second:
//
//	w := sim.New(sim.DefaultRules(), seed)
//	w.AddPlayer(0, "Alice")          // PlayerJoined, Spawn of the ship
//	broadcast(w.TakeEvents())
//	for !w.Over() {
//		w.SetInput(0, actions)       // latest Input of each player
//		w.Step()                     // tick + 1
//		broadcast(w.TakeEvents())    // Spawn, Destroy, Death, GameOver...
//		if w.Tick()%3 == 0 {
//			ents = w.AppendEntities(ents[:0])  // snapshot, sorted by vocab.Less
//			pls = w.AppendPlayers(pls[:0])
//		}
//	}
//
// Every entity moves by a vocab.Motion (PROTOCOL.md 7.5), quantized when it
// is set, and is at Motion.At(tick) at every tick: Bydos on a Sine and
// missiles on a Linear from their spawn, ships on a Linear set again
// whenever the held input changes their velocity or a wall stops them. So
// a v2 client evaluating the motions of AppendEntities2 and of the Spawns
// of TakeEvents2 gets the server's positions exactly; AppendEntities and
// TakeEvents give the same world as v1 carries it.
//
// Network ids are slot indices with a generation (4.1): index 0 is never
// used, the lowest free index is reused first, never within
// Rules.IDReuseTicks of its Destroy (4.5), and always with a new
// generation. A World is not safe for concurrent use.
package sim

import (
	"math"
	"math/rand/v2"

	"rtype/vocab"
)

// entity is the entity of a slot (World.ent; stored densely, live.go):
// what every step of a Classic game touches. The Stage-only state is in
// World.colds at the same index, the slot's generation in World.gens, the
// half sizes of its box in World.half by kind (in Stage mode, in its
// coldState).
type entity struct {
	alive bool
	kind  uint8
	owner uint8 // player of a ship or player missile, else vocab.NoPlayer
	frame uint8 // a ship's, a Stage entity's (a Classic one's: moveClassic)

	// fireIn is a foe's ticks until its next shot (a Bydos', a Stage
	// foe's).
	fireIn int32

	// mo is how the entity moves: its position at every tick is mo.At
	// (PROTOCOL.md 7.5), quantized when set, so a client evaluating the
	// same motion gets the same position.
	mo vocab.Motion

	// anim is the entity's animation from mo.T0 (a ship's blink is not
	// in it: see player.invulnStart).
	anim vocab.Anim

	x, y   float64 // mo.At(tick) of the current tick
	px, py float64 // position at the start of the current step

	i    uint16 // its index in World.ents and World.colds
	join uint32 // an entity of a player's: the player's join serial, for the score of a missile

	// The velocity, which only v1 snapshots and Spawns carry, is not
	// kept: vel evaluates it from mo when they ask (motion.go).
}

// epoch is the join serial of the player of an entity of a player.
func (e *entity) epoch() uint32 { return e.join }

// setEpoch sets the join serial of the player of an entity of a player.
func (e *entity) setEpoch(v uint32) { e.join = v }

// halfSize is the half width and half height of an entity's box.
type halfSize struct{ w, h float64 }

// coldState is the Stage-only state of a slot (7.12), in a slice beside the
// entities: a Classic step never touches it.
type coldState struct {
	hp, maxHP int32    // hit points of a foe; 0: cannot be hurt
	evalTick  uint32   // the tick of the entity's position (eval), for vel
	half      halfSize // of its box: its kind's at its spawn (a beam's from its level)
	foe       foeState // foes.go
	arm       armState // arms.go
}

// player is one player number of the game.
type player struct {
	in          bool // in the game (joined, not left), with or without a ship
	name        string
	lives       uint8
	score       uint32
	slot        int32 // slot of its ship, 0 without one
	actions     uint8
	cooldown    int32 // ticks until it may fire again
	invuln      int32 // ticks of invulnerability left, counting this one
	invulnStart uint32
	invulnTicks uint32 // length of the last invulnerability
	epoch       uint32 // join serial: missiles of an earlier session score nothing

	arms playerArms // Stage mode only: arms.go
}

// World is the state of one game. Create it with New.
type World struct {
	r      Rules
	rng    *rand.Rand
	tick   uint32
	ents   []entity    // the entities, densely: see ent
	colds  []coldState // Stage mode only (NewStage): beside ents (cold)
	at     []uint16    // by slot: the index in ents of its entity; 0 (ents[0], never alive) if none
	gens   []uint8     // by slot: generation of its current or next entity
	used   []uint64    // bit i set: ents[i] is taken (ents[0] always)
	freed  []freedEnt  // the ents freed since the step began: taken again from the next
	hi     int32       // 1 + the highest live slot (or 1)
	order  []ref       // the live entities, by slot (live.go)
	ids    idAlloc
	pl     [vocab.MaxPlayers]player
	epoch  uint32
	events []vocab.Event // Events, TakeEvents
	shown  vocab.Entity  // EachEntity's

	// half is the half width and height of each kind's box: a Classic
	// entity's (the four kinds in one cache line), a Stage entity's at its
	// spawn (see halfOf).
	half [256]halfSize

	// The ship's centre stays within [shipLoX, shipHiX] x [shipLoY,
	// shipHiY]: the area less half the ship, on the 1/8 px grid.
	shipLoX, shipHiX, shipLoY, shipHiY float64

	// The live entities of each kind at the start of the collisions, by
	// slot; rebuilt at each step in preallocated buffers. (Classic; a
	// Stage step lists the ships too.)
	ships             []int32 // Stage mode
	shipRefs          []ref   // Classic: the ships
	pmis, bydos, emis []ref
	boxes             []sweptBox // of bydos (and emis), in hitBydos and hitShips
	maxW              int32      // the widest box of a Bydos' (hitBydos)

	// Waves.
	started   bool   // a player has joined: the wave clock runs
	wave      int    // the next wave's number
	nextWave  uint32 // tick of the next wave
	pending   int    // Bydos of the current wave still to enter
	stagger   uint32 // ticks between two of them
	nextEnter uint32 // tick at which the next one enters
	speed     float64

	over    bool
	noWaves bool  // tests only
	sink    uint8 // touch's

	// Stage mode (7.12): nil in a Classic game. Its lists of live
	// entities by role are rebuilt at each step like ships, pmis...
	st                                       *stageRun // stagerun.go
	boss                                     bossState // foes.go
	shots, forces, bits, foes, eshots, items []int32
}

// New returns a world at tick 0 with no player and no entity, following
// rules, with all its randomness drawn from a PCG generator seeded with
// seed. It panics if rules cannot work (a non-positive size or rate,
// MaxEntities below 5, an empty range...).
func New(rules Rules, seed uint64) *World {
	if err := rules.validate(); err != nil {
		panic(err)
	}
	n := rules.MaxEntities
	w := &World{
		r:        rules,
		rng:      rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15)),
		ents:     make([]entity, n+1),
		at:       make([]uint16, n+1),
		gens:     make([]uint8, n+1),
		used:     make([]uint64, (n+1+63)/64),
		freed:    make([]freedEnt, 0, n),
		hi:       1,
		order:    make([]ref, 0, n),
		ids:      newIDAlloc(n, rules.IDReuseTicks),
		events:   make([]vocab.Event, 0, 1024),
		ships:    make([]int32, 0, n),
		shipRefs: make([]ref, 0, n),
		pmis:     make([]ref, 0, n),
		bydos:    make([]ref, 0, n),
		emis:     make([]ref, 0, n),
		boxes:    make([]sweptBox, 0, n),
	}
	w.used[0] = 1
	set := func(k uint8, wd, ht float64) { w.half[k] = halfSize{wd / 2, ht / 2} }
	set(vocab.KindPlayerShip, rules.ShipW, rules.ShipH)
	set(vocab.KindPlayerMissile, rules.MissileW, rules.MissileH)
	set(vocab.KindBydosSlave, rules.BydosW, rules.BydosH)
	set(vocab.KindEnemyMissile, rules.EnemyMissileW, rules.EnemyMissileH)
	for _, k := range stageKinds {
		set(k.kind, k.w, k.h)
	}
	in := func(lo, hi float64) (float64, float64) {
		return math.Ceil(lo*vocab.PosScale) / vocab.PosScale, math.Floor(hi*vocab.PosScale) / vocab.PosScale
	}
	w.shipLoX, w.shipHiX = in(rules.ShipW/2, rules.AreaW-rules.ShipW/2)
	w.shipLoY, w.shipHiY = in(rules.ShipH/2, rules.AreaH-rules.ShipH/2)
	return w
}

// Rules returns the rules the world was created with.
func (w *World) Rules() Rules { return w.r }

// Tick returns the current tick: 0 for a new world, plus one for each Step.
// Entities, players and events stamped with it describe the state after
// the last Step.
func (w *World) Tick() uint32 { return w.tick }

// Over reports whether the game is over: GameOver was emitted because at
// least one player is in the game and none of them has a life left. It
// stays true; the world still steps (entities fly on) but no wave comes.
func (w *World) Over() bool { return w.over }

// id returns the network id of the entity in slot s.
func (w *World) id(s int32) uint32 { return vocab.MakeID(uint32(s), w.gens[s]) }

func (w *World) emit(ev vocab.Event) {
	ev.Tick = w.tick
	w.events = append(w.events, ev)
}

// Events returns the events not taken yet (see TakeEvents), in the order
// they happened, each stamped with the tick at which it happened; a
// Spawn has both its position and velocity and its Motion and Anim, so
// that any codec finds what it carries. The slice is the world's buffer:
// valid until the next Step, AddPlayer, RemovePlayer or TakeEvents.
func (w *World) Events() []vocab.Event { return w.events }

// TakeEvents returns the events produced since the last TakeEvents, by
// Step, AddPlayer and RemovePlayer, in the order they happened, each
// stamped with its tick, and forgets them. Step does not clear them: call
// TakeEvents after every Step, AddPlayer and RemovePlayer (or at least
// once per tick) so none is lost and the buffer does not grow. The slice
// is the world's buffer: valid until the next Step, AddPlayer or
// RemovePlayer, which overwrite it.
func (w *World) TakeEvents() []vocab.Event {
	ev := w.events
	w.events = w.events[:0]
	return ev
}

// AddPlayer makes player p (0 to 3) join the game with name and
// Rules.Lives lives: it emits PlayerJoined, then spawns its ship at its
// spawn point, invulnerable for Rules.JoinInvulnTicks, and emits its
// Spawn (owner p). The first AddPlayer starts the wave clock. A game that
// is over stays over (the server starts a new World instead). The caller
// guarantees that p is free: AddPlayer panics if p > 3 or p is in the game.
func (w *World) AddPlayer(p uint8, name string) {
	if int(p) >= vocab.MaxPlayers || w.pl[p].in {
		panic("sim: AddPlayer of a player number that is taken or above 3")
	}
	w.epoch++
	w.pl[p] = player{
		in:          true,
		name:        name,
		lives:       w.r.Lives,
		epoch:       w.epoch,
		invuln:      int32(w.r.JoinInvulnTicks),
		invulnStart: w.tick,
		invulnTicks: uint32(w.r.JoinInvulnTicks),
	}
	w.emit(vocab.Event{Type: vocab.EventPlayerJoined, Player: p, Name: name})
	if w.r.Lives > 0 {
		x, y := w.spawnPoint(p)
		w.ids.ripen(w.tick)
		s := w.spawn(vocab.KindPlayerShip, vocab.Linear(w.tick, x, y, 0, 0), vocab.Anim{}, p)
		w.pl[p].slot = s
		if s != 0 {
			w.ent(s).setEpoch(w.epoch)
			w.ent(s).frame = w.shipFrame(&w.pl[p], w.ent(s))
		}
	}
	if !w.started {
		w.started = true
		w.nextWave = w.tick + uint32(w.r.FirstWave)
	}
}

// RemovePlayer makes player p leave the game: it emits PlayerLeft with
// reason (vocab.LeftLeft, LeftTimedOut or LeftKicked), then the Destroy of
// its ship (reason vocab.DestroyPlayerLeft) if it still had one (4.6). Its
// missiles in flight fly on but score for nobody. Nothing happens if p is
// not in the game. A game whose remaining players have no life left is
// over at the next Step; a game left by every player never is (the server
// starts a new one, 3.3).
func (w *World) RemovePlayer(p uint8, reason uint8) {
	if int(p) >= vocab.MaxPlayers || !w.pl[p].in {
		return
	}
	w.emit(vocab.Event{Type: vocab.EventPlayerLeft, Player: p, Reason: reason})
	if w.st != nil {
		w.loseArms(p, vocab.DestroyPlayerLeft) // its Force and bits leave with it
	}
	if s := w.pl[p].slot; s != 0 {
		w.destroy(s, vocab.DestroyPlayerLeft)
	}
	w.pl[p] = player{}
}

// SetInput sets the actions player p holds (vocab.ActionUp... ActionFire,
// masked with vocab.ActionsMask; in Stage mode also vocab.ActionForce,
// masked with vocab.ActionsMaskStage); each Step applies them until the next
// SetInput. It is ignored for a player not in the game; AddPlayer starts
// with no action held.
func (w *World) SetInput(p uint8, actions uint8) {
	if int(p) < vocab.MaxPlayers && w.pl[p].in {
		mask := vocab.ActionsMask
		if w.st != nil { // Stage mode: bit 5 is vocab.ActionForce
			mask = vocab.ActionsMaskStage
		}
		w.pl[p].actions = actions & mask
	}
}

// InGame reports whether player p is in the game (joined and not left),
// with lives left or out and watching.
func (w *World) InGame(p uint8) bool { return int(p) < vocab.MaxPlayers && w.pl[p].in }

// Name returns the name of player p, "" if not in the game.
func (w *World) Name(p uint8) string {
	if !w.InGame(p) {
		return ""
	}
	return w.pl[p].name
}

// Lives returns the lives left of player p, 0 if not in the game.
func (w *World) Lives(p uint8) uint8 {
	if !w.InGame(p) {
		return 0
	}
	return w.pl[p].lives
}

// Score returns the score of player p, 0 if not in the game.
func (w *World) Score(p uint8) uint32 {
	if !w.InGame(p) {
		return 0
	}
	return w.pl[p].score
}

// Ship returns the network id of player p's ship, vocab.NoEntity if it has
// none (out of lives, or not in the game).
func (w *World) Ship(p uint8) uint32 {
	if !w.InGame(p) || w.pl[p].slot == 0 {
		return vocab.NoEntity
	}
	return w.id(w.pl[p].slot)
}

// NumEntities returns the number of live entities.
func (w *World) NumEntities() int { return len(w.order) }

// AppendEntities appends every live entity as a snapshot shows it
// (vocab.Entity), sorted by vocab.Less (index ascending), and returns
// the extended slice. Its position and velocity at any tick t are
// Motion.At(t) exactly, until its motion changes. It allocates nothing
// when dst has room.
func (w *World) AppendEntities(dst []vocab.Entity) []vocab.Entity {
	for _, r := range w.order {
		dst = append(dst, vocab.Entity{})
		w.show(r, &dst[len(dst)-1])
	}
	return dst
}

// EachEntity calls f with every live entity as AppendEntities gives it,
// in its order, one at a time: e is valid during the call only. A
// snapshot's records are made from it without a copy of the world
// between. It allocates nothing.
func (w *World) EachEntity(f func(e *vocab.Entity)) {
	for _, r := range w.order {
		w.show(r, &w.shown) // the world's: a local would escape to f
		f(&w.shown)
	}
}

// show fills v with the entity of r as a snapshot shows it.
func (w *World) show(r ref, v *vocab.Entity) {
	e := w.entOf(r)
	frame := e.frame
	if w.st == nil && e.kind != vocab.KindPlayerShip { // not kept: moveClassic
		frame = frameAt(e.anim, e.mo.T0, w.tick)
	}
	*v = vocab.Entity{ID: w.id(r.slot()), Kind: e.kind, Frame: uint8(frame), Anim: e.anim,
		X: float32(e.x), Y: float32(e.y), Motion: e.mo}
}

// Motion returns the motion and the animation of the live entity id
// (PROTOCOL.md 7.5), and false if there is none.
func (w *World) Motion(id uint32) (vocab.Motion, vocab.Anim, bool) {
	s := int32(vocab.Index(id))
	if s <= 0 || s >= w.hi || !w.ent(s).alive || w.id(s) != id {
		return vocab.Motion{}, vocab.Anim{}, false
	}
	return w.ent(s).mo, w.ent(s).anim, true
}

// AppendPlayers appends a record for each player in the game, by player
// number, as a snapshot shows it (vocab.Player): a player out of lives
// (or whose ship is gone) has HasShip false and Ship vocab.NoEntity.
func (w *World) AppendPlayers(dst []vocab.Player) []vocab.Player {
	for p := range w.pl {
		pl := &w.pl[p]
		if !pl.in {
			continue
		}
		ps := vocab.Player{PlayerState: vocab.PlayerState{Player: uint8(p), Ship: vocab.NoEntity, Lives: pl.lives, Score: pl.score}}
		if pl.slot != 0 {
			ps.HasShip, ps.Ship = true, w.id(pl.slot)
		}
		if pl.invulnTicks != 0 {
			ps.InvulnStart, ps.InvulnTicks = pl.invulnStart, pl.invulnTicks
		}
		dst = append(dst, ps)
	}
	return dst
}

// AppendJoins appends a PlayerJoined event for every player in the game,
// by player number, stamped with the current tick: the first events a
// joining client gets (4.6), before AppendSpawns.
func (w *World) AppendJoins(dst []vocab.Event) []vocab.Event {
	for p := range w.pl {
		if w.pl[p].in {
			dst = append(dst, vocab.Event{Type: vocab.EventPlayerJoined, Tick: w.tick, Player: uint8(p), Name: w.pl[p].name})
		}
	}
	return dst
}

// AppendSpawns appends a Spawn event for every live entity, by index,
// stamped with the current tick, with its current position and velocity
// and its current Motion and Anim, whose base tick may be well before
// the Spawn's (PROTOCOL.md 7.6): the world as a joining client starts
// from it (4.6).
func (w *World) AppendSpawns(dst []vocab.Event) []vocab.Event {
	for s := int32(1); s < w.hi; s++ {
		if w.ent(s).alive {
			dst = append(dst, w.spawnEvent(s))
		}
	}
	return dst
}

// spawnEvent is the Spawn of the entity in slot s, with both its
// position and velocity and its motion.
func (w *World) spawnEvent(s int32) vocab.Event {
	e := w.ent(s)
	vx, vy := w.vel(e)
	return vocab.Event{Type: vocab.EventSpawn, Tick: w.tick, ID: w.id(s), Kind: e.kind,
		X: float32(e.x), Y: float32(e.y), VX: float32(vx), VY: float32(vy), Owner: e.owner,
		Motion: e.mo, Anim: e.anim}
}

func (w *World) spawnPoint(p uint8) (x, y float64) {
	return w.r.SpawnX, w.r.SpawnY + w.r.SpawnDY*float64(p)
}

// spawn puts a new entity moving by m (quantized) in a free slot and
// emits its Spawn. It returns
// the slot, or 0 when none is free: a missile or a Bydos is then skipped,
// while a ship takes, as a last resort, the slot that waited longest
// (with a new generation, so a new id). Slots for the missing ships stay
// reserved.
func (w *World) spawn(kind uint8, m vocab.Motion, a vocab.Anim, owner uint8) int32 {
	var s int32
	if kind == vocab.KindPlayerShip {
		if s = w.ids.alloc(); s == 0 {
			s = w.ids.allocUnripe()
		}
	} else {
		ships := 0
		for p := range w.pl {
			if w.pl[p].slot != 0 {
				ships++
			}
		}
		if w.ids.free() > vocab.MaxPlayers-ships {
			s = w.ids.alloc()
		}
	}
	if s == 0 {
		return 0
	}
	i := w.takeEnt()
	w.at[s] = i
	e := &w.ents[i]
	*e = entity{alive: true, kind: kind, owner: owner, mo: m, anim: a, i: i}
	if w.colds != nil { // Stage mode
		w.colds[i] = coldState{half: w.half[kind]}
	}
	w.addOrder(mkRef(s, i))
	w.eval(e)
	e.px, e.py = e.x, e.y
	e.frame = a.Frame(m.T0, float64(w.tick))
	if s >= w.hi {
		w.hi = s + 1
	}
	w.emit(w.spawnEvent(s))
	return s
}

// destroy emits the Destroy of the entity in slot s and frees the slot.
func (w *World) destroy(s int32, reason uint8) {
	e := w.ent(s)
	w.emit(vocab.Event{Type: vocab.EventDestroy, ID: w.id(s), Reason: reason, X: float32(e.x), Y: float32(e.y)})
	e.alive = false
	w.removeOrder(s)
	w.gens[s]++ // the slot's next entity gets a new id
	w.freed = append(w.freed, freedEnt{slot: s, i: w.at[s]})
	w.ids.release(s, w.tick)
	// The loops over the slots stop at hi: it comes down past the dead
	// slots at the top, so that a wave that left does not leave every
	// later step walking its empty slots (a slot freed waits its delay
	// before it is handed out again, so the live ones spread upwards).
	w.hi = 1
	if n := len(w.order); n > 0 {
		w.hi = w.order[n-1].slot() + 1
	}
}

// Step advances the world by one tick (1/TickRate s). In order: the tick
// counter; ships move by their held inputs, within the area; missiles and
// Bydos move; player missiles hit Bydos (swept); ships hit Bydos and enemy
// missiles (swept), with Death, respawn or Destroy; ships fire; Bydos
// animate and fire; the waves bring Bydos in; entities far outside the
// area despawn; ship frames; GameOver. Collisions are resolved by slot
// index, each against its earliest contact in the tick. Step allocates
// nothing once the event buffer has room (see TakeEvents).
func (w *World) Step() {
	w.releaseEnts()
	if w.st != nil {
		w.stepStage()
		return
	}
	w.tick++
	w.touch()
	w.ids.ripen(w.tick)
	w.moveShips()
	w.moveClassic()
	w.hitBydos()
	w.hitShips()
	w.fireShips()
	w.bydosAI()
	w.runWaves()
	w.despawn()
	w.shipFrames()
	w.checkOver()
}

func (w *World) moveShips() {
	for p := range w.pl {
		pl := &w.pl[p]
		if pl.slot == 0 {
			continue
		}
		if pl.invuln > 0 {
			pl.invuln--
		}
		e := w.ent(pl.slot)
		e.px, e.py = e.x, e.y
		vx, vy := w.r.shipVelocity(pl.actions)
		if w.st != nil { // Stage mode: the player's speed-ups (arms.go)
			vx, vy = velocity(pl.actions, armsRules.ShipSpeed(pl.arms.a.Speed))
		}
		// A wall stops the axis the ship is pushed against.
		if vx < 0 && e.x <= w.shipLoX || vx > 0 && e.x >= w.shipHiX {
			vx = 0
		}
		if vy < 0 && e.y <= w.shipLoY || vy > 0 && e.y >= w.shipHiY {
			vy = 0
		}
		if vx != e.mo.VX || vy != e.mo.VY {
			w.setShipMotion(e, w.tick-1, e.x, e.y, vx, vy)
		}
		x, y := e.mo.Pos(float64(w.tick))
		cx, cy := min(max(x, w.shipLoX), w.shipHiX), min(max(y, w.shipLoY), w.shipHiY)
		if cx != x || cy != y { // it reaches a wall during this tick
			if cx != x {
				vx = 0
			}
			if cy != y {
				vy = 0
			}
			w.setShipMotion(e, w.tick, cx, cy, vx, vy)
		}
		w.eval(e)
	}
}

// setShipMotion sets a ship's Linear motion from (x, y) at tick t0 with
// velocity (vx, vy) in 1/16 px/s, and its animation: level, climbing or
// diving.
func (w *World) setShipMotion(e *entity, t0 uint32, x, y float64, vx, vy int16) {
	e.mo = vocab.Motion{Model: vocab.ModelLinear, T0: t0, X0: vocab.QuantizePos(x), Y0: vocab.QuantizePos(y), VX: vx, VY: vy}
	e.anim = vocab.Anim{Frame0: shipLevelFrame(vy)}
}

func shipLevelFrame(vy int16) uint8 {
	switch {
	case vy < 0:
		return ShipFrameClimb
	case vy > 0:
		return ShipFrameDive
	}
	return ShipFrameLevel
}

// moveOthers moves every entity but ships, Forces and bits (moveShips and
// moveArms move those) by its motion, and animates it: a Stage step's.
// (A Classic step's is moveClassic, which leaves the frames to
// AppendEntities.)
func (w *World) moveOthers() {
	for _, r := range w.order {
		e := w.entOf(r)
		switch roles[e.kind] {
		case roleShip, roleForce, roleBit: // moveShips and moveArms move them
			continue
		}
		w.move(e)
		e.frame = frameAt(e.anim, e.mo.T0, w.tick)
	}
}

// move moves e by its motion to the current tick.
func (w *World) move(e *entity) {
	e.px, e.py = e.x, e.y
	w.eval(e)
}

// moveClassic is moveOthers in a Classic step. It lists the live entities
// of each kind, by slot (shipRefs, pmis, bydos, emis), without a branch on
// their kinds, then moves each list in a loop of its own, whose branches
// (in the motion's model and velocities, the animation) then go the same
// way from one entity to the next: in one pass by slot, where the kinds
// are mixed, they were mispredicted at nearly every entity. It makes the
// swept boxes of the Bydos too, in w.boxes, sorted by their left edges,
// for hitBydos and hitShips.
//
// It does not animate them: the frame of a Classic entity but a ship
// follows from its animation and the tick (frameAt), and only v1
// snapshots carry it (AppendEntities evaluates it), so that a step does
// not divide twice per Bydos for nothing.
func (w *World) moveClassic() {
	lists := [8][]ref{
		vocab.KindPlayerShip:    w.shipRefs[:cap(w.shipRefs)],
		vocab.KindPlayerMissile: w.pmis[:cap(w.pmis)],
		vocab.KindBydosSlave:    w.bydos[:cap(w.bydos)],
		vocab.KindEnemyMissile:  w.emis[:cap(w.emis)],
	}
	var n [8]int
	for _, r := range w.order {
		k := w.entOf(r).kind & 7 // a Classic kind, 1 to 4
		lists[k][n[k]] = r
		n[k]++
	}
	w.shipRefs = lists[vocab.KindPlayerShip][:n[vocab.KindPlayerShip]]
	w.pmis = lists[vocab.KindPlayerMissile][:n[vocab.KindPlayerMissile]]
	w.bydos = lists[vocab.KindBydosSlave][:n[vocab.KindBydosSlave]]
	w.emis = lists[vocab.KindEnemyMissile][:n[vocab.KindEnemyMissile]]
	for _, r := range w.pmis {
		w.move(w.entOf(r))
	}
	for _, r := range w.emis {
		w.move(w.entOf(r))
	}
	// The Bydos, each box put in its place by its left edge as it is made
	// (an insertion sort), and the widest box's width.
	bs := w.boxes[:len(w.bydos)]
	h := w.half[vocab.KindBydosSlave]
	var maxW int32
	for n, r := range w.bydos {
		e := w.entOf(r)
		w.move(e)
		lx, hx, ly, hy := e.sweptBox(h)
		maxW = max(maxW, hx-lx)
		i := n
		for ; i > 0 && bs[i-1].lx > lx; i-- {
			bs[i].copy(&bs[i-1])
		}
		bs[i].lx, bs[i].hx, bs[i].ly, bs[i].hy, bs[i].r = lx, hx, ly, hy, r
	}
	w.boxes, w.maxW = bs, maxW
}

// sweep reports whether the boxes of a and b, each moving in a straight
// line from its position at the start of the step to its current one,
// overlap during the step, and the earliest such time in [0, 1]. Touching
// edges do not overlap.
func (w *World) sweep(a, b *entity) (float64, bool) {
	ha, hb := w.halfOf(a), w.halfOf(b)
	return Touch(a.px, a.py, a.x, a.y, ha.w, ha.h, b.px, b.py, b.x, b.y, hb.w, hb.h)
}

// sweptBox is the box an entity sweeps during the step (its box at the
// start and at the end of the step and all between), widened to whole
// pixels: lx and ly rounded down, hx and hy up.
type sweptBox struct {
	lx, hx, ly, hy int32
	r              ref // the entity
}

// set makes b the swept box of e, r, whose box's half sizes are h. It
// writes b's fields in place: a box built apart and copied is read back
// wider than it was written, which the processor cannot forward from its
// stores (a stall per box).
func (b *sweptBox) set(e *entity, r ref, h halfSize) {
	b.lx, b.hx, b.ly, b.hy = e.sweptBox(h)
	b.r = r
}

// sweptBox returns the edges of the box that e sweeps during the step,
// whose half sizes are h, widened by up to a pixel more on each side (a
// truncation less or plus one: no rounding function). Truncation is
// monotonic, so the edge of the lower (higher) of two positions is the
// lower (higher) of their two edges: taken so, in integers, without a
// branch on the direction e moves in (a Bydos' vertical one changes from
// one to the next).
func (e *entity) sweptBox(h halfSize) (lx, hx, ly, hy int32) {
	return min(int32(e.px-h.w), int32(e.x-h.w)) - 1, max(int32(e.px+h.w), int32(e.x+h.w)) + 1,
		min(int32(e.py-h.h), int32(e.y-h.h)) - 1, max(int32(e.py+h.h), int32(e.y+h.h)) + 1
}

// copy copies a into b field by field: a's fields may have been written
// one by one just before, and a wider load of them would wait for their
// stores (see set).
func (b *sweptBox) copy(a *sweptBox) {
	b.lx, b.hx, b.ly, b.hy, b.r = a.lx, a.hx, a.ly, a.hy, a.r
}

// appendBoxes appends the swept boxes of the entities of list, all of
// kind (a Classic list: their half sizes are the kind's), to w.boxes.
func (w *World) appendBoxes(list []ref, kind uint8) {
	n := len(w.boxes)
	w.boxes = w.boxes[:n+len(list)]
	h := w.half[kind]
	for i, r := range list {
		w.boxes[n+i].set(w.entOf(r), r, h)
	}
}

// apart reports whether the swept boxes a and b are a pixel apart or more
// on an axis: then sweep of their entities reports no overlap (the pixel
// dwarfs any rounding), and a collision loop need not load the entity of
// b. Whole pixels compare without branches, and widened boxes are at
// least as far apart as the boxes.
func (a *sweptBox) apart(b *sweptBox) bool {
	return max(b.lx-a.hx, a.lx-b.hx, b.ly-a.hy, a.ly-b.hy) >= 1
}

// slab narrows [t0, t1] to the times at which r + d*t lies in (-h, h).
func slab(r, d, h float64, t0, t1 *float64) bool {
	if d == 0 {
		return r > -h && r < h
	}
	in, out := (-h-r)/d, (h-r)/d
	if in > out {
		in, out = out, in
	}
	*t0 = max(*t0, in)
	*t1 = min(*t1, out)
	return *t0 < *t1
}

// hitBydos: each player missile, by slot, hits the Bydos it touches first
// in the tick (the lowest slot on a tie): the Bydos is Killed, the missile
// Consumed, and the shooter scores if it is still in the game. The swept
// boxes of the Bydos, sorted by their left edge (moveClassic), give each
// missile the few it may touch (a box wider than the widest, maxW, cannot
// reach it from further left) before it loads a Bydos and sweeps; the
// earliest contact, then the lowest slot, wins, whatever the order of the
// boxes.
func (w *World) hitBydos() {
	if len(w.pmis) == 0 {
		return
	}
	var mb sweptBox
	mh := w.half[vocab.KindPlayerMissile]
	for _, mr := range w.pmis {
		me := w.entOf(mr)
		mb.set(me, mr, mh)
		// The first box whose left edge is mb.lx-maxW or more. (Its
		// branches measured cheaper than a search without them: they
		// mostly go the same way in a game.)
		lo, hi := 0, len(w.boxes)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if w.boxes[m].lx < mb.lx-w.maxW {
				lo = m + 1
			} else {
				hi = m
			}
		}
		best := w.firstHitBox(me, &mb, w.boxes[lo:], mb.hx)
		if best == 0 {
			continue
		}
		m := mr.slot()
		if p := me.owner; int(p) < vocab.MaxPlayers && w.pl[p].in && w.pl[p].epoch == me.epoch() {
			w.pl[p].score += w.r.ScorePerBydos
		}
		w.destroy(best, vocab.DestroyKilled)
		w.destroy(m, vocab.DestroyConsumed)
	}
}

// hitShips: each vulnerable ship, by slot, dies on the Bydos or enemy
// missile it touches first in the tick (the lowest slot on a tie). Death,
// then the Destroy of the ship if it was its last life (else it respawns
// at once), then the Destroy of what hit it: a Bydos Killed (no score), a
// missile Consumed. The swept boxes of the Bydos (moveClassic's: a Bydos
// hitBydos destroyed is skipped as dead) and of the enemy missiles, in
// w.boxes, are compared first, as in hitBydos.
func (w *World) hitShips() {
	if len(w.shipRefs) == 0 {
		return
	}
	w.appendBoxes(w.emis, vocab.KindEnemyMissile)
	var sb sweptBox
	for _, sr := range w.shipRefs {
		s, se := sr.slot(), w.entOf(sr)
		p := se.owner
		pl := &w.pl[p]
		if !se.alive || pl.invuln > 0 {
			continue
		}
		sb.set(se, mkRef(s, 0), w.half[vocab.KindPlayerShip]) // its ref is not read
		// All of w.boxes: the enemy missiles' (after the Bydos') are not sorted.
		best := w.firstHitBox(se, &sb, w.boxes, math.MaxInt32)
		if best == 0 {
			continue
		}
		w.loseLife(p, s)
		reason := vocab.DestroyConsumed
		if w.ent(best).kind == vocab.KindBydosSlave {
			reason = vocab.DestroyKilled
		}
		w.destroy(best, reason)
	}
}

// firstHitBox is firstHit over the entities of boxes, skipping those
// whose swept box is apart from eb (e's), and stopping at the first box
// whose left edge is past maxLX (boxes sorted by their left edge up to it).
func (w *World) firstHitBox(e *entity, eb *sweptBox, boxes []sweptBox, maxLX int32) int32 {
	var best int32
	bestT := 2.0
	for i := 0; i < len(boxes) && boxes[i].lx <= maxLX; i++ {
		hb := &boxes[i]
		if eb.apart(hb) {
			continue
		}
		h := hb.r.slot()
		he := w.entOf(hb.r)
		if !he.alive {
			continue
		}
		if t, ok := w.sweep(e, he); ok && (t < bestT || t == bestT && h < best) {
			best, bestT = h, t
		}
	}
	return best
}

// firstHit returns the live entity of lists a and b (by slot) that e
// touches first in the tick, the lowest slot on a tie; 0 if none.
func (w *World) firstHit(e *entity, a, b []int32) int32 {
	var best int32
	bestT := 2.0
	for _, list := range [2][]int32{a, b} {
		for _, h := range list {
			he := w.ent(h)
			if !he.alive {
				continue
			}
			if t, ok := w.sweep(e, he); ok && (t < bestT || t == bestT && h < best) {
				best, bestT = h, t
			}
		}
	}
	return best
}

// loseLife: player p's ship in slot s is hit. Death, then the Destroy of
// the ship if it was its last life (the player is then without a ship),
// else it respawns at once at its spawn point, invulnerable for
// RespawnInvulnTicks.
func (w *World) loseLife(p uint8, s int32) {
	pl := &w.pl[p]
	se := w.ent(s)
	pl.lives--
	w.emit(vocab.Event{Type: vocab.EventDeath, Player: p, Lives: pl.lives, X: float32(se.x), Y: float32(se.y)})
	if pl.lives == 0 {
		w.destroy(s, vocab.DestroyKilled)
		pl.slot = 0
		return
	}
	x, y := w.spawnPoint(p)
	w.setShipMotion(se, w.tick, x, y, 0, 0)
	w.eval(se)
	se.px, se.py = se.x, se.y
	pl.invuln = int32(w.r.RespawnInvulnTicks)
	pl.invulnStart = w.tick
	pl.invulnTicks = uint32(w.r.RespawnInvulnTicks)
}

// fireShips: a ship whose player holds Fire fires when its cooldown is
// over, then waits FireInterval ticks.
func (w *World) fireShips() {
	r := &w.r
	for p := range w.pl {
		pl := &w.pl[p]
		if pl.slot == 0 {
			continue
		}
		if pl.cooldown > 0 {
			pl.cooldown--
		}
		if pl.actions&vocab.ActionFire == 0 || pl.cooldown > 0 {
			continue
		}
		e := w.ent(pl.slot)
		mo := vocab.Linear(w.tick, e.x+r.MissileDX, e.y+r.MissileDY, r.MissileSpeed, 0)
		if m := w.spawn(vocab.KindPlayerMissile, mo, vocab.Anim{}, uint8(p)); m != 0 {
			w.ent(m).setEpoch(pl.epoch)
		}
		pl.cooldown = int32(r.FireInterval)
	}
}

func (w *World) fireDelay() int32 {
	return int32(w.r.BydosFireMin + w.rng.IntN(w.r.BydosFireMax-w.r.BydosFireMin+1))
}

// bydosAI: each Bydos, by slot, fires at the nearest ship when its delay
// is over and its center is inside the area, then draws its next delay.
func (w *World) bydosAI() {
	r := &w.r
	for _, b := range w.bydos {
		e := w.entOf(b)
		if !e.alive {
			continue
		}
		if e.fireIn--; e.fireIn > 0 {
			continue
		}
		e.fireIn = w.fireDelay()
		if e.x < 0 || e.x > r.AreaW || e.y < 0 || e.y > r.AreaH {
			continue
		}
		var tx, ty float64
		bestD := math.Inf(1)
		for p := range w.pl {
			if s := w.pl[p].slot; s != 0 {
				t := w.ent(s)
				if d := (t.x-e.x)*(t.x-e.x) + (t.y-e.y)*(t.y-e.y); d < bestD {
					tx, ty, bestD = t.x, t.y, d
				}
			}
		}
		if math.IsInf(bestD, 1) {
			continue
		}
		vx, vy := -r.EnemyMissileSpeed, 0.0
		if bestD > 0 {
			d := math.Sqrt(bestD)
			vx, vy = (tx-e.x)/d*r.EnemyMissileSpeed, (ty-e.y)/d*r.EnemyMissileSpeed
		}
		w.spawn(vocab.KindEnemyMissile, vocab.Linear(w.tick, e.x, e.y, vx, vy), vocab.Anim{}, vocab.NoPlayer)
	}
}

// runWaves starts the waves on time and lets their Bydos enter.
func (w *World) runWaves() {
	if !w.started || w.over || w.noWaves {
		return
	}
	r := &w.r
	if w.tick >= w.nextWave {
		k := w.wave
		size, iv := r.waveSize(k), r.waveInterval(k)
		w.pending = size
		w.speed = r.waveSpeed(k)
		w.stagger = uint32(max(1, min(r.WaveStagger, iv/size)))
		w.nextEnter = w.tick
		w.nextWave += uint32(iv)
		w.wave++
	}
	if w.pending > 0 && w.tick >= w.nextEnter {
		w.pending--
		w.nextEnter = w.tick + w.stagger
		w.spawnWaveBydos()
	}
}

func (w *World) uniform(lo, hi float64) float64 { return lo + (hi-lo)*w.rng.Float64() }

// spawnWaveBydos brings in one Bydos of the current wave at a random
// height, speed and phase.
func (w *World) spawnWaveBydos() {
	r := &w.r
	amp := float64(vocab.QuantizeAmp(w.uniform(r.BydosAmplitudeMin, r.BydosAmplitudeMax))) / vocab.AmpScale
	hh := r.BydosH / 2
	lo, hi := hh+amp, r.AreaH-hh-amp
	baseY := w.uniform(lo, hi)
	// On the 1/8 px grid, and still within [lo, hi].
	baseY = min(max(math.Round(baseY*vocab.PosScale), math.Ceil(lo*vocab.PosScale)), math.Floor(hi*vocab.PosScale)) / vocab.PosScale
	vx := -w.uniform(r.BydosSpeedMin, r.BydosSpeedMax) * w.speed
	phase := 2 * math.Pi * w.rng.Float64()
	fireIn := w.fireDelay()
	w.spawnBydos(r.BydosEntryX, baseY, vx, amp, phase, fireIn)
}

// spawnBydos spawns a Bydos at x on the sine wave of centre line baseY,
// amplitude amp and phase (radians), flying at vx: its motion is a
// vocab.Sine of period BydosPeriod, its animation BydosFrames frames of
// BydosFrameTicks ticks.
func (w *World) spawnBydos(x, baseY, vx, amp, phase float64, fireIn int32) int32 {
	r := &w.r
	m := vocab.Sine(w.tick, x, baseY, vx, amp, r.BydosPeriod, phase)
	a := vocab.Anim{Ticks: uint8(min(r.BydosFrameTicks, 255)), Count: uint8(min(r.BydosFrames, 255))}
	s := w.spawn(vocab.KindBydosSlave, m, a, vocab.NoPlayer)
	if s != 0 {
		w.ent(s).fireIn = fireIn
	}
	return s
}

// despawn destroys (Despawned) every entity but ships whose box is
// entirely outside the area by more than DespawnMargin.
func (w *World) despawn() {
	r := &w.r
	m := r.DespawnMargin
	// By index in w.order: a Destroy takes its entity out, and the next
	// one comes to the same index.
	for i := 0; i < len(w.order); i++ {
		e := w.entOf(w.order[i])
		if e.kind == vocab.KindPlayerShip {
			continue
		}
		hw, hh := w.half[e.kind].w, w.half[e.kind].h // Classic
		if e.x+hw < -m || e.x-hw > r.AreaW+m || e.y+hh < -m || e.y-hh > r.AreaH+m {
			w.destroy(w.order[i].slot(), vocab.DestroyDespawned)
			i--
		}
	}
}

// shipFrame is a ship's frame: level, climbing or diving by its vertical
// velocity; while invulnerable, ShipFrameInvuln during the even
// BlinkTicks-long phases since its invulnerability began.
func (w *World) shipFrame(pl *player, e *entity) uint8 {
	if pl.invuln > 0 && (w.tick-pl.invulnStart)/uint32(w.r.BlinkTicks)%2 == 0 {
		return ShipFrameInvuln
	}
	return e.anim.Frame0
}

func (w *World) shipFrames() {
	for p := range w.pl {
		if pl := &w.pl[p]; pl.slot != 0 {
			e := w.ent(pl.slot)
			e.frame = w.shipFrame(pl, e)
		}
	}
}

// checkOver emits GameOver, once, when players are in the game and none
// has a life left. It lists the players in the game, by number, with
// their scores; players who left are not in it.
func (w *World) checkOver() {
	if w.over {
		return
	}
	ev := vocab.Event{Type: vocab.EventGameOver}
	for p := range w.pl {
		pl := &w.pl[p]
		if !pl.in {
			continue
		}
		if pl.lives > 0 {
			return
		}
		ev.Scores[ev.NumScores] = vocab.Score{Player: uint8(p), Score: pl.score}
		ev.NumScores++
	}
	if ev.NumScores == 0 {
		return
	}
	w.over = true
	w.emit(ev)
}

// halfOf returns the half sizes of e's box: its kind's in a Classic
// world, its own (coldState) in Stage mode, where a beam's depends on its
// level and an upright shot's is turned.
func (w *World) halfOf(e *entity) halfSize {
	if w.colds != nil {
		return w.cold(e).half
	}
	return w.half[e.kind]
}
