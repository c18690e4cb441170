package netsim

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// tcpDialTimeout bounds the time spent connecting to the server for one
// accepted client connection.
const tcpDialTimeout = 10 * time.Second

// acceptLoop accepts TCP connections and pipes each to the server.
func (r *Relay) acceptLoop() {
	defer r.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		c, err := r.tcpLn.Accept()
		if err != nil {
			if r.isClosed() || errors.Is(err, net.ErrClosed) {
				return
			}
			r.log.Warn("tcp accept failed", "err", err, "retry_in", backoff)
			if !r.sleep(backoff) {
				return
			}
			backoff = min(backoff*2, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		if !r.track(c) {
			c.Close()
			return
		}
		r.wg.Add(1)
		go r.handleTCP(c)
	}
}

// track registers an open TCP connection so that Close can close it. It
// returns false (and registers nothing) if the relay is closed.
func (r *Relay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

// untrack closes c and forgets it.
func (r *Relay) untrack(c net.Conn) {
	c.Close()
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
}

// handleTCP dials the server for the accepted client connection c and copies
// bytes both ways until either side closes, then closes both.
func (r *Relay) handleTCP(c net.Conn) {
	defer r.wg.Done()
	defer r.untrack(c)
	log := r.log.With("client", c.RemoteAddr().String())

	d := net.Dialer{Timeout: tcpDialTimeout}
	s, err := d.DialContext(r.ctx, "tcp", r.cfg.To)
	if err != nil {
		if !r.isClosed() {
			log.Warn("tcp dial to server failed", "to", r.cfg.To, "err", err)
		}
		return
	}
	if !r.track(s) {
		s.Close()
		return
	}
	defer r.untrack(s)
	log.Debug("tcp connection opened", "server_side", s.LocalAddr().String())

	var once sync.Once
	closeBoth := func() {
		once.Do(func() {
			c.Close()
			s.Close()
		})
	}
	var inner sync.WaitGroup
	inner.Add(1)
	go func() {
		defer inner.Done()
		_, _ = io.Copy(s, c)
		closeBoth()
	}()
	_, _ = io.Copy(c, s)
	closeBoth()
	inner.Wait()
	log.Debug("tcp connection closed")
}
