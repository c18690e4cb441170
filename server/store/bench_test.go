package store

import (
	"context"
	"testing"
	"time"
)

// benchBackends runs bench on each backend: SQLite in the test's
// temporary directory, PostgreSQL in the package's throwaway server (its
// cluster also in the temporary directory). Run them on the disk the
// server uses.
func benchBackends(b *testing.B, bench func(b *testing.B, be backend)) {
	b.Run("sqlite", func(b *testing.B) { bench(b, sqliteBackend()) })
	b.Run("postgres", func(b *testing.B) { bench(b, postgresBackend(b)) })
}

// BenchmarkRecord records one 4-player game per op: the cost of the
// durable commit a GameOver waits for. In SQLite, synchronous=FULL (the
// Store's), and beside it what NORMAL would cost (durable against a
// killed process, not against a power cut), to show what FULL's fsync
// adds; in PostgreSQL, synchronous_commit=on (the Store's) over loopback
// TCP.
func BenchmarkRecord(b *testing.B) {
	game := []Score{
		{Name: "Ripley", Mode: ModeClassic, Score: 12300, Players: 4},
		{Name: "Hicks", Mode: ModeClassic, Score: 8800, Players: 4},
		{Name: "Vasquez", Mode: ModeClassic, Score: 9100, Players: 4},
		{Name: "Bishop", Mode: ModeClassic, Score: 400, Players: 4},
	}
	record := func(b *testing.B, s *Store) {
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if err := s.Record(ctx, game); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("sqlite", func(b *testing.B) {
		for _, sync := range []string{"FULL", "NORMAL"} {
			b.Run("sync="+sync, func(b *testing.B) {
				s := openTemp(b)
				if sync != "FULL" {
					if _, err := s.db.Exec("PRAGMA synchronous = " + sync); err != nil {
						b.Fatal(err)
					}
				}
				record(b, s)
			})
		}
	})
	b.Run("postgres", func(b *testing.B) { record(b, openNew(b, postgresBackend(b))) })
}

// BenchmarkTop reads the top 10 of a board of 100 000 scores, one a minute
// for the last 69 days: all time, and this week.
func BenchmarkTop(b *testing.B) {
	benchBackends(b, func(b *testing.B, be backend) {
		s := openNew(b, be)
		ctx := context.Background()
		fill(b, s, 100000)
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
	})
}

// fill records n classic scores, one a minute until now, in one
// transaction (fast, and not what is measured).
func fill(b *testing.B, s *Store, n int) {
	tx, err := s.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	ins, err := tx.Prepare("INSERT INTO scores (name, mode, stage, score, players, finished_at) VALUES ('Bot', 'classic', '', $1, 1, $2)")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now().Add(-time.Duration(n) * time.Minute)
	for k := range n {
		if _, err := ins.Exec(int64(k*7919%100000), start.Add(time.Duration(k)*time.Minute).UnixMilli()); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// PostgreSQL plans with statistics: gather them, as autovacuum would
	// soon after.
	if s.d == postgres {
		if _, err := s.db.Exec("ANALYZE scores"); err != nil {
			b.Fatal(err)
		}
	}
}
