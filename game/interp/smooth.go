package interp

import "math"

// Smoothness measures a drawn path of an entity that moves at a constant
// velocity: path holds one coordinate of the entity, drawn every dt
// seconds, and v is its velocity along that coordinate in pixels per
// second (not 0). It returns:
//
//   - maxDev: the largest deviation, in pixels, of one frame's step from
//     the ideal step v×dt (a render clock steered by ±10% deviates by 10%
//     of the step, an extrapolation error or a jump by more);
//   - stalls: the steps of less than a tenth of the ideal step, the frames
//     where the entity stands (nearly) still;
//   - backJumps: the steps against the velocity, the frames where the
//     entity moves back.
//
// A path of fewer than two points has no steps: all three are zero.
func Smoothness(path []float32, dt float64, v float32) (maxDev float32, stalls, backJumps int) {
	ideal := float64(v) * dt
	for i := 1; i < len(path); i++ {
		step := float64(path[i]) - float64(path[i-1])
		maxDev = max(maxDev, float32(math.Abs(step-ideal)))
		switch {
		case step*ideal < 0:
			backJumps++
		case math.Abs(step) < math.Abs(ideal)/10:
			stalls++
		}
	}
	return maxDev, stalls, backJumps
}
