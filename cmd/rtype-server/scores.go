package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"rtype/internal/testrules"
	"rtype/net/wire"
	"rtype/server"
	"rtype/server/store"
)

// scoreFlags are the flags of the leaderboard.
type scoreFlags struct {
	db         *string
	board      *bool
	quickDeath *bool
}

// addScoreFlags registers -db, -leaderboard and -test-quick-death.
func addScoreFlags() scoreFlags {
	def, err := store.DefaultPath()
	if err != nil {
		def = ""
	}
	return scoreFlags{
		db: flag.String("db", def, "leaderboard database: an SQLite file (its directory is made if missing), "+
			`or a PostgreSQL URL (postgres://user@host:port/database?sslmode=...; the password from $PGPASSWORD or ~/.pgpass); `+
			`"" for no leaderboard`),
		board: flag.Bool("leaderboard", false, "print the top scores of the -db database per mode and stage, all time and this week, and exit"),
		quickDeath: flag.Bool("test-quick-death", false, "for tests: one life, no invulnerability, foes that fire at once, "+
			"so that an idle ship's game is over within a second"),
	}
}

// open opens the leaderboard of -db, or returns nil for none, and applies
// the test rules; the caller closes the store after the server stopped.
func (f scoreFlags) open(cfg *server.Config, log *slog.Logger) (*store.Store, error) {
	if *f.quickDeath {
		cfg.Rules = testrules.QuickDeath()
	}
	if *f.db == "" {
		log.Warn("no leaderboard: scores are not kept (-db PATH keeps them)")
		return nil, nil
	}
	if !store.IsPostgres(*f.db) {
		if err := os.MkdirAll(filepath.Dir(*f.db), 0o700); err != nil {
			return nil, fmt.Errorf("-db %s: %w", *f.db, err)
		}
	}
	st, err := store.Open(*f.db)
	if err != nil {
		return nil, err
	}
	log.Info("leaderboard", "db", st.Path()) // without a password
	cfg.Leaderboard = st
	cfg.Bans = st // the bans live in the same database
	return st, nil
}

// printLeaderboard prints the leaderboards of the database at path (a
// file, or a PostgreSQL URL) to w: for each mode and stage with scores,
// the top 10 of all time and of this week (since Monday 00:00 UTC). It
// returns the exit status. It makes no SQLite file, but it brings an
// existing database's schema up to date, as the server would.
func printLeaderboard(w, errw io.Writer, path string, now time.Time) int {
	if path == "" {
		fmt.Fprintln(errw, "rtype-server: -leaderboard: no database: give -db PATH")
		return 2
	}
	if !store.IsPostgres(path) {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(errw, "rtype-server: -leaderboard: no database at %s\n", path)
			return 1
		}
	}
	st, err := store.Open(path)
	if err != nil {
		fmt.Fprintf(errw, "rtype-server: -leaderboard: %v\n", err)
		return 1
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	boards, err := st.Boards(ctx)
	if err != nil {
		fmt.Fprintf(errw, "rtype-server: -leaderboard: %v\n", err)
		return 1
	}
	week := store.WeekStart(now)
	fmt.Fprintf(w, "Leaderboard of %s\n", st.Path())
	if len(boards) == 0 {
		fmt.Fprintln(w, "\nno scores yet")
	}
	for _, b := range boards {
		title := b.Mode
		switch b.Stage {
		case "":
		case wire.CampaignBoard:
			title = "campaign"
		default:
			title += " " + b.Stage
		}
		for _, p := range []struct {
			what  string
			since time.Time
		}{{"all time", time.Time{}}, {"this week, since " + week.Format("Mon 2006-01-02") + " UTC", week}} {
			top, err := st.Top(ctx, b.Mode, b.Stage, p.since, store.DefaultTop)
			if err != nil {
				fmt.Fprintf(errw, "rtype-server: -leaderboard: %v\n", err)
				return 1
			}
			fmt.Fprintf(w, "\n%s, %s\n", title, p.what)
			if len(top) == 0 {
				fmt.Fprintln(w, "  no scores")
			}
			for _, e := range top {
				fmt.Fprintf(w, "  %3d. %-20s %10d  %d player(s)  %s\n", e.Rank, e.Name, e.Score, e.Players,
					e.FinishedAt.Format("2006-01-02 15:04 UTC"))
			}
		}
	}
	return 0
}
