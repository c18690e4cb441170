package client

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"rtype/internal/evilserver"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
	"rtype/sim"
)

func (s *fakeServer) loginVersions() []uint8 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.versions)
}

// 7.1, Fallback: by default the client offers version 2, and on
// VersionMismatch logs in again at once, with version 1, on a new
// connection.
func TestVersionAutoFallsBack(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	if got := s.loginVersions(); !slices.Equal(got, []uint8{2, 1}) {
		t.Fatalf("LoginRequest versions %v, want [2 1]", got)
	}
	if c.Version() != 1 || c.Stats().Version != 1 {
		t.Fatalf("session version %d (stats %d), want 1", c.Version(), c.Stats().Version)
	}
	if _, ok := c.Rules(); ok {
		t.Fatal("a v1 session has rules")
	}
}

// 7.1: Version 1 speaks version 1 only.
func TestVersion1Only(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, func(c *Config) { c.Version = 1 })
	if got := s.loginVersions(); !slices.Equal(got, []uint8{1}) {
		t.Fatalf("LoginRequest versions %v, want [1]", got)
	}
	if c.Version() != 1 {
		t.Fatalf("version %d", c.Version())
	}
}

// 7.1: an explicit Version 2 does not fall back: a v1 server's
// VersionMismatch fails Dial with a clear error.
func TestVersion2Refused(t *testing.T) {
	s := newFakeServer(t)
	_, err := dial(t, s, func(c *Config) { c.Version = 2 })
	var rej *RejectedError
	if !errors.As(err, &rej) || rej.Reason != wire.RejectVersionMismatch {
		t.Fatalf("err %v, want VersionMismatch", err)
	}
	if !strings.Contains(err.Error(), "does not speak protocol version 2") {
		t.Fatalf("unclear error %q", err)
	}
	if got := s.loginVersions(); !slices.Equal(got, []uint8{2}) {
		t.Fatalf("LoginRequest versions %v, want [2]", got)
	}
}

// Only the versions 0 (auto), 1 and 2 exist.
func TestVersionUnknown(t *testing.T) {
	s := newFakeServer(t)
	_, err := dial(t, s, func(c *Config) { c.Version = 3 })
	if err == nil || !strings.Contains(err.Error(), "version 3") {
		t.Fatalf("err %v", err)
	}
	if got := s.loginVersions(); len(got) != 0 {
		t.Fatalf("logged in with %v", got)
	}
}

// Another rejection than VersionMismatch is final, even in auto.
func TestVersionAutoNoFallbackOnOtherReject(t *testing.T) {
	s := newFakeServer(t)
	s.reject = &wire.Message{Type: wire.MsgLoginRejected, Reason: wire.RejectGameFull}
	_, err := dial(t, s, nil)
	var rej *RejectedError
	if !errors.As(err, &rej) || rej.Reason != wire.RejectGameFull {
		t.Fatalf("err %v", err)
	}
	if got := s.loginVersions(); !slices.Equal(got, []uint8{2}) {
		t.Fatalf("LoginRequest versions %v, want [2]", got)
	}
}

// 7.7, "Acknowledge at once" (the reference client does so in v1 too): an
// accepted Event datagram is acknowledged at once, not at the next send
// tick or keep-alive, so that on a clean link the server never resends an
// event for want of its acknowledgement. The client's clock is stopped
// (an Input or Ack every hour): only an immediate Ack acknowledges the
// events. Whether one came late enough for a resend depends on the
// machine's load, and is logged.
func TestEventsAckedAtOnce(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, func(c *Config) {
		c.SendInterval = time.Hour
		c.AckInterval = time.Hour
	})
	const n = 40
	for i := 0; i < n; i++ {
		s.events(wire.Event{Type: wire.EventSpawn, Tick: uint32(10 + i), ID: uint32(100 + i), Kind: wire.KindBydosSlave, Owner: wire.NoPlayer, X: 500, Y: 300})
		time.Sleep(10 * time.Millisecond) // the pace of events, not a synchronisation
		s.mu.Lock()
		s.flushLocked(time.Now()) // resend what is due (5.3)
		s.mu.Unlock()
	}
	waitFor(t, testutil.Wait, "every event acknowledged", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.flushLocked(time.Now())
		return s.link.Unacked() == 0
	})
	s.mu.Lock()
	st := s.link.Stats()
	s.mu.Unlock()
	t.Logf("%d events sent, %d resent", st.EventsSent, st.EventsResent)
	if st.EventsSent != n {
		t.Fatalf("%d events sent, want %d", st.EventsSent, n)
	}
	if got := c.Stats().EventsDelivered; got != n {
		t.Fatalf("%d events delivered", got)
	}
}

// 7.1 against the real server: auto speaks v2 to a v2 server and gets its
// rules; against a v1-only server (MaxVersion 1) it falls back to v1, and
// an explicit Version 2 fails clearly.
func TestVersionRealServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	v2 := testserver.Start(t, server.Config{MaxGames: 1})
	c, err := Dial(ctx, Config{Addr: v2.Addr(), Name: "auto2", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rules, ok := c.Rules()
	want := sim.DefaultRules()
	if c.Version() != 2 || !ok || int(rules.ShipSpeed) != int(want.ShipSpeed) || int(rules.AreaW) != int(want.AreaW) || int(rules.TickRate) != want.TickRate {
		t.Fatalf("version %d, rules %+v %v", c.Version(), rules, ok)
	}

	v1 := testserver.Start(t, server.Config{MaxGames: 1, MaxVersion: 1})
	c1, err := Dial(ctx, Config{Addr: v1.Addr(), Name: "auto1", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	if c1.Version() != 1 {
		t.Fatalf("version %d against a v1-only server", c1.Version())
	}
	waitFor(t, testutil.Wait, "a snapshot in v1", func() bool { return c1.Stats().SnapshotTick > 0 })

	_, err = Dial(ctx, Config{Addr: v1.Addr(), Name: "only2", Logger: testLogger(), Version: 2})
	var rej *RejectedError
	if !errors.As(err, &rej) || rej.Reason != wire.RejectVersionMismatch || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("explicit v2 against a v1-only server: %v", err)
	}
}

// 7.3: a v2 client answers a Challenge at once with a Bind carrying its
// cookie, not at its next Bind: with a Bind interval longer than the bind
// timeout, the binding succeeds only so.
func TestV2BindAnswersChallengeAtOnce(t *testing.T) {
	s, err := evilserver.Start(evilserver.Config{Version2: true, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testutil.Wait)
	defer cancel()
	start := time.Now()
	c, err := Dial(ctx, Config{Addr: s.Addr(), Name: "binder", Logger: testutil.Logger(t),
		BindInterval: time.Hour, BindTimeout: testutil.Wait})
	if err != nil {
		t.Fatalf("%v: the Challenge waited for the next Bind", err)
	}
	defer c.Close()
	t.Logf("bound after %v", time.Since(start).Round(time.Millisecond))
	if c.Version() != 2 {
		t.Fatalf("version %d", c.Version())
	}
	// The Challenge was recorded and acknowledged (7.3, Recording); two
	// Binds went out: the token, then the token and the cookie.
	if st := c.Stats().Link; st.SentDatagrams < 2 || st.RecvDatagrams < 2 {
		t.Fatalf("link %+v", st)
	}
}

// 7.4: each Input is the next step, with the actions of it and of the 7
// steps before it (fewer at the start), newest first; Steps lists what
// was sent after a step.
func TestInput2Steps(t *testing.T) {
	c := &Client{}
	now := time.Unix(0, 0)
	var last []byte
	for k := 0; k < 12; k++ {
		c.actions = uint8(k) & wire.ActionsMask
		last = c.nextStep(now)
		var in wire2.Input
		if err := wire2.ParseInput(last, &in); err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
		if in.Step != uint32(k) || in.Count != min(k+1, 8) {
			t.Fatalf("step %d: %+v", k, in)
		}
		for i := 0; i < in.Count; i++ {
			if a, _ := in.At(uint32(k - i)); a != uint8(k-i)&wire.ActionsMask {
				t.Fatalf("step %d carries %d for step %d", k, a, k-i)
			}
		}
	}
	if got := c.Steps(8, nil); len(got) != 3 || got[0].Step != 9 || got[2].Step != 11 || got[2].Actions != 11 {
		t.Fatalf("steps after 8: %+v", got)
	}
	if got := c.Steps(^uint32(0), nil); len(got) != 12 {
		t.Fatalf("every step: %d", len(got))
	}
	for k := 12; k < 300; k++ {
		c.nextStep(now)
	}
	if got := c.Steps(^uint32(0), nil); len(got) != StepsKept || got[0].Step != 300-StepsKept {
		t.Fatalf("kept %d steps from %d", len(got), got[0].Step)
	}
}
