package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// sqlite is the dialect of an SQLite file. Its migration lock is the
// write lock every write transaction takes at BEGIN (openDB's _txlock);
// its schema version is the file's PRAGMA user_version.
var sqlite = &dialect{
	name:  "SQLite",
	steps: func(m *migration) []string { return m.sqlite },
	check: checkWAL,
	lock:  func(context.Context, *sql.Tx) error { return nil },
	version: func(ctx context.Context, tx *sql.Tx) (v int, err error) {
		err = tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
		return v, err
	},
	setVersion: func(ctx context.Context, tx *sql.Tx, v int) error {
		// PRAGMA takes no parameters; v is an int of ours.
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
		return err
	},
}

// openSQLite opens the SQLite file at path, without migrating it.
func openSQLite(path string) (*Store, error) {
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, d: sqlite, where: path}, nil
}

// openDB opens the database/sql handle of the file at path with the
// settings every connection needs: WAL, synchronous=FULL, a busy timeout
// (another process, such as rtype-server -leaderboard, may hold the file
// a moment) and write transactions that take the write lock at BEGIN, so
// that two writers wait for each other instead of failing.
func openDB(path string) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("store: no database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: database path %q: %w", path, err)
	}
	q := url.Values{}
	q.Set("_busy_timeout", "10000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_txlock", "immediate")
	// A file: URI, so that any character of the path (a '?' or a '#') is
	// escaped rather than read as the start of the parameters.
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") { // Windows: C:/x -> /C:/x
		u.Path = "/" + u.Path
	}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	// One connection: every write is serialized anyway, and a query is
	// microseconds on the indexes. It also keeps the per-connection
	// settings above in one place.
	db.SetMaxOpenConns(1)
	return db, nil
}

// checkWAL makes sure the file is in WAL mode: the DSN asks for it, and a
// file system that cannot do it (no shared memory) would silently keep
// the rollback journal.
//
// The connection's first query sets the DSN's pragmas, and switching a new
// file to WAL needs a lock that SQLite does not wait for (its busy timeout
// does not apply): when another process opens the same new file at the
// same moment, the switch fails with SQLITE_BUSY at once. It is tried
// again then, every 20 ms, until ctx is done.
func checkWAL(ctx context.Context, db *sql.DB, path string) error {
	var mode string
	if err := whileBusy(ctx, func() error { return db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode) }); err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("store: %s: journal mode is %q, not WAL (is it on a network file system?)", path, mode)
	}
	return nil
}

// whileBusy calls f until it returns anything but SQLite's SQLITE_BUSY,
// every 20 ms, or until ctx is done. SQLite returns it at once, without its
// busy timeout, where another connection holds a lock it cannot wait for:
// a new file switching to WAL, or the WAL index being rebuilt.
func whileBusy(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}
