package wire

import (
	"math/rand/v2"
	"slices"
	"testing"

	"rtype/internal/testutil"
)

// insertionSortRecords is the former sortRecords, quadratic within an
// index: the reference that the O(n log n) one must agree with.
func insertionSortRecords(recs []Record) {
	for k := 1; k < len(recs); k++ {
		for m := k; m > 0 && EntityOrder(recs[m].ID) < EntityOrder(recs[m-1].ID); m-- {
			recs[m], recs[m-1] = recs[m-1], recs[m]
		}
	}
}

// shuffledRecords returns records as Decode may return them from a
// hostile server: non-decreasing indices, no id twice, the generations of
// each index in any order, some indices with all 256; and a base holding
// every id that an updated or removed record names.
func shuffledRecords(rng *rand.Rand, n int) (recs []Record, base []Entity) {
	index := uint32(rng.IntN(100))
	for len(recs) < n {
		index += uint32(rng.IntN(3)) + 1
		k := 1 + rng.IntN(8)
		if rng.IntN(4) == 0 {
			k = 256
		}
		for _, g := range rng.Perm(256)[:min(k, n-len(recs))] {
			e := Entity{ID: MakeID(index, uint8(g)), Kind: uint8(rng.IntN(5))}
			for f := range e.F {
				e.F[f] = rng.Int32N(1000)
			}
			rec := Record{Change: Change(rng.IntN(3)), Entity: e}
			if rec.Change == Updated {
				rec.Fields = uint8(1 + rng.IntN(15))
			}
			if rec.Change != Added {
				old := e
				old.F[0]++
				base = append(base, old)
			}
			recs = append(recs, rec)
		}
	}
	slices.SortFunc(base, func(a, b Entity) int { return int(EntityOrder(a.ID)) - int(EntityOrder(b.ID)) })
	return recs, base
}

// sortRecords orders records exactly as the insertion sort it replaced,
// and ApplyRecords rebuilds exactly the same world from them, whatever the
// order of the generations within an index.
func TestSortRecordsAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		recs, base := shuffledRecords(rng, 1+rng.IntN(600))
		want := slices.Clone(recs)
		insertionSortRecords(want)
		got := slices.Clone(recs)
		SortRecords(got, func(r *Record) uint32 { return r.ID })
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %d records sorted differently", trial, len(recs))
		}
		wantWorld, wantErr := ApplyRecords(nil, base, want) // already in order: no sort
		gotWorld, gotErr := ApplyRecords(nil, base, slices.Clone(recs))
		if gotErr != wantErr || !slices.Equal(gotWorld, wantWorld) {
			t.Fatalf("trial %d: ApplyRecords = %d entities, %v; want %d, %v",
				trial, len(gotWorld), gotErr, len(wantWorld), wantErr)
		}
	}
}

// reversedRecords is the worst case of the insertion sort in one datagram:
// the 256 generations of two indices, each in decreasing order (removed
// records of 18 bits: 512 fit in a datagram).
func reversedRecords() (recs []Record, base []Entity) {
	for index := uint32(1); index <= 2; index++ {
		for g := 255; g >= 0; g-- {
			id := MakeID(index, uint8(g))
			recs = append(recs, Record{Change: Removed, Entity: Entity{ID: id}})
			base = append(base, Entity{ID: id})
		}
	}
	slices.Reverse(base[:256])
	slices.Reverse(base[256:])
	return recs, base
}

// Sorting a hostile datagram's records allocates nothing.
func TestApplyRecordsShuffledNoAllocs(t *testing.T) {
	orig, base := reversedRecords()
	recs := slices.Clone(orig)
	dst := make([]Entity, 0, len(base))
	testutil.NoAllocs(t, 100, "ApplyRecords of reversed generations", func() {
		copy(recs, orig)
		var err error
		if dst, err = ApplyRecords(dst[:0], base, recs); err != nil || len(dst) != 0 {
			t.Fatalf("ApplyRecords = %d entities, %v; want none left", len(dst), err)
		}
	})
}

// BenchmarkApplyRecordsReversed is ApplyRecords on the worst case of the
// former insertion sort (reversedRecords); BenchmarkSortRecordsInsertion
// is that sort alone on the same records, for comparison.
func BenchmarkApplyRecordsReversed(b *testing.B) {
	orig, base := reversedRecords()
	recs := slices.Clone(orig)
	dst := make([]Entity, 0, len(base))
	b.ReportAllocs()
	for b.Loop() {
		copy(recs, orig)
		var err error
		if dst, err = ApplyRecords(dst[:0], base, recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(orig)), "records/op")
}

func BenchmarkSortRecordsInsertion(b *testing.B) {
	orig, _ := reversedRecords()
	recs := slices.Clone(orig)
	b.ReportAllocs()
	for b.Loop() {
		copy(recs, orig)
		insertionSortRecords(recs)
	}
	b.ReportMetric(float64(len(orig)), "records/op")
}
