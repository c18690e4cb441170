package sim

import "math"

// Touch reports whether two boxes, each moving in a straight line during a
// tick, touch during it, and the earliest time of the contact, 0 (the
// tick's start) to 1: the server's collision test of Stage mode (its
// sweep), for a client that predicts what its own ship touches
// (game/predict: the items it picks up). Box a's centre goes from (ax0,
// ay0), its position at the tick before, to (ax1, ay1); ahw and ahh are its
// half width and half height; likewise b. It computes what the world's
// sweep computes: World.sweep calls it.
func Touch(ax0, ay0, ax1, ay1, ahw, ahh, bx0, by0, bx1, by1, bhw, bhh float64) (float64, bool) {
	hx := ahw + bhw
	hy := ahh + bhh
	rx, dx := ax0-bx0, (ax1-ax0)-(bx1-bx0)
	ry, dy := ay0-by0, (ay1-ay0)-(by1-by0)
	// Far apart on an axis by more than the motion and a pixel: no
	// division needed. (The pixel dwarfs any rounding, so this rejects
	// only what slab would: the results are the same, only faster.)
	if math.Abs(rx) >= hx+math.Abs(dx)+1 || math.Abs(ry) >= hy+math.Abs(dy)+1 {
		return 0, false
	}
	t0, t1 := 0.0, 1.0
	if !slab(rx, dx, hx, &t0, &t1) || !slab(ry, dy, hy, &t0, &t1) {
		return 0, false
	}
	return t0, true
}
