package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRecord: whatever a caller gives Record, it either refuses it with
// an error that names the score, or stores it so that the same name,
// stage and score come back, byte for byte.
func FuzzRecord(f *testing.F) {
	f.Add("Ripley", false, "", uint32(1200), 2)
	f.Add("Dallas", true, "1", uint32(0), 1)
	f.Add("a\x00b", true, "st\x00ge", uint32(1<<32-1), 4)
	f.Add("", false, "", uint32(1), 1)
	f.Add("é\u202e文字", true, "🚀", uint32(7), 64)
	s, err := Open(filepath.Join(f.TempDir(), "scores.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	// Speed over durability: the fuzzer checks values, not the disk.
	if _, err := s.db.Exec("PRAGMA synchronous = OFF"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string, stageMode bool, stage string, score uint32, players int) {
		sc := Score{Name: name, Mode: ModeClassic, Stage: stage, Score: score, Players: players}
		if stageMode {
			sc.Mode = ModeStage
		}
		err := s.Record(context.Background(), []Score{sc})
		if err != nil {
			if !strings.Contains(err.Error(), "score 0") {
				t.Fatalf("Record(%+v): %v, want an error naming score 0", sc, err)
			}
			if sc.check() == nil {
				t.Fatalf("Record refused a valid score %+v: %v", sc, err)
			}
			return
		}
		var got Score
		var sv int64
		if err := s.db.QueryRow("SELECT name, mode, stage, score, players FROM scores ORDER BY id DESC LIMIT 1").
			Scan(&got.Name, &got.Mode, &got.Stage, &sv, &got.Players); err != nil {
			t.Fatal(err)
		}
		got.Score = uint32(sv)
		if got.Name != sc.Name || got.Mode != sc.Mode || got.Stage != sc.Stage || got.Score != sc.Score || got.Players != sc.Players {
			t.Fatalf("recorded %+v, read back %+v", sc, got)
		}
	})
}
