package server

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/net/wire"
)

// The per-address limits count an IPv6 /64 as one address (ipkey.Of):
// a host that owns a /64 cannot pass them by sending from another of its
// 2^64 addresses. The addresses here are values only: no traffic.

func TestIPv6PrefixLoginRate(t *testing.T) {
	l := newLoginLimiter(5, 10*time.Second, 100)
	now := time.Unix(1_800_000_000, 0)
	for i := range 5 {
		ip := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, byte(i + 1)})
		if !l.allow(ip, now) {
			t.Fatalf("login %d from %s refused", i+1, ip)
		}
	}
	if l.allow(netip.MustParseAddr("2001:db8:1:2:ffff::9"), now) {
		t.Error("a sixth login from the same /64 allowed")
	}
	if !l.allow(netip.MustParseAddr("2001:db8:1:3::1"), now) {
		t.Error("a login from another /64 refused")
	}
	if l.len() != 2 {
		t.Errorf("%d addresses tracked, want 2 (one per /64)", l.len())
	}
}

func TestIPv6PrefixSessionsAndPending(t *testing.T) {
	s := &Server{cfg: Config{MaxPending: 100, MaxPendingPerIP: 2}, sessions: map[uint32]*session{}}
	s.gate = loginGate{srv: s, pendIP: map[netip.Addr]int{}, waiting: map[net.Conn]bool{}}
	for i, a := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:3::1", "203.0.113.1"} {
		s.sessions[uint32(i)] = &session{id: uint32(i), ip: netip.MustParseAddr(a)}
	}
	if n := s.gate.sessionsFrom(netip.MustParseAddr("2001:db8:1:2:abcd::1")); n != 2 {
		t.Errorf("%d sessions from the /64, want 2", n)
	}
	if n := s.gate.sessionsFrom(netip.MustParseAddr("203.0.113.2")); n != 0 {
		t.Errorf("%d sessions from another IPv4 address, want 0", n)
	}
	// Pending connections: two from the /64, the third refused, then one
	// done makes room.
	var conns [3]net.Conn
	for i := range conns {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		conns[i] = a
	}
	ips := []netip.Addr{netip.MustParseAddr("2001:db8:9:9::1"), netip.MustParseAddr("2001:db8:9:9::2"), netip.MustParseAddr("2001:db8:9:9::3")}
	if !s.gate.admit(conns[0], ips[0]) || !s.gate.admit(conns[1], ips[1]) {
		t.Fatal("two pending connections from a /64 refused")
	}
	if s.gate.admit(conns[2], ips[2]) {
		t.Fatal("a third pending connection from the /64 admitted past MaxPendingPerIP 2")
	}
	s.gate.admitted(conns[0], ips[0])
	if !s.gate.admit(conns[2], ips[2]) {
		t.Fatal("no room after a login ended")
	}
	s.gate.admitted(conns[1], ips[1])
	s.gate.admitted(conns[2], ips[2])
	if s.gate.pending != 0 || len(s.gate.pendIP) != 0 || len(s.gate.waiting) != 0 {
		t.Errorf("left: %d pending, %v, %d waiting", s.gate.pending, s.gate.pendIP, len(s.gate.waiting))
	}
}

func TestIPv6PrefixWebTransportKey(t *testing.T) {
	a := addrKey(&net.UDPAddr{IP: net.ParseIP("2001:db8:1:2::7"), Port: 443})
	b := addrKey(&net.UDPAddr{IP: net.ParseIP("2001:db8:1:2:8::"), Port: 444})
	c := addrKey(&net.UDPAddr{IP: net.ParseIP("2001:db8:1:3::7"), Port: 443})
	if a != b || a == c {
		t.Errorf("keys %s, %s (same /64), %s (another)", a, b, c)
	}
	if k := addrKey(&net.UDPAddr{IP: net.ParseIP("127.0.0.1"), Port: 1}); k != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("IPv4 key %s", k)
	}
}

func TestIPv6PrefixRooms(t *testing.T) {
	s := &Server{cfg: Config{WrongCodes: 3, WrongCodeWindow: time.Minute}}
	s.rooms = roomTable{srv: s, byCode: map[wire.RoomCode]*room{}, wrong: map[netip.Addr]*wrongCodes{}}
	now := time.Unix(1_800_000_000, 0)
	for i := range 3 {
		s.rooms.wrongCodeLocked(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, byte(i), 0, 0, 0, 0, 0, 0, 1}), now)
	}
	if why, _ := s.rooms.codeLimitedLocked(netip.MustParseAddr("2001:db8:1:2:ff::1"), now); why != wire.RoomRateLimited {
		t.Error("3 wrong codes from one /64, not limited")
	}
	if why, _ := s.rooms.codeLimitedLocked(netip.MustParseAddr("2001:db8:1:3::1"), now); why != 0 {
		t.Error("another /64 limited")
	}
	owner := &session{ip: netip.MustParseAddr("2001:db8:7:7::1")}
	for i, c := range []string{"AAAAAA", "BBBBBB"} {
		var code wire.RoomCode
		copy(code[:], c)
		rm := &room{code: code, owner: 0}
		rm.members[0] = &member{ss: owner}
		s.rooms.byCode[code] = rm
		if n := s.rooms.ownedByLocked(netip.MustParseAddr("2001:db8:7:7:1::2")); n != i+1 {
			t.Errorf("%d rooms owned from the /64, want %d", n, i+1)
		}
	}
}
