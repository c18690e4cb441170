package redistest

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestStartKillRestart starts a server, kills it as a crash would and
// starts it again on the same port.
func TestStartKillRestart(t *testing.T) {
	s := New(t)
	if err := ping(s.Addr()); err != nil {
		t.Fatal(err)
	}
	s.Kill()
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		c.Close()
		t.Fatal("the killed server still accepts connections")
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ping(s.Addr()); err != nil {
		t.Fatal(err)
	}
}
