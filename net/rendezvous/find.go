package rendezvous

import (
	"crypto/rand"
	"errors"
	"net/netip"
	"time"

	"rtype/net/wire"
)

// Path is the way a friend reached a host.
type Path string

// The paths, in the order of preference.
const (
	// PathDirect: the host's address, which is on the internet (or on
	// the friend's own network).
	PathDirect Path = "direct"
	// PathMapped: a port mapping of the host's router (UPnP, NAT-PMP).
	PathMapped Path = "mapped"
	// PathPunched: the host's address as the rendezvous saw it, both
	// sides punching.
	PathPunched Path = "punched"
	// PathRelayed: through the rendezvous.
	PathRelayed Path = "relayed"
)

// The errors of a lookup (Find, a relayed browser session).
var (
	// ErrUnknownRoom is the answer to a code that no host registered.
	ErrUnknownRoom = errors.New("rendezvous: no host has this room")
	// ErrHostGone is the answer to a code that a host registered within
	// the last 10 minutes but no more: its room closed, or the host
	// stopped refreshing its registration (its game ended, or its network
	// went away).
	ErrHostGone = errors.New("rendezvous: the host of this room is gone")
	// ErrRateLimited is the answer to an address that looked up more
	// codes than its rate allows (Config.LookupRate, LookupBurst).
	ErrRateLimited = errors.New("rendezvous: too many lookups from this address")
	// ErrFull is the answer when the rendezvous holds as many pairs as
	// it may (Config.MaxPairs, MaxPairsPerHost).
	ErrFull = errors.New("rendezvous: full")
)

// HostInfo is what a rendezvous knows of a room's host.
type HostInfo struct {
	Observed netip.AddrPort // the host's address as the rendezvous sees it
	Local    netip.AddrPort // the host's, as it sees it
	Mapped   netip.AddrPort // its router's port mapping, or zero
	CertHash [HashLen]byte  // of its WebTransport binding's certificate
}

// BrowserAddr returns the address of the host's WebTransport binding
// that a browser at ip can reach without the relay, and its path
// (PathMapped or PathDirect); false when there is none (punched or
// relayed: a browser cannot punch).
func (h HostInfo) BrowserAddr(ip netip.Addr) (netip.AddrPort, Path, bool) {
	switch {
	case h.Mapped.IsValid():
		return h.Mapped, PathMapped, true
	case h.Observed.IsValid() && h.Observed == h.Local:
		return h.Observed, PathDirect, true
	case h.Local.IsValid() && h.Observed.Addr() == ip.Unmap():
		return h.Local, PathDirect, true // the same home
	}
	return netip.AddrPort{}, "", false
}

// Find looks room code up for a browser at ip (the HTTPS lookup),
// within ip's lookup rate: ErrRateLimited, ErrUnknownRoom or ErrHostGone
// when it cannot.
func (s *Server) Find(code wire.RoomCode, ip netip.Addr) (HostInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	s.sweepLocked(now)
	h, err := s.findLocked(code, ip.Unmap(), now)
	if err != nil {
		return HostInfo{}, err
	}
	s.stats.WebLookups++
	return HostInfo{Observed: h.addr, Local: h.local, Mapped: h.mapped, CertHash: h.certHash}, nil
}

func (s *Server) findLocked(code wire.RoomCode, ip netip.Addr, now time.Time) (*host, error) {
	if !s.allow(ip, false, now) {
		s.stats.RateLimited++
		return nil, ErrRateLimited
	}
	h := s.codes[code]
	if h == nil {
		s.stats.Refused++
		if _, ok := s.gone[code]; ok {
			return nil, ErrHostGone
		}
		return nil, ErrUnknownRoom
	}
	return h, nil
}

// openPair makes a pair of room code's host and friend, an address of
// no UDP peer (the rendezvous' own side of a relayed browser session),
// for a browser at ip, and introduces it to the host by send (an Intro
// without the friend's address: the host has nothing to punch). It
// returns the pair's token and the host.
func (s *Server) openPair(code wire.RoomCode, ip netip.Addr, friend netip.AddrPort, send func([]byte, netip.AddrPort)) (Token, HostInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	s.sweepLocked(now)
	h, err := s.findLocked(code, ip.Unmap(), now)
	if err != nil {
		return Token{}, HostInfo{}, err
	}
	if len(s.pairs) >= s.cfg.MaxPairs || h.pairs >= s.cfg.MaxPairsPerHost {
		s.stats.Refused++
		return Token{}, HostInfo{}, ErrFull
	}
	p := &pair{host: h, friend: friend, last: now}
	rand.Read(p.token[:])
	s.pairs[p.token] = p
	s.byFriend[pairKey{h, friend}] = p
	h.pairs++
	s.stats.Lookups++
	s.out = AppendIntro(s.out[:0], &Intro{Token: p.token})
	s.stats.BytesOut += uint64(len(s.out))
	send(s.out, h.addr)
	return p.token, HostInfo{Observed: h.addr, Local: h.local, Mapped: h.mapped, CertHash: h.certHash}, nil
}

// closePair forgets pair tok (its relayed browser session ended).
func (s *Server) closePair(tok Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pairs[tok]
	if p == nil {
		return
	}
	delete(s.pairs, tok)
	delete(s.byFriend, pairKey{p.host, p.friend})
	p.host.pairs--
}
