package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// version returns the schema version of the file.
func version(t testing.TB, s *Store) int {
	t.Helper()
	var v int
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// schema returns the file's tables, columns and indexes, sorted, so that a
// migrated file can be compared with a new one.
func schema(t testing.TB, path string) string {
	t.Helper()
	db := rawOpen(t, path)
	rows, err := db.Query(`SELECT m.type, m.name, COALESCE(p.name, ''), COALESCE(p.type, ''), COALESCE(p."notnull", 0), COALESCE(p.dflt_value, '')
		FROM sqlite_schema m LEFT JOIN pragma_table_info(m.name) p
		WHERE m.name NOT LIKE 'sqlite_%' ORDER BY m.type, m.name, p.name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, col, ctype, dflt string
		var notnull int
		if err := rows.Scan(&typ, &name, &col, &ctype, &notnull, &dflt); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s %s %d %s\n", typ, name, col, ctype, notnull, dflt)
	}
	var idx []string
	irows, err := db.Query(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer irows.Close()
	for irows.Next() {
		var name, sql string
		irows.Scan(&name, &sql)
		idx = append(idx, name+": "+strings.Join(strings.Fields(sql), " "))
	}
	return b.String() + strings.Join(idx, "\n")
}

// makeVersion makes a database file at schema version v, as the program
// of that version left it, with one score of its shape when v > 0.
func makeVersion(t testing.TB, path string, v int) {
	t.Helper()
	db, err := openDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := migrate(context.Background(), db, v); err != nil {
		t.Fatal(err)
	}
	switch v {
	case 0:
	case 1:
		_, err = db.Exec(`INSERT INTO scores (name, mode, score, players, finished_at) VALUES ('Ripley', 'classic', 1200, 2, ?)`,
			time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC).UnixMilli())
	default:
		_, err = db.Exec(`INSERT INTO scores (name, mode, stage, score, players, finished_at) VALUES ('Ripley', 'classic', '', 1200, 2, ?)`,
			time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC).UnixMilli())
	}
	if err != nil {
		t.Fatalf("a score of version %d: %v", v, err)
	}
}

// Open brings a file of every older version, the empty one included, to
// the current schema, identical to a new file's, and keeps its scores.
func TestMigrateFromEveryVersion(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.db")
	s, err := Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if v := version(t, s); v != len(migrations) {
		t.Fatalf("a new file has schema version %d, want %d", v, len(migrations))
	}
	s.Close()
	want := schema(t, fresh)
	if !strings.Contains(want, "table scores stage TEXT 1 ''") {
		t.Fatalf("the new schema lacks the stage column:\n%s", want)
	}
	for v := 0; v <= len(migrations); v++ {
		t.Run(fmt.Sprintf("from%d", v), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("v%d.db", v))
			makeVersion(t, path, v)
			s, err := Open(path)
			if err != nil {
				t.Fatalf("Open of a version %d file: %v", v, err)
			}
			defer s.Close()
			if got := version(t, s); got != len(migrations) {
				t.Errorf("version %d after Open, want %d", got, len(migrations))
			}
			es, err := s.Top(context.Background(), ModeClassic, "", time.Time{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if v > 0 && (len(es) != 1 || es[0].Name != "Ripley" || es[0].Score != 1200 || es[0].Players != 2) {
				t.Errorf("the score of version %d after migrating: %+v", v, es)
			}
			if v == 0 && len(es) != 0 {
				t.Errorf("an empty file has scores: %+v", es)
			}
			// And it takes new scores.
			if err := s.Record(context.Background(), []Score{{Name: "Hicks", Mode: ModeStage, Stage: "1", Score: 1, Players: 1}}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if got := schema(t, path); got != want {
				t.Errorf("schema migrated from version %d:\n%s\nwant, as a new file's:\n%s", v, got, want)
			}
		})
	}
}

// A migration that fails leaves the file as it was: one transaction.
func TestMigrationIsOneTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scores.db")
	makeVersion(t, path, 1)
	db, err := openDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Version 2 adds the stage column: with it there already, the step
	// fails after its first statements would have run.
	if _, err := db.Exec(`CREATE INDEX scores_board_time ON scores (mode)`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(context.Background(), db, len(migrations)); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("migrate over a clashing index: %v, want an error of version 2", err)
	}
	var v, hasStage int
	db.QueryRow("PRAGMA user_version").Scan(&v)
	db.QueryRow("SELECT COUNT(*) FROM pragma_table_info('scores') WHERE name = 'stage'").Scan(&hasStage)
	if v != 1 || hasStage != 0 {
		t.Errorf("after a failed migration: version %d, stage column %d; want 1 and none", v, hasStage)
	}
}

// A file of a newer schema than the program's is refused, untouched.
func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scores.db")
	makeVersion(t, path, len(migrations))
	db := rawOpen(t, path)
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations)+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), "scores.db") {
		t.Fatalf("Open of a newer file: %v, want an error saying it is newer", err)
	}
}
