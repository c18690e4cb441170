// Package ops is the operator's HTTP side of rtype-server: Prometheus
// metrics (/metrics), health and readiness probes (/healthz, /readyz), and
// a status page (/) that shows the games, their players and the
// leaderboard and, with the admin token, kicks, bans, closes games and
// announces.
//
// The page is server-side HTML (html/template, embedded); it needs no
// JavaScript. Admin actions are POSTs. A script sends the token in an
// "Authorization: Bearer" header or a "token" form field. A browser signs
// in once with the token (POST /signin): it gets an HttpOnly, SameSite
// cookie, and the page's forms then carry a hidden field derived from the
// token (an HMAC), which another site's page cannot read; the action needs
// both. Every comparison is constant-time (crypto/subtle). Cross-origin
// POSTs are refused besides (http.CrossOriginProtection: Sec-Fetch-Site,
// else Origin against Host). The token itself never appears in a page or
// a cookie.
package ops

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
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
}

// Ops is the operator's HTTP server.
type Ops struct {
	cfg  Config
	log  *slog.Logger
	ln   net.Listener
	http *http.Server
	reg  *prometheus.Registry

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
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("ops: HTTP listen on %s: %w", cfg.Listen, err)
	}
	o := &Ops{cfg: cfg, log: cfg.Logger, ln: ln, reg: prometheus.NewRegistry()}
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
	return http.NewCrossOriginProtection().Handler(mux)
}

// cookieName is the cookie that keeps an operator signed in: it holds
// signedIn's value, not the token.
const cookieName = "rtype_admin"

// signedIn is the cookie value of a signed-in browser: a MAC of the token,
// so the cookie never holds the token itself.
func (o *Ops) signedIn() string { return o.mac("rtype status page session") }

// csrf is the value of the hidden field of the page's admin forms: a MAC
// of the token, which a page of another site cannot read.
func (o *Ops) csrf() string { return o.mac("rtype status page form") }

func (o *Ops) mac(what string) string {
	m := hmac.New(sha256.New, []byte(o.cfg.Token))
	m.Write([]byte(what))
	return hex.EncodeToString(m.Sum(nil))
}

// authorized reports whether a POST may act: it carries the token (form
// field "token" or Authorization: Bearer), or it comes from the page of a
// signed-in browser (the cookie and the form's hidden "csrf" field).
func (o *Ops) authorized(r *http.Request) bool {
	if o.cfg.Token == "" {
		return false
	}
	if o.tokenOK(requestToken(r)) {
		return true
	}
	return o.isSignedIn(r) && subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(o.csrf())) == 1
}

// tokenOK reports whether t is the admin token, in constant time.
func (o *Ops) tokenOK(t string) bool {
	return o.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(t), []byte(o.cfg.Token)) == 1
}

// isSignedIn reports whether the request's browser signed in.
func (o *Ops) isSignedIn(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	return err == nil && o.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(c.Value), []byte(o.signedIn())) == 1
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

// signIn checks the token of the sign-in form and sets the cookie with
// which the page shows the admin forms.
func (o *Ops) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if !o.tokenOK(requestToken(r)) {
		o.log.Warn("status page: sign-in refused", "from", r.RemoteAddr)
		http.Error(w, "wrong admin token", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: o.signedIn(), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// signOut forgets the browser's sign-in.
func (o *Ops) signOut(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// did records an admin action for the page and the log.
func (o *Ops) did(r *http.Request, text string) {
	o.log.Info("admin action", "action", text, "from", r.RemoteAddr)
	o.mu.Lock()
	o.actions = append(o.actions, action{At: time.Now(), Text: text})
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
