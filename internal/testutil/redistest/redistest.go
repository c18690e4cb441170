// Package redistest runs a throwaway redis-server for tests: Debian's
// redis-server package, on a free port of 127.0.0.1, without persistence
// (--save "" --appendonly no), in a temporary directory, killed at the
// end. Redis cannot bind port 0, so the port is one found free a moment
// before; when another process took it meanwhile, it tries another.
//
// Without redis-server the tests that need it are skipped with the reason,
// or fail on CI ($CI set, and not "false" or "0"), as pgtest does for
// PostgreSQL.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// ErrNoRedis is Start's error when redis-server is not installed.
var ErrNoRedis = errors.New("redistest: no redis-server on the PATH or in /usr/bin: install Debian's redis-server package (./build.sh deps)")

// startTimeout bounds a start: the process up and answering PING.
const startTimeout = 30 * time.Second

// Server is a running redis-server.
type Server struct {
	// Port is its TCP port on 127.0.0.1.
	Port int

	bin, dir string
	password string // --requirepass, when set (StartPassword)
	mu       sync.Mutex
	cmd      *exec.Cmd
	done     chan struct{}
	log      *testutil.SyncBuffer
}

// Bin returns the path of redis-server, or ErrNoRedis.
func Bin() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/redis-server"); err == nil {
		return "/usr/bin/redis-server", nil
	}
	return "", ErrNoRedis
}

// StartPassword starts a redis-server on a free port of 127.0.0.1, which
// requires password (AUTH) when it is not "", and returns once it answers
// PING; ctx bounds the wait. Stop it when done.
func StartPassword(ctx context.Context, password string) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rtype-redis-")
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	s := &Server{bin: bin, dir: dir, password: password}
	for try := 0; ; try++ {
		port, err := testutil.FreeTCPPort()
		if err == nil {
			err = s.startOn(ctx, port)
		}
		if err == nil {
			return s, nil
		}
		if try == 4 || !strings.Contains(err.Error(), "in use") {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

// Addr returns "127.0.0.1:port".
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// startOn starts the process on port and waits for its PING.
func (s *Server) startOn(ctx context.Context, port int) error {
	log := &testutil.SyncBuffer{}
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning")
	if s.password != "" {
		cmd.Args = append(cmd.Args, "--requirepass", s.password)
	}
	cmd.Dir = s.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group; should the tests' process die first, the
	// kernel kills it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("redistest: start %s: %w", cmd, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.mu.Lock()
	s.Port, s.cmd, s.done, s.log = port, cmd, done, log
	s.mu.Unlock()
	deadline := time.Now().Add(startTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		if pingAuth(s.Addr(), s.password) == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("redistest: redis-server on port %d exited: %s", port, log.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("redistest: redis-server on port %d answers no PING after %v: %s", port, startTimeout, log.String())
		}
	}
}

// ping sends PING and reads +PONG.
func ping(addr string) error { return pingAuth(addr, "") }

// pingAuth is ping after AUTH with password, when it is not "".
func pingAuth(addr, password string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	req := "PING\r\n"
	if password != "" {
		req = fmt.Sprintf("AUTH %q\r\n", password) + req
	}
	if _, err := c.Write([]byte(req)); err != nil {
		return err
	}
	rd := bufio.NewReader(c)
	line, err := rd.ReadString('\n')
	if err == nil && password != "" && line == "+OK\r\n" {
		line, err = rd.ReadString('\n')
	}
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("redistest: PING answered %q", line)
	}
	return nil
}

// Kill kills the process (SIGKILL), as a crash would, and waits for it:
// its data is lost (no persistence).
func (s *Server) Kill() { s.kill() }

func (s *Server) kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Restart starts the killed server again on the same port, empty.
func (s *Server) Restart(ctx context.Context) error {
	s.kill()
	var err error
	for try := 0; try < 50; try++ {
		if err = s.startOn(ctx, s.Port); err == nil || !strings.Contains(err.Error(), "in use") {
			return err
		}
		time.Sleep(20 * time.Millisecond) // the port of the killed process is freed by the kernel
	}
	return err
}

// Stop kills the server and removes its directory.
func (s *Server) Stop() error {
	s.kill()
	return os.RemoveAll(s.dir)
}

// New starts a server for the test tb and stops it at its end. Without
// redis-server, tb is skipped, or fails on CI; a server that cannot start
// fails it.
func New(tb testing.TB) *Server { tb.Helper(); return NewPassword(tb, "") }

// NewPassword is New of a server that requires password, when it is not "".
func NewPassword(tb testing.TB, password string) *Server {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := StartPassword(ctx, password)
	switch {
	case errors.Is(err, ErrNoRedis) && !testutil.OnCI():
		tb.Skip(err)
	case err != nil:
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("redistest: %v", err)
		}
	})
	return s
}
