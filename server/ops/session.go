package ops

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sign-in sessions, failed attempts and accepted Hosts: their defaults
// and bounds.
const (
	// DefaultSessionTTL is how long a sign-in lasts by default
	// (Config.SessionTTL): a session ends that long after its sign-in,
	// used or not, or at its sign-out.
	DefaultSessionTTL = 12 * time.Hour
	// DefaultMaxSessions is the default bound of live sessions
	// (Config.MaxSessions): a sign-in past it ends the oldest.
	DefaultMaxSessions = 64
	// MaxFailures is how many failed attempts (a wrong or no token, a
	// cookie or form field that matches no session) an address may make
	// in a row; then it gets 429 until it recovers, one attempt per
	// FailureRecovery.
	MaxFailures = 10
	// FailureRecovery is the time in which a throttled address earns one
	// more attempt.
	FailureRecovery = time.Minute
	// maxFailAddrs bounds the table of addresses with failures: past
	// it, the addresses closest to recovery are forgotten.
	maxFailAddrs = 4096
	// maxFailLogs is how many lines the failures log a minute at most;
	// the next line counts those left out ("suppressed").
	maxFailLogs = 10
)

// sessionIDBytes is the length of a session id and of a form's csrf
// value, in random bytes: 256 bits.
const sessionIDBytes = 32

// randomID returns sessionIDBytes of crypto/rand, in hex.
func randomID() string {
	b := make([]byte, sessionIDBytes)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b)
}

// session is a signed-in browser.
type session struct {
	csrf             string // the hidden field of its page's forms
	created, expires time.Time
}

// sessions are the live sign-ins, by the SHA-256 of their id: a lookup's
// time tells nothing of the ids kept.
type sessions struct {
	ttl time.Duration
	max int

	mu sync.Mutex
	m  map[[32]byte]session
}

func newSessions(ttl time.Duration, max int) *sessions {
	return &sessions{ttl: ttl, max: max, m: make(map[[32]byte]session)}
}

// create starts a session at now and returns its id, ending the expired
// ones and, at the bound, the oldest.
func (s *sessions) create(now time.Time) (string, session) {
	id := randomID()
	ss := session{csrf: randomID(), created: now, expires: now.Add(s.ttl)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.m {
		if !now.Before(v.expires) {
			delete(s.m, k)
		}
	}
	for len(s.m) >= s.max {
		var oldest [32]byte
		first := true
		for k, v := range s.m {
			if first || v.created.Before(s.m[oldest].created) {
				oldest, first = k, false
			}
		}
		delete(s.m, oldest)
	}
	s.m[sha256.Sum256([]byte(id))] = ss
	return id, ss
}

// get returns the live session of id at now.
func (s *sessions) get(id string, now time.Time) (session, bool) {
	if id == "" {
		return session{}, false
	}
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[k]
	if ok && !now.Before(ss.expires) {
		delete(s.m, k)
		return session{}, false
	}
	return ss, ok
}

// delete ends the session of id.
func (s *sessions) delete(id string) {
	s.mu.Lock()
	delete(s.m, sha256.Sum256([]byte(id)))
	s.mu.Unlock()
}

func (s *sessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// failures throttles the failed attempts of each address (a GCRA: an
// address's failures push its "theoretical arrival time" tat one
// FailureRecovery later each; it is throttled while tat is more than
// MaxFailures-1 recoveries ahead) and samples their log lines.
type failures struct {
	log *slog.Logger

	mu         sync.Mutex
	m          map[string]*failAddr
	winStart   time.Time // the current minute of the log's budget
	winLines   int       // lines logged in it
	suppressed int       // failures not logged since the last line
}

type failAddr struct {
	tat    time.Time // when the address's failures are all recovered
	logged time.Time // its last log line
}

func newFailures(log *slog.Logger) *failures {
	return &failures{log: log, m: make(map[string]*failAddr)}
}

// addrKey is the throttled unit of a RemoteAddr: its IP, or the /64 of
// an IPv6 address (one host's share).
func addrKey(remote string) string {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return remote
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// throttled reports whether the address may not try now, and in how
// many seconds it may; a refusal is logged as sampled.
func (f *failures) throttled(remote, what string, now time.Time) (bool, int) {
	k := addrKey(remote)
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.m[k]
	if a == nil {
		return false, 0
	}
	ahead := a.tat.Sub(now) - (MaxFailures-1)*FailureRecovery
	if ahead <= 0 {
		return false, 0
	}
	f.sample(a, now, "status page: attempt refused: too many failures from the address", "from", k, "what", what,
		"retry_after", ahead.Round(time.Second).String())
	return true, int((ahead + time.Second - 1) / time.Second)
}

// failed records a failed attempt of the address.
func (f *failures) failed(remote, what string, now time.Time) {
	k := addrKey(remote)
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.m[k]
	if a == nil {
		if len(f.m) >= maxFailAddrs {
			f.evict(now)
		}
		a = &failAddr{}
		f.m[k] = a
	}
	a.tat = later(a.tat, now).Add(FailureRecovery)
	f.sample(a, now, "status page: refused: no or wrong admin token or session", "from", k, "what", what)
}

// evict makes room in the table: it forgets the recovered addresses or,
// if none, the one closest to recovery.
func (f *failures) evict(now time.Time) {
	var near string
	for k, a := range f.m {
		if !a.tat.After(now) {
			delete(f.m, k)
		} else if near == "" || a.tat.Before(f.m[near].tat) {
			near = k
		}
	}
	if len(f.m) >= maxFailAddrs {
		delete(f.m, near)
	}
}

// sample logs a failure's line if its address logged none in the last
// minute and the minute's budget (maxFailLogs) allows; else it counts it.
func (f *failures) sample(a *failAddr, now time.Time, msg string, args ...any) {
	if now.Sub(f.winStart) >= time.Minute {
		f.winStart, f.winLines = now, 0
	}
	if (!a.logged.IsZero() && now.Sub(a.logged) < time.Minute) || f.winLines >= maxFailLogs {
		f.suppressed++
		return
	}
	a.logged = now
	f.winLines++
	f.log.Warn(msg, append(args, "suppressed", f.suppressed)...)
	f.suppressed = 0
}

func (f *failures) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.m)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// defaultHosts are the Hosts accepted without Config.Hosts: localhost,
// 127.0.0.1 and [::1] with the port, and the listen address; an address
// of every interface when it listens on all of them.
func defaultHosts(listen net.Addr) []string {
	host, port, _ := net.SplitHostPort(listen.String())
	hosts := []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
	ip, err := netip.ParseAddr(host)
	if err == nil && ip.IsUnspecified() {
		addrs, _ := net.InterfaceAddrs()
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				hosts = append(hosts, net.JoinHostPort(p.Addr().WithZone("").String(), port))
			}
		}
	} else if host != "" {
		hosts = append(hosts, net.JoinHostPort(host, port))
	}
	return hosts
}

// hostOK reports whether the request's Host is one of hosts: an entry
// with a port is matched exactly, one without matches the Host without a
// port or with the listen port (case-insensitive).
func hostOK(hosts []string, port, h string) bool {
	h = strings.ToLower(h)
	for _, e := range hosts {
		if h == e {
			return true
		}
		if _, _, err := net.SplitHostPort(e); err != nil && h == e+":"+port {
			return true
		}
	}
	return false
}

// unchecked are the paths answered whatever the Host: the probes and
// metrics, which monitoring reaches by an address of its choice (a pod's
// IP, a service name) and which show no player and act on nothing.
var unchecked = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// checkHost refuses (421) the requests of other Hosts than o.hosts but
// to the unchecked paths: a page of another site whose name resolves to
// this server (DNS rebinding) reads nothing and acts on nothing.
func (o *Ops) checkHost(next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(o.Addr())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unchecked[r.URL.Path] || hostOK(o.hosts, port, r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, "unknown Host "+strconv.Quote(trim(r.Host, 64))+": see rtype-server -http-host", http.StatusMisdirectedRequest)
	})
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
