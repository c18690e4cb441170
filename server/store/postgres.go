package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// IsPostgres reports whether dsn names a PostgreSQL database for Open: a
// URL whose scheme is postgres or postgresql, in any case.
func IsPostgres(dsn string) bool {
	scheme, _, ok := strings.Cut(dsn, "://")
	return ok && (strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql"))
}

// migrationLock is the key of the advisory lock the migrations of a
// PostgreSQL database take ("rtype" in ASCII). The lock belongs to the
// database: the stores of every schema in it share it, which only makes
// them migrate one after the other.
const migrationLock = 0x7274797065

// postgres is the dialect of a PostgreSQL database. The migration's
// transaction takes a transaction-level advisory lock first (released by
// its commit or rollback, or by the connection's end), then reads the
// version: READ COMMITTED, so that a store that waited for the lock sees
// what the one before it committed. The version is the one row of the
// table schema_version, made by the first migration; an empty database
// has none.
var postgres = &dialect{
	name:      "PostgreSQL",
	steps:     func(m *migration) []string { return m.postgres },
	check:     checkPostgres,
	txOptions: &sql.TxOptions{Isolation: sql.LevelReadCommitted},
	lock: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock))
		return err
	},
	version: func(ctx context.Context, tx *sql.Tx) (int, error) {
		var exists bool
		if err := tx.QueryRowContext(ctx, "SELECT to_regclass('schema_version') IS NOT NULL").Scan(&exists); err != nil || !exists {
			return 0, err
		}
		var v, rows int
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0), COUNT(*) FROM schema_version").Scan(&v, &rows); err != nil {
			return 0, err
		}
		if rows > 1 {
			return 0, fmt.Errorf("the table schema_version has %d rows, want one", rows)
		}
		return v, nil
	},
	setVersion: func(ctx context.Context, tx *sql.Tx, v int) error {
		for _, q := range []string{
			"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
			"DELETE FROM schema_version",
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version) VALUES ($1)", v)
		return err
	},
}

// openPostgres opens a pool of connections to the PostgreSQL database of
// the URL dsn, without connecting yet. The URL takes libpq's parameters
// (sslmode, search_path, ...), and the PG* environment variables and
// ~/.pgpass fill in what it lacks, so that the password need not be on a
// command line. Every connection sets synchronous_commit=on, whatever the
// server's default, so that a commit is durable when it returns.
func openPostgres(dsn string) (*Store, error) {
	where := redact(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %s", where, scrub(err.Error(), dsn))
	}
	cfg.RuntimeParams["synchronous_commit"] = "on"
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "rtype"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	db := stdlib.OpenDB(*cfg)
	// A game's Record and the status page's reads: a few connections are
	// plenty, and a fleet of servers shares the database's limit.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &Store{db: db, d: postgres, where: where}, nil
}

// checkPostgres makes sure the database stores names as they are (UTF-8)
// and that commits are synchronous.
func checkPostgres(ctx context.Context, db *sql.DB, where string) error {
	var enc, sync string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('server_encoding'), current_setting('synchronous_commit')").Scan(&enc, &sync); err != nil {
		return fmt.Errorf("store: open %s: %w", where, err)
	}
	if enc != "UTF8" {
		return fmt.Errorf("store: %s: the database's encoding is %s, not UTF8 (CREATE DATABASE ... ENCODING 'UTF8')", where, enc)
	}
	if sync != "on" && sync != "remote_apply" {
		return fmt.Errorf("store: %s: synchronous_commit is %s, want on (is a connection pooler dropping it?)", where, sync)
	}
	return nil
}

// redact returns the URL dsn without its password, for errors and logs.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		scheme, _, _ := strings.Cut(dsn, "://")
		return scheme + "://(a URL that does not parse)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// scrub removes the password of the URL dsn from msg, an error of the
// driver's: pgx redacts what it can, but is not sure to.
func scrub(msg, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "the URL does not parse" // it may hold the password anywhere
	}
	pw, _ := u.User.Password()
	for _, p := range append(u.Query()["password"], pw) {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}
