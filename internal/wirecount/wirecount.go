// Package wirecount relays one client's UDP to a server and counts what
// it carries as it goes on the wire: each datagram with the 28 bytes of
// its IPv4 and UDP headers. Over the WebTransport binding that is every
// QUIC packet (headers, encryption, acknowledgements); over UDP the
// game's datagrams. The benchmarks of the bindings (e2e's
// BenchmarkBinding, rtype-bench's browser section) measure with it.
package wirecount

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"rtype/net/client"
)

// IPUDP is what IPv4 and UDP add to each datagram, in bytes.
const IPUDP = 28

// Counts are bytes (headers included) and datagrams, down (server to
// client) and up.
type Counts struct {
	DownB, UpB, DownPk, UpPk uint64
}

// Sub returns c less an earlier count.
func (c Counts) Sub(b Counts) Counts {
	return Counts{c.DownB - b.DownB, c.UpB - b.UpB, c.DownPk - b.DownPk, c.UpPk - b.UpPk}
}

// Relay relays the datagrams of one client (the last address it heard
// from) to a server's address and back, on 127.0.0.1.
type Relay struct {
	pc, upstream *net.UDPConn
	upB, downB   atomic.Uint64
	upPk, downPk atomic.Uint64
	mu           sync.Mutex
	peer         netip.AddrPort
	wg           sync.WaitGroup
}

// New starts a relay to the server at to ("host:port").
func New(to string) (*Relay, error) {
	ua, err := net.ResolveUDPAddr("udp", to)
	if err != nil {
		return nil, err
	}
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	upstream, err := net.DialUDP("udp", nil, ua)
	if err != nil {
		pc.Close()
		return nil, err
	}
	pc.SetReadBuffer(1 << 20)
	upstream.SetReadBuffer(1 << 20)
	r := &Relay{pc: pc, upstream: upstream}
	r.wg.Add(2)
	go r.up()
	go r.down()
	return r, nil
}

func (r *Relay) up() {
	defer r.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, from, err := r.pc.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.peer = from
		r.mu.Unlock()
		r.upB.Add(uint64(n + IPUDP))
		r.upPk.Add(1)
		r.upstream.Write(buf[:n])
	}
}

func (r *Relay) down() {
	defer r.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, err := r.upstream.Read(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue // an ICMP error of a connected socket
		}
		r.mu.Lock()
		to := r.peer
		r.mu.Unlock()
		r.downB.Add(uint64(n + IPUDP))
		r.downPk.Add(1)
		r.pc.WriteToUDPAddrPort(buf[:n], to)
	}
}

// Addr is the address the client sends to.
func (r *Relay) Addr() string { return r.pc.LocalAddr().String() }

// Counts returns what the relay carried so far.
func (r *Relay) Counts() Counts {
	return Counts{r.downB.Load(), r.upB.Load(), r.downPk.Load(), r.upPk.Load()}
}

// Close stops the relay and waits for it.
func (r *Relay) Close() {
	r.pc.Close()
	r.upstream.Close()
	r.wg.Wait()
}

// UDP returns the default binding (TCP and UDP) with the game's
// datagrams through the relay: the stream goes to the server, the
// datagrams to the relay.
func (r *Relay) UDP() client.Transport { return relayedUDP{r} }

type relayedUDP struct{ r *Relay }

func (relayedUDP) DialStream(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

func (t relayedUDP) DialDatagrams(context.Context, net.Conn) (net.Conn, error) {
	return net.DialUDP("udp", nil, t.r.pc.LocalAddr().(*net.UDPAddr))
}
