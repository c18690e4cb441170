package main

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"rtype/net/wire"
)

// tap is a transparent relay between the clients (or the impairment
// relay) and the server, that shows every datagram to a callback: the
// bytes "as sent" by the server, before any simulated loss. Like the
// server, it listens on one port for TCP (piped as is) and UDP (one
// upstream socket per client address, so the server still sees one
// address per client).
type tap struct {
	tcp  *net.TCPListener
	udp  *net.UDPConn
	to   *net.UDPAddr
	down func(b []byte) // each server -> client datagram
	up   func(b []byte) // each client -> server datagram

	mu      sync.Mutex
	closed  bool
	clients map[netip.AddrPort]*net.UDPConn
	conns   []net.Conn
	wg      sync.WaitGroup
}

// newTap relays to the server at addr ("host:port"). down and up may be
// nil; they are called from several goroutines and must not keep b.
func newTap(addr string, down, up func(b []byte)) (*tap, error) {
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	t := &tap{to: to, down: down, up: up, clients: make(map[netip.AddrPort]*net.UDPConn)}
	for try := 0; ; try++ {
		tl, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return nil, err
		}
		ul, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: tl.Addr().(*net.TCPAddr).Port})
		if err == nil {
			t.tcp, t.udp = tl, ul
			break
		}
		tl.Close()
		if try == 10 {
			return nil, fmt.Errorf("tap: no port free for both TCP and UDP: %w", err)
		}
	}
	t.udp.SetReadBuffer(1 << 20)
	t.wg.Add(2)
	go t.accept(addr)
	go t.readClients()
	return t, nil
}

// Addr is the tap's address, TCP and UDP.
func (t *tap) Addr() string { return t.tcp.Addr().String() }

func (t *tap) accept(addr string) {
	defer t.wg.Done()
	for {
		c, err := t.tcp.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", addr)
		if err != nil {
			c.Close()
			continue
		}
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			c.Close()
			s.Close()
			return
		}
		t.conns = append(t.conns, c, s)
		t.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			io.Copy(dst, src)
			dst.Close()
			src.Close()
		}
		go pipe(c, s)
		go pipe(s, c)
	}
}

func (t *tap) readClients() {
	defer t.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, from, err := t.udp.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		t.mu.Lock()
		up := t.clients[from]
		if up == nil && !t.closed {
			up, err = net.DialUDP("udp", nil, t.to)
			if err == nil {
				up.SetReadBuffer(1 << 20)
				t.clients[from] = up
				t.wg.Add(1)
				go t.readServer(up, from)
			}
		}
		t.mu.Unlock()
		if up == nil {
			continue
		}
		if t.up != nil {
			t.up(buf[:n])
		}
		up.Write(buf[:n])
	}
}

func (t *tap) readServer(up *net.UDPConn, client netip.AddrPort) {
	defer t.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, err := up.Read(buf)
		if err != nil {
			if t.isClosed() {
				return
			}
			time.Sleep(time.Millisecond) // an ICMP error of a connected socket
			continue
		}
		if t.down != nil {
			t.down(buf[:n])
		}
		t.udp.WriteToUDPAddrPort(buf[:n], client)
	}
}

func (t *tap) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Close stops the relay and waits for its goroutines.
func (t *tap) Close() {
	t.mu.Lock()
	t.closed = true
	t.tcp.Close()
	t.udp.Close()
	for _, c := range t.clients {
		c.Close()
	}
	for _, c := range t.conns {
		c.Close()
	}
	t.mu.Unlock()
	t.wg.Wait()
}

// datagramInfo returns a datagram's type and session (2.1; a v2 header,
// 7.2, has them at the same offsets), and false for anything shorter than
// a v1 header. Byte 4 is the version.
func datagramInfo(b []byte) (wire.Type, uint32, bool) {
	if len(b) < wire.HeaderSize {
		return 0, 0, false
	}
	return wire.Type(b[5]), uint32(b[14]) | uint32(b[15])<<8 | uint32(b[16])<<16 | uint32(b[17])<<24, true
}
