package store

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRecord records one 4-player game per op: the cost of the
// durable commit a GameOver waits for (synchronous=FULL, the Store's), and
// beside it what NORMAL would cost (durable against a killed process, not
// against a power cut), to show what FULL's fsync adds. The file is in
// the test's temporary directory: run it on the disk the server uses.
func BenchmarkRecord(b *testing.B) {
	for _, sync := range []string{"FULL", "NORMAL"} {
		b.Run("sync="+sync, func(b *testing.B) {
			s := openTemp(b)
			if sync != "FULL" {
				if _, err := s.db.Exec("PRAGMA synchronous = " + sync); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			game := []Score{
				{Name: "Ripley", Mode: ModeClassic, Score: 12300, Players: 4},
				{Name: "Hicks", Mode: ModeClassic, Score: 8800, Players: 4},
				{Name: "Vasquez", Mode: ModeClassic, Score: 9100, Players: 4},
				{Name: "Bishop", Mode: ModeClassic, Score: 400, Players: 4},
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := s.Record(ctx, game); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTop reads the top 10 of a board of 100 000 scores, one a minute
// for the last 69 days: all time, and this week.
func BenchmarkTop(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	if _, err := s.db.Exec("PRAGMA synchronous = OFF"); err != nil { // only to fill it fast
		b.Fatal(err)
	}
	start := time.Now().Add(-100000 * time.Minute) // one a minute until now
	batch := make([]Score, MaxBatch)
	for i := 0; i < 100000; i += len(batch) {
		for j := range batch {
			k := i + j
			batch[j] = Score{Name: "Bot", Mode: ModeClassic, Score: uint32(k * 7919 % 100000), Players: 1,
				FinishedAt: start.Add(time.Duration(k) * time.Minute)}
		}
		if err := s.Record(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		since time.Time
	}{{"alltime", time.Time{}}, {"week", WeekStart(time.Now())}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				es, err := s.Top(ctx, ModeClassic, "", c.since, 10)
				if err != nil || len(es) == 0 {
					b.Fatal(len(es), err)
				}
			}
		})
	}
}
