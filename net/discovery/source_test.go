package discovery

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// Only sources on the LAN are answered: loopback, private (RFC 1918, IPv6
// ULA) and link-local addresses, IPv4 ones mapped into IPv6 alike
// (issue 27: a public source was answered with the host name).
func TestAnswersOnlyTheLAN(t *testing.T) {
	for _, c := range []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"::1", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"172.16.0.1", true},
		{"172.31.255.254", true},
		{"192.168.1.20", true},
		{"169.254.3.4", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fc00::1", true},
		{"fd12:3456:789a::1", true},
		{"::ffff:192.168.1.20", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:169.254.0.1", true},

		{"8.8.8.8", false},
		{"1.2.3.4", false},
		{"172.15.255.255", false},
		{"172.32.0.1", false},
		{"192.169.0.1", false},
		{"11.0.0.1", false},
		{"100.64.0.1", false},  // carrier-grade NAT: shared, not the LAN
		{"203.0.113.9", false}, // public (documentation)
		{"2001:4860:4860::8888", false},
		{"2001:db8::1", false},
		{"fec0::1", false}, // deprecated site-local: not fc00::/7
		{"fe00::1", false},
		{"::ffff:8.8.8.8", false}, // v4-mapped public
		{"::ffff:1.2.3.4", false},
		{"64:ff9b::c0a8:114", false}, // NAT64 of 192.168.1.20: translated from afar
		{"0.0.0.0", false},
		{"::", false},
		{"255.255.255.255", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
	} {
		if got := Answers(netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("Answers(%s) = %v, want %v", c.ip, got, c.want)
		}
	}
	if Answers(netip.Addr{}) {
		t.Error("the zero Addr is answered")
	}
}

// countHandler counts the records logged at debug.
type countHandler struct{ n *atomic.Int64 }

func (h countHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelDebug {
		h.n.Add(1)
	}
	return nil
}
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countHandler) WithGroup(string) slog.Handler      { return h }

// A query from a public source, v4, v6 or v4-mapped, gets no answer and
// takes no place in the rate limit's table; it is counted, and logged at
// debug a bounded number of times: 1,000 of them, 10 lines (the 1st,
// 2nd, 4th... 512th). A private source is answered all the same.
func TestResponderRefusesPublicSources(t *testing.T) {
	var logged atomic.Int64
	r, err := Listen(ResponderConfig{Listen: "127.0.0.1:0", Info: func() Info { return exInfo },
		Logger: slog.New(countHandler{&logged})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	q := AppendQuery(nil, exNonce)
	now := time.Unix(1000, 0)
	public := []string{"8.8.8.8", "203.0.113.9", "2001:4860:4860::8888", "::ffff:1.2.3.4"}
	for i := range 1000 {
		from := netip.AddrPortFrom(netip.MustParseAddr(public[i%len(public)]), 40000)
		if out := r.handle(nil, q, from, now); len(out) != 0 {
			t.Fatalf("answered %s with % X", from, out)
		}
	}
	if s := r.Stats(); s.Refused != 1000 || s.Limited != 0 || s.Dropped != 0 {
		t.Fatalf("stats %+v, want 1000 refused", s)
	}
	if n := logged.Load(); n != 10 {
		t.Errorf("%d debug lines for 1000 refusals, want 10", n)
	}
	if len(r.lim.addrs) != 0 {
		t.Errorf("the rate limit tracks %d public addresses", len(r.lim.addrs))
	}
	for _, ip := range []string{"192.168.1.20", "fd00::7", "fe80::1%eth0", "::ffff:10.1.2.3", "127.0.0.1"} {
		out := r.handle(nil, q, netip.AddrPortFrom(netip.MustParseAddr(ip), 40000), now)
		if n, info, err := ParseAnswer(out); err != nil || n != exNonce || info != exInfo {
			t.Errorf("%s: answer %v %+v %v", ip, n, info, err)
		}
	}
}

// askName queries r from loopback over a real socket and returns the name
// answered.
func askName(t *testing.T, r *Responder) string {
	t.Helper()
	c := udpOn(t, "127.0.0.1")
	if _, err := c.WriteToUDP(AppendQuery(nil, exNonce), net.UDPAddrFromAddrPort(r.Addr())); err != nil {
		t.Fatal(err)
	}
	got, _ := read(t, c)
	n, info, err := ParseAnswer(got)
	if err != nil || n != exNonce {
		t.Fatalf("answer %v %+v %v", n, info, err)
	}
	return info.Name
}

// A loopback query is answered over a real socket, with the configured
// name, never the host name; with no name, none, unless HostName asks
// for it.
func TestResponderAnswersTheConfiguredName(t *testing.T) {
	host, _ := os.Hostname()
	named := func(name string) func() Info {
		info := exInfo
		info.Name = name
		return func() Info { return info }
	}
	r := startResponder(t, "127.0.0.1:0", ResponderConfig{Info: named("hangar-7"), HostName: true})
	if got := askName(t, r); got != "hangar-7" || got == host {
		t.Errorf("answered name %q, want the configured hangar-7 (host name %q)", got, host)
	}
	r = startResponder(t, "127.0.0.1:0", ResponderConfig{Info: named("")})
	if got := askName(t, r); got != "" {
		t.Errorf("with no name configured, answered %q (host name %q): want none", got, host)
	}
	r = startResponder(t, "127.0.0.1:0", ResponderConfig{Info: named(""), HostName: true})
	if got := askName(t, r); got != CleanName(host) {
		t.Errorf("with HostName, answered %q, want the host name %q", got, CleanName(host))
	}
	if s := r.Stats(); s.Refused != 0 {
		t.Errorf("loopback refused: %+v", s)
	}
}
