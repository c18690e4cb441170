package wire2

import (
	"encoding/binary"
	"errors"
	"rtype/net/wire"
)

// Input (v2) (7.4): the client numbers its Inputs by step, one step per
// tick it sends one, and repeats its latest actions, newest first, so
// that a lost datagram costs nothing while a later one arrives.
const (
	MaxInputActions = 8                       // actions bytes of one Input at most
	MinInputSize    = 4 + 1 + 1               // step, count, one actions byte
	MaxInputSize    = 4 + 1 + MaxInputActions // 13
)

// Errors of the v2 Input decoder (7.4, 7.10).
var (
	ErrInputCount = errors.New("wire: v2 Input count is not 1 to 8 or does not match the payload size (7.4)")
	ErrInputStep  = errors.New("wire: v2 Input repeats steps below 0 (count above step + 1, 7.4)")
)

// Input is the payload of a v2 Input datagram (7.4): the actions of
// steps Step, Step−1, ..., Step−Count+1, newest first.
type Input struct {
	Step    uint32
	Count   int
	Actions [MaxInputActions]uint8 // Actions[i]: the actions of step Step−i
}

// At returns the actions of step s and whether the Input carries them.
func (in *Input) At(s uint32) (uint8, bool) {
	if s > in.Step || in.Step-s >= uint32(in.Count) {
		return 0, false
	}
	return in.Actions[in.Step-s], true
}

// AppendInput appends the payload of in to dst. in must be valid (Count
// 1 to 8, at most Step+1, bits 6 and 7 of every actions byte 0).
func AppendInput(dst []byte, in *Input) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, in.Step)
	dst = append(dst, byte(in.Count))
	return append(dst, in.Actions[:in.Count]...)
}

// ParseInput decodes a v2 Input payload into in, checking every rule of
// 7.4: size 6 to 13 bytes matching count, count 1 to 8 and at most
// step + 1, bits 6 and 7 of every actions byte 0.
func ParseInput(p []byte, in *Input) error {
	if err := checkInput(p); err != nil {
		return err
	}
	in.Step = binary.LittleEndian.Uint32(p)
	in.Count = int(p[4])
	in.Actions = [MaxInputActions]uint8{}
	copy(in.Actions[:], p[5:])
	return nil
}

// checkInput checks the rules of 7.4 on a v2 Input payload.
func checkInput(p []byte) error {
	if len(p) < MinInputSize || len(p) > MaxInputSize {
		return ErrPayloadSize
	}
	n := int(p[4])
	if n < 1 || n > MaxInputActions || len(p) != 5+n {
		return ErrInputCount
	}
	if uint32(n)-1 > binary.LittleEndian.Uint32(p) {
		return ErrInputStep
	}
	for _, a := range p[5:] {
		if a&^wire.ActionsMaskStage != 0 {
			return ErrInputBits
		}
	}
	return nil
}
