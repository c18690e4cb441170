package bot

import (
	"math/rand/v2"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/sim"
	"rtype/vocab"
)

// RoomBots are the bots of one game of a room (PROTOCOL.md 7.14): brains
// of this package, inside the server, with no socket. Every tick each
// brain decides from a client.Frame of the world as a client sees it (the
// entities' motions at the tick, their owners from the Spawns) and its
// decision is its player's input. rtype-server gives NewRoomBots to the
// server (server.Config.Bots): it has the
// methods of server.Bots.
type RoomBots struct {
	mode   uint8
	seed   uint64
	brains [wire.MaxPlayers]*Brain
	owner  map[uint32]uint8 // of the live entities, from their Spawns
	ents   []vocab.Entity
	frame  client.Frame
}

// NewRoomBots returns the bots of a game of mode, their brains seeded
// from seed.
func NewRoomBots(mode uint8, seed uint64) *RoomBots {
	return &RoomBots{mode: mode, seed: seed, owner: make(map[uint32]uint8)}
}

// Add gives player p a brain.
func (b *RoomBots) Add(p uint8) {
	if int(p) < wire.MaxPlayers {
		b.brains[p] = NewMode(p, b.mode, rand.New(rand.NewPCG(b.seed, uint64(p))))
	}
}

// Remove takes player p's brain away.
func (b *RoomBots) Remove(p uint8) {
	if int(p) < wire.MaxPlayers {
		b.brains[p] = nil
	}
}

// Note keeps the owners of the entities from the game's events, in order,
// and gives the events to the brains (the terrain's scroll, Events).
func (b *RoomBots) Note(evs []wire.Event) {
	for _, br := range b.brains {
		if br != nil {
			br.Events(evs)
		}
	}
	for i := range evs {
		switch ev := &evs[i]; ev.Type {
		case wire.EventSpawn:
			b.owner[ev.ID] = ev.Owner
		case wire.EventDestroy:
			delete(b.owner, ev.ID)
		}
	}
}

// Drive sets the input of every bot in the world from its brain.
func (b *RoomBots) Drive(w *sim.World) {
	b.ents = SeeWorld(&b.frame, w, b.owner, b.ents)
	for p, br := range b.brains {
		if br != nil && w.InGame(uint8(p)) {
			w.SetInput(uint8(p), br.Decide(&b.frame))
		}
	}
}

// SeeWorld fills f with the world as a client sees it at its tick: the
// player table, and every entity at its motion's position with its owner
// from owner (the Spawns seen; wire.NoPlayer when unknown). ents is a
// buffer for the world's entities, returned for reuse.
func SeeWorld(f *client.Frame, w *sim.World, owner map[uint32]uint8, ents []vocab.Entity) []vocab.Entity {
	tick := w.Tick()
	f.Tick = tick
	for p := range f.Players {
		id := w.Ship(uint8(p))
		f.Players[p] = client.Player{Present: w.InGame(uint8(p)), Name: w.Name(uint8(p)),
			HasShip: id != wire.NoEntity, Ship: id, Lives: w.Lives(uint8(p)), Score: w.Score(uint8(p))}
	}
	ents = w.AppendEntities(ents[:0])
	f.Entities = f.Entities[:0]
	for i := range ents {
		e := &ents[i]
		m, a := e.Motion, e.Anim
		x, y, vx, vy := m.At(float64(tick))
		o, ok := owner[e.ID]
		if !ok {
			o = wire.NoPlayer
		}
		f.Entities = append(f.Entities, client.Entity{ID: e.ID, Kind: e.Kind, Owner: o,
			Frame: a.Frame(m.T0, float64(tick)), X: float32(x), Y: float32(y), VX: float32(vx), VY: float32(vy),
			Tick: tick, HasMotion: true, Motion: m, Anim: a})
	}
	return ents
}
