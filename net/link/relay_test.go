package link

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"rtype/net/netsim"
	"rtype/net/wire"
)

// TestEndToEndRelay runs the endpoints of e2e_test.go over real UDP
// sockets on 127.0.0.1, through the netsim relay impairing both directions
// (20% loss, 5% duplicates, 10% reordered, 40±20 ms), on the wall clock:
// every event is delivered once, and once the impairments stop the
// client's newest snapshot matches the world and stays so. How long that
// took depends on the machine's load, and is logged.
func TestEndToEndRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 6 s of wall clock")
	}
	const (
		total   = 10000
		perTick = 40 // 2400 events a second
		// guard is a deadlock guard: the run takes about 5 s.
		guard = 60 * time.Second
	)
	srvConn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srvConn.Close()
	bad := netsim.Impairment{Loss: 0.2, Dup: 0.05, Reorder: 0.1, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}
	relay, err := netsim.New(netsim.Config{
		To: srvConn.LocalAddr().String(), Up: bad, Down: bad, Seed: 42,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := relay.Run(ctx); err != nil {
			t.Errorf("relay: %v", err)
		}
	}()
	relayAddr, err := net.ResolveUDPAddr("udp", relay.Addr())
	if err != nil {
		t.Fatal(err)
	}
	cliConn, err := net.DialUDP("udp", nil, relayAddr)
	if err != nil {
		t.Fatal(err)
	}
	_ = srvConn.SetReadBuffer(1 << 20)
	_ = cliConn.SetReadBuffer(1 << 20)

	type dgram struct {
		b    []byte
		from netip.AddrPort
	}
	srvIn, cliIn := make(chan dgram, 4096), make(chan dgram, 4096)
	read := func(c *net.UDPConn, out chan<- dgram) {
		defer wg.Done()
		buf := make([]byte, 2048)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return // closed
			}
			select {
			case out <- dgram{append([]byte(nil), buf[:n]...), from}:
			case <-ctx.Done():
				return
			}
		}
	}
	wg.Add(2)
	go read(srvConn, srvIn)
	go read(cliConn, cliIn)
	defer func() {
		cancel()
		srvConn.Close()
		cliConn.Close()
		relay.Close()
		wg.Wait()
	}()

	start := time.Now()
	r := rand.New(rand.NewPCG(42, 0xE2E))
	srv := newE2EServer(t, r, start, total, func() int { return perTick })
	// At 2400 events a second, an event lost a few times in a row holds
	// the window (5.3: 1024 ids) for 0.43 s and the session would end; the
	// server holds new events back instead, and they go out a little later.
	srv.room = MaxUnacked - perTick
	cli := newE2EClient(t, start, total)
	srv.client, cli.server = cli, srv
	var clientAddr netip.AddrPort // as the server sees it: the relay's socket
	srv.send = func(d []byte, now time.Time) {
		if !clientAddr.IsValid() {
			return // nothing heard from the client yet
		}
		if _, err := srvConn.WriteToUDPAddrPort(d, clientAddr); err != nil {
			t.Errorf("server write: %v", err)
		}
	}
	cli.send = func(d []byte, now time.Time) {
		if _, err := cliConn.Write(d); err != nil {
			t.Errorf("client write: %v", err)
		}
	}

	// Timers may be coarse (a 1/60 s ticker can fire far less often): like
	// a game loop, catch up every tick due by the wall clock at each
	// wake-up.
	ticker := time.NewTicker(5 * time.Millisecond)
	defer ticker.Stop()
	deadline := time.NewTimer(guard)
	defer deadline.Stop()
	tickAt := func(k int) time.Time { return start.Add(time.Duration(k) * time.Second / 60) }
	srvTicks, cliTicks := 0, 0
	var stopAt, syncAt time.Time
	stopped, synced := false, false
	var final []wire.Entity
	var finalPlayers []wire.PlayerState
	checkSync := func(now time.Time) {
		if stopped && !synced && cli.inSync(final, finalPlayers) {
			synced, syncAt = true, now
		}
	}
	for done := false; !done; {
		select {
		case d := <-srvIn:
			clientAddr = d.from
			srv.receive(d.b, time.Now())
		case d := <-cliIn:
			now := time.Now()
			cli.receive(d.b, now)
			checkSync(now)
		case <-ticker.C:
		case <-deadline.C:
			t.Fatalf("not done after %v: %d/%d events delivered (queued %d, unacked %d), stopped %v synced %v",
				guard, cli.got, total, srv.queued, srv.link.Unacked(), stopped, synced)
		}
		now := time.Now()
		for !tickAt(srvTicks).After(now) {
			srv.step(now)
			srvTicks++
		}
		if !tickAt(cliTicks).After(now) {
			cli.sendAck(now) // one Ack, however late
			for !tickAt(cliTicks).After(now) {
				cliTicks++
			}
		}
		if !stopped && srv.queued == total && cli.got == total {
			stopped, stopAt = true, now
			srv.changing = false
			relay.SetImpairment(netsim.Impairment{}, netsim.Impairment{})
			final = srv.world.entities(nil)
			finalPlayers = append([]wire.PlayerState(nil), srv.world.players...)
		}
		checkSync(now)
		// Done once synced, and a few snapshots later (it stays so).
		if synced && now.Sub(syncAt) >= 250*time.Millisecond {
			done = true
		}
	}
	if !cli.inSync(final, finalPlayers) {
		t.Fatalf("the client left the world's state after it synced")
	}
	for k, n := range cli.delivered {
		if n != 1 {
			t.Fatalf("event %d delivered %d times", k, n)
		}
	}
	up, down := relay.Stats()
	if srv.deltas == 0 || down.Dropped == 0 || down.Duplicated == 0 || down.Reordered == 0 {
		t.Fatalf("weak run: %d deltas, relay down %v", srv.deltas, down)
	}
	st := srv.link.Stats()
	t.Logf("events in %v, synced %v after stop; snapshots %d delta / %d full / %d multi-datagram, max baseline age %d; "+
		"max unacked %d, %d events held back a tick; events sent %d resent %d; client dropped %d no-baseline %d other-baseline, %d duplicates; relay up %v; down %v",
		stopAt.Sub(start), syncAt.Sub(stopAt), srv.deltas, srv.fulls, srv.multi, srv.maxAge,
		srv.maxUnacked, srv.heldBack, st.EventsSent, st.EventsResent, cli.noBase, cli.otherBase, cli.dups, up, down)
}
