package server

import (
	"testing"
	"time"

	"rtype/net/wire"
)

// snapshotBytes plays pump for d and returns the Snapshot datagrams and
// bytes client k got meanwhile.
func snapshotBytes(d time.Duration, pump func(time.Duration), count func() (int, int)) (int, int) {
	n0, b0 := count()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		pump(5 * time.Millisecond)
	}
	n1, b1 := count()
	return n1 - n0, b1 - b0
}

// 7.9: four v2 ships standing still, nothing else alive: a snapshot every
// 200 ms (the inputs' new last_step alone makes none due), at most half
// the bytes of four v1 ships; a new record (a missile) makes the next
// snapshot due at once.
func TestV2SnapshotRate(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s1, s2 := startServer(t, cfg), startServer(t, cfg)
	var v1 []*tclient
	var v2 []*tclient2
	for _, name := range []string{"Alpha", "Bravo", "Charlie", "Delta"} {
		v1 = append(v1, join(t, s1, name))
		v2 = append(v2, join2(t, s2, name))
	}
	pump := func(d time.Duration) {
		for i := range v1 {
			v1[i].pumpUntil(d/8, nil)
			v2[i].pumpUntil(d/8, nil)
		}
	}
	// Settle: every Spawn applied, baselines acknowledged.
	for range 40 {
		pump(10 * time.Millisecond)
	}
	count1 := func() (int, int) {
		b := 0
		for _, s := range v1[0].snaps {
			b += s.size
		}
		return len(v1[0].snaps), b
	}
	count2 := func() (int, int) {
		b := 0
		for _, s := range v2[0].snaps {
			b += s.size
		}
		return len(v2[0].snaps), b
	}
	const d = 2 * time.Second
	n1, b1 := snapshotBytes(d, pump, count1)
	n2, b2 := snapshotBytes(d, pump, count2)
	t.Logf("standing still, %v: v1 %d snapshots, %d bytes; v2 %d snapshots, %d bytes (%.2f x v1)", d, n1, b1, n2, b2, float64(b2)/float64(b1))
	if n2 < 7 || n2 > 13 {
		t.Errorf("v2: %d snapshots in %v, want about 10 (every 200 ms, 7.9)", n2, d)
	}
	if 2*b2 > b1 {
		t.Errorf("v2: %d bytes, v1 %d: want at most half", b2, b1)
	}
	for i := 1; i < len(v2[0].snaps); i++ {
		if gap := v2[0].snaps[i].tick - v2[0].snaps[i-1].tick; gap > 12 && v2[0].snaps[i].tick != v2[0].snaps[i-1].tick {
			t.Errorf("v2: %d ticks between the snapshots of ticks %d and %d, want at most 12", gap, v2[0].snaps[i-1].tick, v2[0].snaps[i].tick)
		}
	}
	// Fire: each new missile is a record, so the snapshot of the first
	// snapshot tick from its Spawn on is sent, and carries it.
	v2[1].actions = wire.ActionFire
	from := len(v2[0].events)
	n2, _ = snapshotBytes(time.Second, pump, count2)
	t.Logf("one ship firing, 1 s: v2 %d snapshots", n2)
	missiles := 0
	for _, ev := range v2[0].events[from:] {
		if ev.Type != wire.EventSpawn || ev.Kind != wire.KindPlayerMissile {
			continue
		}
		due := (ev.Tick + 2) / 3 * 3
		if due+3 > v2[0].lastSnap().tick {
			continue // may still be in flight
		}
		missiles++
		found := false
		for i := range v2[0].snaps {
			if sn := &v2[0].snaps[i]; sn.tick == due {
				_, found = sn.entity(ev.ID)
			}
		}
		if !found {
			t.Errorf("missile %#x spawned at tick %d: no snapshot of tick %d with it", ev.ID, ev.Tick, due)
		}
	}
	t.Logf("%d missiles, each in the snapshot of its first snapshot tick", missiles)
	if missiles < 3 {
		t.Errorf("only %d missiles checked", missiles)
	}
}
