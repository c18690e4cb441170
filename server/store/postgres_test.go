package store

import (
	"net"
	"strings"
	"testing"

	"rtype/internal/testutil/pgtest"
)

func TestIsPostgres(t *testing.T) {
	for dsn, want := range map[string]bool{
		"postgres://h/db":             true,
		"postgresql://u@h:5432/db":    true,
		"POSTGRES://h/db":             true,
		"postgres:///db?host=/run":    true,
		"scores.db":                   false,
		"/var/lib/rtype/scores.db":    false,
		"postgres.db":                 false,
		"./postgres://x":              false,
		"mysql://h/db":                false,
		"":                            false,
		`C:\rtype\postgres\scores.db`: false,
	} {
		if got := IsPostgres(dsn); got != want {
			t.Errorf("IsPostgres(%q) = %v, want %v", dsn, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://rtype:hunter2@db:5432/rtype?sslmode=require": "postgres://rtype:xxxxx@db:5432/rtype?sslmode=require",
		"postgres://rtype@db/rtype":                              "postgres://rtype@db/rtype",
		"postgres://db/rtype?password=hunter2&user=rtype":        "postgres://db/rtype?password=xxxxx&user=rtype",
		"postgres://rtype:hunter2@[::1/x":                        "postgres://(a URL that does not parse)",
	} {
		if got := redact(dsn); got != want {
			t.Errorf("redact(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// Open's errors name the database, never its password.
func TestOpenErrorsPostgres(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now
	for _, dsn := range []string{
		"postgres://rtype:hunter2@" + closed + "/rtype?sslmode=disable",
		"postgres://rtype@" + closed + "/rtype?sslmode=disable&password=hunter2",
		"postgres://rtype:hunter2@[::1/x",
		"postgres://rtype:hunter2@" + closed + "/rtype?sslmode=nonsense",
	} {
		s, err := Open(dsn)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) worked", dsn)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q): the error shows the password: %v", dsn, err)
		}
		if !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("Open(%q): %v, want an error naming the database", dsn, err)
		}
	}
}

// Every connection commits synchronously whatever the server's default,
// and a database that would not keep names as they are is refused.
func TestPostgresSettings(t *testing.T) {
	b := postgresBackend(t)
	s := openNew(t, b)
	if _, err := s.db.Exec("ALTER DATABASE " + pgtest.Database + " SET synchronous_commit = off"); err != nil {
		t.Fatal(err)
	}
	defer s.db.Exec("ALTER DATABASE " + pgtest.Database + " RESET synchronous_commit")
	s2 := openNew(t, b)
	var sync, app string
	if err := s2.db.QueryRow("SELECT current_setting('synchronous_commit'), current_setting('application_name')").Scan(&sync, &app); err != nil {
		t.Fatal(err)
	}
	if sync != "on" || app != "rtype" {
		t.Errorf("synchronous_commit %q, application_name %q: want on and rtype", sync, app)
	}

	for _, q := range []string{"DROP DATABASE IF EXISTS latin1", "CREATE DATABASE latin1 ENCODING 'LATIN1' TEMPLATE template0"} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := Open(pg.Get(t).URL("latin1")); err == nil || !strings.Contains(err.Error(), "LATIN1") {
		if s != nil {
			s.Close()
		}
		t.Errorf("Open of a LATIN1 database: %v, want an error naming its encoding", err)
	}
}
