package netsim

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync/atomic"
	"time"
)

// udpClient is the mapping of one client source address to the relay's
// server-side socket for it.
type udpClient struct {
	idx        uint64         // order of first appearance, from 0
	addr       netip.AddrPort // client's address as seen by the relay
	conn       *net.UDPConn   // connected to the server
	upRNG      *rand.Rand     // used only by readClients
	downRNG    *rand.Rand     // used only by this client's readServer
	lastActive atomic.Int64   // Relay.now() of the last datagram, either way
}

// readClients reads datagrams from clients on the relay's UDP socket and
// schedules them toward the server with the Up impairment.
func (r *Relay) readClients() {
	defer r.wg.Done()
	errs := 0
	for {
		b := r.pool.get()
		n, from, err := r.udp.ReadFromUDPAddrPort(b[:])
		if err != nil {
			r.pool.put(b)
			if r.isClosed() || errors.Is(err, net.ErrClosed) {
				return
			}
			r.log.Debug("udp read from clients failed", "err", err)
			if errs++; errs > 10 && !r.sleep(10*time.Millisecond) {
				return
			}
			continue
		}
		errs = 0
		if n > MaxDatagram {
			r.pool.put(b)
			r.upStats.dropped.Add(1)
			r.log.Warn("dropping oversized datagram", "from", from.String(), "max", MaxDatagram)
			continue
		}
		c := r.client(from)
		if c == nil {
			r.pool.put(b)
			continue
		}
		now := r.now()
		c.lastActive.Store(int64(now))
		r.impair(&r.upStats, r.upSched, c, c.upRNG, &r.imp.Load().up, b, n, now)
	}
}

// client returns the mapping for the client address from, creating it (and
// starting its server reader) on first sight. It returns nil if the relay is
// closed or the server-side socket cannot be opened.
func (r *Relay) client(from netip.AddrPort) *udpClient {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if c := r.clients[from]; c != nil {
		return c
	}
	conn, err := net.DialUDP("udp", nil, r.toUDP)
	if err != nil {
		r.log.Warn("udp dial to server failed", "to", r.toUDP.String(), "err", err)
		return nil
	}
	_ = conn.SetReadBuffer(1 << 20) // best effort
	idx := r.nextIdx
	r.nextIdx++
	c := &udpClient{
		idx:     idx,
		addr:    from,
		conn:    conn,
		upRNG:   newRNG(r.cfg.Seed, dirUp, idx),
		downRNG: newRNG(r.cfg.Seed, dirDown, idx),
	}
	c.lastActive.Store(int64(r.now()))
	r.clients[from] = c
	r.wg.Add(1)
	go r.readServer(c)
	r.log.Debug("udp client mapped", "client", from.String(), "index", idx,
		"server_side", conn.LocalAddr().String())
	return c
}

// readServer reads datagrams from the server on c's socket and schedules them
// back to the client with the Down impairment.
func (r *Relay) readServer(c *udpClient) {
	defer r.wg.Done()
	errs := 0
	for {
		b := r.pool.get()
		n, err := c.conn.Read(b[:])
		if err != nil {
			r.pool.put(b)
			if errors.Is(err, net.ErrClosed) || r.isClosed() {
				return
			}
			// Typically ECONNREFUSED after an ICMP port unreachable.
			r.log.Debug("udp read from server failed", "client", c.addr.String(), "err", err)
			if errs++; errs > 10 && !r.sleep(10*time.Millisecond) {
				return
			}
			continue
		}
		errs = 0
		if n > MaxDatagram {
			r.pool.put(b)
			r.dnStats.dropped.Add(1)
			r.log.Warn("dropping oversized datagram from server", "max", MaxDatagram)
			continue
		}
		now := r.now()
		c.lastActive.Store(int64(now))
		r.impair(&r.dnStats, r.dnSched, c, c.downRNG, &r.imp.Load().down, b, n, now)
	}
}

// impair applies one impairment decision to the datagram b[:n] received at
// now and schedules its copies (or releases b if it is dropped). Ownership of
// b passes to impair.
func (r *Relay) impair(st *counters, s *scheduler, c *udpClient, rng *rand.Rand,
	im *Impairment, b *buffer, n int, now time.Duration) {
	d := decide(rng, im)
	if d.drop {
		st.dropped.Add(1)
		r.pool.put(b)
		return
	}
	if d.reorder {
		st.reordered.Add(1)
	}
	var b2 *buffer
	if d.dup {
		st.duplicated.Add(1)
		b2 = r.pool.get()
		copy(b2[:n], b[:n])
	}
	s.schedule(packet{due: now + d.delay[0], buf: b, n: n, c: c})
	if b2 != nil {
		s.schedule(packet{due: now + d.delay[1], buf: b2, n: n, c: c})
	}
}

// deliverUp writes a datagram to the server through the client's socket.
func (r *Relay) deliverUp(c *udpClient, p []byte) {
	if _, err := c.conn.Write(p); err != nil {
		if !r.isClosed() && !errors.Is(err, net.ErrClosed) {
			r.log.Debug("udp write to server failed", "client", c.addr.String(), "err", err)
		}
		return
	}
	r.upStats.forwarded.Add(1)
}

// deliverDown writes a datagram to the client from the relay's listening
// socket.
func (r *Relay) deliverDown(c *udpClient, p []byte) {
	if _, err := r.udp.WriteToUDPAddrPort(p, c.addr); err != nil {
		if !r.isClosed() && !errors.Is(err, net.ErrClosed) {
			r.log.Debug("udp write to client failed", "client", c.addr.String(), "err", err)
		}
		return
	}
	r.dnStats.forwarded.Add(1)
}

// janitor closes UDP client mappings idle for longer than IdleTimeout.
func (r *Relay) janitor() {
	defer r.wg.Done()
	idle := r.cfg.IdleTimeout
	t := time.NewTicker(min(max(idle/4, 10*time.Millisecond), 5*time.Second))
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
		}
		now := r.now()
		r.mu.Lock()
		for addr, c := range r.clients {
			if now-time.Duration(c.lastActive.Load()) > idle {
				delete(r.clients, addr)
				c.conn.Close()
				r.log.Debug("udp client mapping expired", "client", addr.String(), "index", c.idx)
			}
		}
		r.mu.Unlock()
	}
}

// numClients returns the number of live UDP client mappings.
func (r *Relay) numClients() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.clients)
}
