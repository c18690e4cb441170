package client

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// TestSpectateNeedsV2: a spectator never plays by mistake. A v1-only
// server refuses the v2 login (VersionMismatch), and a server that ignores
// the Spectate flag and accepts a player: both end Dial with
// ErrNoSpectators, the second after a Logout(Left).
func TestSpectateNeedsV2(t *testing.T) {
	fs := newFakeServer(t) // speaks v1 only
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	if _, err := Dial(ctx, Config{Addr: fs.addr(), Name: "Newt", Spectate: true, Logger: testutil.Logger(t)}); !errors.Is(err, ErrNoSpectators) {
		t.Fatalf("v1 server: %v, want ErrNoSpectators", err)
	}
	if _, err := Dial(ctx, Config{Addr: fs.addr(), Name: "Newt", Spectate: true, Version: wire.Version}); err == nil {
		t.Fatal("a v1 spectator dialled")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan wire.Message, 2)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fr := wire.FrameReader{R: c}
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		m, _ := wire2.ParseMessage(f)
		got <- m
		// A server that ignores the flag: a player's LoginAccepted.
		acc := wire.Message{Type: wire.MsgLoginAccepted, Player: 0, Session: 7, Tick: 1, Revision: wire.Revision, Mode: wire.ModeStage,
			Ext: wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}}
		c.Write(wire2.AppendMessage(nil, &acc))
		c.SetReadDeadline(time.Now().Add(testutil.Wait))
		f, err = fr.ReadFrame()
		if err == nil {
			m, _ = wire2.ParseMessage(f)
			got <- m
		}
	}()
	code, _ := wire.ParseRoomCode("K7MX2Q")
	if _, err := Dial(ctx, Config{Addr: ln.Addr().String(), Name: "Newt", Spectate: true, Room: code}); !errors.Is(err, ErrNoSpectators) {
		t.Fatalf("a server that gives a ship: %v, want ErrNoSpectators", err)
	}
	if req := <-got; req.Flags != wire.LoginSpectate || req.Code != code || req.Revision != wire.Revision {
		t.Fatalf("LoginRequest %+v", req)
	}
	select {
	case m := <-got:
		if m.Type != wire.MsgLogout || m.Reason != wire.LogoutLeft {
			t.Fatalf("after the player's LoginAccepted: %+v, want Logout(Left)", m)
		}
	case <-time.After(testutil.Wait):
		t.Fatal("no Logout after a player's LoginAccepted")
	}
}
