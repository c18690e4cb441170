package rendezvous

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is a net.PacketConn for quic-go over a peer's UDP socket that also
// speaks to the rendezvous: whatever reads the socket hands every
// datagram to Deliver, which keeps the rendezvous' answers and the
// punches for the peer (SetControl) and queues the rest for ReadFrom, the
// relayed ones as if they came from the pair's relay address
// (RelayAddr). WriteTo sends to a relay address through the rendezvous,
// in a Relay message, and to any other directly.
type Conn struct {
	send  func(b []byte, to netip.AddrPort) error
	local net.Addr
	rv    netip.AddrPort

	// RelayOnly drops the datagrams that are not Relays: a host's Conn
	// carries the relayed QUIC packets only, quic-go reading the socket's.
	RelayOnly bool

	udp *net.UDPConn // the socket of ListenConn, or nil

	in      chan packet
	done    chan struct{}
	closer  sync.Once
	onClose func() error

	mu       sync.Mutex
	deadline time.Time
	wake     chan struct{}
	control  func(b []byte, from netip.AddrPort)
	extras   []*extra                        // AddSocket's
	routes   map[netip.AddrPort]*net.UDPConn // the peers reached by them
	byToken  map[Token]netip.AddrPort
	byAddr   map[netip.AddrPort]Token
	next     uint32

	// RelayedIn and RelayedOut count the relayed payload bytes.
	RelayedIn, RelayedOut atomic.Uint64
	// Dropped counts datagrams not queued: queue full, or a Relay or
	// Punch of no known pair.
	Dropped atomic.Uint64
}

// extra is a socket of AddSocket.
type extra struct {
	pc    *net.UDPConn
	added time.Time
	last  atomic.Int64 // unix nanoseconds of its last datagram queued
}

type packet struct {
	b    []byte
	from netip.AddrPort
}

// connQueue is how many datagrams wait for ReadFrom; beyond it they are
// dropped, as a full socket buffer drops them.
const connQueue = 256

// relayPrefix is the first quarter of the relay addresses: a /32 of the
// unique local range fd00::/8 that no peer of a game holds. Each pair's
// address is in a /64 of its own (the pair's number in the next 32
// bits), since the limits per address count an IPv6 /64 as one address
// (net/ipkey): the relayed friends of a host are not one address.
var relayPrefix = [4]byte{0xfd, 0x52, 0x74, 0x79}

// NewConn returns a Conn whose datagrams go out by send, whose local
// address is local, and whose rendezvous is rv. onClose (or nil) runs
// on Close.
func NewConn(send func(b []byte, to netip.AddrPort) error, local net.Addr, rv netip.AddrPort, onClose func() error) *Conn {
	return &Conn{send: send, local: local, rv: rv, onClose: onClose,
		in: make(chan packet, connQueue), done: make(chan struct{}), wake: make(chan struct{}, 1),
		byToken: map[Token]netip.AddrPort{}, byAddr: map[netip.AddrPort]Token{},
		routes: map[netip.AddrPort]*net.UDPConn{}}
}

// ListenConn returns a Conn over pc, reading it on a goroutine of its
// own until Close, which closes pc.
func ListenConn(pc *net.UDPConn, rv netip.AddrPort) *Conn {
	c := NewConn(func(b []byte, to netip.AddrPort) error {
		_, err := pc.WriteToUDPAddrPort(b, to)
		return err
	}, pc.LocalAddr(), rv, pc.Close)
	c.udp = pc
	go func() {
		for {
			b := make([]byte, 2048)
			n, from, err := pc.ReadFromUDPAddrPort(b)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					c.Close()
					return
				}
				continue // an ICMP error of an earlier send
			}
			c.Deliver(b[:n], from)
		}
	}()
	return c
}

// SetControl sets the function that receives the rendezvous' messages
// but Relay (Retry, Registered, Peer, Intro, Error), and the Punches of
// known pairs, with their source. It runs on the reader's goroutine: it
// must not block.
func (c *Conn) SetControl(f func(b []byte, from netip.AddrPort)) {
	c.mu.Lock()
	c.control = f
	c.mu.Unlock()
}

func (c *Conn) controlFunc() func(b []byte, from netip.AddrPort) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.control
}

// Rendezvous returns the rendezvous' address.
func (c *Conn) Rendezvous() netip.AddrPort { return c.rv }

// RelayAddr returns the relay address of pair tok: datagrams to it go
// through the rendezvous, those relayed from the peer come from it.
func (c *Conn) RelayAddr(tok Token) netip.AddrPort {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.byToken[tok]; ok {
		return a
	}
	c.next++
	var ip [16]byte
	copy(ip[:], relayPrefix[:])
	binary.BigEndian.PutUint32(ip[4:], c.next)
	ip[15] = 1
	a := netip.AddrPortFrom(netip.AddrFrom16(ip), 443)
	c.byToken[tok] = a
	c.byAddr[a] = tok
	return a
}

// Known reports whether tok is a pair of this peer (RelayAddr was called).
func (c *Conn) Known(tok Token) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byToken[tok]
	return ok
}

// SendRaw sends b to to on the socket, as it is.
func (c *Conn) SendRaw(b []byte, to netip.AddrPort) error { return c.send(b, to) }

// Deliver takes datagram b from from, read from the socket; b is the
// Conn's from then on.
func (c *Conn) Deliver(b []byte, from netip.AddrPort) {
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	switch Type(b) {
	case 0:
		if c.RelayOnly {
			c.Dropped.Add(1)
			return
		}
		c.queue(b, from)
	case TRelay:
		tok, p, err := ParseRelay(b)
		if err != nil || from != c.rv {
			c.Dropped.Add(1)
			return
		}
		c.mu.Lock()
		a, ok := c.byToken[tok]
		c.mu.Unlock()
		if !ok {
			c.Dropped.Add(1)
			return
		}
		c.RelayedIn.Add(uint64(len(p)))
		c.queue(p, a)
	case TPunch:
		tok, err := ParsePunch(b)
		if err != nil || !c.Known(tok) {
			c.Dropped.Add(1)
			return
		}
		if f := c.controlFunc(); f != nil {
			f(b, from)
		}
	default:
		f := c.controlFunc()
		if from != c.rv || f == nil {
			c.Dropped.Add(1)
			return
		}
		f(b, from)
	}
}

func (c *Conn) queue(b []byte, from netip.AddrPort) {
	select {
	case c.in <- packet{b, from}:
	default:
		c.Dropped.Add(1)
	}
}

// ReadFrom returns the next QUIC datagram, direct or relayed.
func (c *Conn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		c.mu.Lock()
		d := c.deadline
		c.mu.Unlock()
		var timeout <-chan time.Time
		var t *time.Timer
		if !d.IsZero() {
			wait := time.Until(d)
			if wait <= 0 {
				return 0, nil, os.ErrDeadlineExceeded
			}
			t = time.NewTimer(wait)
			timeout = t.C
		}
		var p packet
		var got, closed bool
		select {
		case p = <-c.in:
			got = true
		case <-c.done:
			closed = true
		case <-c.wake:
		case <-timeout:
		}
		if t != nil {
			t.Stop()
		}
		if got {
			return copy(b, p.b), net.UDPAddrFromAddrPort(p.from), nil
		}
		if closed {
			return 0, nil, net.ErrClosed
		}
	}
}

// WriteTo sends b to addr: through the rendezvous when addr is a relay
// address, else directly.
func (c *Conn) WriteTo(b []byte, addr net.Addr) (int, error) {
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, fmt.Errorf("rendezvous: write to %T", addr)
	}
	to := ua.AddrPort()
	to = netip.AddrPortFrom(to.Addr().Unmap(), to.Port())
	c.mu.Lock()
	tok, relayed := c.byAddr[to]
	extra := c.routes[to]
	c.mu.Unlock()
	if extra != nil {
		return extra.WriteToUDPAddrPort(b, to)
	}
	if !relayed {
		if err := c.send(b, to); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	if len(b) > MaxRelayPayload {
		return 0, fmt.Errorf("rendezvous: %d bytes to relay: at most %d", len(b), MaxRelayPayload)
	}
	m := AppendRelay(make([]byte, 0, RelayHeaderLen+len(b)), tok, b)
	if err := c.send(m, c.rv); err != nil {
		return 0, err
	}
	c.RelayedOut.Add(uint64(len(b)))
	return len(b), nil
}

// AddSocket adds socket pc to c, for the pair tok, until Close or
// PruneSockets: a Punch of the pair from an address makes that address a
// peer of pc (answered by a Punch, the same size), whose datagrams c then
// queues for ReadFrom and to which WriteTo sends by pc. Anything else pc
// receives is dropped.
func (c *Conn) AddSocket(pc *net.UDPConn, tok Token) {
	x := &extra{pc: pc, added: time.Now()}
	c.mu.Lock()
	c.extras = append(c.extras, x)
	c.mu.Unlock()
	go func() {
		for {
			b := make([]byte, 2048)
			n, from, err := pc.ReadFromUDPAddrPort(b)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			b = b[:n]
			from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
			c.mu.Lock()
			routed := c.routes[from] == pc
			c.mu.Unlock()
			switch Type(b) {
			case 0:
				if routed {
					x.last.Store(time.Now().UnixNano())
					c.queue(b, from)
				} else {
					c.Dropped.Add(1)
				}
			case TPunch:
				if t, err := ParsePunch(b); err != nil || t != tok || !c.Known(t) {
					c.Dropped.Add(1)
					continue
				}
				c.mu.Lock()
				if c.routes[from] == nil {
					c.routes[from] = pc
				}
				c.mu.Unlock()
				pc.WriteToUDPAddrPort(b, from) // tells the peer this socket's address
			default:
				c.Dropped.Add(1)
			}
		}
	}()
}

// PruneSockets closes the sockets of AddSocket that reached no peer
// within unmet of their opening, and those whose peer sent nothing for
// idle.
func (c *Conn) PruneSockets(now time.Time, unmet, idle time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	peers := map[*net.UDPConn][]netip.AddrPort{}
	for a, pc := range c.routes {
		peers[pc] = append(peers[pc], a)
	}
	keep := c.extras[:0]
	for _, x := range c.extras {
		ps := peers[x.pc]
		last := time.Unix(0, x.last.Load())
		if x.last.Load() == 0 {
			last = x.added
		}
		if (len(ps) == 0 && now.Sub(x.added) < unmet) || (len(ps) > 0 && now.Sub(last) < idle) {
			keep = append(keep, x)
			continue
		}
		x.pc.Close()
		for _, a := range ps {
			delete(c.routes, a)
		}
	}
	clear(c.extras[len(keep):])
	c.extras = keep
}

// Close ends ReadFrom, closes the sockets of AddSocket and runs the
// onClose given to NewConn.
func (c *Conn) Close() error {
	var err error
	c.closer.Do(func() {
		c.mu.Lock()
		for _, x := range c.extras {
			x.pc.Close()
		}
		c.extras = nil
		c.mu.Unlock()
		close(c.done)
		if c.onClose != nil {
			err = c.onClose()
		}
	})
	return err
}

// LocalAddr returns the socket's address.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// SetDeadline sets the read deadline (writes do not block).
func (c *Conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline sets the deadline of ReadFrom.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// SetWriteDeadline does nothing: writes do not block.
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }

// SetReadBuffer sets the socket's receive buffer (of ListenConn; else it
// does nothing), as quic-go asks.
func (c *Conn) SetReadBuffer(n int) error {
	if c.udp == nil {
		return nil
	}
	return c.udp.SetReadBuffer(n)
}

// SetWriteBuffer sets the socket's send buffer (of ListenConn; else it
// does nothing), as quic-go asks.
func (c *Conn) SetWriteBuffer(n int) error {
	if c.udp == nil {
		return nil
	}
	return c.udp.SetWriteBuffer(n)
}
