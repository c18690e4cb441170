//go:build linux

// Package natlab builds a small internet of Linux network namespaces for
// the tests of the paths between homes (issue 29): a public namespace
// holding the "internet" (a bridge on a /24 of its own, the rendezvous'
// address), and per home either a host on that bridge (reachable
// directly) or a router namespace doing NAT with nftables and a host
// namespace behind it on 192.168.N.0/24.
//
// No namespace is linked to a real interface: the lab's traffic never
// leaves it. Lab names are unique (prefix, process id, a random part), and
// Close removes every namespace it made, also after a failed New.
//
// Code runs in a namespace either as a command (Cmd: ip netns exec) or
// in-process (Do: a goroutine locked to a thread that joined the
// namespace); a socket opened in Do stays in that namespace, so one test
// process can hold sockets of every home.
package natlab

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"rtype/internal/testutil"
)

// NAT is the kind of a home's connection to the internet.
type NAT int

const (
	// Direct: the home's host is on the internet, with a public address.
	Direct NAT = iota
	// Cone: a router masquerades (nftables masquerade), keeping a
	// socket's source port for every destination when it can: an
	// endpoint-independent mapping, address-and-port-dependent filtering.
	Cone
	// Symmetric: a router masquerades with fully-random ports, a new
	// mapping per destination.
	Symmetric
	// UPnP: a cone router that runs miniupnpd (UPnP IGD and NAT-PMP).
	// miniupnpd refuses to map ports of a documentation range: give such
	// a lab the internet 11.0.0.0/24.
	UPnP
)

func (n NAT) String() string {
	switch n {
	case Direct:
		return "direct"
	case Cone:
		return "cone"
	case Symmetric:
		return "symmetric"
	case UPnP:
		return "upnp"
	}
	return fmt.Sprintf("NAT(%d)", int(n))
}

// Config describes a lab.
type Config struct {
	// Prefix starts the names of the lab's namespaces (at most 6
	// characters are kept). Default "rtl".
	Prefix string
	// Internet is the public /24. Default 203.0.113.0/24 (TEST-NET-3);
	// give 11.0.0.0/24 where miniupnpd must map ports, since it refuses
	// documentation ranges. The public namespace holds .1, home i (from
	// 0) has .(10+i).
	Internet netip.Prefix
	// Homes are the homes, in order; home i's LAN is 192.168.(i+1).0/24,
	// its router .1 and its host .2.
	Homes []NAT
}

// NS is a network namespace of the lab.
type NS struct {
	// Name is the namespace's name (ip netns).
	Name string
	// Addr is its address: public for the public namespace, routers and
	// direct hosts; on the LAN for a host behind a router.
	Addr netip.Addr
}

// Home is one home of the lab.
type Home struct {
	NAT NAT
	// Host is where the home's programs run.
	Host NS
	// Router is the NAT router (zero for Direct); its Addr is the home's
	// public address.
	Router NS
	// LAN is the router's address on the home's network (zero for
	// Direct).
	LAN netip.Addr
}

// Public returns the home's address on the internet: its router's, or
// its host's when Direct.
func (h *Home) Public() netip.Addr {
	if h.NAT == Direct {
		return h.Host.Addr
	}
	return h.Router.Addr
}

// Lab is a running lab.
type Lab struct {
	// Public is the internet's namespace (the rendezvous' machine).
	Public NS
	// Homes are the homes, as Config.Homes.
	Homes []Home

	made  []string    // namespaces to remove
	procs []*exec.Cmd // daemons to stop (miniupnpd)
	dir   string      // their files, or ""

	upnpLog testutil.SyncBuffer // the daemons' output
}

// Available reports why labs cannot be built here (nil: they can): not
// root, or no ip or nft command.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("natlab: network namespaces need root")
	}
	for _, c := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(c); err != nil {
			return fmt.Errorf("natlab: no %s command (packages iproute2, nftables)", c)
		}
	}
	if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
		return fmt.Errorf("natlab: ip netns unavailable: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// New builds the lab of cfg. On error it removes what it made.
func New(cfg Config) (l *Lab, err error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "rtl"
	}
	if len(cfg.Prefix) > 6 {
		cfg.Prefix = cfg.Prefix[:6]
	}
	if !cfg.Internet.IsValid() {
		cfg.Internet = netip.MustParsePrefix("203.0.113.0/24")
	}
	if cfg.Internet.Bits() != 24 || !cfg.Internet.Addr().Is4() {
		return nil, fmt.Errorf("natlab: the internet %v is not an IPv4 /24", cfg.Internet)
	}
	if len(cfg.Homes) > 200 {
		return nil, fmt.Errorf("natlab: %d homes: at most 200", len(cfg.Homes))
	}
	var rnd [3]byte
	rand.Read(rnd[:])
	id := fmt.Sprintf("%s%d%s", cfg.Prefix, os.Getpid()%100000, hex.EncodeToString(rnd[:]))
	net4 := cfg.Internet.Masked().Addr().As4()
	pub := func(last byte) netip.Addr { a := net4; a[3] = last; return netip.AddrFrom4(a) }
	l = &Lab{Public: NS{Name: id + "-pub", Addr: pub(1)}}
	defer func() {
		if err != nil {
			l.Close()
			l = nil
		}
	}()
	if err := l.addNS(l.Public.Name); err != nil {
		return l, err
	}
	if err := l.run(l.Public.Name, "ip link add br0 type bridge",
		"ip link set br0 up",
		"ip addr add "+l.Public.Addr.String()+"/24 dev br0",
		"ip link set lo up"); err != nil {
		return l, err
	}
	for i, nat := range cfg.Homes {
		h := Home{NAT: nat}
		wan := pub(byte(10 + i))
		pubIf := fmt.Sprintf("h%d", i)
		if nat == Direct {
			h.Host = NS{Name: fmt.Sprintf("%s-h%d", id, i), Addr: wan}
			if err := l.addNS(h.Host.Name); err != nil {
				return l, err
			}
			if err := l.run(l.Public.Name,
				"ip link add "+pubIf+" type veth peer name wan netns "+h.Host.Name,
				"ip link set "+pubIf+" master br0",
				"ip link set "+pubIf+" up"); err != nil {
				return l, err
			}
			if err := l.run(h.Host.Name, "ip link set lo up",
				"ip addr add "+wan.String()+"/24 dev wan", "ip link set wan up"); err != nil {
				return l, err
			}
			l.Homes = append(l.Homes, h)
			continue
		}
		h.Router = NS{Name: fmt.Sprintf("%s-r%d", id, i), Addr: wan}
		h.LAN = netip.AddrFrom4([4]byte{192, 168, byte(i + 1), 1})
		h.Host = NS{Name: fmt.Sprintf("%s-h%d", id, i), Addr: netip.AddrFrom4([4]byte{192, 168, byte(i + 1), 2})}
		if err := l.addNS(h.Router.Name); err != nil {
			return l, err
		}
		if err := l.addNS(h.Host.Name); err != nil {
			return l, err
		}
		if err := l.run(l.Public.Name,
			"ip link add "+pubIf+" type veth peer name wan netns "+h.Router.Name,
			"ip link set "+pubIf+" master br0",
			"ip link set "+pubIf+" up"); err != nil {
			return l, err
		}
		if err := l.run(h.Router.Name, "ip link set lo up",
			"ip addr add "+wan.String()+"/24 dev wan", "ip link set wan up",
			"ip link add lan type veth peer name lan netns "+h.Host.Name,
			"ip addr add "+h.LAN.String()+"/24 dev lan", "ip link set lan up",
			"sysctl -q -w net.ipv4.ip_forward=1"); err != nil {
			return l, err
		}
		if err := l.run(h.Host.Name, "ip link set lo up",
			"ip addr add "+h.Host.Addr.String()+"/24 dev lan", "ip link set lan up",
			"ip route add default via "+h.LAN.String()); err != nil {
			return l, err
		}
		if err := l.nft(h.Router.Name, routerRules(nat)); err != nil {
			return l, err
		}
		if nat == UPnP {
			if err := l.startUPnP(h); err != nil {
				return l, err
			}
		}
		l.Homes = append(l.Homes, h)
	}
	return l, nil
}

// routerRules are a home router's nftables rules: masquerade what leaves
// by the WAN, forward into the LAN only what answers it (and what a DNAT
// maps, as miniupnpd's), and drop new UDP flows from the WAN to the
// router itself, counting them (wanudp), as home routers do. Without that
// drop a datagram that comes before its hole is punched would leave a
// conntrack entry that makes the router give the host's answer another
// port, and the router would answer it with an ICMP error. TCP to the
// router is refused, as the issue saw it.
func routerRules(nat NAT) string {
	masq := "masquerade"
	if nat == Symmetric {
		masq = "masquerade fully-random"
	}
	return `table ip natlab {
	counter wanudp {
	}
	chain input {
		type filter hook input priority filter; policy accept;
		iifname "wan" meta l4proto udp ct state new counter name "wanudp" drop
	}
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		oifname "wan" ` + masq + `
	}
	chain forward {
		type filter hook forward priority filter; policy accept;
		ct state established,related accept
		iifname "wan" ct status dnat accept
		iifname "wan" drop
	}
}
`
}

// Close removes the lab's namespaces (and with them their links). It may
// be called more than once.
func (l *Lab) Close() error {
	var errs []error
	for _, c := range l.procs {
		c.Process.Kill()
		c.Wait()
	}
	l.procs = nil
	if l.dir != "" {
		os.RemoveAll(l.dir)
		l.dir = ""
	}
	for _, n := range l.made {
		if out, err := exec.Command("ip", "netns", "del", n).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("natlab: ip netns del %s: %v: %s", n, err, bytes.TrimSpace(out)))
		}
	}
	l.made = nil
	return errors.Join(errs...)
}

// Namespaces returns the names of the namespaces the lab made.
func (l *Lab) Namespaces() []string { return append([]string(nil), l.made...) }

func (l *Lab) addNS(name string) error {
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		return fmt.Errorf("natlab: ip netns add %s: %v: %s", name, err, bytes.TrimSpace(out))
	}
	l.made = append(l.made, name)
	return nil
}

// run runs each command line (split at spaces) in namespace ns.
func (l *Lab) run(ns string, lines ...string) error {
	for _, line := range lines {
		args := append([]string{"netns", "exec", ns}, strings.Fields(line)...)
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("natlab: in %s: %s: %v: %s", ns, line, err, bytes.TrimSpace(out))
		}
	}
	return nil
}

// nft loads the ruleset rules into namespace ns.
func (l *Lab) nft(ns, rules string) error {
	c := exec.Command("ip", "netns", "exec", ns, "nft", "-f", "-")
	c.Stdin = strings.NewReader(rules)
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("natlab: nft in %s: %v: %s", ns, err, bytes.TrimSpace(out))
	}
	return nil
}

// Cmd returns the command name args run in namespace ns.
func Cmd(ctx context.Context, ns NS, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// Do runs f on a thread that joined namespace ns, and returns its
// error. Sockets f opens belong to ns for their whole life. The thread is
// thrown away afterwards (its goroutine ends locked), so no other
// goroutine ever runs in ns by accident.
//
// Only f's own goroutine is in ns: a socket opened by a goroutine f
// starts (an HTTP client's dial, a library's helper) is opened in the
// root namespace, and its traffic leaves the lab for the machine's
// routes. Code that dials on goroutines of its own takes Dialer.
func Do(ns NS, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		fd, err := unix.Open("/run/netns/"+ns.Name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			errc <- fmt.Errorf("natlab: open namespace %s: %w", ns.Name, err)
			return
		}
		err = unix.Setns(fd, unix.CLONE_NEWNET)
		unix.Close(fd)
		if err != nil {
			errc <- fmt.Errorf("natlab: join namespace %s: %w", ns.Name, err)
			return
		}
		errc <- f()
	}()
	return <-errc
}

// Dialer returns a dial function that opens every connection in
// namespace ns (through Do), whichever goroutine calls it: for
// http.Transport.DialContext, or any client that dials on goroutines of
// its own. It takes IP addresses only (a name would be resolved in the
// root namespace).
func Dialer(ns NS) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if _, err := netip.ParseAddrPort(addr); err != nil {
			return nil, fmt.Errorf("natlab: dial %s in %s: an IP address and a port, not a name: %w", addr, ns.Name, err)
		}
		var c net.Conn
		err := Do(ns, func() error {
			var d net.Dialer
			var err error
			c, err = d.DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
}

// DroppedUDP returns how many new UDP flows from the internet home h's
// router dropped (none for a Direct home).
func (l *Lab) DroppedUDP(h Home) (int, error) {
	if h.NAT == Direct {
		return 0, nil
	}
	out, err := exec.Command("ip", "netns", "exec", h.Router.Name, "nft", "list", "counter", "ip", "natlab", "wanudp").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("natlab: nft list counter in %s: %v: %s", h.Router.Name, err, bytes.TrimSpace(out))
	}
	f := strings.Fields(string(out))
	for i := range len(f) - 1 {
		if f[i] == "packets" {
			return strconv.Atoi(f[i+1])
		}
	}
	return 0, fmt.Errorf("natlab: no packet count in %q", out)
}

// miniupnpdRules are the chains miniupnpd fills (its nft_init.sh).
const miniupnpdRules = `table inet miniupnpd {
	chain forward {
		type filter hook forward priority filter; policy accept;
		jump miniupnpd
	}
	chain miniupnpd {
	}
	chain prerouting {
		type nat hook prerouting priority dstnat; policy accept;
		jump prerouting_miniupnpd
	}
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		jump postrouting_miniupnpd
	}
	chain prerouting_miniupnpd {
	}
	chain postrouting_miniupnpd {
	}
}
`

// startUPnP runs miniupnpd (UPnP IGD and NAT-PMP) in h's router, for the
// hosts of its LAN, until Close.
func (l *Lab) startUPnP(h Home) error {
	bin, err := exec.LookPath("miniupnpd")
	if err != nil {
		return errors.New("natlab: no miniupnpd command (package miniupnpd-nftables)")
	}
	if l.dir == "" {
		if l.dir, err = os.MkdirTemp("", "natlab"); err != nil {
			return err
		}
	}
	if err := l.nft(h.Router.Name, miniupnpdRules); err != nil {
		return err
	}
	conf := filepath.Join(l.dir, h.Router.Name+".conf")
	err = os.WriteFile(conf, []byte(`ext_ifname=wan
listening_ip=lan
port=0
enable_natpmp=yes
enable_upnp=yes
secure_mode=yes
system_uptime=yes
uuid=4d696e69-5550-6e50-8000-`+uuidTail(h.Router.Addr)+`
upnp_table_name=miniupnpd
upnp_nat_table_name=miniupnpd
upnp_forward_chain=miniupnpd
upnp_nat_chain=prerouting_miniupnpd
upnp_nat_postrouting_chain=postrouting_miniupnpd
allow 1024-65535 192.168.0.0/16 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
`), 0o644)
	if err != nil {
		return err
	}
	c := exec.Command("ip", "netns", "exec", h.Router.Name, bin, "-d", "-f", conf,
		"-P", filepath.Join(l.dir, h.Router.Name+".pid"))
	c.Stdout, c.Stderr = &l.upnpLog, &l.upnpLog
	if err := c.Start(); err != nil {
		return fmt.Errorf("natlab: miniupnpd: %w", err)
	}
	l.procs = append(l.procs, c)
	return nil
}

// UPnPLog returns what the lab's miniupnpd daemons wrote.
func (l *Lab) UPnPLog() string { return l.upnpLog.String() }

// uuidTail is the last 12 hex digits of a router's UUID: its address.
func uuidTail(a netip.Addr) string {
	b := a.As4()
	return fmt.Sprintf("0000%02x%02x%02x%02x", b[0], b[1], b[2], b[3])
}
