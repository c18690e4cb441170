package stage_test

import (
	"os"
	"testing"

	"rtype/sim/stage"
)

// FuzzParse: Parse never panics, never hangs, and what it accepts keeps
// the promises of Stage: entries in time order within the length, within
// the limits, ending with the one end boss; warps to its markers work;
// its terrain within its limits, every column with its passage.
func FuzzParse(f *testing.F) {
	for _, n := range stage.Names() {
		src, err := os.ReadFile("stages/" + n + ".stage")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(head + "at 1s wave enemy=slave formation=v count=5 drop=bit@last\nat 2s boss\n"))
	f.Add([]byte(head + "at 1s terrain length=600px floor=80..160 ceiling=40\nat +10px terrain length=40 block=300..360\nat 2s boss\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		st, err := stage.Parse("f.stage", src)
		if err != nil {
			if st != nil {
				t.Fatal("a stage with an error")
			}
			if _, ok := err.(*stage.Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if len(st.Terrain) > stage.MaxColumns {
			t.Fatalf("%d terrain columns", len(st.Terrain))
		}
		for i, c := range st.Terrain {
			if int(c.Ceil)+int(c.Floor) > stage.AreaH-stage.MinPassage || c.BlockBot != 0 && c.BlockTop >= c.BlockBot || c.BlockBot > stage.AreaH {
				t.Fatalf("terrain column %d: %+v", i, c)
			}
		}
		for _, d := range []float64{-1e9, 0, 1234.5, float64(len(st.Terrain) * stage.TileW), 1e12} {
			st.Solid(d, 0, 0, stage.AreaW, stage.AreaH)
			st.Edges(d, -100, stage.AreaW+100)
		}
		n := len(st.Entries)
		if n == 0 || n > stage.MaxEntries || st.Entries[n-1].Kind != stage.EntryBoss {
			t.Fatalf("%d entries, last %v", n, st.Entries[n-1].Kind)
		}
		for i, e := range st.Entries {
			if e.Tick > st.Length || i > 0 && e.Tick < st.Entries[i-1].Tick {
				t.Fatalf("entry %d at %d: out of order or past %d", i, e.Tick, st.Length)
			}
			if e.Kind == stage.EntryBoss && i != n-1 {
				t.Fatalf("a boss at entry %d of %d", i, n)
			}
			if e.Kind == stage.EntryWave {
				w := &e.Wave
				if w.Count < 1 || w.Count > stage.MaxCount || w.HP < 1 || w.Speed < 0 {
					t.Fatalf("wave %+v", w)
				}
				for _, p := range []int{1, 4} {
					if s := w.Scale(p, 3); s.Count < 1 || s.Count > stage.MaxCount || s.HP < 1 || s.Fire != 0 && s.Fire < stage.MinFire {
						t.Fatalf("scaled %+v", s)
					}
				}
			}
			if e.Kind != stage.EntryWave && e.Kind != stage.EntryMusic {
				if j, tick, err := st.Warp(e.Name); err != nil || tick != e.Tick || st.Entries[j].Name != e.Name {
					t.Fatalf("Warp(%q) = %d, %d, %v", e.Name, j, tick, err)
				}
			}
		}
	})
}
