package client

import (
	"context"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/netsim"
	"rtype/server"
)

// The stall clock (5.5, Frozen view) starts at the binding, not at the
// first datagram received: a v2 server answers Binds with Challenges
// (7.3), which are no snapshots. Through a slow link the binding takes
// longer than StallTimeout; the session must live on once bound.
func TestStallClockStartsAtBinding(t *testing.T) {
	srv := testserver.Start(t, server.Config{MaxGames: 1})
	imp := netsim.Impairment{Delay: 250 * time.Millisecond}
	relay, err := netsim.New(netsim.Config{Listen: "127.0.0.1:0", To: srv.Addr(), Up: imp, Down: imp, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Run(t, relay)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	const stall = 400 * time.Millisecond // under the 1 s a v2 binding takes here
	c, err := Dial(ctx, Config{Addr: relay.Addr(), Name: "slowpoke", Logger: testutil.Logger(t), StallTimeout: stall})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Version() != 2 {
		t.Fatalf("version %d, want 2", c.Version())
	}
	// Snapshots arrive a round trip after the Accept; give them time,
	// and the session must still be up with snapshots applied.
	testutil.WaitFor(t, testutil.Wait, "a snapshot after the binding", func() bool { return c.Stats().SnapshotTick > 0 || c.Err() != nil })
	if err := c.Err(); err != nil {
		t.Fatalf("session ended after the binding: %v", err)
	}
}
