package server

import (
	"testing"
	"time"

	"rtype/net/wire"
)

// playUntil pumps every client of pumps in turn, a millisecond each,
// until cond holds; it fails the test after wait.
func playUntil(t *testing.T, what string, pumps []func(time.Duration) bool, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v for %s", wait, what)
		}
		for _, p := range pumps {
			p(time.Millisecond)
		}
	}
}

// 7.9: four v2 ships standing still, nothing else alive: a snapshot every
// 12 ticks, 200 ms (the inputs' new last_step alone makes none due), at
// most half the bytes of four v1 ships over the same ticks; a new record
// (a missile) makes the next snapshot due at once. Counted in the
// games' ticks, not in the wall clock's time.
func TestV2SnapshotRate(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s1, s2 := startServer(t, cfg), startServer(t, cfg)
	var v1 []*tclient
	var v2 []*tclient2
	var pumps []func(time.Duration) bool
	for _, name := range []string{"Alpha", "Bravo", "Charlie", "Delta"} {
		c1, c2 := join(t, s1, name), join2(t, s2, name)
		v1, v2 = append(v1, c1), append(v2, c2)
		pumps = append(pumps, func(d time.Duration) bool { return c1.pumpUntil(d, nil) },
			func(d time.Duration) bool { return c2.pumpUntil(d, nil) })
	}
	o1, o2 := v1[0], v2[0] // the observers
	// Settle: every ship in the snapshots, against an acknowledged
	// baseline, then two more v2 snapshot periods.
	playUntil(t, "the four ships in snapshots with a baseline", pumps, func() bool {
		a, b := o1.lastSnap(), o2.lastSnap()
		return a != nil && b != nil && a.hasBase && b.hasBase && len(a.entities) == 4 && len(b.entities) == 4
	})
	settled := o2.lastSnap().tick
	playUntil(t, "24 more ticks", pumps, func() bool { return o2.lastSnap().tick >= settled+24 })

	const span = 60 // ticks: 5 periods of 12, 20 snapshot ticks of 3
	from1, from2 := int(o1.lastSnap().tick), int(o2.lastSnap().tick)
	playUntil(t, "snapshots past the window", pumps, func() bool {
		return int(o1.lastSnap().tick) > from1+span && int(o2.lastSnap().tick) > from2+span
	})
	in := func(tick uint32, from int) bool { return int(tick) > from && int(tick) <= from+span }
	var n1, b1, n2, b2 int
	for _, s := range o1.snaps {
		if in(s.tick, from1) {
			n1, b1 = n1+1, b1+s.size
		}
	}
	for _, s := range o2.snaps {
		if in(s.tick, from2) {
			n2, b2 = n2+1, b2+s.size
		}
	}
	t.Logf("standing still, %d ticks: v1 %d snapshots, %d bytes; v2 %d snapshots, %d bytes (%.2f x v1)", span, n1, b1, n2, b2, float64(b2)/float64(b1))
	if n2 < span/12 || n2 > span/12+2 {
		t.Errorf("v2: %d snapshots in %d ticks, want about %d (every 12 ticks, 7.9), not %d (every snapshot tick)", n2, span, span/12, span/3)
	}
	if 2*b2 > b1 {
		t.Errorf("v2: %d bytes, v1 %d: want at most half", b2, b1)
	}
	for i := 1; i < len(o2.snaps); i++ {
		if gap := o2.snaps[i].tick - o2.snaps[i-1].tick; gap > 12 && o2.snaps[i].tick != o2.snaps[i-1].tick {
			t.Errorf("v2: %d ticks between the snapshots of ticks %d and %d, want at most 12", gap, o2.snaps[i-1].tick, o2.snaps[i].tick)
		}
	}
	// Fire: each new missile is a record, so the snapshot of the first
	// snapshot tick from its Spawn on is sent, and carries it.
	v2[1].actions = wire.ActionFire
	from, snaps := len(o2.events), len(o2.snaps)
	// settledMissiles returns the missiles spawned since from whose
	// snapshot tick is past (their snapshot came, or never will).
	settledMissiles := func() []wire.Event {
		var out []wire.Event
		for _, ev := range o2.events[from:] {
			if ev.Type != wire.EventSpawn || ev.Kind != wire.KindPlayerMissile {
				continue
			}
			if due := (ev.Tick + 2) / 3 * 3; due+3 <= o2.lastSnap().tick {
				out = append(out, ev)
			}
		}
		return out
	}
	playUntil(t, "3 missiles past their snapshot tick", pumps, func() bool { return len(settledMissiles()) >= 3 })
	missiles := settledMissiles()
	t.Logf("one ship firing: v2 %d snapshots for %d missiles", len(o2.snaps)-snaps, len(missiles))
	for _, ev := range missiles {
		due := (ev.Tick + 2) / 3 * 3
		found := false
		for i := range o2.snaps {
			if sn := &o2.snaps[i]; sn.tick == due {
				_, found = sn.entity(ev.ID)
			}
		}
		if !found {
			t.Errorf("missile %#x spawned at tick %d: no snapshot of tick %d with it", ev.ID, ev.Tick, due)
		}
	}
}
