package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"rtype/internal/testrules"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/lobby"
	"rtype/net/rendezvous"
	"rtype/net/wire"
	"rtype/server"
)

// -rendezvous -room finds the room's host at a rendezvous and plays its
// game over the path it prints (here forced through the relay with
// -path); the flags that do not go together are usage errors.
func TestRendezvous(t *testing.T) {
	var out, errs bytes.Buffer
	for _, args := range [][]string{
		{"-rendezvous", "127.0.0.1:1"},
		{"-path", "relayed", "-room", "ZZZZZZ"},
		{"-rendezvous", "127.0.0.1:1", "-room", "ZZZZZZ", "-path", "teleport"},
	} {
		errs.Reset()
		if code := run(args, &out, &errs); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errs.String())
		}
	}

	srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, Rules: testrules.QuickDeath(), Mode: wire.ModeClassic,
		GameOverLinger: 300 * time.Millisecond, WebTransportAddr: "127.0.0.1:0"})
	rv := rendezvous.NewServer(rendezvous.Config{Logger: testutil.Logger(t)})
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	go rv.Serve(pc)
	defer pc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.RunRendezvous(ctx, server.RendezvousConfig{Addr: pc.LocalAddr().String()}); close(done) }()
	defer func() { cancel(); <-done }()

	host, err := lobby.Dial(context.Background(), lobby.Config{Addr: srv.Addr(), Name: "Ripley"})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	host.Create(wire.RoomSettings{Mode: wire.ModeClassic, MaxPlayers: 2})
	var st wire.Room
	testutil.WaitFor(t, testutil.Wait, "the room", func() bool {
		var ok bool
		st, ok = host.State()
		return ok
	})
	go func() {
		for {
			select {
			case <-host.Changed():
				if r, _ := host.State(); r.Count == 2 && r.State == wire.RoomLobby {
					host.Start()
					return
				}
			case <-time.After(testutil.Wait):
				return
			}
		}
	}()
	d := &rendezvous.Dialer{Rendezvous: pc.LocalAddr().String(), Paths: []rendezvous.Path{rendezvous.PathDirect}}
	testutil.WaitFor(t, testutil.Wait, "the code registered", func() bool {
		c, err := d.DialStream(context.Background(), st.Code.String())
		if err == nil {
			c.Close()
		}
		return !errors.Is(err, rendezvous.ErrUnknownRoom)
	})
	out.Reset()
	code := run([]string{"-rendezvous", pc.LocalAddr().String(), "-room", st.Code.String(), "-path", "relayed",
		"-name", "friend", "-duration", "30s", "-log-level", "warn"}, &out, &errs)
	if code != 0 || !strings.Contains(out.String(), "path: relayed\n") || !strings.Contains(out.String(), "first snapshot: ") ||
		!strings.Contains(out.String(), "(game over)") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errs.String())
	}
}
