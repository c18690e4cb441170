package interp

import (
	"math"
	"time"

	"rtype/net/client"
)

const (
	// catchUp is the time constant of the render clock's steering: an
	// error of catchUp × MaxSkew or more is corrected at full skew.
	catchUp = 0.5 // seconds
	// jitterGain is the RFC 3550 gain of the inter-arrival jitter filter.
	jitterGain = 1.0 / 16
	// jitterFactor multiplies the mean inter-arrival deviation in the
	// delay's target.
	jitterFactor = 2.5
	// lossGain is the gain of the loss rate filter, per snapshot expected.
	lossGain = 1.0 / 32
	// lossScale turns the loss rate into snapshot intervals of delay: 5%
	// of snapshots lost asks for one more interval.
	lossScale = 20
	// maxLossIntervals caps the loss term of the delay.
	maxLossIntervals = 2
	// stepIntervals is how much later than the window's minimum, in
	// snapshot intervals, every recent snapshot must be for the latency to
	// be taken as having stepped up (the old minimum is then forgotten).
	stepIntervals = 2
	// maxSamples bounds the arrival samples kept in the window.
	maxSamples = 256
	// maxMissing bounds the missing snapshots counted for one gap.
	maxMissing = 64
	// seenSize is the size of the table of the ticks seen (a power of 2,
	// more than the ticks of a window at one snapshot per tick).
	seenSize = 256
)

// sample is the arrival of a snapshot: local time and offset in seconds.
type sample struct {
	at, off float64
}

// Interpolator keeps the render clock and the interpolation delay, and
// places the entities of a frame history at the render time. It is not
// safe for concurrent use; the zero value is not ready: use New.
type Interpolator struct {
	cfg        Config
	tps        float64 // ticks per second
	interval   float64 // seconds between two snapshots
	maxExtrap  float64 // MaxExtrapolation, in ticks
	resetTicks float64 // ResetAfter, in ticks

	started bool
	base    time.Time // local origin of the times below
	last    float64   // time of the last Update, seconds since base

	newest uint32             // newest tick seen
	seen   [seenSize]uint32   // tick+1 of the ticks seen, by tick mod seenSize
	smp    [maxSamples]sample // arrival samples, a ring
	sHead  int                // index of the oldest sample
	sN     int                // samples held
	minOff float64            // smallest offset over the window
	late   float64            // second largest lateness over the window
	// retract is how much of the delay came from arrivals that turned out
	// to be a step of the latency, not late ones.
	retract float64

	hasPrev  bool
	prevAt   float64 // arrival of the previous snapshot
	prevTick uint32  // its tick
	jitter   float64 // mean inter-arrival deviation, seconds
	loss     float64 // smoothed rate of missing snapshots
	gap      float64 // snapshots missing before the newest arrival, until used

	delay  float64 // seconds
	render float64 // render time, in ticks
	rate   float64 // speed of the render clock in the last Update

	frames []client.Frame // the history of the last Update
	order  []int          // indices into frames by increasing tick, deduplicated
}

// New returns an Interpolator with cfg (zero fields take their defaults).
func New(cfg Config) *Interpolator {
	ip := &Interpolator{cfg: cfg.withDefaults()}
	c := &ip.cfg
	ip.tps = float64(c.TickRate)
	ip.interval = float64(c.SnapshotTicks) / ip.tps
	ip.maxExtrap = c.MaxExtrapolation.Seconds() * ip.tps
	ip.resetTicks = c.ResetAfter.Seconds() * ip.tps
	ip.reset()
	return ip
}

// Config returns the configuration in use, defaults filled in.
func (ip *Interpolator) Config() Config { return ip.cfg }

// reset forgets every measure: the next Update starts over.
func (ip *Interpolator) reset() {
	ip.started = false
	ip.newest = 0
	clear(ip.seen[:])
	ip.sHead, ip.sN = 0, 0
	ip.minOff, ip.late, ip.retract = 0, 0, 0
	ip.hasPrev = false
	ip.jitter, ip.loss, ip.gap = 0, 0, 0
	ip.delay = ip.cfg.InitialDelay.Seconds()
	ip.render, ip.rate = 0, 1
}

// Update takes the frame history and the local clock of one drawn frame.
// frames is the history of client.(*Client).Frames, in any order (it is
// sorted by tick here; of two frames of the same tick the one with more
// entities is used). The frames must stay unchanged until the following
// Entities calls are done. now must come from a monotonic clock
// (time.Now); a now earlier than the previous one is taken as equal to it.
//
// Update stamps the ticks it sees for the first time with now, updates the
// clock offset, the jitter, the loss rate and the delay, then advances the
// render clock. A newest tick more than ResetAfter older than the newest
// one seen before (a new game) resets everything. It allocates nothing
// once the history's length has been seen.
func (ip *Interpolator) Update(frames []client.Frame, now time.Time) {
	ip.frames = frames
	ip.sortFrames()

	if len(ip.order) > 0 && ip.started {
		newest := ip.frames[ip.order[len(ip.order)-1]].Tick
		if float64(newest)+ip.resetTicks < float64(ip.newest) {
			base := ip.base
			ip.reset() // a new game: its ticks started over
			ip.started, ip.base = true, base
			ip.start(newest, ip.since(now))
			return
		}
	}
	if !ip.started {
		if len(ip.order) == 0 {
			return
		}
		ip.started, ip.base = true, now
		ip.start(ip.frames[ip.order[len(ip.order)-1]].Tick, 0)
		return
	}

	t := ip.since(now)
	dt := t - ip.last
	ip.last = t

	ip.arrivals(t)
	ip.expire(t)
	ip.updateDelay(dt)
	ip.steer(t, dt)
}

// since returns now in seconds since base, never before the last Update.
func (ip *Interpolator) since(now time.Time) float64 {
	return max(now.Sub(ip.base).Seconds(), ip.last)
}

// start begins the measures with the history's frames, at local time t:
// they are all taken as seen, the newest one as just arrived.
func (ip *Interpolator) start(newest uint32, t float64) {
	ip.last = t
	for _, i := range ip.order {
		ip.markSeen(ip.frames[i].Tick)
	}
	ip.newest = newest
	ip.addSample(t, t-float64(newest)/ip.tps)
	ip.minOff = t - float64(newest)/ip.tps
	ip.hasPrev, ip.prevAt, ip.prevTick = true, t, newest
	ip.render = float64(newest) - ip.delay*ip.tps
	ip.rate = 1
}

// sortFrames sets order to the indices of frames by increasing tick,
// keeping one frame per tick.
func (ip *Interpolator) sortFrames() {
	o := ip.order[:0]
	for i := range ip.frames {
		o = append(o, i)
	}
	// Insertion sort: the history is short (20 frames) and usually
	// sorted already; stable, so equal ticks keep the slice order.
	fs := ip.frames
	for i := 1; i < len(o); i++ {
		v := o[i]
		j := i
		for j > 0 && fs[o[j-1]].Tick > fs[v].Tick {
			o[j] = o[j-1]
			j--
		}
		o[j] = v
	}
	n := 0
	for _, v := range o {
		if n > 0 && fs[o[n-1]].Tick == fs[v].Tick {
			if len(fs[v].Entities) >= len(fs[o[n-1]].Entities) {
				o[n-1] = v
			}
			continue
		}
		o[n] = v
		n++
	}
	ip.order = o[:n]
}

func (ip *Interpolator) markSeen(tick uint32) { ip.seen[tick%seenSize] = tick + 1 }

func (ip *Interpolator) wasSeen(tick uint32) bool { return ip.seen[tick%seenSize] == tick+1 }

// arrivals stamps the ticks not seen before with the local time t.
func (ip *Interpolator) arrivals(t float64) {
	windowTicks := ip.cfg.OffsetWindow.Seconds() * ip.tps
	for _, i := range ip.order {
		tick := ip.frames[i].Tick
		if ip.wasSeen(tick) {
			continue
		}
		ip.markSeen(tick)
		if float64(tick)+windowTicks < float64(ip.newest) {
			continue // too old to tell anything about the link
		}
		at := ip.arrivedAt(ip.frames[i].Received, t)
		off := at - float64(tick)/ip.tps
		step := ip.sN > 0 && off < ip.minOff-stepIntervals*ip.interval
		if step {
			// The latency stepped down: the older arrivals tell nothing
			// about the link any more.
			ip.sN = 0
		}
		ip.addSample(at, off)
		ip.minOff = min(ip.minOff, off)
		if ip.hasPrev && !step {
			// RFC 3550: the change of transit time between two arrivals.
			d := (at - ip.prevAt) - float64(int64(tick)-int64(ip.prevTick))/ip.tps
			ip.jitter += (math.Abs(d) - ip.jitter) * jitterGain
		}
		ip.hasPrev, ip.prevAt, ip.prevTick = true, at, tick
		if tick > ip.newest {
			st := uint32(ip.cfg.SnapshotTicks)
			slots := (tick - ip.newest + st/2) / st
			missing := min(max(slots, 1)-1, maxMissing)
			if ip.cfg.Sparse {
				missing = 0 // skipped, not lost (7.9)
			}
			for range missing {
				ip.loss += (1 - ip.loss) * lossGain // a snapshot missing
			}
			ip.loss -= ip.loss * lossGain
			ip.gap = max(ip.gap, float64(missing))
			ip.newest = tick
		}
	}
}

// arrivedAt returns when a snapshot arrived, in seconds since base: the
// client's stamp when it has one, else t, the Update that first saw it.
// A stamp is never taken as later than t, nor as earlier than base.
func (ip *Interpolator) arrivedAt(received time.Time, t float64) float64 {
	if received.IsZero() {
		return t
	}
	return min(t, max(received.Sub(ip.base).Seconds(), 0))
}

// addSample appends an arrival to the ring, dropping the oldest when full.
func (ip *Interpolator) addSample(at, off float64) {
	if ip.sN == maxSamples {
		ip.sHead = (ip.sHead + 1) % maxSamples
		ip.sN--
	}
	ip.smp[(ip.sHead+ip.sN)%maxSamples] = sample{at, off}
	ip.sN++
}

// expire forgets the samples older than the window, or older than a
// quarter of it when every recent snapshot is much later than the minimum
// (the latency stepped up, or the server lost time), and recomputes the
// minimum offset and the lateness.
func (ip *Interpolator) expire(t float64) {
	win := ip.cfg.OffsetWindow.Seconds()
	for ip.sN > 1 && ip.smp[ip.sHead].at < t-win {
		ip.sHead = (ip.sHead + 1) % maxSamples
		ip.sN--
	}
	ip.scan()
	// A step of the latency: every sample of the last quarter window is
	// late by more than stepIntervals.
	recent, n := math.Inf(1), 0
	for k := ip.sN - 1; k >= 0; k-- {
		s := ip.smp[(ip.sHead+k)%maxSamples]
		if s.at < t-win/4 {
			break
		}
		recent = min(recent, s.off)
		n++
	}
	if n >= 3 && n < ip.sN && recent-ip.minOff > stepIntervals*ip.interval {
		old := ip.minOff
		ip.sHead = (ip.sHead + ip.sN - n) % maxSamples
		ip.sN = n
		ip.scan()
		// The delay rose with these arrivals, taken then for late ones.
		ip.retract += ip.minOff - old
	}
}

// scan sets minOff and late from the samples held.
func (ip *Interpolator) scan() {
	lo := math.Inf(1)
	hi1, hi2 := math.Inf(-1), math.Inf(-1)
	for k := 0; k < ip.sN; k++ {
		o := ip.smp[(ip.sHead+k)%maxSamples].off
		lo = min(lo, o)
		if o > hi1 {
			hi1, hi2 = o, hi1
		} else if o > hi2 {
			hi2 = o
		}
	}
	if ip.sN == 0 {
		return
	}
	ip.minOff = lo
	switch {
	case ip.sN >= 10:
		ip.late = hi2 - lo // ignore one outlier
	default:
		ip.late = hi1 - lo
	}
}

// updateDelay moves the delay toward its target after dt seconds.
func (ip *Interpolator) updateDelay(dt float64) {
	if ip.retract > 0 {
		ip.delay = max(ip.delay-ip.retract, ip.cfg.MinDelay.Seconds())
		ip.retract = 0
	}
	// A gap asks for as many intervals as it missed, at once (the delay
	// then falls slowly); a lasting loss rate keeps asking.
	lossTerm := ip.interval * min(maxLossIntervals, max(ip.gap, lossScale*ip.loss))
	ip.gap = 0
	target := ip.interval + max(jitterFactor*ip.jitter, ip.late) + lossTerm
	target = min(max(target, ip.cfg.MinDelay.Seconds()), ip.cfg.MaxDelay.Seconds())
	if target >= ip.delay {
		ip.delay = target
		return
	}
	ip.delay = max(target, ip.delay-ip.cfg.ShrinkPerSecond.Seconds()*dt)
}

// steer advances the render clock by dt seconds of local time at the
// speed decided by the previous Update (so that RenderTickAt, which
// reads the clock between Updates at that speed, and the next Update agree:
// the render clock is continuous), then decides the speed until the next
// Update, steered toward the target render time; or it resets the clock
// when it is off by more than ResetAfter.
func (ip *Interpolator) steer(t, dt float64) {
	ip.render += dt * ip.tps * ip.rate
	target := (t - ip.minOff - ip.delay) * ip.tps
	e := target - ip.render // ticks
	if math.Abs(e) > ip.resetTicks {
		ip.render, ip.rate = target, 1
		return
	}
	skew := ip.cfg.MaxSkew
	ip.rate = 1 + min(max(e/ip.tps/catchUp, -skew), skew)
	if e < -float64(ip.cfg.SnapshotTicks) && ip.render > float64(ip.newestFrame())+ip.maxExtrap {
		// Frozen past the newest snapshot and ahead of the target: nothing
		// moves, so the clock may wait for the snapshots to catch up.
		ip.rate = 0
	}
}

// newestFrame returns the tick of the history's newest frame, 0 without one.
func (ip *Interpolator) newestFrame() uint32 {
	if len(ip.order) == 0 {
		return 0
	}
	return ip.frames[ip.order[len(ip.order)-1]].Tick
}

// Delay returns the interpolation delay the render clock aims at. The
// render clock reaches a new delay gradually (see Behind).
func (ip *Interpolator) Delay() time.Duration { return seconds(ip.delay) }

// RenderTick returns the render time, in server ticks: the time at which
// Entities places the entities. It never decreases, except when the clock
// is reset (a new game, or an error above ResetAfter); it is 0 before the
// first frame.
func (ip *Interpolator) RenderTick() float64 { return ip.render }

// RenderTickAt returns the render time, in server ticks, at local time
// now: the render tick of the last Update moved on at the clock's present
// speed (Rate) for the time since. It changes nothing, so a renderer may
// sample the world at each drawn frame's own time (a 144 Hz display
// between two 60 Hz Updates); the next Update continues from the same
// clock, so the render time never goes back. A now before the last Update
// gives RenderTick, and so does an Interpolator without frames yet.
func (ip *Interpolator) RenderTickAt(now time.Time) float64 {
	if !ip.started {
		return ip.render
	}
	dt := max(now.Sub(ip.base).Seconds()-ip.last, 0)
	return ip.render + dt*ip.tps*ip.rate
}

// Behind returns how far the render time is behind the newest frame of the
// history given to the last Update; it is negative when the entities are
// extrapolated past it, and 0 without frames.
func (ip *Interpolator) Behind() time.Duration {
	if len(ip.order) == 0 {
		return 0
	}
	return seconds((float64(ip.newestFrame()) - ip.render) / ip.tps)
}

// Extrapolating reports whether the render time is past the newest frame
// of the history, so that Entities moves the entities along their
// velocities (for at most MaxExtrapolation, then freezes them).
func (ip *Interpolator) Extrapolating() bool {
	return len(ip.order) > 0 && ip.render > float64(ip.newestFrame())
}

// Rate returns the speed of the render clock in the last Update relative to
// the local clock: 1, or up to 1 ± MaxSkew while it catches up with its
// target (0 while it waits, frozen past the newest snapshot).
func (ip *Interpolator) Rate() float64 { return ip.rate }

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
