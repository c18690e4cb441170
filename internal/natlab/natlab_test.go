//go:build linux

package natlab

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/portmap"
)

// newLab builds a lab for a test, or skips it when labs cannot be built
// here; the lab is removed when the test ends, failed or not.
func newLab(t *testing.T, homes ...NAT) *Lab {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("no NAT lab here: %v", err)
	}
	l, err := New(Config{Homes: homes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

// listenUDP opens a UDP socket in ns on addr.
func listenUDP(t *testing.T, ns NS, addr string) *net.UDPConn {
	t.Helper()
	var c *net.UDPConn
	err := Do(ns, func() error {
		var err error
		c, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// A guard against a hang, not a measure: the lab answers at once.
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c
}

// observed sends one datagram from c to each of the public sockets dsts
// and returns the source address each one saw.
func observed(t *testing.T, c *net.UDPConn, dsts []*net.UDPConn) []netip.AddrPort {
	t.Helper()
	var out []netip.AddrPort
	var b [64]byte
	for _, d := range dsts {
		if _, err := c.WriteToUDPAddrPort([]byte("hello"), d.LocalAddr().(*net.UDPAddr).AddrPort()); err != nil {
			t.Fatal(err)
		}
		_, from, err := d.ReadFromUDPAddrPort(b[:])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, from)
	}
	return out
}

// TestNATMappings shows the lab's NATs as the paths see them: the cone
// router maps a socket to its own port for every destination, the
// symmetric one to a new port per destination, and the direct host is
// seen as it is.
func TestNATMappings(t *testing.T) {
	l := newLab(t, Cone, Symmetric, Direct)
	var dsts []*net.UDPConn
	for range 4 {
		dsts = append(dsts, listenUDP(t, l.Public, l.Public.Addr.String()+":0"))
	}
	cone, sym, direct := l.Homes[0], l.Homes[1], l.Homes[2]

	c := listenUDP(t, cone.Host, "0.0.0.0:0")
	port := c.LocalAddr().(*net.UDPAddr).Port
	for i, got := range observed(t, c, dsts) {
		if want := netip.AddrPortFrom(cone.Router.Addr, uint16(port)); got != want {
			t.Errorf("cone: destination %d saw %v, want %v (the port kept)", i, got, want)
		}
	}

	s := listenUDP(t, sym.Host, "0.0.0.0:0")
	ports := map[uint16]bool{}
	for i, got := range observed(t, s, dsts) {
		if got.Addr() != sym.Router.Addr {
			t.Errorf("symmetric: destination %d saw %v, want the router's address %v", i, got, sym.Router.Addr)
		}
		ports[got.Port()] = true
	}
	// Four destinations mapped to one port by chance: one in 28000³.
	if len(ports) < 2 {
		t.Errorf("symmetric: 4 destinations saw the ports %v: one mapping for all", ports)
	}

	d := listenUDP(t, direct.Host, "0.0.0.0:0")
	for i, got := range observed(t, d, dsts) {
		if want := d.LocalAddr().(*net.UDPAddr).AddrPort(); got.Port() != want.Port() || got.Addr() != direct.Host.Addr {
			t.Errorf("direct: destination %d saw %v, want %v:%d", i, got, direct.Host.Addr, want.Port())
		}
	}
	if direct.Public() != direct.Host.Addr || cone.Public() != cone.Router.Addr {
		t.Errorf("Public: %v %v", direct.Public(), cone.Public())
	}
}

// TestHomeToHomeRefused shows that without help no home reaches another:
// a TCP connection to a home's public address is refused, and so is a
// UDP datagram to a cone home's mapped port from any but the address the
// mapping was made for is dropped by the router. From a home, the direct
// host is reachable.
func TestHomeToHomeRefused(t *testing.T) {
	l := newLab(t, Cone, Cone, Direct)
	a, b, direct := l.Homes[0], l.Homes[1], l.Homes[2]

	// A game server in home A, on TCP and UDP 4242.
	var ln net.Listener
	if err := Do(a.Host, func() error {
		var err error
		ln, err = net.Listen("tcp4", "0.0.0.0:4242")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srvUDP := listenUDP(t, a.Host, "0.0.0.0:4242")
	// A's socket is mapped by its router: it talks to the public side.
	pub := listenUDP(t, l.Public, l.Public.Addr.String()+":0")
	mapped := observed(t, srvUDP, []*net.UDPConn{pub})[0]

	err := Do(b.Host, func() error {
		c, err := net.DialTimeout("tcp4", a.Public().String()+":4242", 30*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	})
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("home B to home A's public address, TCP 4242: %v, want connection refused", err)
	}

	// UDP from B to A's mapping: A's router drops it (it is not from the
	// address the mapping was made for), and counts it.
	var u *net.UDPConn
	if err := Do(b.Host, func() error {
		var err error
		u, err = net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(mapped))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	before, err := l.DroppedUDP(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Write([]byte("join?")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, testutil.Wait, "home A's router dropping B's datagram", func() bool {
		n, err := l.DroppedUDP(a)
		return err == nil && n == before+1
	})
	// A's server then answers pub (its mapping works): B's datagram was
	// not queued before it.
	if _, err := pub.WriteToUDPAddrPort([]byte("ping"), mapped); err != nil {
		t.Fatal(err)
	}
	var buf [16]byte
	n, from, err := srvUDP.ReadFromUDPAddrPort(buf[:])
	if err != nil || string(buf[:n]) != "ping" || from.Addr() != l.Public.Addr {
		t.Errorf("home A's server read %q from %v (%v), want ping from the public side", buf[:n], from, err)
	}

	// The direct host is reachable from a home.
	dc := listenUDP(t, direct.Host, direct.Host.Addr.String()+":4242")
	hb := listenUDP(t, b.Host, "0.0.0.0:0")
	if got := observed(t, hb, []*net.UDPConn{dc})[0]; got.Addr() != b.Router.Addr {
		t.Errorf("the direct host saw home B as %v, want its router %v", got, b.Router.Addr)
	}
}

// TestCloseRemoves checks that Close leaves no namespace of the lab.
func TestCloseRemoves(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NAT lab here: %v", err)
	}
	l, err := New(Config{Homes: []NAT{Cone, Direct}})
	if err != nil {
		t.Fatal(err)
	}
	names := l.Namespaces()
	if len(names) != 4 {
		t.Errorf("namespaces %v, want 4 (public, cone router and host, direct host)", names)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.Contains(string(out), n) {
			t.Errorf("namespace %s left after Close", n)
		}
	}
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// TestNATPMP maps a port by NAT-PMP at a lab router running miniupnpd: a
// datagram from the internet to the mapping reaches the host's socket,
// and after the mapping's removal the router drops one.
func TestNATPMP(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NAT lab here: %v", err)
	}
	if _, err := exec.LookPath("miniupnpd"); err != nil {
		t.Skip("no miniupnpd (package miniupnpd-nftables)")
	}
	l, err := New(Config{Internet: mustPrefix("11.0.0.0/24"), Homes: []NAT{UPnP}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	h := l.Homes[0]
	c := listenUDP(t, h.Host, "0.0.0.0:0")
	port := uint16(c.LocalAddr().(*net.UDPAddr).Port)
	var m *portmap.Mapping
	// miniupnpd may not listen yet: the guard is testutil.Wait.
	testutil.WaitFor(t, testutil.Wait, "a NAT-PMP mapping", func() bool {
		return Do(h.Host, func() error {
			var err error
			m, err = portmap.Map(context.Background(), portmap.Config{Gateway: h.LAN, Methods: []portmap.Method{portmap.NATPMP},
				Timeout: time.Second}, port)
			return err
		}) == nil
	})
	if m.External.Addr() != h.Router.Addr || m.Method != portmap.NATPMP {
		t.Errorf("mapping %v by %s, want the router's address %v by NAT-PMP", m.External, m.Method, h.Router.Addr)
	}
	pub := listenUDP(t, l.Public, l.Public.Addr.String()+":0")
	if _, err := pub.WriteToUDPAddrPort([]byte("hello"), m.External); err != nil {
		t.Fatal(err)
	}
	var b [16]byte
	n, from, err := c.ReadFromUDPAddrPort(b[:])
	if err != nil || string(b[:n]) != "hello" || from.Addr() != l.Public.Addr {
		t.Fatalf("the host read %q from %v (%v), want hello from the internet", b[:n], from, err)
	}
	if err := Do(h.Host, func() error { return m.Delete(context.Background()) }); err != nil {
		t.Fatal(err)
	}
	before, err := l.DroppedUDP(h)
	if err != nil {
		t.Fatal(err)
	}
	// From another socket: the first datagram's flow stays in conntrack.
	pub2 := listenUDP(t, l.Public, l.Public.Addr.String()+":0")
	if _, err := pub2.WriteToUDPAddrPort([]byte("again"), m.External); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, testutil.Wait, "the router dropping a datagram to the removed mapping", func() bool {
		n, err := l.DroppedUDP(h)
		return err == nil && n > before
	})
}

// TestDialerDialsInTheNamespace: a connection Dialer opens from a
// goroutine of the root namespace (as an HTTP client's) reaches a
// listener on the namespace's own loopback; a plain dial from the root
// namespace to the same address does not (the machine's loopback is
// another). Only loopback addresses are dialled: nothing can leave.
func TestDialerDialsInTheNamespace(t *testing.T) {
	l := newLab(t, Direct)
	var ln net.Listener
	if err := Do(l.Public, func() error {
		var err error
		ln, err = net.Listen("tcp4", "127.0.0.1:0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	accepted := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 16)
			n, _ := c.Read(b)
			accepted <- string(b[:n])
			c.Close()
		}
	}()
	// From another goroutine, as http.Transport dials.
	done := make(chan error, 1)
	go func() {
		c, err := Dialer(l.Public)(context.Background(), "tcp4", addr)
		if err == nil {
			_, err = c.Write([]byte("in the lab"))
			c.Close()
		}
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-accepted:
		if got != "in the lab" {
			t.Errorf("the listener read %q", got)
		}
	case <-time.After(testutil.Wait):
		t.Fatal("the namespace's listener took no connection")
	}
	// The root namespace's loopback is another: a plain dial there
	// reaches some other socket or none, never the lab's listener.
	if c, err := net.DialTimeout("tcp4", addr, time.Second); err == nil {
		c.Write([]byte("from root"))
		c.Close()
	}
	select {
	case got := <-accepted:
		t.Errorf("the lab's listener took a root namespace's connection (%q)", got)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := Dialer(l.Public)(context.Background(), "tcp4", "localhost:80"); err == nil {
		t.Error("Dialer took a name")
	}
}
