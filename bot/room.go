package bot

import (
	"math/rand/v2"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/sim"
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
	ents   []wire.Entity2
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

// Note keeps the owners of the entities from the game's events, in order.
func (b *RoomBots) Note(evs []wire.Event) {
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
	f := &b.frame
	tick := w.Tick()
	f.Tick = tick
	for p := range f.Players {
		id := w.Ship(uint8(p))
		f.Players[p] = client.Player{Present: w.InGame(uint8(p)), Name: w.Name(uint8(p)),
			HasShip: id != wire.NoEntity, Ship: id, Lives: w.Lives(uint8(p)), Score: w.Score(uint8(p))}
	}
	b.ents = w.AppendEntities2(b.ents[:0])
	f.Entities = f.Entities[:0]
	for i := range b.ents {
		e := &b.ents[i]
		m, a := e.Motion(), e.Anim()
		x, y, vx, vy := m.At(float64(tick))
		owner, ok := b.owner[e.ID]
		if !ok {
			owner = wire.NoPlayer
		}
		f.Entities = append(f.Entities, client.Entity{ID: e.ID, Kind: e.Kind(), Owner: owner,
			Frame: a.Frame(m.T0, float64(tick)), X: float32(x), Y: float32(y), VX: float32(vx), VY: float32(vy),
			Tick: tick, HasMotion: true, Motion: m, Anim: a})
	}
	for p, br := range b.brains {
		if br != nil && w.InGame(uint8(p)) {
			w.SetInput(uint8(p), br.Decide(f))
		}
	}
}
