package server

import (
	"sync/atomic"
	"time"

	"rtype/net/wire"
)

// Why the read loop drops a datagram: the values of Metrics.Dropped's
// index, named by DropReasons.
const (
	DropVersion = iota // no magic, or a version no session has (6.1, 7.1)
	DropHeader         // a header its version's rules refuse (6.1, 7.10)
	DropSession        // no session of that id and version
	DropStale          // not bound yet, from another address, or a duplicate (5.1)
	DropBusy           // read while a tick held the server, past what the read loop keeps (rxqueue.go)
	numDrops
)

// DropReasons name the reasons a datagram is dropped, by index.
var DropReasons = [numDrops]string{"version", "header", "session", "stale", "busy"}

// The results of a login: the values of Metrics.Logins's index, named by
// LoginResults. 1 to 6 are the LoginRejected reasons of PROTOCOL.md 3.1.
const (
	LoginAccepted  = 0
	LoginBanned    = 7 // LoginRejected(RateLimited) for a banned name or address
	LoginMalformed = 8 // a bad LoginRequest: Logout(Kicked)
	numLogins      = 9
)

// LoginResults name the results of a login, by index.
var LoginResults = [numLogins]string{"accepted", "game_full", "version_mismatch", "invalid_name",
	"name_taken", "rate_limited", "game_ending", "banned", "malformed"}

// TickBuckets are the upper bounds, in seconds, of the tick-duration
// histogram of Metrics: from 50 µs to several ticks (a tick is 1/60 s).
var TickBuckets = [...]float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 1.0 / wire.TickRate, 0.025, 0.05, 0.1}

// serverStats are the server's running totals, for monitoring: atomic
// counters, so that counting costs an add and never the server's lock or
// an allocation, and reading them (Metrics) never stops a tick.
type serverStats struct {
	snapshotBytes atomic.Uint64 // UDP payloads of Snapshot datagrams sent
	eventBytes    atomic.Uint64 // UDP payloads of Event datagrams sent
	dropped       [numDrops]atomic.Uint64
	logins        [numLogins]atomic.Uint64
	// chatMessages counts the chat messages the server relayed: the chat
	// code adds 1 per message (s.stats.chatMessages.Add(1)).
	chatMessages atomic.Uint64
	bansMade     atomic.Uint64
	kicks        atomic.Uint64 // sessions the operator kicked (Kick, Ban, CloseGame)

	tickCounts [len(TickBuckets) + 1]atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	tickNanos  atomic.Uint64
}

// observeTick adds a tick's duration to the histogram.
func (st *serverStats) observeTick(d time.Duration) {
	sec := d.Seconds()
	i := 0
	for i < len(TickBuckets) && sec > TickBuckets[i] {
		i++
	}
	st.tickCounts[i].Add(1)
	st.tickNanos.Add(uint64(max(d, 0)))
}

// Metrics is a snapshot of what the server is doing, for monitoring
// (package server/ops serves it to Prometheus).
type Metrics struct {
	// Sessions are the sessions logged in now, by protocol version
	// (index 1 and 2).
	Sessions [wire.Version2 + 1]int
	// Games are the games running now, by mode (wire.ModeClassic and
	// wire.ModeStage).
	Games [wire.ModeStage + 1]int
	// Pending are the TCP connections not logged in yet.
	Pending int
	// SnapshotBytes and EventBytes are the bytes of the Snapshot and
	// Event datagrams sent since the start (UDP payloads).
	SnapshotBytes, EventBytes uint64
	// Dropped counts the datagrams dropped since the start, by reason
	// (DropReasons).
	Dropped [numDrops]uint64
	// Logins counts the logins since the start, by result (LoginResults).
	Logins [numLogins]uint64
	// ChatMessages counts the chat messages relayed since the start.
	ChatMessages uint64
	// Bans is the number of bans in force now; BansMade counts the bans
	// made since the start.
	Bans     int
	BansMade uint64
	// Kicks counts the sessions the operator ended since the start.
	Kicks uint64
	// TickCounts are the cumulative counts of the tick durations at most
	// each of TickBuckets; TickCount and TickSum (seconds) are over every
	// tick.
	TickCounts [len(TickBuckets)]uint64
	TickCount  uint64
	TickSum    float64
	// Ready reports that the server is serving and not shutting down.
	Ready bool
	// Spectators are the sessions watching a game now (7.17), among
	// Sessions.
	Spectators int
	// WebTransportSessions are the sessions of the WebTransport binding
	// now (Part IV), among Sessions; WebTransportDropped counts the
	// datagrams to them not sent since the start (queue full, too large).
	WebTransportSessions int
	WebTransportDropped  uint64
	// WebTransportConns are the binding's QUIC connections now, from
	// their first packet to their close; WebTransportRefused counts the
	// connection attempts refused since the start, beyond
	// MaxWebTransportConns or MaxWebTransportConnsPerIP.
	WebTransportConns   int
	WebTransportRefused uint64
}

// Metrics returns what the server is doing now and its totals. It takes
// the server's lock a moment, to count sessions and games.
func (s *Server) Metrics() Metrics {
	var m Metrics
	st := &s.stats
	m.SnapshotBytes, m.EventBytes = st.snapshotBytes.Load(), st.eventBytes.Load()
	for i := range m.Dropped {
		m.Dropped[i] = st.dropped[i].Load()
	}
	for i := range m.Logins {
		m.Logins[i] = st.logins[i].Load()
	}
	m.ChatMessages, m.BansMade, m.Kicks = st.chatMessages.Load(), st.bansMade.Load(), st.kicks.Load()
	var cum uint64
	for i := range m.TickCounts {
		cum += st.tickCounts[i].Load()
		m.TickCounts[i] = cum
	}
	m.TickCount = cum + st.tickCounts[len(TickBuckets)].Load()
	m.TickSum = time.Duration(st.tickNanos.Load()).Seconds()
	now := time.Now()
	s.mu.Lock()
	for _, ss := range s.sessions {
		if int(ss.version) < len(m.Sessions) {
			m.Sessions[ss.version]++
		}
		if ss.spectator {
			m.Spectators++
		}
	}
	if s.wt != nil {
		m.WebTransportSessions = len(s.wt.routes.peers)
		m.WebTransportDropped = s.wt.routes.dropped.Load()
		m.WebTransportConns, m.WebTransportRefused = s.wt.connCount()
	}
	for _, g := range s.games {
		if !g.empty() && int(g.mode) < len(m.Games) {
			m.Games[g.mode]++
		}
	}
	m.Pending = s.gate.pending
	for _, b := range s.bans.all {
		if b.Until.After(now) {
			m.Bans++
		}
	}
	m.Ready = !s.closed && s.serving
	s.mu.Unlock()
	return m
}
