package client

import (
	"context"
	"errors"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/wire"
)

func dial(t *testing.T, s *fakeServer, mod func(*Config)) (*Client, error) {
	t.Helper()
	cfg := Config{Addr: s.addr(), Name: "tester", Logger: testLogger()}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func mustDial(t *testing.T, s *fakeServer, mod func(*Config)) *Client {
	t.Helper()
	c, err := dial(t, s, mod)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return c
}

func TestLoginAccepted(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	if c.Player() != 2 || c.Session() != 0xDEADBEEF {
		t.Fatalf("player %d session %#x", c.Player(), c.Session())
	}
	binds, _, _ := s.counts()
	if binds != 1 {
		t.Fatalf("%d binds, want 1", binds)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err while running: %v", err)
	}
	select {
	case <-c.Done():
		t.Fatal("done while running")
	default:
	}
}

func TestLoginRejected(t *testing.T) {
	cases := []struct {
		reason uint8
		want   string
	}{
		{wire.RejectGameFull, "the game is full"},
		{wire.RejectVersionMismatch, "another version"},
		{wire.RejectInvalidName, "name is not allowed"},
		{wire.RejectNameTaken, "that name is already taken"},
		{wire.RejectRateLimited, "too many logins"},
		{wire.RejectGameEnding, "the game is ending"},
		{99, "the server refused the login"},
	}
	for _, tc := range cases {
		s := newFakeServer(t)
		s.reject = &wire.Message{Type: wire.MsgLoginRejected, Reason: tc.reason, Text: "server text"}
		_, err := dial(t, s, nil)
		var rej *RejectedError
		if !errors.As(err, &rej) {
			t.Fatalf("reason %d: error %v (%T), want *RejectedError", tc.reason, err, err)
		}
		if rej.Reason != tc.reason || rej.Text != "server text" {
			t.Errorf("reason %d: got %+v", tc.reason, rej)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "server text") {
			t.Errorf("reason %d: message %q lacks %q or the server's text", tc.reason, msg, tc.want)
		}
	}
}

// Binds are resent every BindInterval until one is accepted: the fourth
// here. A ticker never fires early, nor more often than its period: the
// four Binds take at least three intervals, and no more Binds went out
// than intervals passed (however late the Accept came).
func TestBindRetry(t *testing.T) {
	s := newFakeServer(t)
	s.ignoreBinds = 3
	start := time.Now()
	mustDial(t, s, nil)
	d := time.Since(start)
	binds, _, _ := s.counts()
	t.Logf("%d binds in %v", binds, d.Round(time.Millisecond))
	if most := int(d/DefaultBindInterval) + 2; binds < 4 || binds > most {
		t.Fatalf("%d binds in %v, want 4 to %d", binds, d, most)
	}
	if d < 3*DefaultBindInterval {
		t.Fatalf("bound after %v: Binds not %v apart", d, DefaultBindInterval)
	}
}

func TestBindTimeout(t *testing.T) {
	s := newFakeServer(t)
	s.ignoreBinds = -1
	const timeout = 500 * time.Millisecond
	start := time.Now()
	_, err := dial(t, s, func(c *Config) { c.BindTimeout = timeout })
	d := time.Since(start)
	if !errors.Is(err, ErrBindTimeout) {
		t.Fatalf("error %v, want ErrBindTimeout", err)
	}
	// The timer never fires early.
	if d < timeout {
		t.Fatalf("gave up after %v, before the bind timeout of %v", d, timeout)
	}
	if !strings.Contains(err.Error(), "did not answer within 500ms: is UDP blocked?") {
		t.Fatalf("message %q", err)
	}
	binds, _, _ := s.counts()
	t.Logf("%d binds, gave up after %v", binds, d.Round(time.Millisecond))
	if most := int(d/DefaultBindInterval) + 2; binds < 1 || binds > most {
		t.Fatalf("%d binds in %v, want 1 to %d", binds, d, most)
	}
	// It says goodbye on TCP (3.4).
	select {
	case m := <-s.logouts:
		if m.Type != wire.MsgLogout || m.Reason != wire.LogoutLeft {
			t.Fatalf("got %+v", m)
		}
	case <-time.After(testutil.Wait):
		t.Fatal("no Logout after the bind timeout")
	}
	if ErrBindTimeout.Error() != "the server accepted the login but its game port did not answer within 5 s: is UDP blocked?" {
		t.Fatalf("default message %q", ErrBindTimeout)
	}
}

func TestLoginTimeout(t *testing.T) {
	s := newFakeServer(t)
	s.silentLogin = true
	_, err := dial(t, s, func(c *Config) { c.LoginTimeout = 300 * time.Millisecond })
	if !errors.Is(err, ErrLoginTimeout) {
		t.Fatalf("error %v, want ErrLoginTimeout", err)
	}
}

func TestCannotReach(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Dial(context.Background(), Config{Addr: addr, Name: "x", Logger: testLogger()})
	var re *ReachError
	if !errors.As(err, &re) || re.Addr != addr {
		t.Fatalf("error %v (%T), want *ReachError", err, err)
	}
	want := "cannot reach server " + addr + ": connection refused"
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("message %q, want prefix %q", err, want)
	}
	_, err = Dial(context.Background(), Config{Addr: "no-such-host.invalid:4242", Name: "x", Logger: testLogger()})
	if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "cannot reach server no-such-host.invalid:4242: ") {
		t.Fatalf("DNS error: %v", err)
	}
	_, err = Dial(context.Background(), Config{Addr: "127.0.0.1", Name: "x", Logger: testLogger()})
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "use host:port") {
		t.Fatalf("bad address error: %v", err)
	}
}

// shipWorld gives the fake server's world the client's ship, so that the
// client sends Inputs.
func shipWorld(s *fakeServer) {
	s.mu.Lock()
	s.entities = []wire.Entity{wire.MakeEntity(2, wire.KindPlayerShip, 100, 360, 0, 0, 0)}
	s.players = []wire.PlayerState{{Player: s.player, HasShip: true, Ship: 2, Lives: 3}}
	s.mu.Unlock()
	s.events(wire.Event{Type: wire.EventSpawn, Tick: s.tick, ID: 2, Kind: wire.KindPlayerShip, X: 100, Y: 360, Owner: s.player})
}

// While the player has a ship the client sends an Input at every tick
// of its send clock, carrying the actions held. It sends no more than
// one per SendInterval (a ticker never fires more often) however late
// they arrive; the rate itself depends on the machine and is logged.
func TestInputsAt60Hz(t *testing.T) {
	s := newFakeServer(t)
	start := time.Now()
	c := mustDial(t, s, nil)
	shipWorld(s)
	stop := make(chan struct{})
	defer close(stop)
	s.run(stop, nil)
	c.SetInput(wire.ActionRight | wire.ActionFire | 0xE0) // bits 5-7 dropped
	waitFor(t, testutil.Wait, "the first Input", func() bool {
		_, _, in := s.counts()
		return len(in) > 0 && in[len(in)-1].actions == 0x18
	})
	_, _, before := s.counts()
	t0 := time.Now()
	waitFor(t, testutil.Wait, "30 more Inputs", func() bool {
		_, _, in := s.counts()
		return len(in) >= len(before)+30
	})
	d := time.Since(t0)
	_, _, after := s.counts()
	all := time.Since(start)
	in := after[len(before):]
	times := make([]time.Time, len(in))
	for i, x := range in {
		times[i] = x.at
	}
	t.Logf("%d Inputs in %v, median gap %v (60 Hz: 16.7 ms)", len(in), d.Round(time.Millisecond), medianGap(times))
	if most := int(all/DefaultSendInterval) + 2; len(after) > most {
		t.Fatalf("%d Inputs %v after the dial: more than one per send interval (%d at most)", len(after), all, most)
	}
	for _, x := range in {
		if x.actions != 0x18 {
			t.Fatalf("Input with actions %#x, want 0x18", x.actions)
		}
	}
	c.SetInput(wire.ActionUp)
	waitFor(t, testutil.Wait, "the new actions", func() bool {
		_, _, in := s.counts()
		return in[len(in)-1].actions == wire.ActionUp
	})
	st := c.Stats()
	t.Logf("RTT %v; %.1f kbit/s in, %.1f out (60 Inputs of 19 bytes a second: 9.1); %.1f snapshots per second (20 sent)", st.RTT, st.KbitIn, st.KbitOut, st.SnapshotsPerSec)
	if !st.HasRTT || st.RTT <= 0 {
		t.Errorf("RTT %v, %v", st.RTT, st.HasRTT)
	}
	if st.KbitOut <= 0 || st.KbitIn <= 0 || st.SnapshotsPerSec <= 0 {
		t.Errorf("rates in %.1f out %.1f kbit/s, %.1f snapshots per second: nothing counted", st.KbitIn, st.KbitOut, st.SnapshotsPerSec)
	}
}

// Without a ship the client sends Acks: without traffic, one per
// AckInterval at most (its send clock sends one when AckInterval less
// half a send interval passed since the last); with snapshots, an Ack of
// each. The rate is logged.
func TestAcksWithoutShip(t *testing.T) {
	s := newFakeServer(t)
	start := time.Now()
	c := mustDial(t, s, nil)
	c.SetInput(wire.ActionFire)
	// No snapshot, nothing received.
	_, a0, _ := s.counts()
	t0 := time.Now()
	waitFor(t, testutil.Wait, "10 Acks", func() bool { _, a, _ := s.counts(); return a >= a0+10 })
	d := time.Since(t0)
	_, a1, in := s.counts()
	all := time.Since(start)
	t.Logf("%d Acks in %v without traffic, median gap %v (want 50 ms)", a1-a0, d.Round(time.Millisecond), medianGap(s.ackTimes()[a0:]))
	if most := int(all/(DefaultAckInterval-DefaultSendInterval/2)) + 2; a1 > most {
		t.Fatalf("%d Acks %v after the dial without traffic: more than one per %v (%d at most)", a1, all, DefaultAckInterval, most)
	}
	// With snapshots (the player has no ship): each one acknowledged, so
	// that the next is a delta against it.
	s.mu.Lock()
	s.players = []wire.PlayerState{{Player: s.player, Ship: wire.NoEntity, Lives: 0}}
	s.mu.Unlock()
	for tick := uint32(3); tick <= 30; tick += 3 {
		s.snapshot(tick)
		waitFor(t, testutil.Wait, "the Ack of the snapshot", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			got, _, ok := s.hist.Baseline()
			return ok && got == tick
		})
	}
	_, a2, in2 := s.counts()
	t.Logf("%d Acks for 10 snapshots", a2-a1)
	if len(in) != 0 || len(in2) != 0 {
		t.Fatalf("%d Inputs without a ship", len(in2))
	}
	if st := c.Stats(); st.BaselineAge != 3 {
		t.Fatalf("baseline age %d, want 3: a snapshot not acknowledged", st.BaselineAge)
	}
}

// The session is lost after Timeout of silence (a timer never fires
// early), and kept up by any traffic.
func TestConnectionLost(t *testing.T) {
	s := newFakeServer(t)
	start := time.Now()
	c := mustDial(t, s, func(c *Config) { c.Timeout = 500 * time.Millisecond })
	err := waitDone(t, c, testutil.Wait)
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("error %v, want ErrConnectionLost", err)
	}
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Fatalf("lost after %v", d)
	}
	if err.Error() != "lost connection to the server: nothing received for 500ms" {
		t.Fatalf("message %q", err)
	}
	if got := silenceError(5 * time.Second).Error(); got != "lost connection to the server: nothing received for 5 s" {
		t.Fatalf("default message %q", got)
	}
	// Keep-alive traffic keeps the session up: an Ack every 10 ms, for
	// longer than the timeout of 500 ms.
	s2 := newFakeServer(t)
	const timeout = 500 * time.Millisecond
	c2 := mustDial(t, s2, func(c *Config) { c.Timeout = timeout })
	t0 := time.Now()
	var gap time.Duration // the longest between two Acks sent
	for prev := t0; time.Since(t0) < 3*timeout/2; {
		s2.ack()
		time.Sleep(10 * time.Millisecond)
		now := time.Now()
		gap = max(gap, now.Sub(prev))
		prev = now
	}
	t.Logf("the longest time between two Acks sent: %v", gap.Round(time.Millisecond))
	if err := c2.Err(); err != nil {
		if gap >= timeout {
			// This goroutine was not scheduled for the whole timeout: a
			// silence the client rightly judged so.
			t.Skipf("the test's own Acks stopped for %v: %v", gap, err)
		}
		t.Fatalf("lost despite traffic: %v", err)
	}
}

func TestLogoutFromServer(t *testing.T) {
	for _, tc := range []struct {
		reason uint8
		want   string
	}{
		{wire.LogoutGameOver, "the game is over"},
		{wire.LogoutKicked, "kicked"},
		{wire.LogoutTimedOut, "heard nothing"},
		{wire.LogoutServerShutdown, "shutting down"},
		{wire.LogoutLeft, "ended the session"},
		{77, "ended the session"},
	} {
		s := newFakeServer(t)
		c := mustDial(t, s, nil)
		s.logout(tc.reason)
		err := waitDone(t, c, testutil.Wait)
		var lo *LogoutError
		if !errors.As(err, &lo) || lo.Reason != tc.reason {
			t.Fatalf("error %v (%T), want *LogoutError{%d}", err, err, tc.reason)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("message %q lacks %q", err, tc.want)
		}
	}
}

func TestServerHangsUp(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	s.hangUp()
	err := waitDone(t, c, testutil.Wait)
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("error %v, want ErrConnectionLost", err)
	}
}

func TestCloseSendsLogout(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-s.logouts:
		if m.Type != wire.MsgLogout || m.Reason != wire.LogoutLeft {
			t.Fatalf("got %+v, want Logout(Left)", m)
		}
	case <-time.After(testutil.Wait):
		t.Fatal("no Logout after Close")
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Fatalf("Err = %v", c.Err())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed")
	}
}

func TestEventsApplied(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	s.events(
		wire.Event{Type: wire.EventPlayerJoined, Tick: 1, Player: 0, Name: "Alice"},
		wire.Event{Type: wire.EventPlayerJoined, Tick: 1, Player: 2, Name: "tester"},
		wire.Event{Type: wire.EventSpawn, Tick: 2, ID: 5, Kind: wire.KindBydosSlave, X: 1300, Y: 200, VX: -120, Owner: wire.NoPlayer},
		wire.Event{Type: wire.EventSpawn, Tick: 2, ID: 6, Kind: wire.KindBydosSlave, X: float32(math.NaN()), Owner: wire.NoPlayer}, // invalid (6.4)
		wire.Event{Type: wire.EventDestroy, Tick: 9, ID: 7, Reason: wire.DestroyKilled},
		wire.Event{Type: wire.EventSpawn, Tick: 4, ID: 7, Kind: wire.KindPlayerMissile, X: 1, Y: 1, Owner: 0}, // late
	)
	var evs []wire.Event
	waitFor(t, testutil.Wait, "the events", func() bool {
		evs = c.DrainEvents(evs)
		return len(evs) >= 4
	})
	// The client acknowledges an event datagram once it processed all of
	// it: then the invalid and the late events have been through too.
	waitFor(t, testutil.Wait, "the client's acknowledgement of the events", s.eventsAcked)
	evs = c.DrainEvents(evs)
	var types []wire.EventType
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	want := []wire.EventType{wire.EventPlayerJoined, wire.EventPlayerJoined, wire.EventSpawn, wire.EventDestroy}
	if !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	if more := c.DrainEvents(nil); len(more) != 0 {
		t.Fatalf("drained twice: %v", more)
	}
	p := c.Players()
	if !p[0].Present || p[0].Name != "Alice" || !p[2].Present || p[1].Present {
		t.Fatalf("players %+v", p)
	}
	if st := c.Stats(); st.EventsDelivered != 6 {
		t.Fatalf("%d events delivered, want 6", st.EventsDelivered)
	}
	// The events were acknowledged: nothing left to resend.
	waitFor(t, testutil.Wait, "the acknowledgement of the events", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.link.Unacked() == 0
	})
	// A datagram of another session is dropped.
	s.mu.Lock()
	bad := wire.AppendHeader(nil, wire.Header{Type: wire.TypeAck, Session: 0x1234})
	s.mu.Unlock()
	d0 := c.Stats().Dropped
	s.sendRaw(bad)
	waitFor(t, testutil.Wait, "the drop", func() bool { return c.Stats().Dropped == d0+1 })
	// GameOver then Logout(GameOver).
	ev := wire.Event{Type: wire.EventGameOver, Tick: 50, NumScores: 1}
	ev.Scores[0] = wire.Score{Player: 2, Score: 4200}
	s.events(ev)
	waitFor(t, testutil.Wait, "the game over", func() bool { _, over := c.GameOver(); return over })
	if scores, _ := c.GameOver(); len(scores) != 1 || scores[0].Score != 4200 {
		t.Fatalf("scores %v", scores)
	}
	s.logout(wire.LogoutGameOver)
	if err := waitDone(t, c, testutil.Wait); err.Error() != "the game is over" {
		t.Fatalf("Err = %v", err)
	}
}

// TestSnapshotsRebuilt runs a moving world with spawns and destroys
// through delta snapshots and checks that every snapshot the client
// rebuilt equals the one the server sent, and that baselines are used.
func TestSnapshotsRebuilt(t *testing.T) {
	s := newFakeServer(t)
	var mu sync.Mutex
	got := map[uint32][]wire.Entity{}
	ages := map[bool]bool{}
	c := mustDial(t, s, func(cfg *Config) {
		cfg.OnSnapshot = func(r *link.Rebuilt) {
			mu.Lock()
			got[r.Tick] = slices.Clone(r.Entities)
			ages[r.HasBaseline] = true
			mu.Unlock()
		}
	})
	shipWorld(s)
	nextID := uint32(10)
	step := func(tick uint32) {
		s.mu.Lock()
		var evs []wire.Event
		kept := s.entities[:0]
		for _, e := range s.entities {
			if e.Kind == wire.KindBydosSlave {
				e.F[wire.FieldX] -= 8 * 12
				if e.F[wire.FieldX] < 0 {
					evs = append(evs, wire.Event{Type: wire.EventDestroy, Tick: tick, ID: e.ID, X: e.X(), Y: e.Y()})
					continue
				}
			}
			kept = append(kept, e)
		}
		s.entities = kept
		if tick%9 == 0 {
			e := wire.MakeEntity(nextID, wire.KindBydosSlave, 300, float32(nextID), -240, 0, int(nextID%4))
			nextID++
			s.entities = append(s.entities, e)
			evs = append(evs, wire.Event{Type: wire.EventSpawn, Tick: tick, ID: e.ID, Kind: e.Kind, X: e.X(), Y: e.Y(), VX: e.VX(), Owner: wire.NoPlayer})
		}
		slices.SortFunc(s.entities, func(a, b wire.Entity) int {
			if wire.Less(a.ID, b.ID) {
				return -1
			}
			return 1
		})
		s.players[0].Score = tick
		for i := range evs {
			s.link.QueueEvent(&evs[i])
		}
		s.mu.Unlock()
	}
	// Driven from here rather than by a ticker, each snapshot once the
	// client acknowledged the one before: every one but the first is a
	// delta against the one before, whatever the machine's load.
	const lastTick = 30 * 3
	for tick := uint32(3); tick <= lastTick; tick += 3 {
		step(tick)
		s.snapshot(tick)
		waitFor(t, testutil.Wait, "the client's acknowledgement of the snapshot", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			got, _, ok := s.hist.Baseline()
			return ok && got == tick
		})
	}
	waitFor(t, testutil.Wait, "the client's rebuilding of the last snapshot", func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, ok := got[lastTick]
		return ok
	})

	s.mu.Lock()
	defer s.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != lastTick/3 {
		t.Fatalf("%d snapshots rebuilt, want %d", len(got), lastTick/3)
	}
	for tick, ents := range got {
		if want := s.sent[tick]; !slices.Equal(ents, want) {
			t.Fatalf("tick %d: rebuilt %v, server sent %v", tick, ents, want)
		}
	}
	deltas := 0
	for _, b := range s.baseTicks {
		if b != 0 {
			deltas++
		}
	}
	if deltas < len(s.baseTicks)-1 || !ages[true] {
		t.Fatalf("%d of %d snapshots against a baseline", deltas, len(s.baseTicks))
	}
	if age := c.Stats().BaselineAge; age != 3 {
		t.Fatalf("baseline age %d", age)
	}
	// The world and its frames follow the server.
	frames := c.Frames(nil)
	if len(frames) != HistoryLen {
		t.Fatalf("%d frames", len(frames))
	}
	last := frames[len(frames)-1]
	want := s.sent[last.Tick]
	// The server sends a tick's events after its snapshot: a Spawn or a
	// Destroy of the last tick may not be in its frame yet.
	matched := 0
	for i, e := range last.Entities {
		k := slices.IndexFunc(want, func(w wire.Entity) bool { return w.ID == e.ID })
		if k < 0 {
			if e.Tick >= last.Tick {
				t.Fatalf("entity %+v not in the server's world", e)
			}
			continue // destroyed at last.Tick, its Destroy not applied yet
		}
		matched++
		w := want[k]
		if e.X != w.X() || e.Y != w.Y() || e.VX != w.VX() || e.Frame != w.Frame() || e.Tick != last.Tick {
			t.Fatalf("entity %d: %+v, server %+v", i, e, w)
		}
	}
	if len(want)-matched > 1 || len(last.Entities)-matched > 1 {
		t.Fatalf("last frame has %d entities, the server %d, %d in common", len(last.Entities), len(want), matched)
	}
	if p := last.Players[2]; !p.HasShip || p.Ship != 2 || p.Score != last.Tick {
		t.Fatalf("player in the last frame: %+v", p)
	}
}
