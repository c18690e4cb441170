package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// openRaw opens the database of dsn without checking or migrating it,
// closed when the test ends.
func openRaw(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := openBackend(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// version returns the schema version of the database.
func version(t testing.TB, s *Store) int {
	t.Helper()
	tx, err := s.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	v, err := s.d.version(context.Background(), tx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setVersion writes a schema version into the database, as a program of
// that version would.
func setVersion(t testing.TB, s *Store, v int) {
	t.Helper()
	tx, err := s.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := s.d.setVersion(context.Background(), tx, v); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// lines returns the rows of query, each row's columns joined by spaces.
func lines(t testing.TB, s *Store, query string) []string {
	t.Helper()
	rows, err := s.db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if i > 0 {
				b.WriteByte(' ')
			}
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprint(&b, v)
		}
		out = append(out, strings.Join(strings.Fields(b.String()), " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// schema returns the database's tables, columns and indexes in the detail
// of its dialect, sorted, so that a migrated database can be compared
// with a new one of the same backend.
func schema(t testing.TB, s *Store) string {
	t.Helper()
	var out []string
	switch s.d {
	case sqlite:
		out = append(lines(t, s, `SELECT m.type, m.name, COALESCE(p.name, ''), COALESCE(p.type, ''), COALESCE(p."notnull", 0), COALESCE(p.dflt_value, '')
			FROM sqlite_schema m LEFT JOIN pragma_table_info(m.name) p
			WHERE m.name NOT LIKE 'sqlite_%' ORDER BY m.type, m.name, p.name`),
			lines(t, s, `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)...)
	case postgres:
		out = append(lines(t, s, `SELECT table_name, column_name, data_type, is_nullable, COALESCE(column_default, ''), is_identity
			FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`),
			// The schemas of two tests differ by their names.
			lines(t, s, `SELECT indexname, replace(indexdef, current_schema() || '.', '')
			FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname`)...)
	}
	return strings.Join(out, "\n")
}

// shape returns what both backends' schemas must have alike: the tables
// with their columns (SQL type as SQLite's affinity, NOT NULL, default;
// a primary key is NOT NULL, which SQLite's table_info does not say)
// and the indexes with their tables, but for the primary keys and what
// backs a constraint, and the table of PostgreSQL's version.
func shape(t testing.TB, s *Store) string {
	t.Helper()
	var out []string
	switch s.d {
	case sqlite:
		out = append(lines(t, s, `SELECT m.name, p.name, upper(p.type), MAX(p."notnull", p.pk > 0), COALESCE(p.dflt_value, 'none')
			FROM sqlite_schema m JOIN pragma_table_info(m.name) p
			WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.name`),
			lines(t, s, `SELECT 'index', name, tbl_name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)...)
	case postgres:
		cast := regexp.MustCompile(`::[a-z ]+$`) // ''::text is ''
		for _, l := range lines(t, s, `SELECT table_name, column_name,
				CASE WHEN data_type IN ('bigint', 'integer', 'smallint') THEN 'INTEGER' WHEN data_type = 'text' THEN 'TEXT' ELSE data_type END,
				CASE is_nullable WHEN 'NO' THEN 1 ELSE 0 END, COALESCE(column_default, 'none')
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_version'
			ORDER BY table_name, column_name`) {
			out = append(out, cast.ReplaceAllString(l, ""))
		}
		out = append(out, lines(t, s, `SELECT 'index', i.relname, r.relname
			FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class r ON r.oid = x.indrelid
			WHERE r.relnamespace = current_schema()::regnamespace AND NOT x.indisprimary
				AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
			ORDER BY i.relname`)...)
	}
	return strings.Join(out, "\n")
}

// makeVersion makes a database at schema version v in dsn, as the program
// of that version left it, with one score of its shape when v > 0.
func makeVersion(t testing.TB, dsn string, v int) {
	t.Helper()
	s, err := openBackend(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := migrate(context.Background(), s.db, s.d, v); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC).UnixMilli()
	switch v {
	case 0:
	case 1:
		_, err = s.db.Exec(`INSERT INTO scores (name, mode, score, players, finished_at) VALUES ('Ripley', 'classic', 1200, 2, $1)`, at)
	default:
		_, err = s.db.Exec(`INSERT INTO scores (name, mode, stage, score, players, finished_at) VALUES ('Ripley', 'classic', '', 1200, 2, $1)`, at)
	}
	if err != nil {
		t.Fatalf("a score of version %d: %v", v, err)
	}
}

// Every migration has the statements of both backends.
func TestMigrationsHaveBothDialects(t *testing.T) {
	for i, m := range migrations {
		if len(m.sqlite) == 0 || len(m.postgres) == 0 {
			t.Errorf("migration to version %d (%s): %d SQLite statements, %d PostgreSQL ones: want both",
				i+1, m.what, len(m.sqlite), len(m.postgres))
		}
	}
}

// The two backends' new databases have the same tables, columns and
// indexes: a migration written for one but not the other fails here.
func TestSameSchemaBothBackends(t *testing.T) {
	lite, pgs := openTemp(t), openNew(t, postgresBackend(t))
	if a, b := shape(t, lite), shape(t, pgs); a != b {
		t.Errorf("SQLite's schema:\n%s\nPostgreSQL's:\n%s", a, b)
	}
	if !strings.Contains(shape(t, lite), "scores stage TEXT 1 ''") {
		t.Errorf("the shape lacks the stage column:\n%s", shape(t, lite))
	}
}

// Open brings a database of every older version, the empty one included,
// to the current schema, identical to a new one's, and keeps its scores.
func testMigrateFromEveryVersion(t *testing.T, b backend) {
	s, err := Open(b.newDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := version(t, s); v != len(migrations) {
		t.Fatalf("a new database has schema version %d, want %d", v, len(migrations))
	}
	want := schema(t, s)
	if !strings.Contains(want, "stage") {
		t.Fatalf("the new schema lacks the stage column:\n%s", want)
	}
	for v := 0; v <= len(migrations); v++ {
		t.Run(fmt.Sprintf("from%d", v), func(t *testing.T) {
			dsn := b.newDSN(t)
			makeVersion(t, dsn, v)
			s, err := Open(dsn)
			if err != nil {
				t.Fatalf("Open of a version %d database: %v", v, err)
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
				t.Errorf("an empty database has scores: %+v", es)
			}
			// And it takes new scores.
			if err := s.Record(context.Background(), []Score{{Name: "Hicks", Mode: ModeStage, Stage: "1", Score: 1, Players: 1}}); err != nil {
				t.Fatal(err)
			}
			if got := schema(t, s); got != want {
				t.Errorf("schema migrated from version %d:\n%s\nwant, as a new database's:\n%s", v, got, want)
			}
		})
	}
}

// A migration that fails leaves the database as it was: one transaction.
func testMigrationIsOneTransaction(t *testing.T, b backend) {
	dsn := b.newDSN(t)
	makeVersion(t, dsn, 1)
	s := openRaw(t, dsn)
	// Version 2 adds the stage column, then makes this index: with it
	// there already, the step fails after its first statements ran.
	if _, err := s.db.Exec(`CREATE INDEX scores_board_time ON scores (mode)`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(context.Background(), s.db, s.d, len(migrations)); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("migrate over a clashing index: %v, want an error of version 2", err)
	}
	if v := version(t, s); v != 1 {
		t.Errorf("after a failed migration: version %d, want 1", v)
	}
	if _, err := s.db.Exec("SELECT stage FROM scores LIMIT 0"); err == nil {
		t.Error("after a failed migration: the stage column is there")
	}
}

// A database of a newer schema than the program's is refused, untouched.
func testOpenRefusesNewerSchema(t *testing.T, b backend) {
	dsn := b.newDSN(t)
	makeVersion(t, dsn, len(migrations))
	raw := openRaw(t, dsn)
	setVersion(t, raw, len(migrations)+1)
	_, err := Open(dsn)
	if err == nil || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), raw.Path()) {
		t.Fatalf("Open of a newer database: %v, want an error saying %s is newer", err, raw.Path())
	}
	if v := version(t, raw); v != len(migrations)+1 {
		t.Errorf("the refused database has version %d now", v)
	}
}

// Stores of one new database that migrate at once, as the servers of a
// fleet starting together do: one migrates it from 0, the others find it
// migrated; none fails.
func testConcurrentOpensMigrateOnce(t *testing.T, b backend) {
	dsn := b.newDSN(t)
	const n = 4
	var froms [n]int
	var errs [n]error
	var stores [n]*Store
	for i := range stores {
		stores[i] = openRaw(t, dsn)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			froms[i], errs[i] = migrate(context.Background(), s.db, s.d, len(migrations))
		}()
	}
	close(start)
	wg.Wait()
	fresh := 0
	for i := range froms {
		if errs[i] != nil {
			t.Errorf("store %d: %v", i, errs[i])
		}
		switch froms[i] {
		case 0:
			fresh++
		case len(migrations):
		default:
			t.Errorf("store %d migrated from version %d", i, froms[i])
		}
	}
	if fresh != 1 {
		t.Errorf("%d stores migrated the new database from 0 (versions found: %v), want 1", fresh, froms)
	}
}

// A store opening a PostgreSQL database waits for the advisory lock that
// another's migration holds, and goes on when it is released.
func TestPostgresMigrationWaitsForTheLock(t *testing.T) {
	dsn := postgresBackend(t).newDSN(t)
	holder := openRaw(t, dsn)
	ctx := context.Background()
	tx, err := holder.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := postgres.lock(ctx, tx); err != nil {
		t.Fatal(err)
	}
	opened := make(chan error, 1)
	go func() {
		s, err := Open(dsn)
		if err == nil {
			s.Close()
		}
		opened <- err
	}()
	testutil.WaitFor(t, testutil.Wait, "Open to wait for the migration lock", func() bool {
		var n int
		err := holder.db.QueryRow(`SELECT COUNT(*) FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n)
		return err == nil && n == 1
	})
	select {
	case err := <-opened:
		t.Fatalf("Open returned (%v) while the migration lock was held", err)
	default:
	}
	tx.Rollback()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testutil.Wait):
		t.Fatal("Open still waits after the migration lock was released")
	}
	if v := version(t, holder); v != len(migrations) {
		t.Errorf("version %d after Open, want %d", v, len(migrations))
	}
}
