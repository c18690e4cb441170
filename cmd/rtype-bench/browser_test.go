package main

import (
	"math"
	"testing"
	"time"

	"rtype/net/wire"
)

// TestTickClockFit: the server's clock is the least-squares line of its
// snapshots' ticks against their times, whatever the epoch.
func TestTickClockFit(t *testing.T) {
	k := &tickClock{on: true}
	t0 := float64(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Unix())
	for i := range 600 {
		jitter := 0.0
		if i%2 == 1 {
			jitter = 0.002 // made 2 ms late, every other one
		}
		k.ticks = append(k.ticks, float64(1000+i))
		k.times = append(k.times, t0+float64(i)/60+jitter)
	}
	a, b, worst := k.fit()
	if math.Abs(b-60) > 0.01 {
		t.Errorf("rate %.4f ticks/s, want 60", b)
	}
	if got := a + b*(t0+1); math.Abs(got-1060+0.06) > 0.02 {
		t.Errorf("tick at t0+1 s: %.3f, want about 1059.94", got)
	}
	if worst < 0.05 || worst > 0.07 {
		t.Errorf("largest residual %.3f ticks, want 0.06 (1 ms)", worst)
	}
}

// TestBrowserSmoothness: a client drawing the server's path exactly at
// its render ticks is 0 px off at the render tick; on the clock, a
// render tick that lags the mean delay by one tick at half the frames is
// one tick of flight off there.
func TestBrowserSmoothness(t *testing.T) {
	const v = -2.0 // px per tick
	truth := &serverPath{motions: map[uint32]wire.Motion{7: {Model: wire.ModelLinear, X0: 8000, Y0: 2400, VX: v * 60 * 16}}}
	if x, _, _ := truth.at(7, 10); math.Abs(x-(1000+10*v)) > 1e-9 {
		t.Fatalf("the test's motion: x(10) = %v, want %v", x, 1000+10*v)
	}
	c := &brClient{}
	for i := range 100 {
		tm := float64(i) / 60 // the server's clock: tick = 60 t
		rt := float64(i) - 6  // 100 ms behind
		if i%2 == 1 {
			rt-- // and one tick more at every other frame
		}
		c.add(tm, rt)
		x, y, _ := truth.at(7, rt)
		c.addBydos(7, x, y)
		c.addBydos(7, -100, y) // off screen: not counted
	}
	sm := c.smoothness(truth, 0, 60)
	if len(sm.atRender) != 100 || len(sm.atClock) != 100 || sm.unknown != 0 {
		t.Fatalf("%d / %d Bydos measured, %d unknown; want 100, 0", len(sm.atRender), len(sm.atClock), sm.unknown)
	}
	if m, _, mx := errStats(sm.atRender); m != 0 || mx != 0 {
		t.Errorf("at the render tick: mean %v, max %v; want 0", m, mx)
	}
	if math.Abs(sm.delay-6.5*1000/60) > 1e-6 {
		t.Errorf("delay %.3f ms, want %.3f", sm.delay, 6.5*1000/60)
	}
	if m, _, mx := errStats(sm.atClock); math.Abs(m-1) > 1e-6 || math.Abs(mx-1) > 1e-6 {
		t.Errorf("on the clock: mean %v, max %v px; want 1 (half a tick at 2 px a tick)", m, mx)
	}
}
