// Package vocabtest gives the tests of the codecs random and valid
// values of the game's vocabulary (package vocab): events, player
// records, entity indices. It imports no codec, so that the tests of
// every codec package, internal ones included, can use it.
package vocabtest

import (
	"math"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"rtype/vocab"
)

// maxEventName is the longest PlayerJoined name a v1 Event carries: the
// largest event (255 bytes) less its fixed fields.
const maxEventName = 255 - 8

// ValidEvents returns events of every v1 type, valid.
func ValidEvents() []vocab.Event {
	return []vocab.Event{
		{Type: vocab.EventSpawn, Tick: 612, ID: 9, Kind: vocab.KindPlayerMissile, X: 120, Y: 360, VX: 900, Owner: 0},
		{Type: vocab.EventDestroy, Tick: 650, ID: 9, Reason: vocab.DestroyConsumed, X: 1000, Y: 360},
		{Type: vocab.EventDeath, Tick: 700, Player: 1, Lives: 2, X: 33.5, Y: -4},
		{Type: vocab.EventPlayerJoined, Tick: 0, Player: 3, Name: "Ripley"},
		{Type: vocab.EventPlayerLeft, Tick: 800, Player: 2, Reason: vocab.LeftTimedOut},
		{Type: vocab.EventGameOver, Tick: 9000, NumScores: 2, Scores: [vocab.MaxPlayers]vocab.Score{{Player: 0, Score: 1500}, {Player: 3, Score: 0xFFFFFFFF}}},
	}
}

// NewRand returns a generator of seed, the same in every run.
func NewRand(t testing.TB, seed uint64) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewPCG(seed, 0x5EED))
}

// RandEvent returns an event of a v1 type (1 to 6) with random fields,
// floats finite.
func RandEvent(r *rand.Rand) vocab.Event {
	ev := vocab.Event{Type: vocab.EventType(1 + r.IntN(6)), Tick: r.Uint32()}
	switch ev.Type {
	case vocab.EventSpawn:
		ev.ID, ev.Kind = r.Uint32(), uint8(r.IntN(256))
		ev.X, ev.Y, ev.VX, ev.VY = RandFinite(r), RandFinite(r), RandFinite(r), RandFinite(r)
		ev.Owner = []uint8{0, 1, 2, 3, vocab.NoPlayer}[r.IntN(5)]
	case vocab.EventDestroy:
		ev.ID, ev.Reason = r.Uint32(), uint8(r.IntN(256))
		ev.X, ev.Y = RandFinite(r), RandFinite(r)
	case vocab.EventDeath:
		ev.Player, ev.Lives = uint8(r.IntN(4)), uint8(r.IntN(256))
		ev.X, ev.Y = RandFinite(r), RandFinite(r)
	case vocab.EventPlayerJoined:
		ev.Player, ev.Name = uint8(r.IntN(4)), RandName(r, maxEventName)
	case vocab.EventPlayerLeft:
		ev.Player, ev.Reason = uint8(r.IntN(4)), uint8(r.IntN(256))
	case vocab.EventGameOver:
		ev.NumScores = 1 + r.IntN(vocab.MaxPlayers)
		for i, p := range r.Perm(vocab.MaxPlayers)[:ev.NumScores] {
			ev.Scores[i] = vocab.Score{Player: uint8(p), Score: r.Uint32()}
		}
	}
	return ev
}

// RandIndex returns an index: dense near 0 like Aegis2D's slots, anywhere
// in 24 bits, or at the top of the range.
func RandIndex(r *rand.Rand, n int) uint32 {
	switch r.IntN(4) {
	case 0:
		return r.Uint32N(1 << 24)
	case 1:
		return 0xFFFFFF - r.Uint32N(64)
	}
	return r.Uint32N(uint32(2*n + 1))
}

// RandStates returns up to max distinct player records.
func RandStates(r *rand.Rand, max int) []vocab.PlayerState {
	n := r.IntN(max + 1)
	perm := r.Perm(vocab.MaxPlayers)
	ps := make([]vocab.PlayerState, n)
	for i := range ps {
		p := vocab.PlayerState{Player: uint8(perm[i]), Ship: vocab.NoEntity, Lives: uint8(r.IntN(256))}
		if r.IntN(4) > 0 {
			p.HasShip = true
			p.Ship = []uint32{r.Uint32(), r.Uint32N(200), vocab.NoEntity - 1, vocab.NoEntity}[r.IntN(4)]
		}
		p.Score = []uint32{r.Uint32(), r.Uint32N(1 << 14), 0xFFFFFFFF, 0}[r.IntN(4)]
		ps[i] = p
	}
	return ps
}

// RandWorldSize is mostly what a game has, sometimes enough to split.
func RandWorldSize(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0:
		return r.IntN(601)
	case 1:
		return r.IntN(4)
	}
	return r.IntN(150)
}

// SameEvent compares two events, floats by their bits.
func SameEvent(a, b vocab.Event) bool {
	bits := math.Float32bits
	if bits(a.X) != bits(b.X) || bits(a.Y) != bits(b.Y) || bits(a.VX) != bits(b.VX) || bits(a.VY) != bits(b.VY) {
		return false
	}
	a.X, a.Y, a.VX, a.VY = 0, 0, 0, 0
	b.X, b.Y, b.VX, b.VY = 0, 0, 0, 0
	return a == b
}

// RandFinite returns a finite float: any bits, a whole number, or one
// in the play area's range.
func RandFinite(r *rand.Rand) float32 {
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

// RandName returns a valid UTF-8 name of at most maxBytes bytes, of
// letters from several scripts.
func RandName(r *rand.Rand, maxBytes int) string {
	var b []byte
	for n := r.IntN(maxBytes + 1); ; {
		c := nameRunes[r.IntN(len(nameRunes))]
		if len(b)+utf8.RuneLen(c) > n {
			return string(b)
		}
		b = utf8.AppendRune(b, c)
	}
}
