package model

// EffectKind is a kind of short visual effect.
type EffectKind uint8

// The effects.
const (
	// FxExplosion is an enemy or missile destroyed (Destroy Killed).
	FxExplosion EffectKind = iota
	// FxShipExplosion is a ship lost (Death), bigger and longer.
	FxShipExplosion
	// FxMuzzle is the flash of a shot (Spawn of a PlayerMissile).
	FxMuzzle
	// FxBossExplosion is a boss destroyed (Stage mode): a white flash and
	// a chain of big blasts over its body.
	FxBossExplosion
)

// Duration returns how long an effect of kind k lasts, in seconds.
func (k EffectKind) Duration() float64 {
	switch k {
	case FxExplosion:
		return 0.5
	case FxShipExplosion:
		return 0.8
	case FxMuzzle:
		return 0.1
	case FxBossExplosion:
		return 1.8
	}
	return 0
}

// Effect is one effect at a position of the play area.
type Effect struct {
	Kind EffectKind
	X, Y float64
	// Start is the game time (seconds) it starts at: it is not shown
	// before (effects are delayed to match the interpolated world).
	Start float64
	// Owner is the player of a muzzle flash or a ship explosion, or
	// wire.NoPlayer.
	Owner uint8
}

// Progress returns how far the effect is at now: below 0 before its
// start, 0 to 1 while it shows, 1 or more once over.
func (e Effect) Progress(now float64) float64 {
	return (now - e.Start) / e.Kind.Duration()
}

// Frame returns which of n animation frames shows at now, clamped to 0 to
// n-1.
func (e Effect) Frame(now float64, n int) int {
	f := int(e.Progress(now) * float64(n))
	return min(max(f, 0), n-1)
}

// Active reports whether the effect shows at now.
func (e Effect) Active(now float64) bool {
	p := e.Progress(now)
	return p >= 0 && p < 1
}

// MaxEffects bounds the effects alive at once; the oldest go first.
const MaxEffects = 256

// Effects is the list of effects in flight.
type Effects struct {
	List []Effect
}

// Add adds an effect; beyond MaxEffects the oldest goes.
func (fx *Effects) Add(e Effect) { fx.List = addBounded(fx.List, e, MaxEffects) }

// Update removes the effects that are over at now.
func (fx *Effects) Update(now float64) {
	fx.List = keepIf(fx.List, func(e *Effect) bool { return e.Progress(now) < 1 })
}

// Clear removes every effect.
func (fx *Effects) Clear() { fx.List = fx.List[:0] }

// NoticeLife is how long a notice shows, in seconds; it fades out over the
// last NoticeFade seconds.
const (
	NoticeLife = 3.0
	NoticeFade = 0.75
	MaxNotices = 5
)

// Notice is a line of text that shows for a while ("Ripley joined").
type Notice struct {
	Text  string
	Start float64
	// Player is the player it is about (its colour), or wire.NoPlayer.
	Player uint8
}

// Alpha returns the notice's opacity at now: 1, fading to 0 over the last
// NoticeFade seconds of NoticeLife; it also fades in over 0.15 s.
func (n Notice) Alpha(now float64) float64 {
	age := now - n.Start
	switch {
	case age < 0 || age >= NoticeLife:
		return 0
	case age < 0.15:
		return age / 0.15
	case age > NoticeLife-NoticeFade:
		return (NoticeLife - age) / NoticeFade
	}
	return 1
}

// Notices are the notices on screen, oldest first.
type Notices struct {
	List []Notice
}

// Add adds a notice; beyond MaxNotices the oldest goes.
func (ns *Notices) Add(n Notice) { ns.List = addBounded(ns.List, n, MaxNotices) }

// Update removes the notices over at now.
func (ns *Notices) Update(now float64) {
	ns.List = keepIf(ns.List, func(n *Notice) bool { return now-n.Start < NoticeLife })
}

// addBounded appends v to l, first dropping the oldest (l[0]) when l holds
// limit already; l's storage is reused.
func addBounded[T any](l []T, v T, limit int) []T {
	if len(l) >= limit {
		l = append(l[:0], l[1:]...)
	}
	return append(l, v)
}

// keepIf keeps the elements of l for which keep is true, in order, in l's
// storage, and zeroes the rest (dropping their references).
func keepIf[T any](l []T, keep func(*T) bool) []T {
	out := l[:0]
	for i := range l {
		if keep(&l[i]) {
			out = append(out, l[i])
		}
	}
	clear(l[len(out):])
	return out
}
