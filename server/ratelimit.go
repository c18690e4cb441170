package server

import (
	"net/netip"
	"time"
)

// loginLimiter counts LoginRequests per IP address (3.3): the sixth within
// any window, and every one after it in that window, is refused. Its
// memory is bounded: addresses idle for a window are forgotten, and past
// maxAddrs tracked addresses new ones are refused until room frees up.
type loginLimiter struct {
	limit    int
	window   time.Duration
	maxAddrs int
	seen     map[netip.Addr][]time.Time
	lastGC   time.Time
}

func newLoginLimiter(limit int, window time.Duration, maxAddrs int) *loginLimiter {
	return &loginLimiter{limit: limit, window: window, maxAddrs: maxAddrs, seen: make(map[netip.Addr][]time.Time)}
}

// allow counts one request from ip at now and reports whether it may go on.
func (l *loginLimiter) allow(ip netip.Addr, now time.Time) bool {
	if now.Sub(l.lastGC) > l.window {
		for a, ts := range l.seen {
			if len(ts) == 0 || now.Sub(ts[len(ts)-1]) > l.window {
				delete(l.seen, a)
			}
		}
		l.lastGC = now
	}
	ts, ok := l.seen[ip]
	if !ok && len(l.seen) >= l.maxAddrs {
		return false
	}
	// Keep the times of the last `limit` requests, oldest first.
	allowed := len(ts) < l.limit || now.Sub(ts[0]) >= l.window
	if len(ts) == l.limit {
		copy(ts, ts[1:])
		ts = ts[:l.limit-1]
	}
	l.seen[ip] = append(ts, now)
	return allowed
}
