//go:build linux

package server

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestUDPSocketOutOfPoller: the server's UDP socket is watched by its own
// epoll instance only, never by the runtime's poller (whose edge-triggered
// watch woke a parked thread for every datagram: BENCHMARKS.md, players per
// core, ninth pass). Every epoll instance of the process is read from
// /proc/self/fdinfo: the socket's inode may be on udpSocket.ep's list, and
// on no other.
func TestUDPSocketOutOfPoller(t *testing.T) {
	s := startServer(t, testConfig())
	var st unix.Stat_t
	if err := unix.Fstat(s.udp.fd, &st); err != nil {
		t.Fatal(err)
	}
	var own int
	s.udp.epc.Control(func(fd uintptr) { own = int(fd) })
	// The socket's own epoll instance watches it from the start.
	deadline := time.Now().Add(wait)
	for !watches(t, own, st.Ino) {
		if time.Now().After(deadline) {
			t.Fatal("the socket's own epoll instance does not watch it")
		}
		time.Sleep(time.Millisecond)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	for _, e := range fds {
		var fd int
		fmt.Sscan(e.Name(), &fd)
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); l != "anon_inode:[eventpoll]" || fd == own {
			continue
		}
		polls++
		if watches(t, fd, st.Ino) {
			t.Errorf("epoll instance %d (the runtime's poller) watches the UDP socket", fd)
		}
	}
	if polls == 0 {
		t.Error("no other epoll instance found: the runtime's poller was expected (the test sees nothing)")
	}
}

// watches reports whether the epoll instance epfd watches the file of
// inode ino (its fdinfo's "tfd: ... ino:%x" lines).
func watches(t *testing.T, epfd int, ino uint64) bool {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/self/fdinfo/%d", epfd))
	if err != nil {
		return false // closed meanwhile (another test's)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "tfd:") {
			continue
		}
		for _, field := range strings.Fields(sc.Text()) {
			if v, ok := strings.CutPrefix(field, "ino:"); ok && v == fmt.Sprintf("%x", ino) {
				return true
			}
		}
	}
	return false
}

// TestUDPSocketCloseEndsRead: a reader waiting on an empty socket returns
// net.ErrClosed at close, and every read after it too.
func TestUDPSocketCloseEndsRead(t *testing.T) {
	r, _, _, _ := loopbackBatch(t)
	done := make(chan error, 1)
	go func() { _, err := r.read(); done <- err }()
	time.Sleep(20 * time.Millisecond) // let it park (the test holds either way)
	r.u.close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("read at close: %v, want net.ErrClosed", err)
		}
	case <-time.After(wait):
		t.Fatal("the read did not end at close")
	}
	if _, err := r.read(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after close: %v, want net.ErrClosed", err)
	}
}

// TestUDPSocketWakesForEachWait: a reader that found the socket empty is
// woken by the next datagram, every time (the one-shot watch is armed
// again at each wait).
func TestUDPSocketWakesForEachWait(t *testing.T) {
	r, o, to, _ := loopbackBatch(t)
	for i := range 5 {
		done := make(chan int, 1)
		go func() {
			ds, err := r.read()
			if err != nil {
				t.Error(err)
			}
			done <- len(ds)
		}()
		time.Sleep(5 * time.Millisecond) // most often, the reader waits by now
		o.add([]byte{byte(i)}, to)
		o.flush()
		select {
		case n := <-done:
			if n != 1 {
				t.Fatalf("round %d: read %d datagrams, want 1", i, n)
			}
		case <-time.After(wait):
			t.Fatalf("round %d: the reader was not woken", i)
		}
	}
	if w := r.stats.waits.Load(); w == 0 {
		t.Error("the reader never waited: the test did not test the wait")
	}
}
