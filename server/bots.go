package server

import (
	"math/rand/v2"

	"rtype/bot"
	"rtype/net/client"
	"rtype/net/wire"
)

// Bots of rooms (7.14) play inside the server with rtype-bot's brain:
// each tick every brain decides from a client.Frame of the world as a
// client would see it (the entities' motions at the tick, their owners
// from the Spawns), and its decision is the player's input. No socket.

// gameBots are the bots of a game and what they see.
type gameBots struct {
	brains [wire.MaxPlayers]*bot.Brain
	owner  map[uint32]uint8 // of the live entities, from their Spawns
	ents   []wire.Entity2
	frame  client.Frame
}

// addBot puts a bot at player p in g's world.
func (g *game) addBot(p uint8, name string, seed uint64) {
	if g.bots == nil {
		g.bots = &gameBots{owner: make(map[uint32]uint8)}
	}
	g.bots.brains[p] = bot.NewMode(p, g.mode, rand.New(rand.NewPCG(seed, uint64(p))))
	g.world.AddPlayer(p, name)
}

// note keeps the owners of the entities from the game's events.
func (b *gameBots) note(evs []wire.Event) {
	for i := range evs {
		switch ev := &evs[i]; ev.Type {
		case wire.EventSpawn:
			b.owner[ev.ID] = ev.Owner
		case wire.EventDestroy:
			delete(b.owner, ev.ID)
		}
	}
}

// drive sets the input of every bot of g from its brain.
func (b *gameBots) drive(g *game) {
	w := g.world
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
