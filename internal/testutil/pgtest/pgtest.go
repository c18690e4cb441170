// Package pgtest runs throwaway PostgreSQL servers for tests, from the
// binaries of Debian's postgresql package (./build.sh deps installs it):
// initdb makes a cluster in a temporary directory, postgres serves it on
// a free port of 127.0.0.1 and on a Unix socket in that directory, and
// Stop ends it and removes the directory.
//
// PostgreSQL refuses to run as root. When the tests run as root the
// cluster belongs to, and the server runs as, the user "postgres" that
// Debian's package creates (or "nobody" when there is none): the
// processes get that user's uid and gid from the kernel (no su, no sudo),
// and the directory is chowned to it. As any other user, the server runs
// as that user.
//
// A package whose tests share one server declares a Shared and stops it
// in its TestMain. Only tests use this package.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"rtype/internal/testutil"
)

// ErrNoPostgres is the error of Start when the PostgreSQL binaries are
// not installed.
var ErrNoPostgres = errors.New("pgtest: no PostgreSQL server binaries (initdb, postgres) in $PG_BINDIR, /usr/lib/postgresql/*/bin or the PATH: " +
	"install Debian's postgresql package (./build.sh deps)")

// User is the superuser of a Server's cluster; it needs no password
// (trust authentication, on the loopback address and the socket only).
const User = "rtype"

// Database is the database every Server has, besides postgres.
const Database = "rtype"

// startTimeout bounds Start: initdb and the server's start.
const startTimeout = 60 * time.Second

// Server is a throwaway PostgreSQL server (see the package comment).
type Server struct {
	// Port is the TCP port of the server on 127.0.0.1.
	Port int

	dir     string // the temporary directory: data/ and the socket
	bin     string
	cred    *syscall.Credential
	cmd     *exec.Cmd
	done    chan struct{}       // closed once the process is waited for
	waitErr error               // the process's exit, once done is closed
	log     testutil.SyncBuffer // the server's stderr
	schemas atomic.Int64
	stop    sync.Once
	stopErr error
}

// BinDir returns the directory of the PostgreSQL server binaries:
// $PG_BINDIR, else the newest /usr/lib/postgresql/VERSION/bin (Debian's
// layout) that has initdb and postgres, else the directory of initdb on
// the PATH. It returns ErrNoPostgres when there is none.
func BinDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv("PG_BINDIR"); d != "" {
		if !has(d) {
			return "", fmt.Errorf("%w ($PG_BINDIR=%s has none)", ErrNoPostgres, d)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { // newest first: 15 before 9.6
		vi, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dirs[i])), 64)
		vj, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dirs[j])), 64)
		return vi > vj
	})
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", ErrNoPostgres
}

// runAs returns the credentials the server's processes take: nil to run
// as the current user, or those of "postgres" (else "nobody") as root.
func runAs() (*syscall.Credential, string, error) {
	if os.Geteuid() != 0 {
		return nil, "", nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, name, nil
	}
	return nil, "", errors.New(`pgtest: running as root, and neither the user "postgres" nor "nobody" exists to run PostgreSQL as`)
}

// Start makes a cluster and starts its server, and returns once the
// server accepts connections and has the database Database; ctx bounds
// the wait. Stop it when done, whatever the tests did.
func Start(ctx context.Context) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	cred, as, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rtype-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(fmt.Errorf("pgtest: give %s to %s: %w", dir, as, err))
		}
	}
	// initdb, without fsyncs: the cluster lives as long as the tests.
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"),
		"-U", User, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.Dir = dir
	initdb.Env = env()
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("pgtest: %s as %q: %w\n%s", initdb, as, err, out))
	}
	// The port is free when asked, but another process may take it before
	// the server binds it: then again on another one.
	var s *Server
	for try := 0; ; try++ {
		var port int
		if port, err = testutil.FreeTCPPort(); err != nil {
			return fail(err)
		}
		s, err = start(ctx, bin, dir, cred, port)
		if err == nil || try == 2 || !strings.Contains(err.Error(), "could not bind") {
			break
		}
	}
	if err != nil {
		return fail(err)
	}
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err == nil {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+Database)
		conn.Close(ctx)
	}
	if err != nil {
		s.Stop()
		return nil, fmt.Errorf("pgtest: create the database %s: %w", Database, err)
	}
	return s, nil
}

// env is the environment of the PostgreSQL processes: a C locale, and
// nothing of the tests' own (no PG* variables).
func env() []string {
	return []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "TZ=UTC"}
}

// start starts the server of the cluster in dir on a free port, and
// waits until it accepts connections.
func start(ctx context.Context, bin, dir string, cred *syscall.Credential, port int) (*Server, error) {
	s := &Server{Port: port, dir: dir, done: make(chan struct{}), bin: bin, cred: cred}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(dir, "data"),
		"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-k", dir,
		"-c", "shared_buffers=16MB", "-c", "max_connections=50", "-c", "log_min_messages=warning")
	s.cmd.Dir = dir
	s.cmd.Env = env()
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	// Its own process group, which Stop can kill whole; and should the
	// tests' process die without stopping it, the kernel sends the
	// server SIGQUIT, PostgreSQL's immediate shutdown.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgtest: start %s: %w", s.cmd, err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()
	// Ready when a connection works: a condition with a deadline.
	deadline := time.Now().Add(startTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.Connect(cctx, s.URL("postgres"))
		cancel()
		if err == nil {
			conn.Close(ctx)
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("pgtest: the server on port %d accepts no connection after %v: %w\nits log:\n%s",
				port, startTimeout, err, s.log.String())
		}
		select {
		case <-s.done:
			s.Stop()
			return nil, fmt.Errorf("pgtest: the server on port %d exited: %v\nits log:\n%s", port, s.waitErr, s.log.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// URL returns the URL of database on the server, as User.
func (s *Server) URL(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", User, s.Port, database)
}

// NewSchema makes a new, empty schema in Database and returns the URL of
// the database with that schema as the search path: what a test's store
// makes its tables in, apart from every other test's.
func (s *Server) NewSchema(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("test%d", s.schemas.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL(Database))
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		tb.Fatalf("pgtest: create schema %s: %v", name, err)
	}
	return s.URL(Database) + "&search_path=" + name
}

// Kill kills the server's processes (SIGKILL), as a crash would, and
// waits for the postmaster; its data stays for Restart. Not for a Shared
// server: other tests use it.
func (s *Server) Kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

// Restart starts the server killed by Kill again, on the same port and
// data, and waits until it accepts connections (PostgreSQL recovers from
// its WAL first). Its log from then on is not in Log.
func (s *Server) Restart(ctx context.Context) error {
	var err error
	for try := 0; try < 50; try++ {
		var ns *Server
		if ns, err = start(ctx, s.bin, s.dir, s.cred, s.Port); err == nil {
			s.cmd, s.done, s.waitErr = ns.cmd, ns.done, nil
			return nil
		}
		if !strings.Contains(err.Error(), "could not bind") && !strings.Contains(err.Error(), "already exists") &&
			!strings.Contains(err.Error(), "in use") {
			return err
		}
		time.Sleep(50 * time.Millisecond) // the killed processes release the port and the lock file
	}
	return err
}

// Stop stops the server (a fast shutdown, then SIGKILL to its process
// group if it is not done within 10 s) and removes its directory.
func (s *Server) Stop() error {
	s.stop.Do(func() {
		s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown: end sessions, checkpoint
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
			s.stopErr = fmt.Errorf("pgtest: the server on port %d did not stop within 10 s: killed\nits log:\n%s", s.Port, s.log.String())
		}
		if err := os.RemoveAll(s.dir); err != nil && s.stopErr == nil {
			s.stopErr = fmt.Errorf("pgtest: %w", err)
		}
	})
	return s.stopErr
}

// Shared is a Server that the tests of a package share: the first test
// that calls Get starts it, and the package's TestMain stops it (Run):
//
//	var pg pgtest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }
type Shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Get returns the shared server, starting it if it is not yet. Without
// the PostgreSQL binaries the test is skipped with the reason or, on CI
// ($CI set, and not "false" or "0"), fails with it; if the server cannot
// start, the test fails.
func (sh *Shared) Get(tb testing.TB) *Server {
	tb.Helper()
	sh.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		sh.srv, sh.err = Start(ctx)
	})
	switch {
	case errors.Is(sh.err, ErrNoPostgres) && !testutil.OnCI():
		tb.Skip(sh.err)
	case sh.err != nil:
		tb.Fatal(sh.err)
	}
	return sh.srv
}

// Run runs the tests of m, then stops the server if they started it, and
// returns the exit code: the tests', or 1 if the server did not stop
// cleanly. (Should the tests' process die first, the server gets SIGQUIT
// from the kernel; its directory stays in $TMPDIR, rtype-pg-*.)
func (sh *Shared) Run(m *testing.M) int {
	code := m.Run()
	if err := sh.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	return code
}

// Stop stops the server if it was started.
func (sh *Shared) Stop() error {
	if sh.srv == nil {
		return nil
	}
	return sh.srv.Stop()
}
