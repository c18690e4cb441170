package ops

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/server"
)

// clock is a test's clock: it moves only when the test says so.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// handlerEnv is an Ops whose handler the test calls directly
// (httptest), with its clock and, when asked, a log kept in a buffer.
type handlerEnv struct {
	o     *Ops
	h     http.Handler
	clock *clock
	host  string // localhost:PORT, an accepted Host
}

// newHandler returns the handler of an Ops with the admin token, on a
// test clock; cfg's fields left zero take the defaults.
func newHandler(t *testing.T, cfg Config) *handlerEnv {
	t.Helper()
	srv := testutil.Start(t, server.New, server.Config{Listen: "127.0.0.1:0", Logger: testutil.Logger(t)})
	c := newClock()
	cfg.Listen, cfg.Server, cfg.Token, cfg.now = "127.0.0.1:0", srv, testToken, c.now
	if cfg.Logger == nil {
		cfg.Logger = testutil.Logger(t)
	}
	o, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.ln.Close() })
	_, port, _ := strings.Cut(o.Addr(), ":")
	return &handlerEnv{o: o, h: o.Handler(), clock: c, host: "localhost:" + port}
}

// req is a request to the handler: from an address, with a form (POST)
// or none (GET), and cookies.
type req struct {
	method, path, from, host string
	form                     url.Values
	cookies                  []*http.Cookie
}

func (e *handlerEnv) do(r req) *httptest.ResponseRecorder {
	var hr *http.Request
	if r.form != nil {
		hr = httptest.NewRequest(r.method, r.path, strings.NewReader(r.form.Encode()))
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		hr = httptest.NewRequest(r.method, r.path, nil)
	}
	hr.Host = e.host
	if r.host != "" {
		hr.Host = r.host
	}
	hr.RemoteAddr = "192.0.2.1:40000"
	if r.from != "" {
		hr.RemoteAddr = r.from
	}
	for _, c := range r.cookies {
		hr.AddCookie(c)
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, hr)
	return w
}

// signIn signs in with the token and returns the session cookie.
func (e *handlerEnv) signIn(t *testing.T) *http.Cookie {
	t.Helper()
	w := e.do(req{method: "POST", path: "/signin", form: url.Values{"token": {testToken}}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %s", w.Code, w.Body)
	}
	for _, c := range w.Result().Cookies() {
		if c.Name == cookieName {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Value == "" {
				t.Errorf("the session cookie: %+v: want HttpOnly, SameSite=Strict, Path=/", c)
			}
			return &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	t.Fatalf("sign-in set no cookie %s: %v", cookieName, w.Result().Cookies())
	return nil
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// admin reports whether the page shows c's browser the admin forms, and
// their hidden csrf field.
func (e *handlerEnv) admin(t *testing.T, c *http.Cookie) (bool, string) {
	t.Helper()
	w := e.do(req{method: "GET", path: "/", cookies: []*http.Cookie{c}})
	if w.Code != 200 {
		t.Fatalf("GET /: %d %s", w.Code, w.Body)
	}
	m := csrfRE.FindStringSubmatch(w.Body.String())
	if m == nil {
		return false, ""
	}
	return true, m[1]
}

// announce posts an announcement from the page of c's browser.
func (e *handlerEnv) announce(c *http.Cookie, csrf string) int {
	return e.do(req{method: "POST", path: "/admin/announce", form: url.Values{"text": {"hello"}, "csrf": {csrf}},
		cookies: []*http.Cookie{c}}).Code
}

// Signing out ends the session on the server: the old cookie, replayed,
// no longer shows the forms or acts.
func TestSignOutRevokes(t *testing.T) {
	e := newHandler(t, Config{})
	c := e.signIn(t)
	ok, csrf := e.admin(t, c)
	if !ok {
		t.Fatal("signed in, the page shows no admin forms")
	}
	if code := e.announce(c, csrf); code != http.StatusSeeOther {
		t.Fatalf("announce while signed in: %d", code)
	}
	if w := e.do(req{method: "POST", path: "/signout", form: url.Values{}, cookies: []*http.Cookie{c}}); w.Code != http.StatusSeeOther {
		t.Fatalf("sign-out: %d %s", w.Code, w.Body)
	}
	if ok, _ := e.admin(t, c); ok {
		t.Error("the cookie of a signed-out browser still shows the admin forms")
	}
	if code := e.announce(c, csrf); code != http.StatusForbidden {
		t.Errorf("announce with the cookie of a signed-out browser: %d, want 403", code)
	}
}

// Two sign-ins get two sessions: different cookies, different csrf
// fields, and one's sign-out leaves the other signed in.
func TestSessionsDiffer(t *testing.T) {
	e := newHandler(t, Config{})
	a, b := e.signIn(t), e.signIn(t)
	if a.Value == b.Value {
		t.Fatalf("two sign-ins got the same cookie %q", a.Value)
	}
	if len(a.Value) < 32 {
		t.Errorf("the session id %q has fewer than 128 bits", a.Value)
	}
	_, ca := e.admin(t, a)
	_, cb := e.admin(t, b)
	if ca == cb {
		t.Errorf("two sessions got the same csrf field %q", ca)
	}
	if code := e.announce(a, cb); code != http.StatusForbidden {
		t.Errorf("announce with one session's cookie and the other's csrf: %d, want 403", code)
	}
	e.do(req{method: "POST", path: "/signout", form: url.Values{}, cookies: []*http.Cookie{a}})
	if ok, _ := e.admin(t, b); !ok {
		t.Error("one browser's sign-out signed the other out")
	}
}

// A session ends SessionTTL after its sign-in (12 h by default); past
// MaxSessions sessions, the oldest ends.
func TestSessionExpires(t *testing.T) {
	e := newHandler(t, Config{})
	c := e.signIn(t)
	e.clock.advance(DefaultSessionTTL - time.Second)
	if ok, _ := e.admin(t, c); !ok {
		t.Fatal("a session ended before its time")
	}
	_, csrf := e.admin(t, c)
	e.clock.advance(2 * time.Second)
	if ok, _ := e.admin(t, c); ok {
		t.Error("an expired session still shows the admin forms")
	}
	if code := e.announce(c, csrf); code != http.StatusForbidden {
		t.Errorf("announce with an expired session: %d, want 403", code)
	}

	e2 := newHandler(t, Config{MaxSessions: 3})
	var cs []*http.Cookie
	for range 4 {
		cs = append(cs, e2.signIn(t))
		e2.clock.advance(time.Second)
	}
	for i, c := range cs {
		if ok, _ := e2.admin(t, c); ok != (i > 0) {
			t.Errorf("session %d of 4 with at most 3: signed in %v", i, ok)
		}
	}
	if n := e2.o.sessions.len(); n != 3 {
		t.Errorf("%d sessions kept, want 3", n)
	}
}

// Failed attempts are throttled per address: after MaxFailures wrong
// tokens an address gets 429, even with the right token, while another
// address still signs in; it recovers one attempt per FailureRecovery.
func TestFailuresThrottled(t *testing.T) {
	e := newHandler(t, Config{})
	wrong := url.Values{"token": {"wrong-wrong-wrong-wrong"}}
	const bad = "198.51.100.7:5555"
	for i := range MaxFailures {
		if w := e.do(req{method: "POST", path: "/signin", from: bad, form: wrong}); w.Code != http.StatusForbidden {
			t.Fatalf("wrong token %d: %d, want 403", i+1, w.Code)
		}
	}
	for _, r := range []req{
		{method: "POST", path: "/signin", from: bad, form: wrong},
		{method: "POST", path: "/signin", from: "198.51.100.7:6666", form: url.Values{"token": {testToken}}},
		{method: "POST", path: "/admin/announce", from: bad, form: url.Values{"token": {testToken}, "text": {"hi"}}},
	} {
		w := e.do(r)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
			t.Errorf("%s %s from a throttled address: %d (Retry-After %q), want 429 with Retry-After", r.method, r.path, w.Code, w.Header().Get("Retry-After"))
		}
	}
	if w := e.do(req{method: "POST", path: "/signin", from: "203.0.113.9:1", form: url.Values{"token": {testToken}}}); w.Code != http.StatusSeeOther {
		t.Errorf("the right token from another address: %d, want 303", w.Code)
	}
	e.clock.advance(FailureRecovery)
	if w := e.do(req{method: "POST", path: "/signin", from: bad, form: url.Values{"token": {testToken}}}); w.Code != http.StatusSeeOther {
		t.Errorf("the right token after a recovery: %d, want 303", w.Code)
	}
	// The table of addresses stays bounded.
	for i := range 3 * maxFailAddrs {
		e.do(req{method: "POST", path: "/signin", from: fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255), form: wrong})
	}
	if n := e.o.fails.len(); n > maxFailAddrs {
		t.Errorf("%d addresses kept, want at most %d", n, maxFailAddrs)
	}
}

// 1,000 failed attempts log a bounded number of lines: the first of each
// address per minute, at most maxFailLogs a minute, with the count of
// those left out; the metric counts them all.
func TestFailuresLogSampled(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	e := newHandler(t, Config{Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil))})
	wrong := url.Values{"token": {"wrong-wrong-wrong-wrong"}}
	for range 1000 {
		e.do(req{method: "POST", path: "/signin", from: "198.51.100.7:5555", form: wrong})
	}
	for i := range 1000 {
		e.do(req{method: "POST", path: "/admin/kick", from: fmt.Sprintf("10.0.%d.%d:1", i>>8, i&255), form: url.Values{"session": {"1"}}})
	}
	e.clock.advance(time.Minute)
	e.do(req{method: "POST", path: "/signin", from: "198.51.100.7:5555", form: wrong})
	mu.Lock()
	log := buf.String()
	mu.Unlock()
	lines := strings.Count(log, "\n")
	t.Logf("2,001 failures: %d log lines, %d bytes", lines, len(log))
	if lines < 2 || lines > 2*maxFailLogs+1 {
		t.Errorf("2,001 failures over 2 minutes logged %d lines, want 2 to %d:\n%s", lines, 2*maxFailLogs+1, log)
	}
	if !strings.Contains(log, "suppressed=") {
		t.Errorf("the log does not count the failures left out:\n%s", log)
	}
	w := e.do(req{method: "GET", path: "/metrics"})
	// Refused (403): the first MaxFailures of the first address, the
	// 1,000 others, and one after a minute's recovery; the rest 429.
	if v, ok := metric(w.Body.String(), "rtype_ops_auth_failures_total"); v != MaxFailures+1000+1 {
		t.Errorf("rtype_ops_auth_failures_total %v (found %v), want %d", v, ok, MaxFailures+1000+1)
	}
	if v, ok := metric(w.Body.String(), "rtype_ops_auth_throttled_total"); v != 1000-MaxFailures {
		t.Errorf("rtype_ops_auth_throttled_total %v (found %v), want %d", v, ok, 1000-MaxFailures)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// The page and the actions answer only the Hosts of -http-host (by
// default the listen address and localhost, 127.0.0.1 and [::1] with its
// port): a page of another name (DNS rebinding) gets 421. The probes and
// /metrics answer any Host.
func TestHostChecked(t *testing.T) {
	e := newHandler(t, Config{})
	_, port, _ := strings.Cut(e.o.Addr(), ":")
	for _, h := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST:" + port} {
		if w := e.do(req{method: "GET", path: "/", host: h}); w.Code != 200 {
			t.Errorf("GET / with Host %s: %d, want 200", h, w.Code)
		}
	}
	for _, h := range []string{"evil.example", "evil.example:" + port, "localhost:1", "localhost", "127.0.0.1.evil.example:" + port} {
		if w := e.do(req{method: "GET", path: "/", host: h}); w.Code != http.StatusMisdirectedRequest || w.Body.Len() > 200 {
			t.Errorf("GET / with Host %s: %d %q, want 421 and a short text", h, w.Code, w.Body)
		}
	}
	if w := e.do(req{method: "POST", path: "/signin", host: "evil.example", form: url.Values{"token": {testToken}}}); w.Code != http.StatusMisdirectedRequest {
		t.Errorf("sign-in with Host evil.example: %d, want 421", w.Code)
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		if w := e.do(req{method: "GET", path: p, host: "10.1.2.3:9999"}); w.Code != 200 {
			t.Errorf("GET %s with the Host of a probe: %d, want 200", p, w.Code)
		}
	}

	e2 := newHandler(t, Config{Hosts: []string{"ops.example.com", "10.0.0.5:8080"}})
	_, port, _ = strings.Cut(e2.o.Addr(), ":")
	for h, want := range map[string]int{"ops.example.com": 200, "OPS.example.com:" + port: 200, "10.0.0.5:8080": 200,
		"10.0.0.5": 421, "localhost:" + port: 421, "evil.example": 421} {
		if w := e2.do(req{method: "GET", path: "/", host: h}); w.Code != want {
			t.Errorf("Hosts %v: GET / with Host %s: %d, want %d", e2.o.hosts, h, w.Code, want)
		}
	}
}
