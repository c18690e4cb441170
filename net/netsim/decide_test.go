package netsim

import (
	"testing"
	"time"
)

func TestDecideDeterministic(t *testing.T) {
	im := Impairment{Loss: 0.2, Dup: 0.1, Reorder: 0.05, Delay: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}
	seq := func(seed int64, dir dirIndex, idx uint64) []decision {
		rng := newRNG(seed, dir, idx)
		out := make([]decision, 2000)
		for i := range out {
			out[i] = decide(rng, &im)
		}
		return out
	}
	equal := func(a, b []decision) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	base := seq(1, dirUp, 0)
	if !equal(base, seq(1, dirUp, 0)) {
		t.Fatal("same seed, direction and client gave different decisions")
	}
	for name, other := range map[string][]decision{
		"seed":      seq(2, dirUp, 0),
		"direction": seq(1, dirDown, 0),
		"client":    seq(1, dirUp, 1),
	} {
		if equal(base, other) {
			t.Errorf("changing the %s did not change the decisions", name)
		}
	}
}

// TestDecideFixedConsumption checks that the decision for the n-th datagram
// does not depend on the outcomes of earlier ones: each decision consumes the
// same number of random values, so changing only Dup keeps the drop pattern.
func TestDecideFixedConsumption(t *testing.T) {
	a, b := newRNG(9, dirUp, 0), newRNG(9, dirUp, 0)
	ia := Impairment{Loss: 0.3}
	ib := Impairment{Loss: 0.3, Dup: 0.5, Reorder: 0.5, Jitter: time.Millisecond}
	for i := range 1000 {
		if da, db := decide(a, &ia), decide(b, &ib); da.drop != db.drop {
			t.Fatalf("datagram %d: drop differs when only dup/reorder/jitter changed", i)
		}
	}
}

func TestDecideDistribution(t *testing.T) {
	im := Impairment{Loss: 0.2, Dup: 0.1, Reorder: 0.05, Delay: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}
	rng := newRNG(123, dirUp, 0)
	const n = 100000
	var drops, dups, reorders int
	for range n {
		d := decide(rng, &im)
		if d.drop {
			drops++
			continue
		}
		if d.dup {
			dups++
		}
		hold := time.Duration(0)
		if d.reorder {
			reorders++
			hold = reorderHold(&im)
		}
		for _, dl := range d.delay {
			if dl < im.Delay-im.Jitter+hold || dl > im.Delay+im.Jitter+hold {
				t.Fatalf("delay %v outside [%v, %v] (+hold %v)", dl, im.Delay-im.Jitter, im.Delay+im.Jitter, hold)
			}
		}
	}
	kept := n - drops
	check := func(name string, got, total int, p float64) {
		if f := float64(got) / float64(total); f < p*0.9 || f > p*1.1 {
			t.Errorf("%s fraction %.4f, want %.3f +/- 10%%", name, f, p)
		}
	}
	check("loss", drops, n, im.Loss)
	check("dup", dups, kept, im.Dup)
	check("reorder", reorders, kept, im.Reorder)
}

func TestDecideExtremes(t *testing.T) {
	rng := newRNG(0, dirUp, 0)
	all := Impairment{Loss: 1}
	none := Impairment{}
	big := Impairment{Jitter: time.Second} // delay clamped at 0
	for range 10000 {
		if !decide(rng, &all).drop {
			t.Fatal("Loss=1 did not drop")
		}
		d := decide(rng, &none)
		if d.drop || d.dup || d.reorder || d.delay != [2]time.Duration{} {
			t.Fatalf("zero impairment gave %+v", d)
		}
		if d := decide(rng, &big); d.delay[0] < 0 || d.delay[1] < 0 {
			t.Fatalf("negative delay %v", d.delay)
		}
	}
}

func TestPacketHeapOrder(t *testing.T) {
	var h packetHeap
	rng := newRNG(4, dirUp, 0)
	for i := range 1000 {
		h.push(packet{due: time.Duration(rng.IntN(50)), seq: uint64(i)})
	}
	prev := packet{due: -1}
	for len(h) > 0 {
		p := h.pop()
		if p.before(&prev) {
			t.Fatalf("heap popped %+v after %+v", p, prev)
		}
		prev = p
	}
}
