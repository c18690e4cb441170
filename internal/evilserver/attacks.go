package evilserver

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"rtype/net/wire"
)

// Rejected returns the TCP bytes of a LoginRejected whose text is the raw
// bytes text, valid UTF-8 or not, for Config.Login.
func Rejected(reason uint8, text []byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(4+len(text)))
	b = append(b, byte(wire.MsgLoginRejected), reason)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(text)))
	return append(b, text...)
}

// Names sends a PlayerJoined for each name, for players 0 to 3 in turn.
func (s *Server) Names(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tick := s.tickLocked(time.Now())
	var evs []wire.Event
	for i, n := range names {
		evs = append(evs, wire.Event{Type: wire.EventPlayerJoined, Tick: tick, Player: uint8(i % wire.MaxPlayers), Name: n})
	}
	s.eventsLocked(evs, time.Now())
}

// GameOverRepeating sends a GameOver that lists player p four times.
func (s *Server) GameOverRepeating(p uint8) {
	ev := wire.Event{Type: wire.EventGameOver, Tick: s.Tick(), NumScores: 4}
	for i := range ev.Scores {
		ev.Scores[i] = wire.Score{Player: p, Score: uint32(100 * (i + 1))}
	}
	s.Events(ev)
}

// NoFrames sends, for d, datagrams that the client accepts but that bring
// no usable snapshot: Acks, events it already has, and Snapshot datagrams
// against a baseline it never had (4.8 step 1). The normal snapshots stop
// meanwhile.
func (s *Server) NoFrames(ctx context.Context, d time.Duration) {
	s.Pause(true)
	defer s.Pause(false)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var w wire.BitWriter
	s.pace(ctx, 200, 0, func(k int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		now := time.Now()
		for range k {
			tick := s.tickLocked(now)
			w.Reset()
			w.WriteBits(tick, 32)
			w.WriteBits(0, 3)
			w.WriteBool(true)
			w.WriteVarint(tick - 1) // against tick 1: never sent
			w.WriteBits(0, 16)
			s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeSnapshot, w.Bytes(), now)
			s.sendLocked(s.buf)
			s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeAck, nil, now)
			s.sendLocked(s.buf)
		}
	})
}

// Flood sends rate datagrams per second until ctx ends, as a server
// could that wants to make the client work: every 50 ms a new snapshot of
// a world of Config.Entities moving enemies (a delta against the newest
// acknowledged one), followed by up to extra more datagrams of the same
// tick and baseline that repeat records of the snapshot (each costs the
// client a rebuild), the rest duplicates of those datagrams, datagrams of
// another session and garbage (which take no sequence, so that the
// client's acknowledgements keep up and its baselines stay recent). It stays within the client
// limits: only the work is hostile. It returns the datagrams sent.
func (s *Server) Flood(ctx context.Context, rate, extra int) int {
	s.Pause(true)
	defer s.Pause(false)
	var (
		last      time.Time
		tick      uint32
		baseTick  uint32
		base      []wire.Entity
		hasBase   bool
		parts     int
		enc       wire.SnapshotEncoder
		dup       []byte
		chunk     = 100
		from      int
		garbage   = make([]byte, 300)
		other     []byte
		sentTotal int
	)
	for i := range garbage {
		garbage[i] = byte(i * 7)
	}
	s.pace(ctx, rate, 0, func(k int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		now := time.Now()
		for range k {
			sentTotal++
			if now.Sub(last) >= 50*time.Millisecond {
				last = now
				tick = s.tickLocked(now)
				if tick <= s.lastTick {
					tick = s.lastTick + 1
				}
				s.moveLocked(tick)
				baseTick, base, hasBase = s.hist.Baseline()
				if !hasBase || baseTick >= tick {
					base, baseTick, hasBase = nil, 0, false
				}
				base = slices.Clone(base)
				s.sendSnapshotLocked(tick, s.world, now)
				parts = 0
				continue
			}
			switch {
			case parts < extra && hasBase:
				// A part of the tick that updates entities of the world
				// to the values they have: valid, and a full rebuild.
				recs := s.world[from%len(s.world):]
				recs = recs[:min(len(recs), chunk)]
				from += chunk
				sub := mergeInto(base, recs)
				for _, p := range enc.Encode(tick, s.players, base, baseTick, sub) {
					s.buf = s.link.AppendSnapshot(s.buf[:0], p, tick, now)
					s.sendLocked(s.buf)
					dup = append(dup[:0], s.buf...)
					break // one datagram per step
				}
				parts++
			case sentTotal%3 == 0 && len(dup) > 0:
				s.sendLocked(dup) // a duplicate: the same sequence
			case sentTotal%3 == 1:
				other = wire.AppendHeader(other[:0], wire.Header{Type: wire.TypeAck, Session: session + 1})
				s.sendLocked(other)
			default:
				s.sendLocked(garbage)
			}
		}
	})
	return sentTotal
}

// mergeInto returns base with the entities of recs (sorted by wire.Less)
// put in place of those of the same id.
func mergeInto(base, recs []wire.Entity) []wire.Entity {
	out := slices.Clone(base)
	for _, r := range recs {
		i, ok := slices.BinarySearchFunc(out, r, byOrder)
		if ok {
			out[i] = r
		}
	}
	return out
}

// Random sends rate datagrams per second of random but well-formed
// traffic until ctx ends: events of every type with random fields
// (extreme values included), full snapshots of random entities at ticks
// the clock allows, and mangled copies of both. It returns the datagrams
// sent.
func (s *Server) Random(ctx context.Context, rng *rand.Rand, rate int) int {
	var enc wire.SnapshotEncoder
	var ents []wire.Entity
	var good []byte
	return s.pace(ctx, rate, 0, func(k int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		now := time.Now()
		for range k {
			tick := s.tickLocked(now) - uint32(rng.IntN(30))
			switch rng.IntN(4) {
			case 0, 1:
				evs := make([]wire.Event, 1+rng.IntN(20))
				for i := range evs {
					evs[i] = randomEvent(rng, tick)
				}
				s.eventsLocked(evs, now)
			case 2:
				ents = ents[:0]
				n := rng.IntN(100)
				id := uint32(0)
				for range n {
					id += 1 + uint32(rng.IntN(50))
					ents = append(ents, wire.MakeEntity(wire.MakeID(id, uint8(rng.IntN(3))), uint8(rng.IntN(8)),
						randCoord(rng), randCoord(rng), randCoord(rng), randCoord(rng), rng.IntN(20)))
				}
				slices.SortFunc(ents, byOrder)
				ents = slices.CompactFunc(ents, func(a, b wire.Entity) bool { return a.ID == b.ID })
				players := []wire.PlayerState{{Player: uint8(rng.IntN(4)), HasShip: rng.IntN(2) == 0, Ship: rng.Uint32(), Lives: uint8(rng.Uint32()), Score: rng.Uint32()}}
				for _, p := range enc.Encode(tick, players, nil, 0, ents) {
					s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeSnapshot, p, now)
					s.sendLocked(s.buf)
					good = append(good[:0], s.buf...)
				}
			default:
				if len(good) > wire.HeaderSize+4 {
					// Mangled after the tick: a tick out of the clock
					// would end the session at once.
					b := slices.Clone(good)
					b[wire.HeaderSize+4+rng.IntN(len(b)-wire.HeaderSize-4)] ^= byte(1 + rng.IntN(255))
					s.sendLocked(b)
				}
			}
		}
	})
}

func randCoord(rng *rand.Rand) float32 {
	switch rng.IntN(4) {
	case 0:
		return float32(rng.NormFloat64() * 1e6)
	case 1:
		return [...]float32{-2048, 2047.875, 0, -1e30, 1e30}[rng.IntN(5)]
	}
	return float32(rng.Float64()*1400 - 60)
}

func randomEvent(rng *rand.Rand, tick uint32) wire.Event {
	f := func() float32 {
		switch rng.IntN(10) {
		case 0:
			return math.MaxFloat32
		case 1:
			return -math.MaxFloat32
		case 2:
			return float32(math.NaN())
		}
		return randCoord(rng)
	}
	ev := wire.Event{Type: wire.EventType(1 + rng.IntN(7)), Tick: tick}
	if rng.IntN(8) == 0 {
		ev.Tick = [...]uint32{0, math.MaxUint32, tick - 1000, tick + 1000}[rng.IntN(4)]
	}
	switch ev.Type {
	case wire.EventSpawn:
		ev.ID, ev.Kind, ev.X, ev.Y, ev.VX, ev.VY = rng.Uint32N(4000)+uint32(rng.IntN(2))<<24, uint8(rng.IntN(256)), f(), f(), f(), f()
		ev.Owner = [...]uint8{0, 1, 2, 3, 255, 7}[rng.IntN(6)]
	case wire.EventDestroy:
		ev.ID, ev.Reason, ev.X, ev.Y = rng.Uint32N(4000), uint8(rng.IntN(256)), f(), f()
	case wire.EventDeath:
		ev.Player, ev.Lives, ev.X, ev.Y = uint8(rng.IntN(5)), uint8(rng.IntN(256)), f(), f()
	case wire.EventPlayerJoined:
		b := make([]byte, rng.IntN(240))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if rng.IntN(2) == 0 {
			b = []byte(string([]rune{0x202E, '\n', 'X', 0x7, 0x200F, 'Y', 0xFEFF}))
		}
		ev.Player, ev.Name = uint8(rng.IntN(5)), string(b)
	case wire.EventPlayerLeft:
		ev.Player, ev.Reason = uint8(rng.IntN(5)), uint8(rng.IntN(256))
	case wire.EventGameOver:
		ev.NumScores = rng.IntN(5)
		for i := range ev.NumScores {
			ev.Scores[i] = wire.Score{Player: uint8(rng.IntN(5)), Score: rng.Uint32()}
		}
	}
	return ev
}

// Extremes sends, once, events and a snapshot with the extreme values of
// every field: the largest floats, ids 0 and 0xFFFFFFFE, kinds 0 and
// 255, ticks 0 and 0xFFFFFFFF, 255 lives, the largest score, positions
// at the ends of their ranges.
func (s *Server) Extremes() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	tick := s.tickLocked(now)
	big := float32(math.MaxFloat32)
	evs := []wire.Event{
		{Type: wire.EventSpawn, Tick: tick, ID: 0, Kind: wire.KindBydosSlave, X: big, Y: -big, VX: big, VY: -big, Owner: wire.NoPlayer},
		{Type: wire.EventSpawn, Tick: tick, ID: 0xFFFFFFFE, Kind: wire.KindPlayerShip, X: -big, Y: big, Owner: 3},
		{Type: wire.EventSpawn, Tick: tick, ID: 0x00FFFFFF, Kind: 255, Owner: wire.NoPlayer},
		{Type: wire.EventSpawn, Tick: 0, ID: 5, Kind: 0, Owner: 0},
		{Type: wire.EventDeath, Tick: math.MaxUint32, Player: 3, Lives: 255, X: big, Y: big},
		{Type: wire.EventDestroy, Tick: math.MaxUint32, ID: 0x00FFFFFF, Reason: 255},
		{Type: wire.EventPlayerLeft, Tick: 0, Player: 3, Reason: 255},
		{Type: wire.EventPlayerJoined, Tick: math.MaxUint32, Player: 3, Name: ""},
	}
	for id := uint32(1); id <= 300; id++ {
		evs = append(evs, wire.Event{Type: wire.EventDestroy, Tick: math.MaxUint32, ID: 0x7F000000 + id})
	}
	s.eventsLocked(evs, now)
	ents := []wire.Entity{
		wire.MakeEntity(0, wire.KindBydosSlave, -1e9, 1e9, -1e9, 1e9, 1000),
		wire.MakeEntity(0x00FFFFFF, 255&7, 2047.875, -2048, 2047, -2048, 15),
		wire.MakeEntity(0xFFFFFFFE, wire.KindPlayerShip, 0, 0, 0, 0, 0),
	}
	slices.SortFunc(ents, byOrder)
	players := []wire.PlayerState{{Player: 3, HasShip: true, Ship: 0xFFFFFFFE, Lives: 255, Score: math.MaxUint32}, {Player: 0}}
	var enc wire.SnapshotEncoder
	for _, p := range enc.Encode(tick, players, nil, 0, ents) {
		s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeSnapshot, p, now)
		s.sendLocked(s.buf)
	}
}

// byOrder orders entities as snapshots list them (wire.Less).
func byOrder(a, b wire.Entity) int { return cmpOrder(a.ID, b.ID) }

// cmpOrder compares two network ids in the order of snapshots (wire.Less).
func cmpOrder(a, b uint32) int {
	switch {
	case wire.Less(a, b):
		return -1
	case wire.Less(b, a):
		return 1
	}
	return 0
}
