package wire2

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"rtype/internal/protodoc"
	"rtype/net/wire"
	"slices"
	"testing"
	"unicode/utf8"
)

// docExample is one worked example of PROTOCOL.md (protodoc.Example).
type docExample struct {
	name   string
	want   string // hex
	encode func() []byte
	decode func(b []byte) error
}

// examples gives the examples to package protodoc.
func examples(ds []docExample) []protodoc.Example {
	out := make([]protodoc.Example, len(ds))
	for i, d := range ds {
		out[i] = protodoc.Example{Name: d.name, Want: d.want, Encode: d.encode, Decode: d.decode}
	}
	return out
}

var exToken = wire.Token{1, 2, 3, 4, 5, 6, 7, 8}

// benchPlayers are four players in the middle of a game.
var benchStates = []wire.PlayerState{
	{Player: 0, HasShip: true, Ship: 0, Lives: 3, Score: 12500},
	{Player: 1, HasShip: true, Ship: 1, Lives: 1, Score: 98000},
	{Player: 2, HasShip: false, Ship: wire.NoEntity, Lives: 0, Score: 4300},
	{Player: 3, HasShip: true, Ship: 3, Lives: 2, Score: 150},
}

func clonePayloads(ps [][]byte) [][]byte {
	out := make([][]byte, len(ps))
	for i, p := range ps {
		out[i] = slices.Clone(p)
	}
	return out
}

func reportSize(b *testing.B, payloads [][]byte) {
	n := 0
	for _, p := range payloads {
		n += len(p)
	}
	b.ReportMetric(float64(n), "bytes/snapshot")
	b.ReportMetric(float64(len(payloads)), "datagrams/snapshot")
}

// datagramV1 returns a valid v1 datagram of type t with payload p.
func datagramV1(t wire.Type, p []byte) []byte {
	h := wire.Header{Type: t, Seq: 7, Ack: 6, AckBits: 0x55, Session: 0xDEADBEEF}
	return append(wire.AppendHeader(nil, h), p...)
}

func putF32(b []byte, off int, v float32) {
	binary.LittleEndian.PutUint32(b[off:], math.Float32bits(v))
}

// Events of every type, valid.
func validEvents() []wire.Event {
	return []wire.Event{
		{Type: wire.EventSpawn, Tick: 612, ID: 9, Kind: wire.KindPlayerMissile, X: 120, Y: 360, VX: 900, Owner: 0},
		{Type: wire.EventDestroy, Tick: 650, ID: 9, Reason: wire.DestroyConsumed, X: 1000, Y: 360},
		{Type: wire.EventDeath, Tick: 700, Player: 1, Lives: 2, X: 33.5, Y: -4},
		{Type: wire.EventPlayerJoined, Tick: 0, Player: 3, Name: "Ripley"},
		{Type: wire.EventPlayerLeft, Tick: 800, Player: 2, Reason: wire.LeftTimedOut},
		{Type: wire.EventGameOver, Tick: 9000, NumScores: 2, Scores: [wire.MaxPlayers]wire.Score{{Player: 0, Score: 1500}, {Player: 3, Score: 0xFFFFFFFF}}},
	}
}

func newRand(t testing.TB, seed uint64) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewPCG(seed, 0x5EED))
}

func randEvent(r *rand.Rand) wire.Event {
	ev := wire.Event{Type: wire.EventType(1 + r.IntN(6)), Tick: r.Uint32()}
	switch ev.Type {
	case wire.EventSpawn:
		ev.ID, ev.Kind = r.Uint32(), uint8(r.IntN(256))
		ev.X, ev.Y, ev.VX, ev.VY = randFinite(r), randFinite(r), randFinite(r), randFinite(r)
		ev.Owner = []uint8{0, 1, 2, 3, wire.NoPlayer}[r.IntN(5)]
	case wire.EventDestroy:
		ev.ID, ev.Reason = r.Uint32(), uint8(r.IntN(256))
		ev.X, ev.Y = randFinite(r), randFinite(r)
	case wire.EventDeath:
		ev.Player, ev.Lives = uint8(r.IntN(4)), uint8(r.IntN(256))
		ev.X, ev.Y = randFinite(r), randFinite(r)
	case wire.EventPlayerJoined:
		ev.Player, ev.Name = uint8(r.IntN(4)), randName(r, wire.MaxEventSize-8)
	case wire.EventPlayerLeft:
		ev.Player, ev.Reason = uint8(r.IntN(4)), uint8(r.IntN(256))
	case wire.EventGameOver:
		ev.NumScores = 1 + r.IntN(wire.MaxPlayers)
		for i, p := range r.Perm(wire.MaxPlayers)[:ev.NumScores] {
			ev.Scores[i] = wire.Score{Player: uint8(p), Score: r.Uint32()}
		}
	}
	return ev
}

// randIndex returns an index: dense near 0 like Aegis2D's slots, anywhere
// in 24 bits, or at the top of the range.
func randIndex(r *rand.Rand, n int) uint32 {
	switch r.IntN(4) {
	case 0:
		return r.Uint32N(1 << 24)
	case 1:
		return 0xFFFFFF - r.Uint32N(64)
	}
	return r.Uint32N(uint32(2*n + 1))
}

// randStates returns up to max distinct player records.
func randStates(r *rand.Rand, max int) []wire.PlayerState {
	n := r.IntN(max + 1)
	perm := r.Perm(wire.MaxPlayers)
	ps := make([]wire.PlayerState, n)
	for i := range ps {
		p := wire.PlayerState{Player: uint8(perm[i]), Ship: wire.NoEntity, Lives: uint8(r.IntN(256))}
		if r.IntN(4) > 0 {
			p.HasShip = true
			p.Ship = []uint32{r.Uint32(), r.Uint32N(200), wire.NoEntity - 1, wire.NoEntity}[r.IntN(4)]
		}
		p.Score = []uint32{r.Uint32(), r.Uint32N(1 << 14), 0xFFFFFFFF, 0}[r.IntN(4)]
		ps[i] = p
	}
	return ps
}

// randWorldSize is mostly what a game has, sometimes enough to split.
func randWorldSize(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0:
		return r.IntN(601)
	case 1:
		return r.IntN(4)
	}
	return r.IntN(150)
}

// sameEvent compares two events, floats by their bits.
func sameEvent(a, b wire.Event) bool {
	bits := math.Float32bits
	if bits(a.X) != bits(b.X) || bits(a.Y) != bits(b.Y) || bits(a.VX) != bits(b.VX) || bits(a.VY) != bits(b.VY) {
		return false
	}
	a.X, a.Y, a.VX, a.VY = 0, 0, 0, 0
	b.X, b.Y, b.VX, b.VY = 0, 0, 0, 0
	return a == b
}

// ---- events --------------------------------------------------------------

func randFinite(r *rand.Rand) float32 {
	switch r.IntN(3) {
	case 0:
		for {
			f := math.Float32frombits(r.Uint32())
			if !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
				return f
			}
		}
	case 1:
		return float32(r.IntN(4000) - 1000)
	}
	return float32(r.Float64()*3000 - 1000)
}

var nameRunes = []rune("aZ09 _-éßЖ日本語😀\u0301")

func randName(r *rand.Rand, maxBytes int) string {
	var b []byte
	for n := r.IntN(maxBytes + 1); ; {
		c := nameRunes[r.IntN(len(nameRunes))]
		if len(b)+utf8.RuneLen(c) > n {
			return string(b)
		}
		b = utf8.AppendRune(b, c)
	}
}
