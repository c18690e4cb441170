package server

import (
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
	"rtype/vocab"
)

// busyWorld returns a game in full swing, through the public API only: 4
// ships holding fire and dense, slow waves, stepped until some 40 Bydos
// and 100 missiles fly.
func busyWorld(tb testing.TB) *sim.World {
	r := sim.DefaultRules()
	r.Lives = 255
	r.JoinInvulnTicks = 1 << 30 // nobody dies: the game stays busy however long the benchmark runs
	r.FirstWave, r.WaveInterval, r.WaveIntervalMin, r.WaveIntervalStep = 1, 240, 240, 0
	r.WaveSize, r.WaveSizeMax, r.WaveSizeEvery, r.WaveStagger = 10, 10, 1000, 6
	r.BydosSpeedMin, r.BydosSpeedMax, r.WaveSpeedStep = 60, 70, 0
	r.BydosFireMin, r.BydosFireMax = 60, 120
	w := sim.New(r, 1)
	for p := range uint8(4) {
		w.AddPlayer(p, "pilot"+string('A'+rune(p)))
	}
	for i := 0; i < 900; i++ {
		for p := range uint8(4) {
			w.SetInput(p, wire.ActionFire|[]uint8{wire.ActionUp, wire.ActionDown}[(i/40+int(p))%2])
		}
		w.Step()
		w.TakeEvents()
	}
	return w
}

// BenchmarkTick is one tick of a busy game: the simulation step and the
// events it produced.
func BenchmarkTick(b *testing.B) {
	w := busyWorld(b)
	b.ReportAllocs()
	for b.Loop() {
		w.Step()
		w.TakeEvents()
	}
	reportKinds(b, w)
}

// reportKinds reports how many entities of each kind the world holds.
func reportKinds(b *testing.B, w *sim.World) {
	var n [5]int
	for _, e := range w.AppendEntities(nil) {
		n[e.Kind]++
	}
	b.ReportMetric(float64(n[wire.KindBydosSlave]), "bydos")
	b.ReportMetric(float64(n[wire.KindPlayerMissile]+n[wire.KindEnemyMissile]), "missiles")
}

// BenchmarkSnapshots4Clients builds and encodes the snapshots of a busy
// game for 4 clients, each against its newest acknowledged snapshot, as
// the server does every third tick: entities, players, then per client
// link.SnapshotSender (baseline, delta encoding, history and datagram
// headers).
func BenchmarkSnapshots4Clients(b *testing.B) {
	w := busyWorld(b)
	type cl struct {
		link *link.Link
		hist link.History
		seq  uint16
	}
	now := time.Unix(0, 0)
	clients := make([]*cl, 4)
	for i := range clients {
		c := &cl{link: link.New(uint32(i+1), now)}
		c.link.Baselines = &c.hist
		clients[i] = c
	}
	var (
		snd      link.SnapshotSender
		vents    []vocab.Entity
		vpls     []vocab.Player
		entities []wire.Entity
		players  []wire.PlayerState
		bytes    int
	)
	step := func() {
		for range 3 {
			w.Step()
			w.TakeEvents()
		}
		tick := w.Tick()
		vents = w.AppendEntities(vents[:0])
		vpls = w.AppendPlayers(vpls[:0])
		entities = wire.AppendEntities(entities[:0], tick, vents)
		players = wire.AppendPlayers(players[:0], vpls)
		bytes = 0
		for _, c := range clients {
			var last []byte
			for _, d := range snd.Datagrams(c.link, tick, players, entities, now) {
				bytes += len(d)
				last = d
			}
			// The client acknowledges everything it got.
			h, _, _ := wire.ParseHeader(last, wire.ToClient)
			c.link.Accept(wire.Header{Type: wire.TypeAck, Seq: c.seq, Ack: h.Seq, AckBits: 0xFFFFFFFF, Session: 1}, 18, now)
			c.seq++
		}
	}
	for range 40 {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	reportKinds(b, w)
	b.ReportMetric(float64(bytes)/4, "bytes/client")
}

// BenchmarkSnapshots4ClientsV2 is BenchmarkSnapshots4Clients for 4 v2
// clients, through the server's own v2 path: the entities and players
// as v2 carries them, each client's players with its last_step
// (game.playersFor), and link2.SnapshotSender (baseline, table-driven
// delta, the rate rule of 7.9, history and v2 headers).
func BenchmarkSnapshots4ClientsV2(b *testing.B) {
	w := busyWorld(b)
	g := &game{world: w}
	now := time.Unix(0, 0)
	seqs := make([]uint16, 4)
	for p := range g.sessions {
		ss := &session{id: uint32(p + 1), player: uint8(p), version: wire.Version2, link: link.NewV2(uint32(p+1), now)}
		ss.steps.add(&wire2.Input{Step: 100, Count: 1})
		ss.steps.next()
		g.sessions[p] = ss
	}
	bytes, sent := 0, 0
	step := func() {
		for range 3 {
			w.Step()
			w.TakeEvents()
		}
		tick := w.Tick()
		g.pls = w.AppendPlayers(g.pls[:0])
		g.entities2 = g.snaps2.NextEntities()
		w.EachEntity(func(e *vocab.Entity) { g.entities2 = wire2.AppendEntity(g.entities2, e) })
		g.players2 = wire2.AppendPlayers(g.players2[:0], g.pls)
		bytes, sent = 0, 0
		for p, ss := range g.sessions {
			var last []byte
			for _, d := range g.snaps2.Datagrams(ss.link, tick, g.playersFor(ss), g.entities2, now) {
				bytes += len(d)
				last = d
			}
			if last == nil {
				continue
			}
			sent++
			// The client acknowledges everything it got.
			h, _, _ := wire2.ParseHeader(last, wire.ToClient)
			ss.link.Accept(wire.Header{Type: wire.TypeAck, Seq: seqs[p], Ack: h.Seq, AckBits: 0xFFFFFFFF, Session: ss.id}, 20, now)
			seqs[p]++
		}
	}
	for range 40 {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	reportKinds(b, w)
	b.ReportMetric(float64(bytes)/4, "bytes/client")
}
