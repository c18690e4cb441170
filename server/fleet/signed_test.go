package fleet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"rtype/internal/testutil"
	"rtype/internal/testutil/redistest"
	"rtype/net/wire"
)

var (
	fleetKey = []byte("0123456789abcdef0123456789abcdef")
	otherKey = []byte("fedcba9876543210fedcba9876543210")
)

// signedReg returns a registry of the fleet at rd under key (nil:
// unsigned), publishing addr.
func signedReg(t *testing.T, redisURL, addr string, key []byte) *Registry {
	t.Helper()
	r, err := New(Config{Redis: redisURL, PublicAddr: addr, Key: key, Prefix: "t:", Timeout: testutil.Wait,
		Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func publicRoom(code wire.RoomCode, players uint8) Room {
	return Room{Code: code, Mode: wire.ModeClassic, State: wire.RoomLobby, Players: players, Max: 4,
		Flags: wire.RoomPublic | wire.RoomJoinLate, Created: 1}
}

// Entries that do not verify under the fleet key are not followed: the
// two commands of a stranger (SET, ZADD), a server of another key, and a
// peer's entry moved to another code's key; each is counted. A peer's of
// the same key is.
func TestSignedEntries(t *testing.T) {
	rd := redistest.New(t)
	ctx := context.Background()
	raw := redis.NewClient(&redis.Options{Addr: rd.Addr()})
	defer raw.Close()

	me := signedReg(t, rd.Addr(), "10.0.0.1:4242", fleetKey)
	peer := signedReg(t, rd.Addr(), "10.0.0.2:4242", fleetKey)
	stranger := signedReg(t, rd.Addr(), "203.0.113.9:4242", otherKey)

	good, _ := wire.ParseRoomCode("GGGGGG")
	other, _ := wire.ParseRoomCode("SSSSSS")
	forged, _ := wire.ParseRoomCode("FFFFFF")
	moved, _ := wire.ParseRoomCode("MMMMMM")
	peer.SetWebTransport(WebTransport{Addr: "10.0.0.2:4443", CertHashes: [][32]byte{{1}}})
	stranger.SetWebTransport(WebTransport{Addr: "203.0.113.9:4443", CertHashes: [][32]byte{{2}}})
	if err := peer.Sync(ctx, []Room{publicRoom(good, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := stranger.Sync(ctx, []Room{publicRoom(other, 3)}); err != nil {
		t.Fatal(err)
	}
	// The stranger's two commands.
	exp := float64(time.Now().Add(time.Hour).UnixMilli())
	if err := raw.Set(ctx, "t:room:FFFFFF", "203.0.113.9:4242 1 1 3 4 3 1", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.ZAdd(ctx, "t:public", redis.Z{Score: exp, Member: "FFFFFF"}).Err(); err != nil {
		t.Fatal(err)
	}
	// The peer's entry copied under another code.
	v, err := raw.Get(ctx, "t:room:GGGGGG").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Set(ctx, "t:room:MMMMMM", v, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}

	if err := me.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	p := me.Public(wire.ModeClassic)
	if len(p) != 1 || p[0].Code != good || p[0].Addr != "10.0.0.2:4242" {
		t.Fatalf("Public = %+v, want only the peer's room", p)
	}
	if wt, ok := me.WebTransportOf("10.0.0.2:4242"); !ok || wt.Addr != "10.0.0.2:4443" {
		t.Errorf("the peer's WebTransport: %+v, %v", wt, ok)
	}
	if wt, ok := me.WebTransportOf("203.0.113.9:4242"); ok {
		t.Errorf("the stranger's WebTransport followed: %+v", wt)
	}
	// Read: the stranger's public member and server member, and the
	// forged public member.
	if n := me.Rejected(); n != 3 {
		t.Errorf("Rejected = %d after a Sync, want 3", n)
	}
	if rm, ok, err := me.Lookup(ctx, good); !ok || err != nil || rm.Addr != "10.0.0.2:4242" {
		t.Errorf("Lookup of the peer's code: %+v, %v, %v", rm, ok, err)
	}
	for _, c := range []wire.RoomCode{other, forged, moved} {
		before := me.Rejected()
		if rm, ok, err := me.Lookup(ctx, c); ok || err != nil {
			t.Errorf("Lookup of %s: %+v, %v, %v: followed", c, rm, ok, err)
		}
		if me.Rejected() != before+1 {
			t.Errorf("Lookup of %s: not counted", c)
		}
	}

	// Without a key, the forged entry is followed, as before.
	open := signedReg(t, rd.Addr(), "10.0.0.3:4242", nil)
	if rm, ok, _ := open.Lookup(ctx, forged); !ok || rm.Addr != "203.0.113.9:4242" {
		t.Errorf("an unsigned registry's Lookup of the forged code: %+v, %v", rm, ok)
	}

	// A room that closes leaves the public list: its signed member is
	// removed.
	if err := peer.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n, _ := raw.ZCard(ctx, "t:public").Result(); n != 2 {
		t.Errorf("t:public has %d members after the peer's room closed, want 2 (the stranger's, the forged)", n)
	}
}

// A redis:// URL with a password reaches a Redis that requires it; the
// short form without one does not.
func TestRedisURLPassword(t *testing.T) {
	rd := redistest.NewPassword(t, "s3cret")
	ctx := context.Background()
	code, _ := wire.ParseRoomCode("PPPPPP")
	a := signedReg(t, "redis://:s3cret@"+rd.Addr()+"/0", "10.0.0.1:4242", fleetKey)
	if err := a.Sync(ctx, []Room{publicRoom(code, 1)}); err != nil {
		t.Fatal(err)
	}
	b := signedReg(t, "redis://default:s3cret@"+rd.Addr(), "10.0.0.2:4242", fleetKey)
	if rm, ok, err := b.Lookup(ctx, code); !ok || err != nil || rm.Addr != "10.0.0.1:4242" {
		t.Fatalf("Lookup through the URL: %+v, %v, %v", rm, ok, err)
	}
	bare := signedReg(t, rd.Addr(), "10.0.0.3:4242", fleetKey)
	if _, _, err := bare.Lookup(ctx, code); err == nil || bare.Up() {
		t.Fatalf("Lookup without the password: %v, up %v", err, bare.Up())
	}
	wrong := signedReg(t, "redis://:nope@"+rd.Addr(), "10.0.0.3:4242", fleetKey)
	_, _, err := wrong.Lookup(ctx, code)
	if err == nil {
		t.Fatal("Lookup with a wrong password succeeded")
	}
	if strings.Contains(err.Error(), "nope") {
		t.Errorf("the error shows the password: %v", err)
	}
}

func TestConfigKeyAndURL(t *testing.T) {
	for _, cfg := range []Config{{Redis: "127.0.0.1:1", Key: []byte("short")}, {Redis: "http://x:1"}, {Redis: "redis://%zz"}} {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", cfg, err)
		}
	}
	dir := t.TempDir()
	short, long := filepath.Join(dir, "short"), filepath.Join(dir, "long")
	os.WriteFile(short, []byte(strings.Repeat("k", MinKeyLen-1)+"\n"), 0o600)
	os.WriteFile(long, []byte(strings.Repeat("k", MinKeyLen)+"\r\n"), 0o600)
	if _, err := ReadKey(short); !errors.Is(err, ErrConfig) {
		t.Errorf("ReadKey of %d bytes and a line end: %v", MinKeyLen-1, err)
	}
	if k, err := ReadKey(long); err != nil || len(k) != MinKeyLen {
		t.Errorf("ReadKey of %d bytes and a line end: %d bytes, %v", MinKeyLen, len(k), err)
	}
	if _, err := ReadKey(filepath.Join(dir, "none")); err == nil {
		t.Error("ReadKey of no file")
	}
	// A signature binds the key name: the same payload under another.
	if Sign(fleetKey, "t:room:AAAAAA", "x") == Sign(fleetKey, "t:room:BBBBBB", "x") ||
		Sign(fleetKey, "ab", "c") == Sign(fleetKey, "a", "bc") {
		t.Error("Sign does not bind the key name")
	}
}
