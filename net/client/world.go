package client

import (
	"cmp"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/vocab"
)

// HistoryLen is how many frames a World keeps: one second of snapshots at
// 20 per second.
const HistoryLen = 20

// ForgetAfter is how long, in ticks, a World remembers a destroyed network
// id after its Destroy (4.5: 10 seconds at 60 ticks per second).
const ForgetAfter = 600

// Entity is an entity of the client's world, in pixels and pixels per
// second.
type Entity struct {
	// ID is the entity's network id (4.1).
	ID uint32
	// Kind is one of the wire.Kind* constants; entities of other kinds are
	// never shown.
	Kind uint8
	// Owner is the player the entity belongs to, or wire.NoPlayer.
	Owner uint8
	// Frame is the frame of the entity's sprite sheet to show, 0 to 15.
	Frame uint8
	// X and Y are the center of the entity in logical pixels.
	X, Y float32
	// VX and VY are its velocity in logical pixels per second.
	VX, VY float32
	// Tick is the server tick of these values: that of the Spawn, then that
	// of the last snapshot record applied.
	Tick uint32
	// Spawned is the tick of the entity's Spawn: it did not exist before.
	Spawned uint32
	// Respawned is the tick of the last Death of the ship's player (4.4),
	// 0 if none: the ship was moved to its spawn point then, so a renderer
	// must not interpolate between a frame older than Respawned and a newer
	// one.
	Respawned uint32
	// HasMotion is true in a v2 session (7.5): Motion and Anim are then
	// the entity's motion and animation, a pure function of the tick that
	// a renderer evaluates at any render time (wire.Motion.At,
	// wire.Anim.Frame), and X, Y, VX, VY and Frame their values at Tick.
	HasMotion bool
	Motion    wire.Motion
	Anim      wire.Anim
}

// At returns where e is at tick (a fractional render tick): its motion's
// position and velocity in a v2 session (exact, 7.5), else its values at
// e.Tick moved on along its velocity.
func (e *Entity) At(tick float64) (x, y, vx, vy float64) {
	if e.HasMotion {
		return e.Motion.At(tick)
	}
	dt := (tick - float64(e.Tick)) / wire.TickRate
	return float64(e.X) + float64(e.VX)*dt, float64(e.Y) + float64(e.VY)*dt, float64(e.VX), float64(e.VY)
}

// FrameAt returns the sprite frame e shows at tick: its animation's in a
// v2 session (7.5), else Frame.
func (e *Entity) FrameAt(tick float64) uint8 {
	if e.HasMotion {
		return e.Anim.Frame(e.Motion.T0, tick)
	}
	return e.Frame
}

// Player is a row of the player table.
type Player struct {
	// Present is true between the player's PlayerJoined and PlayerLeft.
	Present bool
	// Name is the player's name, as the server normalized it, cleaned by
	// wire.CleanName: one line, no control or bidi characters, at most
	// wire.MaxNameLen characters.
	Name string
	// HasShip tells whether the player has a ship, Ship its network id
	// (wire.NoEntity without one).
	HasShip bool
	Ship    uint32
	// Lives is the number of lives left.
	Lives uint8
	// Score is the player's score.
	Score uint32
	// InvulnStart and InvulnTicks are the player's last invulnerability
	// (v2 snapshots, 7.8): its first tick and its length, 0 when none.
	InvulnStart, InvulnTicks uint32
	// HasStep and LastStep are the last input step the server applied for
	// this client's player at the snapshot's tick (v2, 7.4, 7.8): the
	// prediction replays the steps after it.
	HasStep  bool
	LastStep uint32
}

// Frame is the world as it was right after a snapshot was applied.
type Frame struct {
	// Tick is the server tick of the snapshot.
	Tick uint32
	// Entities are the known entities, sorted by ID. Entities spawned by an
	// event after Tick are included, with their own Tick.
	Entities []Entity
	// Players is the player table.
	Players [wire.MaxPlayers]Player
	// Received is when the first datagram of the snapshot arrived, on the
	// local monotonic clock; zero when unknown. A renderer measures the
	// link's jitter from it rather than from when it first drew the frame,
	// which on a slow machine is late by up to a whole frame.
	Received time.Time

	// version names this content of the frame: Frames copies a frame
	// again only when dst holds another version of it.
	version uint64
}

// frameVersions numbers the contents of frames, across worlds, so that a
// dst shared between two worlds never takes one's frame for the other's.
var frameVersions atomic.Uint64

// ent is an entity of the world with its ordering state (4.3, 4.5).
type ent struct {
	Entity
	recTick uint32 // tick of the last snapshot record applied
	hasRec  bool
	hidden  bool // a kind this client does not know: never shown
}

// deadID is a destroyed id the world remembers (4.5): the tick of its
// Destroy, and the local time it was applied (zero when unknown).
type deadID struct {
	tick uint32
	at   time.Time
}

// deadSlot is an entry of the ring that bounds the destroyed ids kept.
type deadSlot struct {
	id, tick uint32
}

// LimitError reports a server that sent more than a client accepts
// (PROTOCOL.md Appendix A, client limits). It matches ErrTooMuch and
// ErrProtocol.
type LimitError struct {
	// What says what was too much, in words.
	What string
}

// Error says what the server sent beyond the limit.
func (e *LimitError) Error() string { return ErrTooMuch.Error() + ": " + e.What }

// Is matches ErrTooMuch and ErrProtocol.
func (e *LimitError) Is(target error) bool { return target == ErrTooMuch || target == ErrProtocol }

// World is the client's copy of the game world: it applies events and
// rebuilt snapshots with the ordering rules of sections 4.3 and 4.5, and
// keeps the frames of the last second for the renderer to interpolate.
//
// The rules it follows:
//
//   - Spawn creates an entity; Destroy removes it and remembers its id with
//     the Destroy's tick for ForgetAfter ticks (or 10 s of local time,
//     when the events come with it). For each id, a Spawn or a Destroy
//     older than the last one applied to that id is ignored; a Destroy
//     arriving before its Spawn is remembered and the late Spawn ignored.
//     A Spawn of the same tick as the remembered Destroy is ignored too:
//     within one tick an entity is spawned before it is destroyed.
//   - A Spawn of an unknown kind is remembered but never shown, and its
//     Destroy is not reported.
//   - A snapshot record updates a known, live entity only: it is ignored
//     when older than the entity's Spawn or than the last record applied to
//     it, or when its kind differs from the entity's.
//   - Death sets the player's lives and marks its ship's Respawned tick.
//   - The player records of a snapshot replace the player table's ships,
//     lives and scores unless a newer snapshot was applied before; a Death
//     newer than the last snapshot sets the lives.
//   - After each snapshot at least as new as the newest frame, the world is
//     recorded as a Frame (replacing the newest frame when the tick is the
//     same, as the datagrams of one snapshot arrive). A late snapshot (older
//     than the newest frame) updates the entities but adds no frame.
//
// Its memory is bounded by the client limits of the protocol: a Spawn
// that would make more than wire.MaxLiveEntities live entities is refused,
// and Err reports it; at most wire.MaxDestroyed destroyed ids are
// remembered (the oldest are forgotten first). No operation costs more
// than the number of live entities: the entities are stored unordered
// with an index, and a frame is sorted once, when it is read.
//
// A World is not safe for concurrent use. The zero value is not ready: use
// NewWorld.
type World struct {
	live  []ent            // unordered
	index map[uint32]int32 // id -> position in live
	dead  map[uint32]deadID
	ring  []deadSlot // the destroyed ids in the order of their Destroy
	rhead int        // oldest slot of ring once it is full

	ships     [wire.MaxPlayers]int    // live PlayerShip entities of each player
	respawned [wire.MaxPlayers]uint32 // newest Death tick of each player
	hasDeath  [wire.MaxPlayers]bool

	players      [wire.MaxPlayers]Player
	playersTick  uint32 // tick of the last snapshot whose players were applied
	hasPlayers   bool
	livesTick    [wire.MaxPlayers]uint32 // tick of the lives value
	hasLives     [wire.MaxPlayers]bool
	presenceTick [wire.MaxPlayers]uint32 // tick of the last PlayerJoined/Left
	hasPresence  [wire.MaxPlayers]bool

	over   bool
	scores []wire.Score

	now        uint32    // newest tick seen
	sweptAt    uint32    // tick of the last sweep of dead
	clock      time.Time // newest local time seen, zero if none
	sweptClock time.Time // local time of the last sweep

	frames [HistoryLen]Frame
	head   int  // slot of the newest frame
	count  int  // frames recorded, up to HistoryLen
	stale  bool // the newest frame's entities must be taken from the world again

	err error // the first limit a server broke

	features wire.Features // the session's: Motions, Modes

	stage stageOrder // the order of Stage mode's events (7.12)
}

// NewWorld returns an empty world of a session of features f. With
// f.Motions, Spawns carry motions (7.6) and snapshots are applied with
// ApplyFrame; else with ApplySnapshot. With f.Modes, the world shows
// Stage mode's kinds and follows its events (7.12).
func NewWorld(f wire.Features) *World {
	w := &World{index: make(map[uint32]int32), dead: make(map[uint32]deadID), scores: make([]wire.Score, 0, wire.MaxPlayers),
		features: f}
	for p := range w.players {
		w.players[p].Ship = wire.NoEntity
	}
	return w
}

// Err returns the first client limit a server broke (a *LimitError), or
// nil. The world stays usable: what went beyond the limit was refused.
func (w *World) Err() error { return w.err }

// knownKind reports whether a client of Classic games only knows how to
// show kind: the kinds of 4.1.
func knownKind(kind uint8) bool {
	return kind >= wire.KindPlayerShip && kind <= wire.KindEnemyMissile
}

// knownStageKind reports whether a client of Stage games knows how to
// show kind: Classic's and those of Stage mode (7.12).
func knownStageKind(kind uint8) bool {
	return kind >= wire.KindPlayerShip && kind <= vocab.KindStageLast
}

// known reports whether the world shows entities of kind.
func (w *World) known(kind uint8) bool {
	if w.features.Modes {
		return knownStageKind(kind)
	}
	return knownKind(kind)
}

// find returns the live entity id, or nil.
func (w *World) find(id uint32) *ent {
	if i, ok := w.index[id]; ok {
		return &w.live[i]
	}
	return nil
}

// shipOwner returns the player whose ship e counts as, or -1.
func shipOwner(e *ent) int {
	if e.Kind == wire.KindPlayerShip && e.Owner < wire.MaxPlayers {
		return int(e.Owner)
	}
	return -1
}

// remove deletes the live entity id, swapping the last one into its place.
func (w *World) remove(id uint32) {
	i, ok := w.index[id]
	if !ok {
		return
	}
	if p := shipOwner(&w.live[i]); p >= 0 {
		w.ships[p]--
	}
	last := int32(len(w.live) - 1)
	if i != last {
		w.live[i] = w.live[last]
		w.index[w.live[i].ID] = i
	}
	w.live[last] = ent{}
	w.live = w.live[:last]
	delete(w.index, id)
}

// advance moves the world's clock to tick when it is newer, and to the
// local time now when it is given and newer, then forgets the destroyed
// ids older than ForgetAfter ticks or 10 s, once a second of either
// clock. The local clock lets ids destroyed at the last ticks of the u32
// range be forgotten too.
func (w *World) advance(tick uint32, now time.Time) {
	if tick > w.now {
		w.now = tick
	}
	if now.After(w.clock) {
		w.clock = now
	}
	byTick := w.now-w.sweptAt >= wire.TickRate
	byClock := !w.clock.IsZero() && w.clock.Sub(w.sweptClock) >= time.Second
	if !byTick && !byClock {
		return
	}
	w.sweptAt, w.sweptClock = w.now, w.clock
	forget := time.Duration(ForgetAfter) * wire.TickDuration
	for id, d := range w.dead {
		if w.now-d.tick >= ForgetAfter || (!d.at.IsZero() && w.clock.Sub(d.at) >= forget) {
			delete(w.dead, id)
		}
	}
}

// remember records id as destroyed at tick (4.5), forgetting the oldest
// destroyed id when wire.MaxDestroyed are remembered.
func (w *World) remember(id, tick uint32) {
	w.dead[id] = deadID{tick: tick, at: w.clock}
	if len(w.ring) < wire.MaxDestroyed {
		w.ring = append(w.ring, deadSlot{id, tick})
		return
	}
	old := w.ring[w.rhead]
	if d, ok := w.dead[old.id]; ok && d.tick == old.tick && old.id != id {
		delete(w.dead, old.id)
	}
	w.ring[w.rhead] = deadSlot{id, tick}
	w.rhead = (w.rhead + 1) % wire.MaxDestroyed
}

// ApplyEvent applies one event and reports whether it was applied (false
// when the ordering rules ignore it, for an event type it does not know,
// or for a Spawn beyond the limit, which Err then reports). The event's
// fields are copied; a PlayerJoined name is cleaned (wire.CleanName).
func (w *World) ApplyEvent(ev *wire.Event) bool { return w.ApplyEventAt(ev, time.Time{}) }

// ApplyEventAt is ApplyEvent for an event that arrived at now, on the
// local monotonic clock.
func (w *World) ApplyEventAt(ev *wire.Event, now time.Time) bool {
	w.advance(ev.Tick, now)
	switch ev.Type {
	case wire.EventSpawn:
		w.freeze()
		return w.spawn(ev)
	case wire.EventDestroy:
		w.freeze()
		return w.destroy(ev)
	case wire.EventDeath:
		return w.death(ev)
	case wire.EventPlayerJoined, wire.EventPlayerLeft:
		p := ev.Player
		if p >= wire.MaxPlayers || (w.hasPresence[p] && ev.Tick < w.presenceTick[p]) {
			return false
		}
		w.hasPresence[p], w.presenceTick[p] = true, ev.Tick
		pl := &w.players[p]
		if ev.Type == wire.EventPlayerJoined {
			pl.Present, pl.Name = true, wire.CleanName(ev.Name)
		} else {
			pl.Present = false
		}
		return true
	case wire.EventGameOver:
		if w.over {
			return false
		}
		w.over = true
		w.scores = append(w.scores[:0], ev.Scores[:min(ev.NumScores, wire.MaxPlayers)]...)
		return true
	case wire.EventStage, wire.EventHealth, wire.EventArms:
		return w.features.Modes && w.stage.apply(ev)
	}
	return false
}

func (w *World) spawn(ev *wire.Event) bool {
	if d, ok := w.dead[ev.ID]; ok {
		if ev.Tick <= d.tick {
			return false // the Destroy came first (4.5)
		}
		delete(w.dead, ev.ID) // the id was reused
	}
	cur := w.find(ev.ID)
	if cur != nil && ev.Tick < cur.Spawned {
		return false
	}
	if cur == nil && len(w.live) >= wire.MaxLiveEntities {
		if w.err == nil {
			w.err = &LimitError{fmt.Sprintf("a Spawn beyond %d live entities (at tick %d)", wire.MaxLiveEntities, ev.Tick)}
		}
		return false
	}
	e := ent{
		Entity: Entity{ID: ev.ID, Kind: ev.Kind, Owner: ev.Owner, X: ev.X, Y: ev.Y,
			VX: ev.VX, VY: ev.VY, Tick: ev.Tick, Spawned: ev.Tick},
		hidden: !w.known(ev.Kind),
	}
	if w.features.Motions {
		e.setMotion(ev.Motion, ev.Anim, ev.Tick)
	}
	if cur != nil {
		if p := shipOwner(cur); p >= 0 {
			w.ships[p]--
		}
		*cur = e
	} else {
		w.index[ev.ID] = int32(len(w.live))
		w.live = append(w.live, e)
	}
	if p := shipOwner(&e); p >= 0 {
		w.ships[p]++
	}
	return !e.hidden
}

func (w *World) destroy(ev *wire.Event) bool {
	if e := w.find(ev.ID); e != nil {
		if ev.Tick < e.Spawned {
			return false // the Destroy of an earlier entity of this id
		}
		hidden := e.hidden
		w.remove(ev.ID)
		w.remember(ev.ID, ev.Tick)
		return !hidden
	}
	if d, ok := w.dead[ev.ID]; ok && ev.Tick <= d.tick {
		return false
	}
	// A Destroy before its Spawn: remembered, so the Spawn is ignored.
	w.remember(ev.ID, ev.Tick)
	return true
}

func (w *World) death(ev *wire.Event) bool {
	p := ev.Player
	if p >= wire.MaxPlayers {
		return false
	}
	if !w.hasLives[p] || ev.Tick > w.livesTick[p] {
		w.players[p].Lives = ev.Lives
		w.livesTick[p], w.hasLives[p] = ev.Tick, true
	}
	// The ship moved to its spawn point at once: no interpolation across.
	// A ship's Respawned is the newest Death of its player not older than
	// its Spawn, so the newest Death of each player is all it takes.
	if !w.hasDeath[p] || ev.Tick > w.respawned[p] {
		w.freeze()
		w.respawned[p], w.hasDeath[p] = ev.Tick, true
	}
	return true
}

// setMotion sets a v2 entity's motion and animation, and its values at
// tick. A reserved model (3 to 15) keeps the entity but hides it (7.5).
func (e *ent) setMotion(m wire.Motion, a wire.Anim, tick uint32) {
	e.HasMotion, e.Motion, e.Anim = true, m, a
	x, y, vx, vy := m.At(float64(tick))
	e.X, e.Y, e.VX, e.VY = float32(x), float32(y), float32(vx), float32(vy)
	e.Frame = a.Frame(m.T0, float64(tick))
	e.hidden = !knownStageKind(e.Kind) || m.Model > wire.ModelSine
}

// shown returns e as shown, with its Respawned tick.
func (w *World) shown(e *ent) Entity {
	out := e.Entity
	if p := shipOwner(e); p >= 0 && w.hasDeath[p] && w.respawned[p] >= e.Spawned {
		out.Respawned = w.respawned[p]
	}
	return out
}

// ApplySnapshot applies a rebuilt snapshot (4.8 step 5): its entity
// records update the known entities (4.3, 4.5), its player records the
// player table, then the world is recorded as a frame of r.Tick.
func (w *World) ApplySnapshot(r *link.Rebuilt) { w.ApplySnapshotAt(r, time.Time{}) }

// ApplySnapshotAt is ApplySnapshot for a snapshot that arrived at
// received: its frame records that time.
func (w *World) ApplySnapshotAt(r *link.Rebuilt, received time.Time) {
	t := r.Tick
	w.advance(t, received)
	if w.count > 0 && t != w.frames[w.head].Tick {
		w.freeze() // the newest frame shows the world before this snapshot
	}
	for k := range r.Entities {
		re := &r.Entities[k]
		e := w.find(re.ID)
		if e == nil {
			continue // unknown, or destroyed (4.3)
		}
		if e.hidden || re.Kind != e.Kind || t < e.Spawned || (e.hasRec && t < e.recTick) {
			continue
		}
		e.X, e.Y, e.VX, e.VY = re.X(), re.Y(), re.VX(), re.VY()
		e.Frame = re.Frame()
		e.Tick, e.recTick, e.hasRec = t, t, true
	}
	if !w.hasPlayers || t >= w.playersTick {
		var seen [wire.MaxPlayers]bool
		for _, ps := range r.PlayerStates() {
			if ps.Player >= wire.MaxPlayers {
				continue
			}
			seen[ps.Player] = true
			w.setPlayer(&ps, t)
		}
		w.unseen(seen)
		w.hasPlayers, w.playersTick = true, t
	}
	w.record(t, received)
}

// ApplyFrame applies a rebuilt v2 snapshot (7.8, applying as 4.3):
// its entity records set the motions of the known entities, its player
// records the player table, then the world is recorded as a frame of
// r.Tick, as ApplySnapshotAt does.
func (w *World) ApplyFrame(r *link2.Rebuilt, received time.Time) {
	t := r.Tick
	w.advance(t, received)
	if w.count > 0 && t != w.frames[w.head].Tick {
		w.freeze()
	}
	for k := range r.Entities {
		re := &r.Entities[k]
		e := w.find(re.ID)
		if e == nil {
			continue // unknown, or destroyed (4.3)
		}
		if !w.known(e.Kind) || re.Kind() != e.Kind || t < e.Spawned || (e.hasRec && t < e.recTick) {
			continue
		}
		e.setMotion(re.Motion(), re.Anim(), t)
		e.Tick, e.recTick, e.hasRec = t, t, true
	}
	if !w.hasPlayers || t >= w.playersTick {
		var seen [wire.MaxPlayers]bool
		for i := range r.Players {
			ps := &r.Players[i]
			if ps.Player >= wire.MaxPlayers {
				continue
			}
			seen[ps.Player] = true
			w.setPlayer(&ps.PlayerState, t)
			pl := &w.players[ps.Player]
			pl.InvulnStart, pl.InvulnTicks = ps.InvulnStart, ps.InvulnTicks
			pl.HasStep, pl.LastStep = ps.HasStep, ps.LastStep
		}
		w.unseen(seen)
		w.hasPlayers, w.playersTick = true, t
	}
	w.record(t, received)
}

// setPlayer applies a snapshot's record of a player at tick t.
func (w *World) setPlayer(ps *wire.PlayerState, t uint32) {
	pl := &w.players[ps.Player]
	pl.HasShip, pl.Ship, pl.Score = ps.HasShip, ps.Ship, ps.Score
	if !ps.HasShip {
		pl.Ship = wire.NoEntity
	}
	if !w.hasLives[ps.Player] || t >= w.livesTick[ps.Player] {
		pl.Lives, w.livesTick[ps.Player], w.hasLives[ps.Player] = ps.Lives, t, true
	}
}

// unseen takes the ships of the players a snapshot has no record of.
func (w *World) unseen(seen [wire.MaxPlayers]bool) {
	for p := range seen {
		if !seen[p] {
			w.players[p].HasShip, w.players[p].Ship = false, wire.NoEntity
		}
	}
}

// record stores the world as the frame of tick, unless a newer frame is
// already stored. The entities are copied later, once (freeze): the
// datagrams of one snapshot each change the newest frame.
func (w *World) record(tick uint32, received time.Time) {
	if w.count > 0 {
		newest := w.frames[w.head].Tick
		if tick < newest {
			return // late: no frame out of order
		}
		if tick == newest {
			// Another datagram of the same snapshot.
			w.frames[w.head].Players = w.players
			w.frames[w.head].version = frameVersions.Add(1)
			w.stale = true
			return
		}
		w.freeze()
		w.head = (w.head + 1) % HistoryLen
		w.count = min(w.count+1, HistoryLen)
	} else {
		w.head, w.count = 0, 1
	}
	f := &w.frames[w.head]
	f.Received = received
	f.Tick = tick
	f.Players = w.players
	f.version = frameVersions.Add(1)
	w.stale = true
}

// freeze copies the entities into the newest frame when they changed
// since it was recorded: before the world changes in a way the frame must
// not show, and before the frames are read.
func (w *World) freeze() {
	if !w.stale {
		return
	}
	w.stale = false
	f := &w.frames[w.head]
	f.Entities = w.appendEntities(f.Entities[:0])
}

// appendEntities appends the shown entities, sorted by ID.
func (w *World) appendEntities(dst []Entity) []Entity {
	n := len(dst)
	for i := range w.live {
		if !w.live[i].hidden {
			dst = append(dst, w.shown(&w.live[i]))
		}
	}
	slices.SortFunc(dst[n:], func(a, b Entity) int { return cmp.Compare(a.ID, b.ID) })
	return dst
}

// Entities appends the current entities, sorted by ID, to dst.
func (w *World) Entities(dst []Entity) []Entity { return w.appendEntities(dst) }

// Len returns the number of live entities, shown or not.
func (w *World) Len() int { return len(w.live) }

// Entity returns the current state of entity id, and false when the world
// does not show it.
func (w *World) Entity(id uint32) (Entity, bool) {
	e := w.find(id)
	if e == nil || e.hidden {
		return Entity{}, false
	}
	return w.shown(e), true
}

// Destroyed reports whether id is remembered as destroyed, and the tick of
// its Destroy.
func (w *World) Destroyed(id uint32) (uint32, bool) {
	d, ok := w.dead[id]
	return d.tick, ok
}

// Frames sets dst to the recorded frames, oldest first, and returns it.
// The entity slices of dst's elements are reused, so a caller that passes
// the same dst every time allocates nothing once it has grown; the
// returned frames belong to the caller. A frame that dst already holds,
// unchanged, is moved into place rather than copied again: a caller that
// modifies the entities of the frames it passes back must clear them
// first (dst[:0] does not; a nil dst does).
func (w *World) Frames(dst []Frame) []Frame {
	w.freeze()
	old := dst[:cap(dst)]
	dst = dst[:0]
	for k := 0; k < w.count; k++ {
		src := &w.frames[(w.head-w.count+1+k+HistoryLen)%HistoryLen]
		if len(dst) == len(old) {
			old = append(old, Frame{})
			old = old[:cap(old)]
		}
		dst = old[:k+1]
		f := &dst[k]
		if f.version != src.version {
			for j := k + 1; j < len(old); j++ {
				if old[j].version == src.version {
					old[j], *f = *f, old[j]
					break
				}
			}
		}
		if f.version == src.version && len(f.Entities) == len(src.Entities) {
			continue // dst holds this frame already
		}
		f.Tick, f.Players, f.Received, f.version = src.Tick, src.Players, src.Received, src.version
		f.Entities = append(f.Entities[:0], src.Entities...)
	}
	return dst
}

// Players returns the player table.
func (w *World) Players() [wire.MaxPlayers]Player { return w.players }

// HasShip reports whether player p has a ship: the last snapshot says so,
// or a ship of that player is alive.
func (w *World) HasShip(p uint8) bool {
	if p >= wire.MaxPlayers {
		return false
	}
	return w.players[p].HasShip || w.ships[p] > 0
}

// GameOver returns the final scores of GameOver (a copy) and whether the
// game is over.
func (w *World) GameOver() ([]wire.Score, bool) {
	if !w.over {
		return nil, false
	}
	return slices.Clone(w.scores), true
}

// Tick returns the newest server tick the world has seen, in an event or a
// snapshot.
func (w *World) Tick() uint32 { return w.now }
