package ops

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"rtype/internal/version"
	"rtype/net/wire"
	"rtype/server"
)

// collector turns the server's Metrics into Prometheus metrics at each
// scrape: the server counts with atomics and never calls Prometheus on
// its hot paths (no allocation per datagram or per tick); the histogram
// and counters are built here, from one snapshot per scrape.
type collector struct {
	srv *server.Server

	sessions, games, pending, bans, ready *prometheus.Desc
	tick                                  *prometheus.Desc
	snapBytes, eventBytes                 *prometheus.Desc
	dropped, logins, chat, bansMade       *prometheus.Desc
	kicks                                 *prometheus.Desc
	spectators, wtSessions, wtDropped     *prometheus.Desc
	wtConns, wtRefused                    *prometheus.Desc
	buildInfo                             *prometheus.Desc
}

func newCollector(srv *server.Server) *collector {
	d := prometheus.NewDesc
	return &collector{
		srv:        srv,
		sessions:   d("rtype_sessions", "Sessions logged in now, by protocol version.", []string{"version"}, nil),
		games:      d("rtype_games", "Games (rooms) running now, by mode.", []string{"mode"}, nil),
		pending:    d("rtype_pending_connections", "TCP connections accepted and not logged in yet.", nil, nil),
		bans:       d("rtype_bans", "Bans in force now.", nil, nil),
		ready:      d("rtype_ready", "1 while the server serves and is not shutting down.", nil, nil),
		tick:       d("rtype_tick_duration_seconds", "Duration of the server's ticks: every game's step, events and snapshots.", nil, nil),
		snapBytes:  d("rtype_snapshot_sent_bytes_total", "Bytes of Snapshot datagrams sent (UDP payloads).", nil, nil),
		eventBytes: d("rtype_event_sent_bytes_total", "Bytes of Event datagrams sent (UDP payloads); a v2 session's events ride in its Snapshot datagrams (PROTOCOL.md 7.8) and count with them.", nil, nil),
		dropped:    d("rtype_datagrams_dropped_total", "Datagrams received and dropped, by reason.", []string{"reason"}, nil),
		logins:     d("rtype_logins_total", "Logins, by result: accepted, a LoginRejected reason, banned or malformed.", []string{"result"}, nil),
		chat:       d("rtype_chat_messages_total", "Chat messages relayed.", nil, nil),
		bansMade:   d("rtype_bans_created_total", "Bans made since the start.", nil, nil),
		kicks:      d("rtype_kicks_total", "Sessions ended by the operator (kick, ban, close).", nil, nil),
		spectators: d("rtype_spectators", "Sessions watching a game now (PROTOCOL.md 7.17), among rtype_sessions.", nil, nil),
		wtSessions: d("rtype_webtransport_sessions", "Sessions of the WebTransport binding now (PROTOCOL.md Part IV), among rtype_sessions.", nil, nil),
		wtDropped:  d("rtype_webtransport_datagrams_dropped_total", "Datagrams to WebTransport sessions not sent: their queue full, or too large.", nil, nil),
		wtConns:    d("rtype_webtransport_connections", "QUIC connections of the WebTransport binding now, from their first packet to their close (PROTOCOL.md 9.5).", nil, nil),
		wtRefused:  d("rtype_webtransport_connections_refused_total", "QUIC connections refused at their first packet: past the per-address or the total cap (PROTOCOL.md 9.5).", nil, nil),
		buildInfo:  d("rtype_build_info", "Always 1; its label is the server's version (package rtype/internal/version: what ./build.sh release stamped).", []string{"version"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.sessions, c.games, c.pending, c.bans, c.ready, c.tick,
		c.snapBytes, c.eventBytes, c.dropped, c.logins, c.chat, c.bansMade, c.kicks,
		c.spectators, c.wtSessions, c.wtDropped, c.wtConns, c.wtRefused, c.buildInfo} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	m := c.srv.Metrics()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for _, v := range []uint8{wire.Version, wire.Version2} {
		gauge(c.sessions, float64(m.Sessions[v]), strconv.Itoa(int(v)))
	}
	gauge(c.games, float64(m.Games[wire.ModeClassic]), "classic")
	gauge(c.games, float64(m.Games[wire.ModeStage]), "stage")
	gauge(c.pending, float64(m.Pending))
	gauge(c.buildInfo, 1, version.String())
	gauge(c.bans, float64(m.Bans))
	ready := 0.0
	if m.Ready {
		ready = 1
	}
	gauge(c.ready, ready)
	buckets := make(map[float64]uint64, len(server.TickBuckets))
	for i, le := range server.TickBuckets {
		buckets[le] = m.TickCounts[i]
	}
	ch <- prometheus.MustNewConstHistogram(c.tick, m.TickCount, m.TickSum, buckets)
	counter(c.snapBytes, m.SnapshotBytes)
	counter(c.eventBytes, m.EventBytes)
	for i, r := range server.DropReasons {
		counter(c.dropped, m.Dropped[i], r)
	}
	for i, r := range server.LoginResults {
		counter(c.logins, m.Logins[i], r)
	}
	counter(c.chat, m.ChatMessages)
	counter(c.bansMade, m.BansMade)
	counter(c.kicks, m.Kicks)
	gauge(c.spectators, float64(m.Spectators))
	gauge(c.wtSessions, float64(m.WebTransportSessions))
	counter(c.wtDropped, m.WebTransportDropped)
	gauge(c.wtConns, float64(m.WebTransportConns))
	counter(c.wtRefused, m.WebTransportRefused)
}
