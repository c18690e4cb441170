package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil/pgtest"
)

var pg pgtest.Shared // the PostgreSQL server of the package's tests

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

// A backend is a kind of database the suite runs on: newDSN returns what
// Open takes to open a new, empty database of it, for the test's own use.
type backend struct {
	name   string
	newDSN func(t testing.TB) string
}

// sqliteBackend gives each test a file in its temporary directory.
func sqliteBackend() backend {
	return backend{"SQLite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "scores.db") }}
}

// postgresBackend gives each test a schema of its own in the package's
// PostgreSQL server, started by the first test that needs it.
func postgresBackend(t testing.TB) backend {
	return backend{"PostgreSQL", pg.Get(t).NewSchema}
}

// suite is the tests every backend passes.
var suite = []struct {
	name string
	test func(t *testing.T, b backend)
}{
	{"RecordAndTop", testRecordAndTop},
	{"TopIsBounded", testTopIsBounded},
	{"RecordRefusesBadScores", testRecordRefusesBadScores},
	{"RecordKeyedOnce", testRecordKeyedOnce},
	{"RoundTrip", testRoundTrip},
	{"TwoStoresOneDatabase", testTwoStoresOneDatabase},
	{"ConcurrentOpensMigrateOnce", testConcurrentOpensMigrateOnce},
	{"MigrateFromEveryVersion", testMigrateFromEveryVersion},
	{"MigrationIsOneTransaction", testMigrationIsOneTransaction},
	{"OpenRefusesNewerSchema", testOpenRefusesNewerSchema},
	{"BansPersist", testBansPersist},
	{"AddBanRefuses", testAddBanRefuses},
	{"MigrateAddsBans", testMigrateAddsBans},
}

func runSuite(t *testing.T, b backend) {
	for _, c := range suite {
		t.Run(c.name, func(t *testing.T) { c.test(t, b) })
	}
}

func TestSQLite(t *testing.T)   { runSuite(t, sqliteBackend()) }
func TestPostgres(t *testing.T) { runSuite(t, postgresBackend(t)) }

// openNew opens a new database of b, closed when the test ends.
func openNew(t testing.TB, b backend) *Store {
	t.Helper()
	s, err := Open(b.newDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openTemp opens a new SQLite file.
func openTemp(t testing.TB) *Store { return openNew(t, sqliteBackend()) }

// pragma reads a PRAGMA through a connection of the Store's.
func (s *Store) pragma(t testing.TB, name string) string {
	t.Helper()
	var v string
	if err := s.db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

// rawOpen opens the file with no settings of ours, as another program
// (the sqlite3 shell) would.
func rawOpen(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestWALAndFullSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scores.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.pragma(t, "journal_mode"); got != "wal" {
		t.Errorf("journal_mode %q, want wal", got)
	}
	if got := s.pragma(t, "synchronous"); got != "2" { // FULL
		t.Errorf("synchronous %s, want 2 (FULL)", got)
	}
	if err := s.Record(context.Background(), []Score{{Name: "Ripley", Mode: ModeClassic, Score: 1, Players: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Errorf("no write-ahead log next to the database while open: %v", err)
	}
	s.Close()
	// WAL is a property of the file: another program sees it.
	var mode string
	if err := rawOpen(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("the file's journal mode %q (%v), want wal", mode, err)
	}
}

func testRecordAndTop(t *testing.T, b backend) {
	s := openNew(t, b)
	ctx := context.Background()
	now := time.Now().UTC()
	week := WeekStart(now)
	old := week.Add(-72 * time.Hour)
	games := [][]Score{
		{{Name: "Ripley", Score: 900, Players: 2, FinishedAt: old}, {Name: "Hicks", Score: 300, Players: 2, FinishedAt: old}},
		{{Name: "Vasquez", Score: 500, Players: 1, FinishedAt: week.Add(time.Minute)}},
		{{Name: "Ripley", Score: 500, Players: 1, FinishedAt: week.Add(2 * time.Minute)}},
		{{Name: "Bishop", Score: 700, Players: 1}}, // now
	}
	for _, g := range games {
		for i := range g {
			g[i].Mode = ModeClassic
		}
		if err := s.Record(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Record(ctx, []Score{{Name: "Dallas", Mode: ModeStage, Stage: "1", Score: 5000, Players: 1}}); err != nil {
		t.Fatal(err)
	}
	str := func(es []Entry) string {
		var b strings.Builder
		for _, e := range es {
			b.WriteString(e.Name)
			b.WriteByte(' ')
		}
		return strings.TrimSpace(b.String())
	}
	all, err := s.Top(ctx, ModeClassic, "", time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Ties: the first to finish ranks first.
	if got, want := str(all), "Ripley Bishop Vasquez Ripley Hicks"; got != want {
		t.Errorf("all time: %s, want %s", got, want)
	}
	for i, e := range all {
		if e.Rank != i+1 {
			t.Errorf("entry %d has rank %d", i, e.Rank)
		}
	}
	if e := all[0]; e.Score != 900 || e.Players != 2 || !e.FinishedAt.Equal(old.Truncate(time.Millisecond)) || e.FinishedAt.Location() != time.UTC {
		t.Errorf("best entry %+v, want 900 points by 2 players at %v UTC", e, old)
	}
	if e := all[1]; e.FinishedAt.Before(now.Add(-time.Minute)) || e.FinishedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("a score without a time got %v, want about %v", e.FinishedAt, now)
	}
	wk, err := s.Top(ctx, ModeClassic, "", week, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := str(wk), "Bishop Vasquez Ripley"; got != want {
		t.Errorf("this week: %s, want %s", got, want)
	}
	two, _ := s.Top(ctx, ModeClassic, "", time.Time{}, 2)
	if got, want := str(two), "Ripley Bishop"; got != want {
		t.Errorf("top 2: %s, want %s", got, want)
	}
	st, _ := s.Top(ctx, ModeStage, "1", time.Time{}, 10)
	if got := str(st); got != "Dallas" {
		t.Errorf("stage 1: %s, want Dallas", got)
	}
	for _, c := range [][2]string{{ModeStage, "2"}, {ModeStage, "1\x00"}, {ModeStage, "\xff"}, {ModeStage, strings.Repeat("1", MaxStage+1)}, {"Stage", "1"}, {"", ""}} {
		if none, err := s.Top(ctx, c[0], c[1], time.Time{}, 10); err != nil || len(none) != 0 {
			t.Errorf("Top of %q %q: %v, %v; want no entries, no error", c[0], c[1], none, err)
		}
	}
	boards, err := s.Boards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Board{{ModeClassic, "", 5, 900}, {ModeStage, "1", 1, 5000}}
	if len(boards) != 2 || boards[0] != want[0] || boards[1] != want[1] {
		t.Errorf("boards %+v, want %+v", boards, want)
	}
}

func testTopIsBounded(t *testing.T, b backend) {
	s := openNew(t, b)
	ctx := context.Background()
	batch := make([]Score, MaxBatch)
	for i := range batch {
		batch[i] = Score{Name: "Bot", Mode: ModeClassic, Score: uint32(i), Players: 4}
	}
	for range 2 {
		if err := s.Record(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{-1, 0, 1, MaxTop, MaxTop + 1, 1 << 40} {
		es, err := s.Top(ctx, ModeClassic, "", time.Time{}, n)
		if err != nil {
			t.Fatal(err)
		}
		want := n
		switch {
		case n <= 0:
			want = DefaultTop
		case n > MaxTop:
			want = MaxTop
		}
		if len(es) != want {
			t.Errorf("Top(n=%d) gave %d entries, want %d", n, len(es), want)
		}
	}
}

func testRecordRefusesBadScores(t *testing.T, b backend) {
	s := openNew(t, b)
	ctx := context.Background()
	good := Score{Name: "Ripley", Mode: ModeClassic, Score: 10, Players: 1}
	bad := map[string]func(*Score){
		"no name":          func(sc *Score) { sc.Name = "" },
		"long name":        func(sc *Score) { sc.Name = strings.Repeat("é", MaxName+1) },
		"bad UTF-8":        func(sc *Score) { sc.Name = "a\xffb" },
		"NUL in the name":  func(sc *Score) { sc.Name = "a\x00b" },
		"NUL in the stage": func(sc *Score) { sc.Mode, sc.Stage = ModeStage, "1\x00" },
		"unknown mode":     func(sc *Score) { sc.Mode = "deathmatch" },
		"classic stage":    func(sc *Score) { sc.Stage = "1" },
		"long stage":       func(sc *Score) { sc.Mode, sc.Stage = ModeStage, strings.Repeat("s", MaxStage+1) },
		"no players":       func(sc *Score) { sc.Players = 0 },
		"too many players": func(sc *Score) { sc.Players = MaxPlayers + 1 },
		"long key":         func(sc *Score) { sc.Key = strings.Repeat("k", MaxKey+1) },
		"NUL in the key":   func(sc *Score) { sc.Key = "k\x00" },
		"bad UTF-8 key":    func(sc *Score) { sc.Key = "k\xff" },
	}
	for what, spoil := range bad {
		sc := good
		spoil(&sc)
		// The good score before it is not recorded either: one transaction.
		err := s.Record(ctx, []Score{good, sc})
		if err == nil || !strings.Contains(err.Error(), "score 1") {
			t.Errorf("%s: Record gave %v, want an error naming score 1", what, err)
		}
	}
	if err := s.Record(ctx, make([]Score, MaxBatch+1)); err == nil {
		t.Errorf("Record took %d scores", MaxBatch+1)
	}
	if err := s.Record(ctx, nil); err != nil {
		t.Errorf("Record(nil): %v", err)
	}
	if es, _ := s.Top(ctx, ModeClassic, "", time.Time{}, 10); len(es) != 0 {
		t.Errorf("refused scores were recorded: %+v", es)
	}
	long := good
	long.Name = strings.Repeat("é", MaxName)
	if err := s.Record(ctx, []Score{long}); err != nil {
		t.Errorf("a name of %d characters: %v", MaxName, err)
	}
}

// A recording retried (its first try timed out after its commit, say)
// stores a keyed score once; scores without a key every time, and a new
// key of the same batch all the same.
func testRecordKeyedOnce(t *testing.T, b backend) {
	s := openNew(t, b)
	ctx := context.Background()
	at := time.UnixMilli(1_700_000_000_000).UTC()
	keyed := Score{Name: "Ripley", Mode: ModeClassic, Score: 30, Players: 2, FinishedAt: at, Key: "game-1/0"}
	bare := Score{Name: "Hicks", Mode: ModeClassic, Score: 20, Players: 2, FinishedAt: at}
	for range 2 {
		if err := s.Record(ctx, []Score{keyed, bare}); err != nil {
			t.Fatal(err)
		}
	}
	other := keyed
	other.Key, other.Name = "game-1/1", "Vasquez"
	if err := s.Record(ctx, []Score{keyed, other}); err != nil {
		t.Fatal(err)
	}
	es, err := s.Top(ctx, ModeClassic, "", time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
	}
	if got, want := strings.Join(names, " "), "Ripley Vasquez Hicks Hicks"; got != want {
		t.Errorf("leaderboard %q, want %q", got, want)
	}
	long := keyed
	long.Key = strings.Repeat("é", MaxKey/2)
	if err := s.Record(ctx, []Score{long}); err != nil {
		t.Errorf("a key of %d bytes: %v", MaxKey, err)
	}
}

// Two processes' worth of writers on one database: opening it at once
// migrates it once, and the writers wait for each other (SQLite: the busy
// timeout and the immediate transactions), none fails.
func testTwoStoresOneDatabase(t *testing.T, b backend) {
	dsn := b.newDSN(t)
	var stores [2]*Store
	var wg sync.WaitGroup
	errs := make(chan error, 2*20+2)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(dsn)
			stores[i] = s
			errs <- err
		}()
	}
	wg.Wait()
	for _, s := range stores {
		if s == nil {
			t.Fatal(<-errs)
		}
		defer s.Close()
	}
	for _, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				errs <- s.Record(context.Background(), []Score{{Name: "Ripley", Mode: ModeClassic, Score: 1, Players: 1}})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	bs, err := stores[0].Boards(context.Background())
	if err != nil || len(bs) != 1 || bs[0].Games != 40 {
		t.Fatalf("boards %+v, %v: want 40 classic scores", bs, err)
	}
}

// What comes back is what went in, byte for byte: names and stages of
// every script, the extremes of a score and a player count, times to the
// millisecond far from now.
func testRoundTrip(t *testing.T, b backend) {
	s := openNew(t, b)
	ctx := context.Background()
	cases := []Score{
		{Name: "é\u202e文字", Mode: ModeStage, Stage: "🚀", Score: 1<<32 - 1, Players: MaxPlayers,
			FinishedAt: time.Date(1970, 1, 1, 0, 0, 0, 1e6, time.UTC)},
		{Name: strings.Repeat("𝕏", MaxName), Mode: ModeStage, Stage: strings.Repeat("s", MaxStage), Score: 0, Players: 1,
			FinishedAt: time.Date(2999, 12, 31, 23, 59, 59, 999e6, time.UTC)},
		{Name: "O'Brien \"--", Mode: ModeStage, Stage: "'; DROP TABLE scores; --", Score: 7, Players: 3,
			FinishedAt: time.Date(2026, 11, 30, 18, 0, 0, 123456789, time.FixedZone("CET", 3600))},
	}
	for _, sc := range cases {
		if err := s.Record(ctx, []Score{sc}); err != nil {
			t.Fatalf("Record(%+v): %v", sc, err)
		}
		es, err := s.Top(ctx, sc.Mode, sc.Stage, time.Time{}, 1)
		if err != nil || len(es) != 1 {
			t.Fatalf("Top of %q: %+v, %v", sc.Stage, es, err)
		}
		e := es[0]
		if e.Name != sc.Name || e.Score != sc.Score || e.Players != sc.Players ||
			!e.FinishedAt.Equal(sc.FinishedAt.Truncate(time.Millisecond)) || e.FinishedAt.Location() != time.UTC {
			t.Errorf("recorded %+v, read back %+v", sc, e)
		}
	}
}

func TestWeekStart(t *testing.T) {
	for _, c := range []struct{ at, want string }{
		{"2026-11-30T17:00:00Z", "2026-11-30T00:00:00Z"}, // a Monday
		{"2026-12-06T23:59:59Z", "2026-11-30T00:00:00Z"}, // the Sunday after
		{"2026-12-07T00:00:00Z", "2026-12-07T00:00:00Z"},
		{"2027-01-01T12:00:00Z", "2026-12-28T00:00:00Z"},      // across a year
		{"2026-12-07T01:00:00+02:00", "2026-11-30T00:00:00Z"}, // Sunday 23:00 UTC
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		if got := WeekStart(at).Format(time.RFC3339); got != c.want {
			t.Errorf("WeekStart(%s) = %s, want %s", c.at, got, c.want)
		}
	}
}

func TestOpenErrorsSQLite(t *testing.T) {
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\") worked")
	}
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "no", "such", "dir", "scores.db")); err == nil || !strings.Contains(err.Error(), "scores.db") {
		t.Errorf("Open in a missing directory: %v, want an error naming the file", err)
	}
	// Not a database.
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o600)
	if _, err := Open(junk); err == nil || !strings.Contains(err.Error(), "junk.db") {
		t.Errorf("Open of a text file: %v, want an error naming it", err)
	}
	// Odd characters in the path are a file name, not URI parameters.
	odd := filepath.Join(dir, "a?b#c%20d.db")
	s, err := Open(odd)
	if err != nil {
		t.Fatalf("Open(%q): %v", odd, err)
	}
	s.Close()
	if _, err := os.Stat(odd); err != nil {
		t.Errorf("the database is not at %q: %v", odd, err)
	}
}

func TestDefaultPath(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		t.Skip("the XDG rules are Unix's")
	}
	t.Setenv("XDG_DATA_HOME", "/data/x")
	if p, err := DefaultPath(); err != nil || p != "/data/x/rtype/scores.db" {
		t.Errorf("with XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/ripley")
	if p, err := DefaultPath(); err != nil || p != "/home/ripley/.local/share/rtype/scores.db" {
		t.Errorf("with a relative XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "")
	if p, err := DefaultPath(); err == nil {
		t.Errorf("without a home: %q", p)
	}
}
