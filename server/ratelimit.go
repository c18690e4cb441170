package server

import (
	"net/netip"
	"time"

	"rtype/net/ipkey"
)

// loginLimiter counts LoginRequests per IP address (3.3): the sixth within
// any window, and every one after it in that window, is refused.
//
// Its memory is bounded without refusing newcomers: it tracks at most
// maxAddrs addresses, in the order of their last request. An address idle
// for a window is forgotten (swept from the front of that order, a few at
// each call), and when the table is still full a new address takes the
// place of the one idle longest. Forgetting an address early only loses
// its count, and that needs maxAddrs other addresses within one window.
// Every call costs O(1), amortized; once the table is full it allocates
// nothing (an evicted entry is reused).
type loginLimiter struct {
	limit    int
	window   time.Duration
	maxAddrs int
	seen     map[netip.Addr]*limitEntry
	// clock, when set, gives the time of a request (now) in place of
	// time.Now: the tests' virtual clock. Set and read with the server's
	// mutex held.
	clock func() time.Time
	// A circular doubly linked list through a sentinel, oldest last
	// request first (head.next) and newest last (head.prev).
	head limitEntry
}

// limitEntry is one tracked address: the times of its last requests (at
// most limit), oldest first.
type limitEntry struct {
	ip         netip.Addr
	times      []time.Time
	prev, next *limitEntry
}

func newLoginLimiter(limit int, window time.Duration, maxAddrs int) *loginLimiter {
	l := &loginLimiter{limit: limit, window: window, maxAddrs: max(maxAddrs, 1), seen: make(map[netip.Addr]*limitEntry)}
	l.head.prev, l.head.next = &l.head, &l.head
	return l
}

// now returns the time of a request: time.Now, or the clock set.
func (l *loginLimiter) now() time.Time {
	if l.clock != nil {
		return l.clock()
	}
	return time.Now()
}

// len returns the number of addresses tracked.
func (l *loginLimiter) len() int { return len(l.seen) }

func (l *loginLimiter) unlink(e *limitEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

// pushBack makes e the newest entry.
func (l *loginLimiter) pushBack(e *limitEntry) {
	e.prev, e.next = l.head.prev, &l.head
	l.head.prev.next = e
	l.head.prev = e
}

// allow counts one request from ip at now and reports whether it may go on.
// The addresses of one IPv6 /64 count as one (ipkey.Of). Times passed to
// successive calls must not decrease.
func (l *loginLimiter) allow(ip netip.Addr, now time.Time) bool {
	ip = ipkey.Of(ip)
	// Sweep the addresses idle for more than a window, oldest first.
	for e := l.head.next; e != &l.head && now.Sub(e.times[len(e.times)-1]) > l.window; e = l.head.next {
		l.unlink(e)
		delete(l.seen, e.ip)
	}
	e, ok := l.seen[ip]
	switch {
	case ok:
		l.unlink(e)
	case len(l.seen) >= l.maxAddrs:
		// Still full: the address idle longest makes room.
		e = l.head.next
		l.unlink(e)
		delete(l.seen, e.ip)
		e.ip, e.times = ip, e.times[:0]
		l.seen[ip] = e
	default:
		// times grows with the requests, up to limit: a huge limit (as
		// tests set) costs nothing for an address that sends one.
		e = &limitEntry{ip: ip}
		l.seen[ip] = e
	}
	l.pushBack(e)
	// Keep the times of the last `limit` requests, oldest first.
	ts := e.times
	allowed := len(ts) < l.limit || now.Sub(ts[0]) >= l.window
	if len(ts) == l.limit {
		copy(ts, ts[1:])
		ts = ts[:l.limit-1]
	}
	e.times = append(ts, now)
	return allowed
}
