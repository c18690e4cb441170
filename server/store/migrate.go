package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the steps of the schema, in order: migrations[i] takes a
// database from version i to version i+1 (the version is the file's
// PRAGMA user_version; 0 is an empty file). A released step never changes:
// a new schema is a new step at the end.
var migrations = []struct {
	what string
	sql  []string
}{
	{"the scores of Classic games", []string{
		`CREATE TABLE scores (
			id          INTEGER PRIMARY KEY,
			name        TEXT    NOT NULL,
			mode        TEXT    NOT NULL,
			score       INTEGER NOT NULL,
			players     INTEGER NOT NULL,
			finished_at INTEGER NOT NULL -- Unix milliseconds, UTC
		)`,
		`CREATE INDEX scores_mode_score ON scores (mode, score DESC)`,
	}},
	{"stages: a stage name per score, and the indexes of Top by stage", []string{
		`ALTER TABLE scores ADD COLUMN stage TEXT NOT NULL DEFAULT ''`,
		`DROP INDEX scores_mode_score`,
		// All time: the best scores in index order.
		`CREATE INDEX scores_board_score ON scores (mode, stage, score DESC, finished_at)`,
		// This week: the recent scores of a board, then sorted.
		`CREATE INDEX scores_board_time ON scores (mode, stage, finished_at)`,
	}},
	{"bans: a name or an address refused until a time", []string{
		`CREATE TABLE bans (
			id         INTEGER PRIMARY KEY,
			name       TEXT    NOT NULL DEFAULT '', -- lower case; '' for an address ban
			addr       TEXT    NOT NULL DEFAULT '', -- an IP address; '' for a name ban
			until      INTEGER NOT NULL,            -- Unix milliseconds, UTC
			reason     TEXT    NOT NULL DEFAULT '',
			created_at INTEGER NOT NULL             -- Unix milliseconds, UTC
		)`,
		`CREATE INDEX bans_until ON bans (until)`,
	}},
}

// migrate brings db to schema version to, at most len(migrations), in one
// transaction that takes the write lock first (the DSN's _txlock), so that
// two processes opening a new file at once migrate it once. It returns the
// version the file had, and refuses a file newer than the migrations.
func migrate(ctx context.Context, db *sql.DB, to int) (from int, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&from); err != nil {
		return 0, fmt.Errorf("migrate: read the schema version: %w", err)
	}
	if from > len(migrations) {
		return from, fmt.Errorf("schema version %d is newer than this program's %d: a newer version wrote it", from, len(migrations))
	}
	if from >= to {
		return from, nil
	}
	for v := from; v < to; v++ {
		for _, q := range migrations[v].sql {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return from, fmt.Errorf("migrate to version %d (%s): %w", v+1, migrations[v].what, err)
			}
		}
	}
	// PRAGMA takes no parameters; to is an int of ours.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", to)); err != nil {
		return from, fmt.Errorf("migrate: set the schema version to %d: %w", to, err)
	}
	if err := tx.Commit(); err != nil {
		return from, fmt.Errorf("migrate to version %d: commit: %w", to, err)
	}
	return from, nil
}
