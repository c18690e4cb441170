package wire2

import (
	"encoding/binary"
	"math"
	"rtype/internal/protodoc"
	"rtype/net/wire"
	"slices"
	"testing"
)

// docExample is one worked example of PROTOCOL.md (protodoc.Example).
type docExample = protodoc.Example

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

// ---- events --------------------------------------------------------------
