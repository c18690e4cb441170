package rendezvous

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"rtype/net/ipkey"
	"rtype/net/wire"
)

// TestFind: a browser's lookup finds a registered code; a code nobody
// registered is unknown; the code of a host that stopped refreshing, or
// that its refresh left out, is gone for goneFor, then unknown; each
// lookup spends the address' rate.
func TestFind(t *testing.T) {
	v := newVRV(Config{LookupBurst: 3, LookupRate: 1})
	host := netip.MustParseAddrPort("198.51.100.7:4244")
	v.register(t, host, exCode)
	ip := netip.MustParseAddr("203.0.113.9")
	h, err := v.s.Find(exCode, ip)
	if err != nil || h.Observed != host || h.Local != host {
		t.Fatalf("Find: %+v %v, want the host at %v", h, err, host)
	}
	other := wire.RoomCode{'Z', 'Z', 'Z', 'Z', 'Z', '2'}
	if _, err := v.s.Find(other, ip); !errors.Is(err, ErrUnknownRoom) {
		t.Errorf("an unregistered code: %v, want ErrUnknownRoom", err)
	}
	v.s.Find(other, ip)
	if _, err := v.s.Find(exCode, ip); !errors.Is(err, ErrRateLimited) {
		t.Errorf("the 4th lookup of a burst of 3: %v, want ErrRateLimited", err)
	}
	v.now = v.now.Add(31 * time.Second) // the registration expires (TTL 30 s)
	if _, err := v.s.Find(exCode, ip); !errors.Is(err, ErrHostGone) {
		t.Errorf("the code of a host that stopped refreshing: %v, want ErrHostGone", err)
	}
	v.now = v.now.Add(goneFor + time.Second)
	if _, err := v.s.Find(exCode, ip); !errors.Is(err, ErrUnknownRoom) {
		t.Errorf("%v later: %v, want ErrUnknownRoom", goneFor, err)
	}
	tok := v.register(t, host, exCode)
	if _, err := v.s.Find(exCode, ip); err != nil {
		t.Errorf("registered again: %v", err)
	}
	// A refresh without the code: the room closed.
	v.handle(AppendRegister(nil, &Register{Nonce: 9, Cookie: v.cookie(t, host), HostToken: tok, Local: host}), host)
	if _, err := v.s.Find(exCode, ip); !errors.Is(err, ErrHostGone) {
		t.Errorf("a code the host's refresh left out: %v, want ErrHostGone", err)
	}
}

// TestBrowserAddr: a browser goes to a host's mapping, to a host on the
// internet, or to a host of its own home by its local address; to none
// behind a NAT without a mapping (the relay).
func TestBrowserAddr(t *testing.T) {
	pub := netip.MustParseAddrPort("198.51.100.7:4244")
	lan := netip.MustParseAddrPort("192.168.1.5:4244")
	mapped := netip.MustParseAddrPort("198.51.100.7:30000")
	away := netip.MustParseAddr("203.0.113.9")
	for _, c := range []struct {
		h    HostInfo
		ip   netip.Addr
		want netip.AddrPort
		path Path
	}{
		{HostInfo{Observed: pub, Local: lan, Mapped: mapped}, away, mapped, PathMapped},
		{HostInfo{Observed: pub, Local: pub}, away, pub, PathDirect},
		{HostInfo{Observed: pub, Local: lan}, pub.Addr(), lan, PathDirect},
		{HostInfo{Observed: pub, Local: lan}, away, netip.AddrPort{}, ""},
	} {
		a, p, ok := c.h.BrowserAddr(c.ip)
		if a != c.want || p != c.path || ok != c.want.IsValid() {
			t.Errorf("%+v from %v: %v %q %v, want %v %q", c.h, c.ip, a, p, ok, c.want, c.path)
		}
	}
}

// TestRelayAddrsApart: a Conn's relay addresses are each in an IPv6 /64
// of its own, so that the limits per address (net/ipkey) count the
// relayed peers of a host apart; and in fd00::/8, held by no peer.
func TestRelayAddrsApart(t *testing.T) {
	c := NewConn(func([]byte, netip.AddrPort) error { return nil }, nil, netip.AddrPort{}, nil)
	a, b := c.RelayAddr(Token{1}), c.RelayAddr(Token{2})
	if ipkey.Of(a.Addr()) == ipkey.Of(b.Addr()) {
		t.Errorf("relay addresses %v and %v count as one address", a, b)
	}
	if !netip.MustParsePrefix("fd00::/8").Contains(a.Addr()) || c.RelayAddr(Token{1}) != a {
		t.Errorf("relay address %v: want fd00::/8, the same for the same pair", a)
	}
}
