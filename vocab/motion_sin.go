//go:build !s390x

package vocab

import "math"

// sincos returns math.Sin(x) and math.Cos(x), the same bits, for Motion.at:
// Go's own sin and cos (math/sin.go, BSD-licensed, copyright The Go
// Authors) taken together, and without their branches on the octant. Both
// polynomials are evaluated, with the same operations in the same order as
// in math/sin.go, and each result is picked from them with integer masks:
// a Sine's angle falls in any octant, so the branches of math.Sin were
// mispredicted about half the time (some 20 ns a call in a busy game,
// against 10 without; a game evaluates a sine per Bydos per tick).
// NaN, infinite and large (2^29 and more) arguments go to math.Sin and
// math.Cos. TestSincosIsMath checks the bits against them.
//
// (s390x has an assembly math.Sin: motion_sin_s390x.go calls it.)
func sincos(x float64) (sin, cos float64) {
	const (
		PI4A = 7.85398125648498535156e-1  // 0x3fe921fb40000000, Pi/4 split into three parts
		PI4B = 3.77489470793079817668e-8  // 0x3e64442d00000000,
		PI4C = 2.69515142907905952645e-15 // 0x3ce8469898cc5170,
	)
	a := math.Abs(x)
	if !(a < 1<<29) { // NaN, infinite, or math's reduceThreshold and above
		return math.Sin(x), math.Cos(x)
	}
	j := uint64(a * (4 / math.Pi)) // the octant, as math's
	j += j & 1                     // map zeros to origin: an even octant
	y := float64(j)                // exact: j < 2^30
	z := ((a - y*PI4A) - y*PI4B) - y*PI4C
	zz := z * z
	c := 1.0 - 0.5*zz + zz*zz*((((((_cos[0]*zz)+_cos[1])*zz+_cos[2])*zz+_cos[3])*zz+_cos[4])*zz+_cos[5])
	s := z + z*zz*((((((_sin[0]*zz)+_sin[1])*zz+_sin[2])*zz+_sin[3])*zz+_sin[4])*zz+_sin[5])
	// j mod 8 is 0, 2, 4 or 6: from 4 on, both are negated (j -= 4);
	// then at 2, sin takes the cosine polynomial and cos the sine's,
	// negated (math's j == 1 || j == 2, j > 1).
	swap := -(j >> 1 & 1) // all ones at 2 (or 6)
	cb, sb := math.Float64bits(c), math.Float64bits(s)
	neg := (j >> 2 & 1) << 63
	sin = math.Float64frombits((cb&swap | sb&^swap) ^ neg ^ math.Float64bits(x)&(1<<63))
	cos = math.Float64frombits((sb&swap | cb&^swap) ^ neg ^ swap<<63)
	return sin, cos
}

// The polynomials of math/sin.go.
var _sin = [...]float64{
	1.58962301576546568060e-10, // 0x3de5d8fd1fd19ccd
	-2.50507477628578072866e-8, // 0xbe5ae5e5a9291f5d
	2.75573136213857245213e-6,  // 0x3ec71de3567d48a1
	-1.98412698295895385996e-4, // 0xbf2a01a019bfdf03
	8.33333333332211858878e-3,  // 0x3f8111111110f7d0
	-1.66666666666666307295e-1, // 0xbfc5555555555548
}

var _cos = [...]float64{
	-1.13585365213876817300e-11, // 0xbda8fa49a0861a9b
	2.08757008419747316778e-9,   // 0x3e21ee9d7b4e3f05
	-2.75573141792967388112e-7,  // 0xbe927e4f7eac4bc6
	2.48015872888517045348e-5,   // 0x3efa01a019c844f5
	-1.38888888888730564116e-3,  // 0xbf56c16c16c14f91
	4.16666666666665929218e-2,   // 0x3fa555555555554b
}
