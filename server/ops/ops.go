// Package ops is the operator's HTTP side of rtype-server: Prometheus
// metrics (/metrics), health and readiness probes (/healthz, /readyz), and
// a status page (/) that shows the games, their players and the
// leaderboard and, with the admin token, kicks, bans, closes games and
// announces.
//
// The page is server-side HTML (html/template, embedded); it needs no
// JavaScript. Admin actions are POSTs. A script sends the token in an
// "Authorization: Bearer" header or a "token" form field. A browser signs
// in once with the token (POST /signin): it gets a session, a random id
// kept by the server in an HttpOnly, SameSite=Strict cookie, for
// Config.SessionTTL or until it signs out (POST /signout ends it on the
// server); the page's forms then carry the session's random hidden field,
// which another site's page cannot read; the action needs both. Token
// comparisons are constant-time (crypto/subtle); sessions are looked up by
// their id's SHA-256. Cross-origin POSTs are refused besides
// (http.CrossOriginProtection: Sec-Fetch-Site, else Origin against Host).
// The token itself never appears in a page or a cookie.
//
// Failed attempts are throttled per address (MaxFailures, then 429 until
// it recovers, one attempt per FailureRecovery) and their log lines
// sampled; rtype_ops_auth_failures_total and
// rtype_ops_auth_throttled_total count them. The page and the actions
// answer only the Hosts of Config.Hosts (DNS rebinding); /healthz, /readyz
// and /metrics answer any Host.
package ops

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"rtype/server"
)

// MinToken is the shortest admin token accepted, in bytes.
const MinToken = 16

// Config configures the operator's HTTP server.
type Config struct {
	// Listen is the HTTP address, such as "127.0.0.1:8080"; port 0 picks
	// a free port. Required.
	Listen string
	// Server is the game server shown and acted on. Required.
	Server *server.Server
	// Token is the admin token: at least MinToken bytes. Default "": no
	// admin actions (the page is read-only).
	Token string
	// Leaderboard, when set, is shown on the page (its best scores).
	Leaderboard server.Leaderboard
	// Logger receives the admin actions and errors. Default slog.Default().
	Logger *slog.Logger
	// Hosts are the Host headers the page and the actions answer, as
	// "name" (with no port or the listen port) or "name:port". Default:
	// localhost, 127.0.0.1 and [::1] with the listen port, and the listen
	// address (every interface's address when it listens on all). Other
	// Hosts get 421; /healthz, /readyz and /metrics answer any.
	Hosts []string
	// SessionTTL is how long a sign-in lasts. Default DefaultSessionTTL
	// (12 h).
	SessionTTL time.Duration
	// MaxSessions bounds the live sign-ins; a sign-in past it ends the
	// oldest. Default DefaultMaxSessions (64).
	MaxSessions int

	// now is the clock of sessions and throttling; nil: time.Now.
	now func() time.Time
}

// Ops is the operator's HTTP server.
type Ops struct {
	cfg  Config
	log  *slog.Logger
	ln   net.Listener
	http *http.Server
	reg  *prometheus.Registry

	now       func() time.Time
	hosts     []string // lower case
	sessions  *sessions
	fails     *failures
	failed    prometheus.Counter
	throttled prometheus.Counter

	mu      sync.Mutex
	actions []action // the latest admin actions, newest last
}

// action is an admin action done, shown on the page.
type action struct {
	At   time.Time
	Text string
}

// maxActions is how many admin actions the page lists.
const maxActions = 20

// New listens on cfg.Listen and returns the server, ready to Serve.
func New(cfg Config) (*Ops, error) {
	if cfg.Server == nil {
		return nil, errors.New("ops: no game server")
	}
	if cfg.Token != "" && len(cfg.Token) < MinToken {
		return nil, fmt.Errorf("ops: the admin token has %d bytes: want at least %d", len(cfg.Token), MinToken)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("ops: HTTP listen on %s: %w", cfg.Listen, err)
	}
	o := &Ops{cfg: cfg, log: cfg.Logger, ln: ln, reg: prometheus.NewRegistry(), now: cfg.now,
		sessions: newSessions(cfg.SessionTTL, cfg.MaxSessions), fails: newFailures(cfg.Logger)}
	o.hosts = slices.Clone(cfg.Hosts) // lower-cased below: not the caller's
	if len(o.hosts) == 0 {
		o.hosts = defaultHosts(ln.Addr())
	}
	for i, h := range o.hosts {
		o.hosts[i] = strings.ToLower(strings.TrimSpace(h))
	}
	o.failed = prometheus.NewCounter(prometheus.CounterOpts{Name: "rtype_ops_auth_failures_total",
		Help: "Sign-ins and admin actions of the status page refused: no or wrong token, no or ended session (403)."})
	o.throttled = prometheus.NewCounter(prometheus.CounterOpts{Name: "rtype_ops_auth_throttled_total",
		Help: "Sign-ins and admin actions of the status page refused unchecked: too many failures from the address (429)."})
	o.reg.MustRegister(o.failed, o.throttled)
	// The Go runtime's metrics, not the process collector's: it reads
	// several /proc files per scrape (its network counters above all),
	// which took a scrape past its 1 ms budget (BenchmarkScrape); a node
	// exporter or the container runtime has them.
	o.reg.MustRegister(newCollector(cfg.Server), newFleetCollector(cfg.Server), collectors.NewGoCollector())
	o.http = &http.Server{Handler: o.Handler(), ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second, MaxHeaderBytes: 1 << 16}
	return o, nil
}

// Addr returns the bound HTTP address.
func (o *Ops) Addr() string { return o.ln.Addr().String() }

// Serve serves HTTP until ctx is done, then shuts down gracefully (at
// most 5 s). It returns nil after a clean stop.
func (o *Ops) Serve(ctx context.Context) error {
	o.log.Info("status page and metrics", "addr", "http://"+o.Addr()+"/", "admin", o.cfg.Token != "")
	errc := make(chan error, 1)
	go func() { errc <- o.http.Serve(o.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("ops: HTTP: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	o.http.Shutdown(sctx)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("ops: HTTP: %w", err)
	}
	return nil
}

// Handler returns the HTTP handler of every route.
func (o *Ops) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !o.cfg.Server.Ready() {
			http.Error(w, "not ready: not serving or shutting down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("GET /{$}", o.page)
	mux.HandleFunc("POST /signin", o.signIn)
	mux.HandleFunc("POST /signout", o.signOut)
	mux.HandleFunc("POST /admin/{action}", o.admin)
	return o.checkHost(http.NewCrossOriginProtection().Handler(mux))
}

// cookieName is the cookie that keeps an operator signed in: it holds a
// session's id, not the token.
const cookieName = "rtype_admin"

// authorized reports whether a POST may act: it carries the token (form
// field "token" or Authorization: Bearer), or it comes from the page of a
// signed-in browser (the cookie of a live session and the session's
// hidden "csrf" field).
func (o *Ops) authorized(r *http.Request) bool {
	if o.cfg.Token == "" {
		return false
	}
	if o.tokenOK(requestToken(r)) {
		return true
	}
	s, ok := o.session(r)
	return ok && subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.csrf)) == 1
}

// tokenOK reports whether t is the admin token, in constant time.
func (o *Ops) tokenOK(t string) bool {
	return o.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(t), []byte(o.cfg.Token)) == 1
}

// session returns the live session of the request's cookie.
func (o *Ops) session(r *http.Request) (session, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil || o.cfg.Token == "" {
		return session{}, false
	}
	return o.sessions.get(c.Value, o.now())
}

// requestToken returns the token a POST carries: its form field "token",
// else its Authorization: Bearer header.
func requestToken(r *http.Request) string {
	if t := r.PostFormValue("token"); t != "" {
		return t
	}
	const bearer = "Bearer "
	if h := r.Header.Get("Authorization"); len(h) > len(bearer) && h[:len(bearer)] == bearer {
		return h[len(bearer):]
	}
	return ""
}

// throttle answers 429 if the request's address failed too often, and
// reports whether it did.
func (o *Ops) throttle(w http.ResponseWriter, r *http.Request, what string) bool {
	t, after := o.fails.throttled(r.RemoteAddr, what, o.now())
	if !t {
		return false
	}
	o.throttled.Inc()
	w.Header().Set("Retry-After", fmt.Sprint(after))
	http.Error(w, "too many failed attempts from your address: try again later", http.StatusTooManyRequests)
	return true
}

// refuse answers 403 to a failed attempt and counts it.
func (o *Ops) refuse(w http.ResponseWriter, r *http.Request, what, text string) {
	o.failed.Inc()
	o.fails.failed(r.RemoteAddr, what, o.now())
	http.Error(w, text, http.StatusForbidden)
}

// signIn checks the token of the sign-in form, starts a session and sets
// its cookie, with which the page shows the admin forms.
func (o *Ops) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if o.throttle(w, r, "sign-in") {
		return
	}
	if !o.tokenOK(requestToken(r)) {
		o.refuse(w, r, "sign-in", "wrong admin token")
		return
	}
	id, _ := o.sessions.create(o.now())
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", MaxAge: int(o.cfg.SessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// signOut ends the browser's session on the server and clears its cookie.
func (o *Ops) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		o.sessions.delete(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// did records an admin action for the page and the log.
func (o *Ops) did(r *http.Request, text string) {
	o.log.Info("admin action", "action", text, "from", r.RemoteAddr)
	o.mu.Lock()
	o.actions = append(o.actions, action{At: o.now(), Text: text})
	if len(o.actions) > maxActions {
		o.actions = append(o.actions[:0], o.actions[len(o.actions)-maxActions:]...)
	}
	o.mu.Unlock()
}

// recent returns the latest admin actions, newest first.
func (o *Ops) recent() []action {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]action, len(o.actions))
	for i, a := range o.actions {
		out[len(out)-1-i] = a
	}
	return out
}
