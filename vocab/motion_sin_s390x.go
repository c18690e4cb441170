package vocab

import "math"

// sincos returns math.Sin(x) and math.Cos(x): on s390x they are in
// assembly, and motion_sin.go's copy of Go's own would not give their bits.
func sincos(x float64) (sin, cos float64) { return math.Sin(x), math.Cos(x) }
