package testutil

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"sync"
)

// What the helpers that run an external server for the tests share
// (testutil/pgtest: PostgreSQL, testutil/redistest: redis-server).

// OnCI reports whether the tests run on CI ($CI set, and not "false" or
// "0"), where a missing external server is a failure rather than a
// reason to skip.
func OnCI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

// FreeTCPPort returns a TCP port of 127.0.0.1 that was free a moment ago,
// for a server that cannot bind port 0 and tell its port: another process
// may take it before the server binds it, so the caller tries again on
// another when the bind fails.
func FreeTCPPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("testutil: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// SyncBuffer is a bytes.Buffer safe for a writer and readers: an
// external server's output.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
