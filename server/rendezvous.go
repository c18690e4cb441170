package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"rtype/net/portmap"
	"rtype/net/rendezvous"
	"rtype/net/wire"
)

// The host side of a rendezvous (PROTOCOL.md Part V): the server
// registers its rooms from its WebTransport binding's UDP socket, so that
// the rendezvous sees the address its NAT gives that socket, which the
// friends' QUIC handshakes then reach (punched); the rendezvous' messages
// are the socket's non-QUIC datagrams (quic.Transport.ReadNonQUICPacket).
// The sessions relayed by the rendezvous come from relay addresses of a
// second QUIC transport over a rendezvous.Conn, served by the same
// WebTransport server, under the binding's caps.

// RendezvousConfig configures RunRendezvous.
type RendezvousConfig struct {
	// Addr is the rendezvous' host:port.
	Addr string
	// Refresh is the time between two registrations. Default 10 s.
	Refresh time.Duration
	// Logger logs. Default the server's.
	Logger *slog.Logger
	// Registered, when set, is told once the rendezvous answered the
	// first registration, with the address it sees and the TCP port of
	// its page for browsers on its host (0 none; PROTOCOL.md 10.8).
	Registered func(observed netip.AddrPort, page uint16)
	// PortMap asks the router for a mapping of the binding's port, which
	// friends then try (path "mapped"): "auto" (NAT-PMP, then UPnP IGD),
	// "natpmp", "upnp", or "" / "off" for none. Default none.
	PortMap string
	// Mapped, when set, is told of the port mapping each time it changes:
	// its address on the internet and its method (the zero address when
	// it is lost).
	Mapped func(netip.AddrPort, portmap.Method)
	// Rooms, when set, is told the room codes the rendezvous confirmed
	// each time they change: friends find those rooms from then on.
	Rooms func([]wire.RoomCode)
}

// RunRendezvous registers the server's room codes at a rendezvous and
// serves the friends it introduces, punched or relayed, until ctx ends.
// It needs the WebTransport binding (Config.WebTransportAddr); call it
// after New, beside Run.
func (s *Server) RunRendezvous(ctx context.Context, cfg RendezvousConfig) error {
	wt := s.wt
	if wt == nil {
		return errors.New("server: a rendezvous needs the WebTransport binding (-webtransport)")
	}
	if cfg.Logger == nil {
		cfg.Logger = s.log
	}
	ua, err := net.ResolveUDPAddr("udp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("server: rendezvous %q: %w", cfg.Addr, err)
	}
	rv := ua.AddrPort()
	rv = netip.AddrPortFrom(rv.Addr().Unmap(), rv.Port())
	local := wt.pc.LocalAddr().(*net.UDPAddr).AddrPort()
	if local.Addr().IsUnspecified() { // the address the socket sends from toward the rendezvous
		if c, err := net.DialUDP("udp", nil, ua); err == nil {
			local = netip.AddrPortFrom(c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap(), local.Port())
			c.Close()
		}
	}
	c := rendezvous.NewConn(func(b []byte, to netip.AddrPort) error {
		_, err := wt.tr.WriteTo(b, net.UDPAddrFromAddrPort(to))
		return err
	}, wt.pc.LocalAddr(), rv, nil)
	c.RelayOnly = true
	var mapped atomic.Pointer[netip.AddrPort]
	h := rendezvous.NewHost(c, rendezvous.HostConfig{
		Codes:    s.roomCodes,
		CertHash: wt.certHash,
		Local:    local,
		Mapped: func() netip.AddrPort {
			if a := mapped.Load(); a != nil {
				return *a
			}
			return netip.AddrPort{}
		},
		Refresh: cfg.Refresh,
		Logger:  cfg.Logger,
		OnCodes: cfg.Rooms,
	})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	if methods, ok := portMapMethods[cfg.PortMap]; !ok {
		return fmt.Errorf("server: port mapping %q: auto, natpmp, upnp or off", cfg.PortMap)
	} else if len(methods) > 0 {
		wg.Add(1)
		go func() { // the mapped path, kept while hosting
			defer wg.Done()
			err := portmap.Keep(ctx, portmap.Config{Methods: methods, Logger: cfg.Logger}, local.Port(),
				func(a netip.AddrPort, how portmap.Method) {
					mapped.Store(&a)
					h.Refresh()
					if cfg.Mapped != nil {
						cfg.Mapped(a, how)
					}
				})
			if err != nil {
				cfg.Logger.Info("no port mapping: friends come punched or relayed", "err", err)
			}
		}()
	}
	wg.Add(1)
	go func() { // the socket's rendezvous messages
		defer wg.Done()
		buf := make([]byte, 2048)
		for {
			n, from, err := wt.tr.ReadNonQUICPacket(ctx, buf)
			if err != nil {
				return
			}
			ua, ok := from.(*net.UDPAddr)
			if !ok {
				continue
			}
			c.Deliver(slices.Clone(buf[:n]), ua.AddrPort())
		}
	}()
	if cfg.Registered != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-h.Registered():
				cfg.Registered(h.Observed(), h.Page())
			case <-ctx.Done():
			}
		}()
	}
	wg.Add(1)
	go func() { // a room made or closed is registered within roomPoll
		defer wg.Done()
		t := time.NewTicker(roomPoll)
		defer t.Stop()
		last := s.roomCodes()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if cs := s.roomCodes(); !slices.Equal(cs, last) {
				last = cs
				h.Refresh()
			}
		}
	}()
	// The relayed sessions.
	rtr := &quic.Transport{Conn: c, ConnContext: wt.connContext}
	ln, err := rtr.ListenEarly(wt.h3.TLSConfig, wt.h3.QUICConfig)
	if err != nil {
		cancel()
		return fmt.Errorf("server: relayed sessions: %w", err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		var conns sync.WaitGroup
		defer conns.Wait()
		for {
			qc, err := ln.Accept(ctx)
			if err != nil {
				return
			}
			if q, ok := qc.Context().Value(wtQUICKey{}).(*wtQUIC); ok {
				wt.mu.Lock()
				q.qc = qc
				wt.armIdle(q)
				wt.mu.Unlock()
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				wt.srv.ServeQUICConn(qc)
			}()
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-ctx.Done()
		ln.Close()
		rtr.Close()
		c.Close()
	}()
	h.Run(ctx)
	return nil
}

// portMapMethods are the methods of RendezvousConfig.PortMap.
var portMapMethods = map[string][]portmap.Method{
	"": nil, "off": nil,
	"auto":   {portmap.NATPMP, portmap.UPnP},
	"natpmp": {portmap.NATPMP},
	"upnp":   {portmap.UPnP},
}

// roomPoll is how often RunRendezvous looks for rooms made or closed.
const roomPoll = 200 * time.Millisecond

// roomCodes returns the codes of the server's rooms.
func (s *Server) roomCodes() []wire.RoomCode {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := make([]wire.RoomCode, 0, len(s.rooms.byCode))
	for c := range s.rooms.byCode {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b wire.RoomCode) int { return slices.Compare(a[:], b[:]) })
	return cs
}

// certHash returns the SHA-256 hash of the certificate the binding
// serves now.
func (wt *wtBinding) certHash() [32]byte {
	c, err := wt.certs.get(nil)
	if err != nil || c == nil || len(c.Certificate) == 0 {
		return [32]byte{}
	}
	return sha256.Sum256(c.Certificate[0])
}
