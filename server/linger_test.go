package server

import (
	"io"
	"net"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// TestCloseGentlyBounded: a kicked connection's socket lingers a second so
// its last message arrives, but no more than maxLingering at once: a flood
// of bad logins cannot pile up open sockets.
func TestCloseGentlyBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const n = maxLingering + 50
	clients := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
		sc, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		sc.Write([]byte("bye"))
		closeGently(sc)
		if l := lingering.Load(); l > maxLingering {
			t.Fatalf("%d sockets lingering, at most %d allowed", l, maxLingering)
		}
	}
	// Every peer still reads the last message, then the end.
	for i, c := range clients {
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		b, err := io.ReadAll(c)
		if string(b) != "bye" || err != nil {
			t.Fatalf("client %d read %q, %v", i, b, err)
		}
	}
	if !testutil.Eventually(3*time.Second, func() bool { return lingering.Load() == 0 }) {
		t.Fatalf("%d sockets still lingering after the second", lingering.Load())
	}
}
