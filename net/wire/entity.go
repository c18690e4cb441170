package wire

import "math"

// order is the order of entities in a snapshot: by index, then generation.
func EntityOrder(id uint32) uint32 { return id<<8 | id>>24 }

// The fields of an entity that a snapshot carries, in wire order (4.3).
const (
	FieldX     = iota // x, in eighths of a pixel
	FieldY            // y, in eighths of a pixel
	FieldVX           // vx, in pixels per second
	FieldVY           // vy, in pixels per second
	FieldFrame        // sprite frame, 0 to 15
	NumFields
)

// Bits of the fields mask of an updated record (4.3).
const (
	MaskX     uint8 = 1 << 0
	MaskY     uint8 = 1 << 1
	MaskVel   uint8 = 1 << 2 // vx and vy travel together
	MaskFrame uint8 = 1 << 3
)

// field describes how one entity field is carried. The snapshot encoder,
// the decoder and the delta comparison are all driven by this table, so a
// field is added or changed in one place.
type field struct {
	bits     int
	signed   bool
	mask     uint8 // bit of the fields mask that carries it
	min, max int32
	scale    float64 // wire units per pixel (or per pixel per second)
}

var fields = [NumFields]field{
	FieldX:     {bits: 15, signed: true, mask: MaskX, min: -1 << 14, max: 1<<14 - 1, scale: 8},
	FieldY:     {bits: 15, signed: true, mask: MaskY, min: -1 << 14, max: 1<<14 - 1, scale: 8},
	FieldVX:    {bits: 12, signed: true, mask: MaskVel, min: -1 << 11, max: 1<<11 - 1, scale: 1},
	FieldVY:    {bits: 12, signed: true, mask: MaskVel, min: -1 << 11, max: 1<<11 - 1, scale: 1},
	FieldFrame: {bits: 4, mask: MaskFrame, min: 0, max: 15, scale: 1},
}

// Entity is an entity as a snapshot carries it: its network id, its kind,
// and its fields in wire units (positions in eighths of a pixel, velocities
// in whole pixels per second), already rounded and clamped.
type Entity struct {
	ID   uint32
	Kind uint8
	F    [NumFields]int32
}

// quantize rounds v (pixels) to wire units, halves away from zero, and
// clamps it to the field's range. NaN, which the server never produces,
// becomes 0.
func quantize(f int, v float32) int32 {
	d := &fields[f]
	q := math.Round(float64(v) * d.scale)
	switch {
	case q != q:
		return 0
	case q < float64(d.min):
		return d.min
	case q > float64(d.max):
		return d.max
	}
	return int32(q)
}

// MakeEntity rounds and clamps an entity's state as a snapshot sends it.
// A frame above 15 is sent as 15.
func MakeEntity(id uint32, kind uint8, x, y, vx, vy float32, frame int) Entity {
	e := Entity{ID: id, Kind: kind}
	e.F[FieldX] = quantize(FieldX, x)
	e.F[FieldY] = quantize(FieldY, y)
	e.F[FieldVX] = quantize(FieldVX, vx)
	e.F[FieldVY] = quantize(FieldVY, vy)
	e.F[FieldFrame] = int32(min(max(frame, 0), 15))
	return e
}

// X returns the x position in pixels.
func (e *Entity) X() float32 { return float32(e.F[FieldX]) / 8 }

// Y returns the y position in pixels.
func (e *Entity) Y() float32 { return float32(e.F[FieldY]) / 8 }

// VX returns the x velocity in pixels per second.
func (e *Entity) VX() float32 { return float32(e.F[FieldVX]) }

// VY returns the y velocity in pixels per second.
func (e *Entity) VY() float32 { return float32(e.F[FieldVY]) }

// Frame returns the sprite frame.
func (e *Entity) Frame() uint8 { return uint8(e.F[FieldFrame]) }

// Diff returns the fields mask of what differs between a and b, vx and vy
// together (4.8).
func Diff(a, b *Entity) uint8 {
	var m uint8
	for i := range fields {
		if a.F[i] != b.F[i] {
			m |= fields[i].mask
		}
	}
	return m
}
