// Package interp places the entities of the world between the snapshots the
// client received: it keeps a render clock that runs a little behind the
// server's, adapts that delay to the jitter and the losses of the link, and
// interpolates (or, when snapshots stop, briefly extrapolates) every entity
// at the render time.
//
// It works on the frame history of rtype/net/client and never imports
// Ebitengine, so its tests run without a display. An Interpolator is
// updated by the game once per game tick, and sampled at each drawn
// frame's own time (rtype/game/view does both):
//
//	frames = c.Frames(frames)          // Update, 60 per second
//	ip.Update(frames, time.Now())
//
//	r := ip.RenderTickAt(time.Now())   // Draw, at the display's rate
//	drawn = ip.EntitiesAt(drawn, r)
//
// RenderTickAt reads the render clock between two Updates at the speed the
// last one set, and the next Update goes on from the same clock, so a
// 144 Hz display gets 144 distinct, monotonic render times per second.
//
// The clock: every snapshot tick is stamped with its local arrival time (the
// now of the first Update that sees it). The offset between local time and
// server time, arrival - tick/TickRate, is estimated by its minimum over the
// last OffsetWindow (the least delayed snapshots), so that jitter does not
// shake it; a lasting step of the latency is noticed within a quarter of the
// window. The estimated server time is then now - offset, and the target
// render time that minus the delay. The render clock is not set to that
// target: it runs with the local clock at a speed of 1 ± MaxSkew, steered
// toward the target, so it never goes backwards and never jumps (it only
// stands still while the entities are frozen past the newest snapshot and
// the target is behind it). Only an error above ResetAfter (a new game, a
// long pause) resets it at once.
//
// The delay: it starts at InitialDelay. Its target is one snapshot interval
// plus the lateness of the snapshots (the larger of 2.5 times the mean
// inter-arrival deviation, RFC 3550 style, and the second largest lateness
// over the window) plus a loss term (up to two snapshot intervals: as many
// as a tick gap just missed, or more with the smoothed rate of missing
// snapshots, one interval per 5%). The delay rises to
// its target at once (the render clock then slows down by at most MaxSkew)
// and falls toward it by at most ShrinkPerSecond, within [MinDelay,
// MaxDelay].
package interp

import (
	"rtype/net/wire"
	"time"
)

// Defaults of Config, used for its zero fields.
const (
	// DefaultInitialDelay is the delay before anything is measured: the
	// Source engine's default interpolation delay (two snapshots at 20 Hz).
	DefaultInitialDelay = 100 * time.Millisecond
	// DefaultMinDelay is the smallest delay: one snapshot interval.
	DefaultMinDelay = 50 * time.Millisecond
	// DefaultMaxDelay is the largest delay.
	DefaultMaxDelay = 500 * time.Millisecond
	// DefaultMaxExtrapolation is how long entities keep moving along their
	// velocity past the newest snapshot before they freeze.
	DefaultMaxExtrapolation = 250 * time.Millisecond
	// DefaultTickRate is the server's simulation rate, in ticks per second.
	DefaultTickRate = wire.TickRate
	// DefaultSnapshotTicks is the number of ticks between two snapshots.
	DefaultSnapshotTicks = wire.SnapshotTicks
	// DefaultOffsetWindow is how long the arrival times of the snapshots
	// are remembered to estimate the server clock and the jitter.
	DefaultOffsetWindow = 2 * time.Second
	// DefaultResetAfter is the error of the render clock above which it is
	// reset at once instead of being steered.
	DefaultResetAfter = time.Second
	// DefaultShrinkPerSecond is how fast the delay falls, per second, when
	// the link is cleaner than the delay needs (1 ms per 100 ms).
	DefaultShrinkPerSecond = 10 * time.Millisecond
	// DefaultMaxSkew is the largest relative change of the render clock's
	// speed used to catch up with its target.
	DefaultMaxSkew = 0.1
)

// Config tunes an Interpolator. Every zero field takes its default, the
// Default* constant of the same name.
type Config struct {
	// InitialDelay is the interpolation delay at start and after a reset;
	// default 100 ms. It is clamped to [MinDelay, MaxDelay].
	InitialDelay time.Duration
	// MinDelay is the smallest interpolation delay; default 50 ms.
	MinDelay time.Duration
	// MaxDelay is the largest interpolation delay; default 500 ms. It is
	// raised to MinDelay if below.
	MaxDelay time.Duration
	// MaxExtrapolation is how far past its newest known state an entity
	// is moved along its velocity before it freezes; default 250 ms.
	MaxExtrapolation time.Duration
	// TickRate is the server's simulation rate in ticks per second;
	// default 60.
	TickRate int
	// SnapshotTicks is the number of ticks between two snapshots;
	// default 3 (20 snapshots per second at 60 ticks per second).
	SnapshotTicks int
	// Sparse says that the server skips the snapshots that would change
	// nothing (a v2 session, PROTOCOL.md 7.9: at least one every 200 ms):
	// a gap in the ticks is then no loss, and asks for no more delay.
	Sparse bool
	// OffsetWindow is how long snapshot arrivals are remembered to estimate
	// the server clock and the lateness of the snapshots; default 2 s.
	OffsetWindow time.Duration
	// ResetAfter is the render clock error above which the clock is reset
	// at once (a new game, a long pause); default 1 s.
	ResetAfter time.Duration
	// ShrinkPerSecond is how much the delay may fall per second of a link
	// cleaner than the delay needs; default 10 ms (1 ms per 100 ms).
	ShrinkPerSecond time.Duration
	// MaxSkew is the largest relative speed change of the render clock
	// when it catches up with its target, e.g. 0.1 for ±10%; default 0.1.
	// It is capped at 0.5.
	MaxSkew float64
}

// withDefaults returns c with its zero fields set to the defaults and its
// values made consistent.
func (c Config) withDefaults() Config {
	if c.MinDelay <= 0 {
		c.MinDelay = DefaultMinDelay
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = DefaultMaxDelay
	}
	c.MaxDelay = max(c.MaxDelay, c.MinDelay)
	if c.InitialDelay <= 0 {
		c.InitialDelay = DefaultInitialDelay
	}
	c.InitialDelay = min(max(c.InitialDelay, c.MinDelay), c.MaxDelay)
	if c.MaxExtrapolation <= 0 {
		c.MaxExtrapolation = DefaultMaxExtrapolation
	}
	if c.TickRate <= 0 {
		c.TickRate = DefaultTickRate
	}
	if c.SnapshotTicks <= 0 {
		c.SnapshotTicks = DefaultSnapshotTicks
	}
	if c.OffsetWindow <= 0 {
		c.OffsetWindow = DefaultOffsetWindow
	}
	if c.ResetAfter <= 0 {
		c.ResetAfter = DefaultResetAfter
	}
	if c.ShrinkPerSecond <= 0 {
		c.ShrinkPerSecond = DefaultShrinkPerSecond
	}
	if c.MaxSkew <= 0 {
		c.MaxSkew = DefaultMaxSkew
	}
	c.MaxSkew = min(c.MaxSkew, 0.5)
	return c
}
