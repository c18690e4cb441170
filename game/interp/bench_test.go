package interp

import (
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
)

// benchHistory is a full history of n moving entities, as a ring: every
// third drawn frame a new snapshot replaces the oldest frame in place, so
// that the history is handed to Update out of order, like a raw ring.
type benchHistory struct {
	frames []client.Frame
	next   int    // slot of the oldest frame, replaced next
	tick   uint32 // tick of the newest frame
}

func newBenchHistory(n int) *benchHistory {
	h := &benchHistory{frames: make([]client.Frame, client.HistoryLen)}
	for i := range h.frames {
		h.frames[i].Entities = make([]client.Entity, n)
	}
	for range client.HistoryLen {
		h.add()
	}
	return h
}

func (h *benchHistory) add() {
	h.tick += 3
	f := &h.frames[h.next]
	h.next = (h.next + 1) % len(h.frames)
	f.Tick = h.tick
	for i := range f.Entities {
		e := &f.Entities[i]
		v := float32(i%50) - 25
		*e = client.Entity{ID: uint32(i + 1), Kind: wire.KindBydosSlave, X: float32(i) + v*float32(h.tick)/60, Y: float32(i), VX: v, Tick: h.tick}
	}
}

// BenchmarkUpdateEntities is one drawn frame at 60 Hz with 300 entities:
// Update then Entities, a snapshot arriving every third frame.
func BenchmarkUpdateEntities(b *testing.B) {
	h := newBenchHistory(300)
	ip := New(Config{})
	now := base
	var dst []Drawn
	for range 120 { // warm up: grow the buffers
		now = now.Add(time.Second / 60)
		ip.Update(h.frames, now)
		dst = ip.Entities(dst)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%3 == 0 {
			h.add()
		}
		now = now.Add(time.Second / 60)
		ip.Update(h.frames, now)
		dst = ip.Entities(dst)
	}
	if len(dst) != 300 {
		b.Fatalf("%d entities drawn", len(dst))
	}
}

// TestUpdateEntitiesAllocs checks the benchmark's claim: no allocation per
// frame in steady state.
func TestUpdateEntitiesAllocs(t *testing.T) {
	h := newBenchHistory(300)
	ip := New(Config{})
	now := base
	var dst []Drawn
	step := func() {
		now = now.Add(time.Second / 60)
		ip.Update(h.frames, now)
		dst = ip.Entities(dst)
	}
	for range 10 {
		step()
	}
	i := 0
	testutil.NoAllocs(t, 300, "a frame of Update and Entities", func() {
		if i%3 == 0 {
			h.add()
		}
		i++
		step()
	})
	if len(dst) != 300 {
		t.Errorf("%d entities drawn", len(dst))
	}
}
