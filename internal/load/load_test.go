package load

import (
	"context"
	"fmt"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/server"
)

// TestRun plays 8 clients against a real server with each protocol
// version, light (sharing sockets, 3 to a socket, and one to a socket;
// polled at each tick, their sends spread over the tick, and read by
// parked goroutines, sending all at once: Config.Parked, Phases 1) and
// full (net/client.Client), until every client received 10 snapshots and
// an event (Config.Until; Duration is a deadlock guard): every client
// logs in, binds, receives snapshots and events and is still connected
// at the end, the server still holds all 8 sessions (none dropped or
// kicked), and the report's counts agree with each other. The rates are
// logged: they are the machine's (rtype-bench measures them).
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		v         uint8
		full      bool
		perSocket int
		parked    bool
	}{{1, false, 3, false}, {2, false, 3, false}, {2, false, 1, false},
		{1, false, 3, true}, {2, false, 3, true}, {1, true, 0, false}, {2, true, 0, false}} {
		v := tc.v
		t.Run(fmt.Sprintf("v%d/full=%v/per=%d/parked=%v", v, tc.full, tc.perSocket, tc.parked), func(t *testing.T) {
			t.Parallel()
			const n = 8
			const guard = 2 * testutil.Wait // a deadlock guard, not the run's length
			srv := testserver.Start(t, server.Config{LoginLimit: 100, MaxSessionsPerIP: 100})
			ctx, cancel := context.WithTimeout(context.Background(), guard+testutil.Wait)
			defer cancel()
			var st server.TickStats
			played := func(r Report) bool {
				if len(r.PerClient) != n {
					return false
				}
				for _, c := range r.PerClient {
					if c.Snapshots < 10 || c.Events == 0 {
						return false
					}
				}
				return true
			}
			rep, err := Run(ctx, Config{Addr: srv.Addr(), N: n, Duration: guard, Every: 50 * time.Millisecond, Until: played,
				Protocol: v, Seed: 7, Full: tc.full, PerSocket: tc.perSocket, Parked: tc.parked,
				Phases: map[bool]int{true: 1}[tc.parked],
				AtEnd:  func() { st = srv.TickStats() }})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			t.Log(rep)
			if rep.Clients != n || rep.Failed != 0 || rep.Connected != n {
				t.Fatalf("clients %d, failed %d, connected %d; want %d, 0, %d", rep.Clients, rep.Failed, rep.Connected, n, n)
			}
			if !played(rep) {
				t.Errorf("the run ended after %.1f s (the guard is %v) before every client got 10 snapshots and an event", rep.Seconds, guard)
			}
			for i, c := range rep.PerClient {
				if c.Err != nil || c.Snapshots == 0 || c.Events == 0 {
					t.Errorf("client %d: snapshots %d, events %d, err %v", i+1, c.Snapshots, c.Events, c.Err)
				}
			}
			if st.Sessions != n {
				t.Errorf("server holds %d sessions, want %d (a client was dropped)", st.Sessions, n)
			}
			// Every snapshot came in a datagram of its own (or several:
			// a full client's counters are read one after the other, a
			// datagram apart at each end); every client sent Inputs.
			if rep.DatagramsIn+2*n < rep.Snapshots || rep.DatagramsOut < n || rep.BytesIn < rep.DatagramsIn || rep.BytesOut < rep.DatagramsOut {
				t.Errorf("datagrams in %d (%d bytes) for %d snapshots, out %d (%d bytes)",
					rep.DatagramsIn, rep.BytesIn, rep.Snapshots, rep.DatagramsOut, rep.BytesOut)
			}
			perSec := func(x uint64) float64 { return float64(x) / rep.Seconds / n }
			t.Logf("%.1f datagrams out and %.1f in per client-second (a client sends 60 Inputs a second and gets up to 20 snapshots)",
				perSec(rep.DatagramsOut), perSec(rep.DatagramsIn))
			// A light client acknowledges an Event datagram at once with
			// an Ack in v1 (7.7), and with its next Input in v2, as the
			// reference client does (7.7).
			if !tc.full && v == wire.Version2 && rep.Acks != 0 {
				t.Errorf("%d Acks from v2 light clients that send an Input every tick, want 0", rep.Acks)
			}
			// v2 light clients get their events in the Snapshots' tails
			// (7.8).
			if !tc.full && v == wire.Version2 && (rep.EventDatagrams != 0 || rep.TailSnapshots == 0) {
				t.Errorf("v2: %d Event datagrams, %d Snapshots carrying events; want 0 and some", rep.EventDatagrams, rep.TailSnapshots)
			}
			if !tc.full && v == wire.Version && rep.Acks == 0 {
				t.Errorf("no Ack from v1 light clients for %d Event datagrams", rep.EventDatagrams)
			}
			if rep.BytesIn == 0 || rep.BytesOut == 0 || rep.CPU <= 0 || rep.CPUPerClientSecond() <= 0 {
				t.Errorf("implausible report: %v", rep)
			}
		})
	}
}

// TestRunRejectsProtocol checks a protocol other than 1 or 2 is refused.
func TestRunRejectsProtocol(t *testing.T) {
	if _, err := Run(context.Background(), Config{Addr: "127.0.0.1:1", Protocol: 3}); err == nil {
		t.Fatal("protocol 3 accepted")
	}
}
