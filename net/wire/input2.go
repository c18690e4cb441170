package wire

import (
	"encoding/binary"
	"errors"
)

// Input (v2) (7.4): the client numbers its Inputs by step, one step per
// tick it sends one, and repeats its latest actions, newest first, so
// that a lost datagram costs nothing while a later one arrives.
const (
	MaxInputActions2 = 8                        // actions bytes of one Input at most
	MinInputSize2    = 4 + 1 + 1                // step, count, one actions byte
	MaxInputSize2    = 4 + 1 + MaxInputActions2 // 13
)

// Errors of the v2 Input decoder (7.4, 7.10).
var (
	ErrInputCount2 = errors.New("wire: v2 Input count is not 1 to 8 or does not match the payload size (7.4)")
	ErrInputStep2  = errors.New("wire: v2 Input repeats steps below 0 (count above step + 1, 7.4)")
)

// Input2 is the payload of a v2 Input datagram (7.4): the actions of
// steps Step, Step−1, ..., Step−Count+1, newest first.
type Input2 struct {
	Step    uint32
	Count   int
	Actions [MaxInputActions2]uint8 // Actions[i]: the actions of step Step−i
}

// At returns the actions of step s and whether the Input carries them.
func (in *Input2) At(s uint32) (uint8, bool) {
	if s > in.Step || in.Step-s >= uint32(in.Count) {
		return 0, false
	}
	return in.Actions[in.Step-s], true
}

// AppendInput2 appends the payload of in to dst. in must be valid (Count
// 1 to 8, at most Step+1, bits 6 and 7 of every actions byte 0).
func AppendInput2(dst []byte, in *Input2) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, in.Step)
	dst = append(dst, byte(in.Count))
	return append(dst, in.Actions[:in.Count]...)
}

// ParseInput2 decodes a v2 Input payload into in, checking every rule of
// 7.4: size 6 to 13 bytes matching count, count 1 to 8 and at most
// step + 1, bits 6 and 7 of every actions byte 0.
func ParseInput2(p []byte, in *Input2) error {
	if err := checkInput2(p); err != nil {
		return err
	}
	in.Step = binary.LittleEndian.Uint32(p)
	in.Count = int(p[4])
	in.Actions = [MaxInputActions2]uint8{}
	copy(in.Actions[:], p[5:])
	return nil
}

// checkInput2 checks the rules of 7.4 on a v2 Input payload.
func checkInput2(p []byte) error {
	if len(p) < MinInputSize2 || len(p) > MaxInputSize2 {
		return ErrPayloadSize2
	}
	n := int(p[4])
	if n < 1 || n > MaxInputActions2 || len(p) != 5+n {
		return ErrInputCount2
	}
	if uint32(n)-1 > binary.LittleEndian.Uint32(p) {
		return ErrInputStep2
	}
	for _, a := range p[5:] {
		if a&^ActionsMask2 != 0 {
			return ErrInputBits2
		}
	}
	return nil
}
