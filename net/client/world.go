package client

import (
	"cmp"
	"slices"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
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
}

// Player is a row of the player table.
type Player struct {
	// Present is true between the player's PlayerJoined and PlayerLeft.
	Present bool
	// Name is the player's name, as the server normalized it.
	Name string
	// HasShip tells whether the player has a ship, Ship its network id
	// (wire.NoEntity without one).
	HasShip bool
	Ship    uint32
	// Lives is the number of lives left.
	Lives uint8
	// Score is the player's score.
	Score uint32
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
}

// ent is an entity of the world with its ordering state (4.3, 4.5).
type ent struct {
	Entity
	recTick uint32 // tick of the last snapshot record applied
	hasRec  bool
	hidden  bool // a kind this client does not know: never shown
}

// World is the client's copy of the game world: it applies events and
// rebuilt snapshots with the ordering rules of sections 4.3 and 4.5, and
// keeps the frames of the last second for the renderer to interpolate.
//
// The rules it follows:
//
//   - Spawn creates an entity; Destroy removes it and remembers its id with
//     the Destroy's tick for ForgetAfter ticks. For each id, a Spawn or a
//     Destroy older than the last one applied to that id is ignored; a
//     Destroy arriving before its Spawn is remembered and the late Spawn
//     ignored. A Spawn of the same tick as the remembered Destroy is
//     ignored too: within one tick an entity is spawned before it is
//     destroyed.
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
// A World is not safe for concurrent use. The zero value is not ready: use
// NewWorld.
type World struct {
	live []ent             // sorted by ID
	dead map[uint32]uint32 // destroyed id -> tick of its Destroy

	players      [wire.MaxPlayers]Player
	playersTick  uint32 // tick of the last snapshot whose players were applied
	hasPlayers   bool
	livesTick    [wire.MaxPlayers]uint32 // tick of the lives value
	hasLives     [wire.MaxPlayers]bool
	presenceTick [wire.MaxPlayers]uint32 // tick of the last PlayerJoined/Left
	hasPresence  [wire.MaxPlayers]bool

	over   bool
	scores []wire.Score

	now     uint32 // newest tick seen
	sweptAt uint32 // tick of the last sweep of dead

	frames [HistoryLen]Frame
	head   int // slot of the newest frame
	count  int // frames recorded, up to HistoryLen
}

// NewWorld returns an empty world.
func NewWorld() *World {
	w := &World{dead: make(map[uint32]uint32), scores: make([]wire.Score, 0, wire.MaxPlayers)}
	for p := range w.players {
		w.players[p].Ship = wire.NoEntity
	}
	return w
}

// knownKind reports whether this client knows how to show kind.
func knownKind(kind uint8) bool {
	return kind >= wire.KindPlayerShip && kind <= wire.KindEnemyMissile
}

func cmpEnt(e ent, id uint32) int { return cmp.Compare(e.ID, id) }

// find returns the index of id in live, or where it would go.
func (w *World) find(id uint32) (int, bool) {
	return slices.BinarySearchFunc(w.live, id, cmpEnt)
}

// advance moves the world's clock to tick when it is newer, and forgets
// the destroyed ids older than ForgetAfter ticks, once a second.
func (w *World) advance(tick uint32) {
	if tick > w.now {
		w.now = tick
	}
	if w.now-w.sweptAt < 60 {
		return
	}
	w.sweptAt = w.now
	for id, t := range w.dead {
		if w.now-t >= ForgetAfter {
			delete(w.dead, id)
		}
	}
}

// ApplyEvent applies one event and reports whether it was applied (false
// when the ordering rules ignore it, or for an event type it does not
// know). The event's fields are copied.
func (w *World) ApplyEvent(ev *wire.Event) bool {
	switch ev.Type {
	case wire.EventSpawn:
		w.advance(ev.Tick)
		return w.spawn(ev)
	case wire.EventDestroy:
		w.advance(ev.Tick)
		return w.destroy(ev)
	case wire.EventDeath:
		w.advance(ev.Tick)
		return w.death(ev)
	case wire.EventPlayerJoined, wire.EventPlayerLeft:
		w.advance(ev.Tick)
		p := ev.Player
		if p >= wire.MaxPlayers || (w.hasPresence[p] && ev.Tick < w.presenceTick[p]) {
			return false
		}
		w.hasPresence[p], w.presenceTick[p] = true, ev.Tick
		pl := &w.players[p]
		if ev.Type == wire.EventPlayerJoined {
			pl.Present, pl.Name = true, ev.Name
		} else {
			pl.Present = false
		}
		return true
	case wire.EventGameOver:
		w.advance(ev.Tick)
		if w.over {
			return false
		}
		w.over = true
		w.scores = append(w.scores[:0], ev.Scores[:min(ev.NumScores, wire.MaxPlayers)]...)
		return true
	}
	return false
}

func (w *World) spawn(ev *wire.Event) bool {
	if t, ok := w.dead[ev.ID]; ok {
		if ev.Tick <= t {
			return false // the Destroy came first (4.5)
		}
		delete(w.dead, ev.ID) // the id was reused
	}
	i, ok := w.find(ev.ID)
	if ok && ev.Tick < w.live[i].Spawned {
		return false
	}
	e := ent{
		Entity: Entity{ID: ev.ID, Kind: ev.Kind, Owner: ev.Owner, X: ev.X, Y: ev.Y,
			VX: ev.VX, VY: ev.VY, Tick: ev.Tick, Spawned: ev.Tick},
		hidden: !knownKind(ev.Kind),
	}
	if ok {
		w.live[i] = e
	} else {
		w.live = slices.Insert(w.live, i, e)
	}
	return !e.hidden
}

func (w *World) destroy(ev *wire.Event) bool {
	if i, ok := w.find(ev.ID); ok {
		e := &w.live[i]
		if ev.Tick < e.Spawned {
			return false // the Destroy of an earlier entity of this id
		}
		hidden := e.hidden
		w.live = slices.Delete(w.live, i, i+1)
		w.dead[ev.ID] = ev.Tick
		return !hidden
	}
	if t, ok := w.dead[ev.ID]; ok && ev.Tick <= t {
		return false
	}
	// A Destroy before its Spawn: remembered, so the Spawn is ignored.
	w.dead[ev.ID] = ev.Tick
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
	for i := range w.live {
		e := &w.live[i]
		if e.Kind == wire.KindPlayerShip && e.Owner == p && ev.Tick >= e.Spawned && ev.Tick > e.Respawned {
			e.Respawned = ev.Tick
		}
	}
	return true
}

// ApplySnapshot applies a rebuilt snapshot (4.8 step 5): its entity
// records update the known entities (4.3, 4.5), its player records the
// player table, then the world is recorded as a frame of r.Tick.
func (w *World) ApplySnapshot(r *link.Rebuilt) { w.ApplySnapshotAt(r, time.Time{}) }

// ApplySnapshotAt is ApplySnapshot for a snapshot that arrived at
// received: its frame records that time.
func (w *World) ApplySnapshotAt(r *link.Rebuilt, received time.Time) {
	t := r.Tick
	w.advance(t)
	for k := range r.Entities {
		re := &r.Entities[k]
		i, ok := w.find(re.ID)
		if !ok {
			continue // unknown, or destroyed (4.3)
		}
		e := &w.live[i]
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
			pl := &w.players[ps.Player]
			pl.HasShip, pl.Ship, pl.Score = ps.HasShip, ps.Ship, ps.Score
			if !ps.HasShip {
				pl.Ship = wire.NoEntity
			}
			if !w.hasLives[ps.Player] || t >= w.livesTick[ps.Player] {
				pl.Lives, w.livesTick[ps.Player], w.hasLives[ps.Player] = ps.Lives, t, true
			}
		}
		for p := range seen {
			if !seen[p] {
				w.players[p].HasShip, w.players[p].Ship = false, wire.NoEntity
			}
		}
		w.hasPlayers, w.playersTick = true, t
	}
	w.record(t, received)
}

// record stores the world as the frame of tick, unless a newer frame is
// already stored.
func (w *World) record(tick uint32, received time.Time) {
	fresh := true
	if w.count > 0 {
		newest := w.frames[w.head].Tick
		if tick < newest {
			return // late: no frame out of order
		}
		if tick > newest {
			w.head = (w.head + 1) % HistoryLen
			w.count = min(w.count+1, HistoryLen)
		} else {
			fresh = false // another datagram of the same snapshot
		}
	} else {
		w.head, w.count = 0, 1
	}
	f := &w.frames[w.head]
	if fresh {
		f.Received = received
	}
	f.Tick = tick
	f.Players = w.players
	f.Entities = w.appendEntities(f.Entities[:0])
}

// appendEntities appends the shown entities, sorted by ID.
func (w *World) appendEntities(dst []Entity) []Entity {
	for i := range w.live {
		if !w.live[i].hidden {
			dst = append(dst, w.live[i].Entity)
		}
	}
	return dst
}

// Entities appends the current entities, sorted by ID, to dst.
func (w *World) Entities(dst []Entity) []Entity { return w.appendEntities(dst) }

// Entity returns the current state of entity id, and false when the world
// does not show it.
func (w *World) Entity(id uint32) (Entity, bool) {
	i, ok := w.find(id)
	if !ok || w.live[i].hidden {
		return Entity{}, false
	}
	return w.live[i].Entity, true
}

// Destroyed reports whether id is remembered as destroyed, and the tick of
// its Destroy.
func (w *World) Destroyed(id uint32) (uint32, bool) {
	t, ok := w.dead[id]
	return t, ok
}

// Frames sets dst to the recorded frames, oldest first, and returns it.
// The entity slices of dst's elements are reused, so a caller that passes
// the same dst every time allocates nothing once it has grown; the
// returned frames belong to the caller.
func (w *World) Frames(dst []Frame) []Frame {
	dst = dst[:0]
	for k := 0; k < w.count; k++ {
		src := &w.frames[(w.head-w.count+1+k+HistoryLen)%HistoryLen]
		if len(dst) < cap(dst) {
			dst = dst[:len(dst)+1]
		} else {
			dst = append(dst, Frame{})
		}
		f := &dst[len(dst)-1]
		f.Tick, f.Players, f.Received = src.Tick, src.Players, src.Received
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
	if w.players[p].HasShip {
		return true
	}
	for i := range w.live {
		if e := &w.live[i]; e.Kind == wire.KindPlayerShip && e.Owner == p {
			return true
		}
	}
	return false
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
