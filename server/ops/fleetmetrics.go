package ops

import (
	"github.com/prometheus/client_golang/prometheus"

	"rtype/server"
)

// fleetCollector exports what the server shares with its fleet: Redis
// (PROTOCOL.md 7.18) and the database, read at each scrape.
type fleetCollector struct {
	srv *server.Server

	redisUp, redirects, lookups, redisErrors, rejected *prometheus.Desc
	dbUp, queued                                       *prometheus.Desc
}

func newFleetCollector(srv *server.Server) *fleetCollector {
	d := prometheus.NewDesc
	return &fleetCollector{
		srv:         srv,
		redisUp:     d("rtype_fleet_redis_up", "1 while the fleet's Redis answered the last operation (absent without -redis).", nil, nil),
		redirects:   d("rtype_fleet_redirects_total", "RoomRedirects sent to other servers of the fleet, by why: code or quick.", []string{"why"}, nil),
		lookups:     d("rtype_fleet_code_lookups_total", "Room codes looked up in Redis (codes this server does not hold).", nil, nil),
		redisErrors: d("rtype_fleet_redis_errors_total", "Redis operations of the fleet that failed.", nil, nil),
		rejected:    d("rtype_fleet_entries_rejected_total", "Fleet entries read from Redis whose signature did not verify with the fleet key: ignored.", nil, nil),
		dbUp:        d("rtype_database_up", "1 while the database (leaderboard, bans) answered its last check.", nil, nil),
		queued:      d("rtype_scores_queued", "Scores waiting for the database to answer again.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.redisUp, c.redirects, c.lookups, c.redisErrors, c.rejected, c.dbUp, c.queued} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *fleetCollector) Collect(ch chan<- prometheus.Metric) {
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	st := c.srv.StoreStats()
	ch <- prometheus.MustNewConstMetric(c.dbUp, prometheus.GaugeValue, b(st.Up))
	ch <- prometheus.MustNewConstMetric(c.queued, prometheus.GaugeValue, float64(st.QueuedScores))
	f := c.srv.FleetStats()
	if !f.Enabled {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.redisUp, prometheus.GaugeValue, b(f.Up))
	ch <- prometheus.MustNewConstMetric(c.redirects, prometheus.CounterValue, float64(f.RedirectsCode), "code")
	ch <- prometheus.MustNewConstMetric(c.redirects, prometheus.CounterValue, float64(f.RedirectsQuick), "quick")
	ch <- prometheus.MustNewConstMetric(c.lookups, prometheus.CounterValue, float64(f.Lookups))
	ch <- prometheus.MustNewConstMetric(c.redisErrors, prometheus.CounterValue, float64(f.Errors))
	ch <- prometheus.MustNewConstMetric(c.rejected, prometheus.CounterValue, float64(f.Rejected))
}
