// Package store is the leaderboard that lasts: the final scores of every
// finished game, in an embedded SQLite database file through a pure-Go
// driver (modernc.org/sqlite, so the server builds without cgo), or in a
// PostgreSQL database through pgx, which the servers of a fleet share.
// Open picks the backend by its argument (IsPostgres); both have the same
// API, limits, errors, schema and migrations, and pass the same tests.
//
// Record returns once its transaction is durable. In SQLite the database
// runs in WAL mode with synchronous=FULL: the commit is in the write-ahead
// log and that log is on the disk (fsync), so a recorded score survives
// the process being killed (SIGKILL) and the machine losing power. With
// synchronous=NORMAL, the cheaper setting WAL allows, a commit would
// survive a killed process (the log is in the operating system's cache)
// but not a power cut, the log being synced only at checkpoints. In
// PostgreSQL every connection sets synchronous_commit=on: the commit
// returns once the server flushed its WAL (and, with synchronous standbys
// configured, once they have it). A game ends once: one fsync per game
// over is a small price (BenchmarkRecord measures it), and the server pays
// it off its tick loop.
//
// The schema is versioned: in SQLite in the file's user_version (PRAGMA
// user_version), in PostgreSQL in a one-row table, schema_version. Open
// applies the migrations the database lacks, in order, in one
// transaction, and refuses a database that a newer version wrote. In
// PostgreSQL that transaction first takes an advisory lock, so the servers
// of a fleet starting at once migrate the database once.
//
// The leaderboard is arcade-style: every player of every game is an entry,
// so a name may appear more than once. Names are the players' names as the
// server accepted them (PROTOCOL.md 3.2); there are no accounts.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// The modes of the leaderboard.
const (
	ModeClassic = "classic" // the game of PROTOCOL.md Part I
	ModeStage   = "stage"   // Stage mode (v2); its scores are per board (Score.Stage)
)

// Bounds of what Record and Top accept.
const (
	// MaxName is the longest name recorded, in characters: the server
	// accepts names of 3 to 20 (PROTOCOL.md 3.2).
	MaxName = 32
	// MaxStage is the longest stage name, in bytes (as a Stage event's).
	MaxStage = 64
	// MaxBatch is the most scores one Record takes: a game has at most 4
	// players.
	MaxBatch = 64
	// MaxPlayers is the largest player count of a score.
	MaxPlayers = 64
	// DefaultTop is the number of entries Top returns for n <= 0, MaxTop
	// the most it returns.
	DefaultTop = 10
	MaxTop     = 100
	// MaxBoards is the most boards Boards lists.
	MaxBoards = 100
	// MaxKey is the longest Score.Key, in bytes.
	MaxKey = 64
)

// Score is one player's score on one board: a finished game's, or a
// stage's (PROTOCOL.md 7.16).
type Score struct {
	// Name is the player's name as the server accepted it: 1 to MaxName
	// characters of valid UTF-8, none of them NUL (U+0000).
	Name string
	// Mode is ModeClassic or ModeStage.
	Mode string
	// Stage is the board's name in ModeStage: a stage's, a stage's later
	// loop's, the campaign's (wire.StageBoard, wire.CampaignBoard); at most
	// MaxStage bytes of UTF-8, no NUL; "" in ModeClassic.
	Stage string
	// Score is the player's score in the game's GameOver, or its points
	// in a stage.
	Score uint32
	// Players is the number of players in the game (its GameOver's, or at
	// the stage's end): 1 to MaxPlayers.
	Players int
	// FinishedAt is when the game or the stage ended; it is stored in
	// UTC, to the millisecond. The zero time means now.
	FinishedAt time.Time
	// Key, when not empty, names this score among all others (at most
	// MaxKey bytes of UTF-8, no NUL): Record stores a score whose key is
	// already stored no second time. A recording retried after an error
	// that leaves its outcome unknown (a timeout, a connection lost around
	// the commit) thus counts the score once. Scores without a key are
	// always stored.
	Key string
}

// Entry is a line of a leaderboard.
type Entry struct {
	Rank       int // 1 for the best score
	Name       string
	Score      uint32
	Players    int
	FinishedAt time.Time // UTC
}

// Board is a leaderboard that has scores: a mode and, in ModeStage, a
// stage.
type Board struct {
	Mode, Stage string
	Games       int    // scores recorded
	Best        uint32 // the best of them
}

// Store is a leaderboard in an SQLite database file or a PostgreSQL
// database (Open). Its methods are safe for concurrent use.
type Store struct {
	db    *sql.DB
	d     *dialect
	where string // the file's path, or the URL without its password
}

// Open opens the leaderboard database of dsn and brings its schema to the
// current version (migrations); close it when done.
//
// A dsn that starts with postgres:// or postgresql:// (IsPostgres) is a
// PostgreSQL database, reached through pgx (postgres.go). Anything else is
// the path of an SQLite file, created if it does not exist (not its
// directory), in WAL mode (sqlite.go).
func Open(dsn string) (*Store, error) {
	s, err := openBackend(dsn)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.d.check(ctx, s.db, s.where); err != nil {
		s.db.Close()
		return nil, err
	}
	if _, err := migrate(ctx, s.db, s.d, len(migrations)); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store: %s: %w", s.where, err)
	}
	return s, nil
}

// openBackend opens the database of dsn, as Open says, without checking
// or migrating it.
func openBackend(dsn string) (*Store, error) {
	if IsPostgres(dsn) {
		return openPostgres(dsn)
	}
	return openSQLite(dsn)
}

// Close closes the database; SQLite checkpoints the log into the file.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", s.where, err)
	}
	return nil
}

// Path returns the path the Store was opened with or, of a PostgreSQL
// database, its URL without the password: what its errors name.
func (s *Store) Path() string { return s.where }

// check returns what is wrong with sc, for Record.
func (sc *Score) check() error {
	switch {
	case sc.Name == "" || !utf8.ValidString(sc.Name) || utf8.RuneCountInString(sc.Name) > MaxName:
		return fmt.Errorf("name %q: want 1 to %d characters of UTF-8", sc.Name, MaxName)
	case strings.IndexByte(sc.Name, 0) >= 0:
		return fmt.Errorf("name %q: a NUL character (PostgreSQL's text cannot hold one)", sc.Name)
	case sc.Mode != ModeClassic && sc.Mode != ModeStage:
		return fmt.Errorf("mode %q: want %q or %q", sc.Mode, ModeClassic, ModeStage)
	case sc.Mode == ModeClassic && sc.Stage != "":
		return fmt.Errorf("stage %q in mode %q: a classic score has no stage", sc.Stage, sc.Mode)
	case len(sc.Stage) > MaxStage || !utf8.ValidString(sc.Stage):
		return fmt.Errorf("stage %q: want at most %d bytes of UTF-8", sc.Stage, MaxStage)
	case strings.IndexByte(sc.Stage, 0) >= 0:
		return fmt.Errorf("stage %q: a NUL character (PostgreSQL's text cannot hold one)", sc.Stage)
	case sc.Players < 1 || sc.Players > MaxPlayers:
		return fmt.Errorf("players %d: want 1 to %d", sc.Players, MaxPlayers)
	case len(sc.Key) > MaxKey || !utf8.ValidString(sc.Key) || strings.IndexByte(sc.Key, 0) >= 0:
		return fmt.Errorf("key %q: want at most %d bytes of UTF-8, no NUL", sc.Key, MaxKey)
	}
	return nil
}

// Record stores scores in one transaction: all of them or, with an error,
// none; a score whose Key is already stored is not stored again, so that
// Record may be retried after any error. When it returns nil they are on
// the disk (see the package comment). It refuses more than MaxBatch scores
// and any score that breaks the rules of Score, naming it.
func (s *Store) Record(ctx context.Context, scores []Score) error {
	if len(scores) == 0 {
		return nil
	}
	if len(scores) > MaxBatch {
		return fmt.Errorf("store: record %d scores: at most %d at once", len(scores), MaxBatch)
	}
	for i := range scores {
		if err := scores[i].check(); err != nil {
			return fmt.Errorf("store: record score %d: %w", i, err)
		}
	}
	// One statement: one transaction by itself, and one round trip to
	// a PostgreSQL server.
	var q strings.Builder
	q.WriteString("INSERT INTO scores (name, mode, stage, score, players, finished_at, uid) VALUES ")
	args := make([]any, 0, 7*len(scores))
	now := time.Now()
	for i := range scores {
		sc := &scores[i]
		at := sc.FinishedAt
		if at.IsZero() {
			at = now
		}
		if i > 0 {
			q.WriteString(", ")
		}
		n := len(args)
		fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6, n+7)
		key := sql.NullString{String: sc.Key, Valid: sc.Key != ""} // NULL: no key, never a conflict
		args = append(args, sc.Name, sc.Mode, sc.Stage, int64(sc.Score), sc.Players, at.UnixMilli(), key)
	}
	// Both backends take the upsert clause on the unique index of uid.
	q.WriteString(" ON CONFLICT (uid) DO NOTHING")
	if _, err := s.db.ExecContext(ctx, q.String(), args...); err != nil {
		return fmt.Errorf("store: record %d scores in %s: %w", len(scores), s.where, err)
	}
	return nil
}

// Top returns the best n scores of mode and stage ("" in ModeClassic)
// finished at or after since, best first; the zero since means all time
// (WeekStart gives this week's). Of equal scores, the one finished first
// ranks first. n <= 0 means DefaultTop; n is capped at MaxTop. A mode or
// stage that no score can have (one Record refuses) has no entries.
func (s *Store) Top(ctx context.Context, mode, stage string, since time.Time, n int) ([]Entry, error) {
	if n <= 0 {
		n = DefaultTop
	}
	n = min(n, MaxTop)
	if (mode != ModeClassic && mode != ModeStage) || len(stage) > MaxStage || !utf8.ValidString(stage) || strings.IndexByte(stage, 0) >= 0 {
		// Not asked of the database: PostgreSQL would refuse such a
		// stage with an error, where SQLite finds nothing.
		return []Entry{}, nil
	}
	// Two queries, each with its index (migrations): all time walks the
	// board's scores best first and stops at n; since a time, it takes
	// the board's scores of that time on and sorts them.
	var rows *sql.Rows
	var err error
	if since.IsZero() {
		rows, err = s.db.QueryContext(ctx, `SELECT name, score, players, finished_at FROM scores
			WHERE mode = $1 AND stage = $2
			ORDER BY score DESC, finished_at ASC, id ASC LIMIT $3`, mode, stage, n)
	} else {
		rows, err = s.db.QueryContext(ctx, `SELECT name, score, players, finished_at FROM scores
			WHERE mode = $1 AND stage = $2 AND finished_at >= $3
			ORDER BY score DESC, finished_at ASC, id ASC LIMIT $4`, mode, stage, since.UnixMilli(), n)
	}
	if err != nil {
		return nil, fmt.Errorf("store: top of %s %q in %s: %w", mode, stage, s.where, err)
	}
	defer rows.Close()
	out := make([]Entry, 0, n)
	for rows.Next() {
		var e Entry
		var score, at int64
		if err := rows.Scan(&e.Name, &score, &e.Players, &at); err != nil {
			return nil, fmt.Errorf("store: top of %s %q in %s: %w", mode, stage, s.where, err)
		}
		e.Rank, e.Score, e.FinishedAt = len(out)+1, uint32(score), time.UnixMilli(at).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: top of %s %q in %s: %w", mode, stage, s.where, err)
	}
	return out, nil
}

// Boards lists the leaderboards that have scores, by mode then stage, at
// most MaxBoards of them.
func (s *Store) Boards(ctx context.Context) ([]Board, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT mode, stage, COUNT(*), MAX(score) FROM scores
		GROUP BY mode, stage ORDER BY mode, stage LIMIT $1`, MaxBoards)
	if err != nil {
		return nil, fmt.Errorf("store: boards of %s: %w", s.where, err)
	}
	defer rows.Close()
	var out []Board
	for rows.Next() {
		var b Board
		var best int64
		if err := rows.Scan(&b.Mode, &b.Stage, &b.Games, &best); err != nil {
			return nil, fmt.Errorf("store: boards of %s: %w", s.where, err)
		}
		b.Best = uint32(best)
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: boards of %s: %w", s.where, err)
	}
	return out, nil
}

// WeekStart returns the start of t's week in UTC: the Monday at 00:00, as
// in ISO 8601. Top(ctx, mode, stage, WeekStart(time.Now()), n) is this
// week's leaderboard.
func WeekStart(t time.Time) time.Time {
	t = t.UTC()
	day := (int(t.Weekday()) + 6) % 7 // Monday 0 ... Sunday 6
	y, m, d := t.Date()
	return time.Date(y, m, d-day, 0, 0, 0, 0, time.UTC)
}
