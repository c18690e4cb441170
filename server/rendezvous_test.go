package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/internal/testutil"
	netlobby "rtype/net/lobby"
	"rtype/net/rendezvous"
	"rtype/net/wire"
)

// waitLobby waits until l's room satisfies cond.
func waitLobby(t *testing.T, l *netlobby.Lobby, cond func(r *wire.Room) bool) wire.Room {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	st, err := l.AwaitRoom(ctx, func(r wire.Room) bool { return cond(&r) })
	if err != nil {
		t.Fatalf("the room did not come: %v", err)
	}
	return st
}

// TestRendezvousHost runs a server registered at a rendezvous on
// 127.0.0.1: a room made in it is found by its code, and friends join it
// over the WebTransport binding's socket, directly and through the relay,
// their lobby sessions taking the same room.
func TestRendezvousHost(t *testing.T) {
	s := startWT(t, testConfig())
	rv := rendezvous.NewServer(rendezvous.Config{Logger: testutil.Logger(t)})
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	rv.SetPage(4280) // its page for browsers: the host is told its port
	go rv.Serve(pc)
	defer pc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	registered := make(chan netip.AddrPort, 1)
	go func() {
		done <- s.RunRendezvous(ctx, RendezvousConfig{Addr: pc.LocalAddr().String(),
			Registered: func(a netip.AddrPort, page uint16) {
				if page != 4280 {
					t.Errorf("the rendezvous' page port %d, want 4280", page)
				}
				registered <- a
			}})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	info, _ := s.WebTransport()
	select {
	case a := <-registered:
		if a.String() != info.Addr {
			t.Errorf("registered as %v, want the binding's %v", a, info.Addr)
		}
	case <-time.After(wait):
		t.Fatal("no registration")
	}

	lctx, lcancel := context.WithTimeout(context.Background(), wait)
	defer lcancel()
	owner, err := netlobby.Dial(lctx, netlobby.Config{Addr: s.Addr(), Name: "owner", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	owner.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers})
	code := waitLobby(t, owner, func(*wire.Room) bool { return true }).Code

	for i, p := range []rendezvous.Path{rendezvous.PathDirect, rendezvous.PathRelayed} {
		d := &rendezvous.Dialer{Rendezvous: pc.LocalAddr().String(), Paths: []rendezvous.Path{p},
			RelayDelay: time.Millisecond, Logger: testutil.Logger(t)}
		// The code is registered within roomPoll of the room's making.
		testutil.WaitFor(t, wait, "the code registered", func() bool {
			c, err := d.DialStream(lctx, code.String())
			if err == nil {
				c.Close()
			}
			return !errors.Is(err, rendezvous.ErrUnknownRoom)
		})
		f, err := netlobby.Dial(lctx, netlobby.Config{Addr: code.String(), Name: "friend" + string(rune('1'+i)),
			Transport: d, Logger: testutil.Logger(t)})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Join(code)
		st := waitLobby(t, f, func(r *wire.Room) bool { return r.Code == code })
		if st.Count < 2 {
			t.Errorf("%s: the friend's room has %d players", p, st.Count)
		}
		if r := d.Last(); r.Path != p {
			t.Errorf("path %s, want %s", r.Path, p)
		}
		if p == rendezvous.PathRelayed {
			r := d.Last()
			if r.Conn.RelayedOut.Load() == 0 || r.Conn.RelayedIn.Load() == 0 {
				t.Errorf("relayed: %d bytes out, %d in", r.Conn.RelayedOut.Load(), r.Conn.RelayedIn.Load())
			}
			if st := rv.Stats(); st.RelayedPackets == 0 {
				t.Errorf("the rendezvous relayed nothing: %+v", st)
			}
		}
		f.Close()
	}
}
