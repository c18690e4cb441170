//go:build unix

package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
)

// The fault tests run the real server and clients, with timeouts of
// silence (5.5) shorter than the default 5 s where a test waits for one:
// faultTimeout. A timeout is seen to fire no sooner than its length after
// a datagram that came after the test's clock started (a timer never
// fires early); how much later is the machine's, and only logged. What
// needs no timeout is told from what does by what it says (Left, not
// TimedOut; Logout(ServerShutdown)), not by how soon it came.
const faultTimeout = 3 * time.Second

// childEnv makes the test binary a server process (serveChild).
const childEnv = "RTYPE_E2E_SERVER_CHILD"

// childTimeoutEnv, when set, is the server process's SessionTimeout.
const childTimeoutEnv = "RTYPE_E2E_SESSION_TIMEOUT"

// TestMain lets the test binary run as the server process that
// TestServerKilled kills.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		serveChild()
		return
	}
	os.Exit(m.Run())
}

// serveChild runs a server on 127.0.0.1:0 and prints its address, until
// the process is killed.
func serveChild() {
	rules := soakRules()
	cfg := server.Config{Listen: "127.0.0.1:0", MaxGames: 1, Rules: &rules, Mode: wire.ModeClassic, Logger: testutil.ProcessLogger()}
	if d, err := time.ParseDuration(os.Getenv(childTimeoutEnv)); err == nil {
		cfg.SessionTimeout = d
	}
	srv, err := server.New(cfg)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("ADDR", srv.Addr())
	srv.Run(context.Background())
}

// startServerProcess runs serveChild in a process of its own, with env
// added to its environment, and returns its address.
func startServerProcess(t *testing.T, env ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		s.Scan()
		line <- s.Text()
		for s.Scan() { // keep the pipe drained
		}
	}()
	select {
	case l := <-line:
		addr, ok := strings.CutPrefix(l, "ADDR ")
		if !ok {
			t.Fatalf("server process: %q", l)
		}
		return cmd, addr
	case <-time.After(30 * time.Second):
		t.Fatal("the server process did not start")
	}
	return nil, ""
}

// seen is an event with when a client got it.
type seen struct {
	at time.Time
	ev wire.Event
}

// faultGame is a game on the real server with recorded clients: the
// recorder of TestSoak checks their events and snapshots. The client a
// fault hits speaks the game's version; the others speak v1, v2, v1 (7.11).
type faultGame struct {
	t       *testing.T
	version uint8
	srv     *server.Server
	rec     *soakRecorder
	names   []string
	clients []*client.Client

	mu    sync.Mutex
	leave map[string][]seen // PlayerLeft and Destroy(PlayerLeft) each client got

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	bots   map[string]chan error
}

func newFaultGame(t *testing.T, version uint8, cfg server.Config) *faultGame {
	g := &faultGame{t: t, version: version, rec: newSoakRecorder(), leave: map[string][]seen{}, bots: map[string]chan error{}}
	if cfg.Rules == nil {
		rules := soakRules()
		cfg.Rules = &rules
	}
	cfg.MaxGames, cfg.OnSnapshot, cfg.OnEvents = 1, g.rec.onSnapshot, g.rec.onEvents
	g.srv = testserver.Start(t, cfg)
	g.ctx, g.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() { g.cancel(); g.wg.Wait() })
	return g
}

// join dials name to addr (the server's, or a relay's) as a recorded
// client speaking version.
func (g *faultGame) join(addr, name string, version uint8) *client.Client {
	g.t.Helper()
	sc := g.rec.addClient(name, version)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	cfg := sc.config(addr, testutil.Logger(g.t))
	cfg.OnEvent = func(ev *wire.Event) {
		sc.onEvent(ev)
		if ev.Type == wire.EventPlayerLeft || (ev.Type == wire.EventDestroy && ev.Reason == wire.DestroyPlayerLeft) {
			g.mu.Lock()
			g.leave[name] = append(g.leave[name], seen{time.Now(), *ev})
			g.mu.Unlock()
		}
	}
	c, err := client.Dial(ctx, cfg)
	if err != nil {
		g.t.Fatalf("%s: %v", name, err)
	}
	if c.Version() != version {
		g.t.Fatalf("%s speaks version %d, want %d", name, c.Version(), version)
	}
	g.t.Cleanup(func() { c.Close() })
	g.names = append(g.names, name)
	g.clients = append(g.clients, c)
	return c
}

// play starts a bot on c.
func (g *faultGame) play(c *client.Client, seed uint64) {
	res := make(chan error, 1)
	g.bots[g.names[len(g.names)-1]] = res
	g.wg.Add(2)
	go func() { defer g.wg.Done(); res <- bot.Play(g.ctx, c, rand.New(rand.NewPCG(seed, 1))) }()
	go func() { defer g.wg.Done(); drainEvents(g.ctx, c) }()
}

// shipOf returns the network id of player p's ship in the server's newest
// snapshot.
func (g *faultGame) shipOf(p uint8) (uint32, bool) {
	g.rec.mu.Lock()
	defer g.rec.mu.Unlock()
	for _, ps := range g.rec.snaps[g.rec.newest].Players {
		if ps.Player == p && ps.HasShip {
			return ps.Ship, true
		}
	}
	return 0, false
}

// shipPos returns the tick of the server's newest snapshot and where
// player p's ship is in it, in eighths of a pixel.
func (g *faultGame) shipPos(p uint8) (tick uint32, x, y int32, ok bool) {
	id, ok := g.shipOf(p)
	if !ok {
		return 0, 0, 0, false
	}
	g.rec.mu.Lock()
	defer g.rec.mu.Unlock()
	s := g.rec.snaps[g.rec.newest]
	for _, e := range s.Entities {
		if e.ID == id {
			return s.Tick, e.F[wire.FieldX], e.F[wire.FieldY], true
		}
	}
	return s.Tick, 0, 0, false
}

// waitShipStill waits until player p's ship has kept its y in the
// server's snapshots for 12 ticks: its last movement input is applied.
func (g *faultGame) waitShipStill(p uint8) {
	g.t.Helper()
	var since uint32
	var at int32
	testutil.WaitFor(g.t, testutil.Wait, "the ship standing still", func() bool {
		tick, _, y, ok := g.shipPos(p)
		if !ok || y != at || since == 0 {
			since, at = tick, y
			return false
		}
		return tick >= since+12
	})
}

// victimAndThree joins the victim of a fault through addr and three
// players that stay and play (directly), and returns the victim and its
// ship once every ship is in.
func (g *faultGame) victimAndThree(addr, name string) (*client.Client, uint32) {
	g.t.Helper()
	victim := g.join(addr, name, g.version)
	g.joinThree("stays")
	g.waitAllShips()
	ship, ok := g.shipOf(victim.Player())
	if !ok {
		g.t.Fatal("the victim has no ship")
	}
	return victim, ship
}

// joinThree joins three players named prefix-1 to prefix-3 that play
// (directly), speaking v1, v2, v1.
func (g *faultGame) joinThree(prefix string) {
	for i := range 3 {
		g.play(g.join(g.srv.Addr(), fmt.Sprintf("%s-%d", prefix, i+1), versions[i%len(versions)]), uint64(i))
	}
}

// waitAllShips waits until every client sees every player's ship.
func (g *faultGame) waitAllShips() {
	g.t.Helper()
	testutil.WaitFor(g.t, testutil.Wait, "every ship in every world", func() bool {
		for _, c := range g.clients {
			ps := c.Players()
			for _, o := range g.clients {
				if !ps[o.Player()].Present || !ps[o.Player()].HasShip {
					return false
				}
			}
		}
		return true
	})
}

// leftAt returns when name got the PlayerLeft of player p with reason, and
// the Destroy of ship with reason PlayerLeft.
func (g *faultGame) leftAt(name string, p uint8, reason uint8, ship uint32) (left, destroyed time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range g.leave[name] {
		switch {
		case s.ev.Type == wire.EventPlayerLeft && s.ev.Player == p && s.ev.Reason == reason:
			left = s.at
		case s.ev.Type == wire.EventDestroy && s.ev.ID == ship:
			destroyed = s.at
		}
	}
	return left, destroyed
}

// checkSurvivors checks, for the clients whose session runs, that the
// game goes on (snapshots keep coming, the bots still play), then that
// they got every event up to now exactly once and rebuilt every snapshot
// exactly.
func (g *faultGame) checkSurvivors() {
	g.t.Helper()
	t := g.t
	lost := lostSessions(g.clients)
	before := make([]uint32, len(g.clients))
	for i, c := range g.clients {
		before[i] = c.Stats().SnapshotTick
	}
	testutil.WaitFor(t, testutil.Wait, "the survivors' snapshots going on, 10 compared at least", func() bool {
		for i, c := range g.clients {
			if lost[i] != nil {
				continue
			}
			sc := g.rec.client(g.names[i])
			sc.mu.Lock()
			compared := sc.compared
			sc.mu.Unlock()
			if c.Stats().SnapshotTick < before[i]+30 || compared < 10 {
				return false
			}
		}
		return true
	})
	for name, res := range g.bots {
		select {
		case err := <-res:
			if i := indexOf(g.names, name); lost[i] == nil {
				t.Errorf("%s's bot stopped: %v", name, err)
			}
		default:
		}
	}
	waited, missing := g.rec.waitDelivered(g.rec.cut(), lost, g.names, testutil.Wait)
	for _, m := range missing {
		t.Error(m)
	}
	for _, e := range g.rec.errors() {
		t.Error(e)
	}
	for i, name := range g.names {
		sc := g.rec.client(name)
		sc.mu.Lock()
		t.Logf("%s (v%d): %d events owed, %d delivered once (all within %v of the cut); %d snapshots equal to the server's",
			name, sc.version, sc.owed, sc.delivered, waited, sc.compared)
		if lost[i] == nil && sc.compared < 10 {
			t.Errorf("%s: only %d snapshots compared", name, sc.compared)
		}
		sc.mu.Unlock()
	}
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// waitDone returns when c's session ended, measured from t0, or fails
// after guard (a deadlock guard).
func waitDone(t testing.TB, name string, c *client.Client, t0 time.Time, guard time.Duration) time.Duration {
	t.Helper()
	select {
	case <-c.Done():
		return time.Since(t0)
	case <-time.After(time.Until(t0.Add(guard))):
		t.Fatalf("%s: session still running %v after the fault", name, guard)
		return 0
	}
}

// waitHeard waits until counter, a count of datagrams, passed its value
// now: a datagram went through after the moment waitHeard was called.
func waitHeard(t testing.TB, what string, counter func() uint64) {
	t.Helper()
	n := counter()
	testutil.WaitFor(t, testutil.Wait, what, func() bool { return counter() > n })
}

// TestClientGoesSilent: a client whose datagrams stop reaching the server
// while its TCP connection stays up (UDP blocked on its way, a dead
// path) is timed out after SessionTimeout (5.5; faultTimeout here), not
// before: the others see PlayerLeft(TimedOut) then the Destroy of its
// ship, it gets Logout(TimedOut) on its TCP connection, and the game goes
// on for the others.
func TestClientGoesSilent(t *testing.T) { forVersions(t, testClientGoesSilent) }

func testClientGoesSilent(t *testing.T, version uint8) {
	g := newFaultGame(t, version, server.Config{Seed: 11, SessionTimeout: faultTimeout})
	relay := startRelay(t, g.srv.Addr(), netsim.Impairment{}, 11)
	victim, ship := g.victimAndThree(relay.Addr(), "silent")

	// Nothing from the victim reaches the server any more, once one of
	// its datagrams reached it after t0; the server's datagrams still
	// reach it, and TCP is untouched.
	t0 := time.Now()
	waitHeard(t, "a datagram of the victim forwarded to the server", func() uint64 { up, _ := relay.Stats(); return up.Forwarded })
	relay.SetImpairment(netsim.Impairment{Loss: 1}, netsim.Impairment{})
	d := waitDone(t, "silent", victim, t0, faultTimeout+testutil.Wait)
	var lo *client.LogoutError
	if err := victim.Err(); !errors.As(err, &lo) || lo.Reason != wire.LogoutTimedOut {
		t.Errorf("the victim's session ended with %v, want Logout(TimedOut)", err)
	}
	t.Logf("the victim got %v after %v", victim.Err(), d.Round(time.Millisecond))
	if d < faultTimeout {
		t.Errorf("the victim was timed out after %v, before %v", d, faultTimeout)
	}
	testutil.WaitFor(t, testutil.Wait, "the others' PlayerLeft and Destroy", func() bool {
		for _, name := range g.names[1:] {
			l, k := g.leftAt(name, victim.Player(), wire.LeftTimedOut, ship)
			if l.IsZero() || k.IsZero() {
				return false
			}
		}
		return true
	})
	for _, name := range g.names[1:] {
		l, k := g.leftAt(name, victim.Player(), wire.LeftTimedOut, ship)
		t.Logf("%s got PlayerLeft(TimedOut) %v and the Destroy of the ship %v after the silence began",
			name, l.Sub(t0).Round(time.Millisecond), k.Sub(t0).Round(time.Millisecond))
		for _, at := range []time.Time{l, k} {
			if d := at.Sub(t0); d < faultTimeout {
				t.Errorf("%s: PlayerLeft or Destroy %v after the silence began, before SessionTimeout (%v)", name, d, faultTimeout)
			}
		}
		if k.Before(l) {
			t.Errorf("%s got the Destroy before the PlayerLeft", name)
		}
	}
	if n := g.srv.TickStats().Sessions; n != 3 {
		t.Errorf("%d sessions on the server, want 3", n)
	}
	g.checkSurvivors()
}

// TestClientConnectionDrops: a client that vanishes without a word, as a
// crashed process does (the system closes its sockets: the server sees
// its TCP connection drop without a Logout), leaves at once with reason
// Left (1.2, 3.2); the game goes on for the others.
func TestClientConnectionDrops(t *testing.T) { forVersions(t, testClientConnectionDrops) }

func testClientConnectionDrops(t *testing.T, version uint8) {
	g := newFaultGame(t, version, server.Config{Seed: 12})
	victim, ship := g.victimAndThree(g.srv.Addr(), "crasher")
	t0 := time.Now()
	victim.Abandon()
	testutil.WaitFor(t, testutil.Wait, "the others' PlayerLeft(Left) and Destroy", func() bool {
		for _, name := range g.names[1:] {
			l, k := g.leftAt(name, victim.Player(), wire.LeftLeft, ship)
			if l.IsZero() || k.IsZero() {
				return false
			}
		}
		return true
	})
	for _, name := range g.names[1:] {
		l, k := g.leftAt(name, victim.Player(), wire.LeftLeft, ship)
		t.Logf("%s got PlayerLeft(Left) %v and the Destroy of the ship %v after the crash",
			name, l.Sub(t0).Round(time.Millisecond), k.Sub(t0).Round(time.Millisecond))
	}
	g.checkSurvivors()
}

// TestServerKilled: the server process dies (SIGKILL: no Logout, the
// system closes its sockets) or freezes (SIGSTOP: its sockets stay open
// but nothing comes, as when its host vanishes). Every client reports the
// connection lost, at once or after its Timeout of silence (5.5;
// faultTimeout here), not before, and its bot stops with that error:
// nothing hangs or crashes. The clients speak v1, v2, v1.
func TestServerKilled(t *testing.T) {
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		min  time.Duration
	}{
		{"SIGKILL", syscall.SIGKILL, 0},
		{"SIGSTOP", syscall.SIGSTOP, faultTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, addr := startServerProcess(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cs []*client.Client
			bots := make([]chan error, 3)
			for i := range bots {
				dctx, dcancel := context.WithTimeout(context.Background(), testutil.Wait)
				c, err := client.Dial(dctx, client.Config{Addr: addr, Name: fmt.Sprintf("orphan-%d", i), Logger: testutil.Logger(t),
					Version: versions[i%len(versions)], Mode: wire.ModeClassic, Timeout: faultTimeout})
				dcancel()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				cs = append(cs, c)
				bots[i] = make(chan error, 1)
				go func() { bots[i] <- bot.Play(ctx, c, rand.New(rand.NewPCG(uint64(i), 2))) }()
			}
			testutil.WaitFor(t, testutil.Wait, "snapshots", func() bool {
				for _, c := range cs {
					if c.Stats().SnapshotTick == 0 {
						return false
					}
				}
				return true
			})
			// Every client hears the server after t0, then the signal.
			t0 := time.Now()
			for i, c := range cs {
				waitHeard(t, fmt.Sprintf("a datagram for orphan-%d", i), func() uint64 { return c.Stats().Link.RecvDatagrams })
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			for i, c := range cs {
				d := waitDone(t, fmt.Sprintf("orphan-%d", i), c, t0, faultTimeout+testutil.Wait)
				err := c.Err()
				t.Logf("orphan-%d: %v after %v", i, err, d.Round(time.Millisecond))
				if !errors.Is(err, client.ErrConnectionLost) {
					t.Errorf("orphan-%d: %v, want the connection lost", i, err)
				}
				if d < tc.min {
					t.Errorf("orphan-%d: lost after %v, before %v of silence", i, d, tc.min)
				}
				select {
				case berr := <-bots[i]:
					if !errors.Is(berr, client.ErrConnectionLost) {
						t.Errorf("orphan-%d's bot returned %v", i, berr)
					}
				case <-time.After(testutil.Wait):
					t.Errorf("orphan-%d's bot still running %v after its session ended", i, testutil.Wait)
				}
				start := time.Now()
				c.Close()
				t.Logf("orphan-%d: Close took %v", i, time.Since(start).Round(time.Millisecond))
			}
		})
	}
}

// TestRebindMidGame: a client whose address changes in the middle of a
// game binds again from its new socket (3.4), three times. Its path goes
// through the relay, like a NAT whose old mapping stays open, with some
// loss and jitter so that datagrams are in flight to the old socket when
// it closes. The client keeps playing (its Inputs move its ship,
// snapshots keep coming, no event is lost), and the server drops what
// still comes from an old address.
func TestRebindMidGame(t *testing.T) { forVersions(t, testRebindMidGame) }

func testRebindMidGame(t *testing.T, version uint8) {
	rules := soakRules()
	rules.FirstWave = 1 << 30 // no Bydos: nothing may kill the mover's ship
	g := newFaultGame(t, version, server.Config{Seed: 13, Rules: &rules})
	relay := startRelay(t, g.srv.Addr(), netsim.Impairment{Loss: 0.05, Delay: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}, 13)
	mover := g.join(relay.Addr(), "mover", version)
	g.joinThree("bot")
	g.waitAllShips()
	p := mover.Player()
	// Its shots keep events coming through the rebindings.
	ev0 := mover.Stats().EventsDelivered
	mover.SetInput(wire.ActionFire)
	testutil.WaitFor(t, testutil.Wait, "the events of the mover's shots", func() bool { return mover.Stats().EventsDelivered >= ev0+10 })

	var olds []*net.UDPAddr
	for range 3 {
		old := mover.LocalAddr().(*net.UDPAddr)
		sent := mover.Stats().Link.SentDatagrams
		start := time.Now()
		if err := mover.Rebind(); err != nil {
			t.Fatalf("Rebind: %v", err)
		}
		now := mover.LocalAddr().(*net.UDPAddr)
		t.Logf("rebound from %v to %v in %v", old, now, time.Since(start).Round(time.Millisecond))
		if now.Port == old.Port {
			t.Fatalf("still on %v", now)
		}
		if st := mover.Stats(); st.Link.SentDatagrams <= sent {
			t.Fatalf("the link restarted: %d datagrams sent before, %d after", sent, st.Link.SentDatagrams)
		}
		olds = append(olds, old)
		// Snapshots flow to the new address before the next rebinding.
		tick := mover.Stats().SnapshotTick
		testutil.WaitFor(t, testutil.Wait, "snapshots at the new address", func() bool { return mover.Stats().SnapshotTick >= tick+18 })
	}

	// Its Inputs move its ship.
	_, _, y0, ok := g.shipPos(p)
	if !ok {
		t.Fatal("no ship")
	}
	mover.SetInput(wire.ActionDown | wire.ActionFire)
	testutil.WaitFor(t, testutil.Wait, "the ship moving down", func() bool {
		_, _, y, ok := g.shipPos(p)
		return ok && y > y0+8*60
	})
	mover.SetInput(wire.ActionFire)
	g.waitShipStill(p)

	// Inputs holding Up, well formed, of its session, numbered ahead of
	// its own (v1: sequence, v2: step), from its old addresses: dropped
	// (3.4, 6.1, 7.3).
	relayAddr, err := net.ResolveUDPAddr("udp", relay.Addr())
	if err != nil {
		t.Fatal(err)
	}
	tick1, _, y1, _ := g.shipPos(p)
	seq := uint16(mover.Stats().Link.SentDatagrams) + 200
	var step uint32
	if steps := mover.Steps(^uint32(0), nil); len(steps) > 0 {
		step = steps[len(steps)-1].Step + 1
	}
	spoofed := func(i int) []byte {
		h := wire.Header{Type: wire.TypeInput, Seq: seq + uint16(i), Ack: 0xFFFF, Session: mover.Session()}
		if version == wire.Version2 {
			in := wire2.Input{Step: step + uint32(i), Count: 1, Actions: [wire2.MaxInputActions]uint8{wire.ActionUp}}
			return wire2.AppendInput(wire2.AppendHeader(nil, h), &in)
		}
		return append(wire.AppendHeader(nil, h), wire.ActionUp)
	}
	// An old address is an ephemeral port the client let go of: another
	// process may have taken it since. Each one still free sends; at
	// least one must.
	sent := 0
	for _, old := range olds {
		spoof, err := net.ListenUDP("udp", old)
		if errors.Is(err, syscall.EADDRINUSE) {
			t.Logf("the old address %v is taken by another socket now: not sending from it", old)
			continue
		}
		if err != nil {
			t.Fatalf("cannot send from the old address %v: %v", old, err)
		}
		sent++
		for i := range 20 {
			if _, err := spoof.WriteToUDP(spoofed(i), relayAddr); err != nil {
				t.Fatal(err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		spoof.Close()
	}
	if sent == 0 {
		t.Fatalf("every old address (%v) is taken by another socket: nothing spoofed", olds)
	}
	testutil.WaitFor(t, testutil.Wait, "snapshots after the spoofed Inputs", func() bool {
		tick, _, _, _ := g.shipPos(p)
		return tick > tick1+30
	})
	if _, _, y, _ := g.shipPos(p); y != y1 {
		t.Fatalf("the ship moved from y %v to %v: the server took Inputs from an old address", float64(y1)/8, float64(y)/8)
	}
	// And it still answers its player.
	mover.SetInput(wire.ActionUp | wire.ActionFire)
	testutil.WaitFor(t, testutil.Wait, "the ship moving up", func() bool {
		_, _, y, ok := g.shipPos(p)
		return ok && y < y1-8*60
	})
	mover.SetInput(0)
	if err := mover.Err(); err != nil {
		t.Fatalf("the mover's session ended: %v", err)
	}
	relay.SetImpairment(netsim.Impairment{}, netsim.Impairment{})
	g.checkSurvivors()
}

// TestListenServerQuits: the host of a listen server quits (Close, a clean
// stop): every guest gets Logout(ServerShutdown) at once.
// The guests speak v1, v2, v1.
func TestListenServerQuits(t *testing.T) {
	g := newFaultGame(t, 0, server.Config{Seed: 14})
	g.joinThree("guest")
	g.waitAllShips()
	t0 := time.Now()
	g.srv.Close()
	for i, c := range g.clients {
		d := waitDone(t, g.names[i], c, t0, testutil.Wait)
		var lo *client.LogoutError
		if err := c.Err(); !errors.As(err, &lo) || lo.Reason != wire.LogoutServerShutdown {
			t.Errorf("%s: %v, want Logout(ServerShutdown)", g.names[i], err)
		}
		t.Logf("%s: %v after %v", g.names[i], c.Err(), d.Round(time.Millisecond))
	}
}

// TestServerStalled: the server process stops (SIGSTOP) for twice its
// SessionTimeout, its clients' timeouts being longer, then goes on
// (SIGCONT). The server read nothing meanwhile, so it times nobody out
// for its own pause (5.5): every client, v1 and v2, plays on, with
// snapshots a second of game after, and no Logout.
func TestServerStalled(t *testing.T) {
	const sessionTimeout = time.Second
	cmd, addr := startServerProcess(t, childTimeoutEnv+"="+sessionTimeout.String())
	var cs []*client.Client
	for i := range 2 {
		dctx, dcancel := context.WithTimeout(context.Background(), testutil.Wait)
		c, err := client.Dial(dctx, client.Config{Addr: addr, Name: fmt.Sprintf("patient-%d", i), Logger: testutil.Logger(t),
			Version: versions[i%len(versions)], Mode: wire.ModeClassic, Timeout: 20 * sessionTimeout})
		dcancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cs = append(cs, c)
	}
	testutil.WaitFor(t, testutil.Wait, "snapshots", func() bool {
		for _, c := range cs {
			if c.Stats().SnapshotTick == 0 {
				return false
			}
		}
		return true
	})
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * sessionTimeout) // the stall (no assertion on it)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var after [2]uint32
	for i, c := range cs {
		after[i] = c.Stats().SnapshotTick
	}
	for i, c := range cs {
		testutil.WaitFor(t, testutil.Wait, fmt.Sprintf("patient-%d's snapshots a second of game after the stall", i), func() bool {
			return c.Err() != nil || c.Stats().SnapshotTick >= after[i]+wire.TickRate
		})
		if err := c.Err(); err != nil {
			t.Errorf("patient-%d: %v after the server's stall", i, err)
		}
	}
}
