package fleet

import (
	"context"
	"testing"

	"rtype/internal/testutil"
	"rtype/internal/testutil/redistest"
	"rtype/net/wire"
)

// BenchmarkLookup is the cost a RoomJoin of a code held by another server
// adds: one GET to a redis-server on the loopback (BENCHMARKS.md).
func BenchmarkLookup(b *testing.B) {
	rd := redistest.New(b)
	other, err := New(Config{Redis: rd.Addr(), PublicAddr: "192.0.2.10:4242", Logger: testutil.Discard()})
	if err != nil {
		b.Fatal(err)
	}
	defer other.Close()
	if err := other.Sync(context.Background(), []Room{{Code: exCode, Mode: wire.ModeClassic, State: wire.RoomLobby, Players: 1, Max: 4}}); err != nil {
		b.Fatal(err)
	}
	me, err := New(Config{Redis: rd.Addr(), PublicAddr: "192.0.2.11:4242", Logger: testutil.Discard()})
	if err != nil {
		b.Fatal(err)
	}
	defer me.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := me.Lookup(ctx, exCode); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkSync is one server's periodic publication of 64 rooms (the
// default MaxRooms), 32 of them public, with the read of the others'.
func BenchmarkSync(b *testing.B) {
	rd := redistest.New(b)
	me, err := New(Config{Redis: rd.Addr(), PublicAddr: "192.0.2.11:4242", Logger: testutil.Discard()})
	if err != nil {
		b.Fatal(err)
	}
	defer me.Close()
	rooms := make([]Room, 64)
	for i := range rooms {
		c := exCode
		c[5] = wire.RoomCodeAlphabet[i%len(wire.RoomCodeAlphabet)]
		c[4] = wire.RoomCodeAlphabet[i/len(wire.RoomCodeAlphabet)]
		rooms[i] = Room{Code: c, Mode: wire.ModeClassic, State: wire.RoomLobby, Players: 1, Max: 4}
		if i%2 == 0 {
			rooms[i].Flags = wire.RoomPublic
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := me.Sync(ctx, rooms); err != nil {
			b.Fatal(err)
		}
	}
}
