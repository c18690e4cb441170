package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/version"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
	"rtype/server/store"
)

const testToken = "0123456789abcdef-test-token"

// env is a game server with its leaderboard and ban file, and the
// operator's HTTP server in front of it, on 127.0.0.1.
type env struct {
	srv  *server.Server
	st   *store.Store
	ops  *Ops
	base string // http://127.0.0.1:port
}

// start runs a game server (with an SQLite leaderboard and ban list) and
// its ops server with token until the test ends.
func start(t *testing.T, token string) *env {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "scores.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := testutil.Start(t, server.New, server.Config{Listen: "127.0.0.1:0", LoginLimit: 1 << 20,
		MaxSessionsPerIP: 1 << 20, Leaderboard: st, Bans: st, Logger: testutil.Logger(t)})
	o, err := New(Config{Listen: "127.0.0.1:0", Server: srv, Token: token, Leaderboard: st, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	testutil.WaitFor(t, testutil.Wait, "the game server to serve", srv.Ready)
	return &env{srv: srv, st: st, ops: o, base: "http://" + o.Addr()}
}

// dial logs a real client in (protocol v2) and binds it.
func (e *env) dial(t *testing.T, name string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: e.srv.Addr(), Name: name, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("dial %s: %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get returns the status and body of a GET.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	return getWith(t, http.DefaultClient, url)
}

// getWith is get with a client of the test's (a browser's cookies).
func getWith(t *testing.T, hc *http.Client, url string) (int, string) {
	t.Helper()
	r, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return r.StatusCode, string(b)
}

// post sends a form with extra headers and returns the status and body.
func post(t *testing.T, hc *http.Client, url string, form url.Values, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	r, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

// metric returns the value of a sample of the /metrics text, such as
// `rtype_logins_total{result="accepted"}`, and whether it is there.
func metric(text, sample string) (float64, bool) {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

// scrape reads /metrics.
func (e *env) scrape(t *testing.T) string {
	t.Helper()
	code, body := get(t, e.base+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	return body
}

// waitMetric waits until a sample of /metrics satisfies ok.
func (e *env) waitMetric(t *testing.T, sample string, ok func(float64) bool) {
	t.Helper()
	var last string
	if !testutil.Eventually(testutil.Wait, func() bool {
		last = e.scrape(t)
		v, found := metric(last, sample)
		return found && ok(v)
	}) {
		t.Fatalf("%s never got the value wanted; last scrape:\n%s", sample, grepRtype(last))
	}
}

func grepRtype(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "rtype_") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func positive(v float64) bool { return v > 0 }
func is(want float64) func(float64) bool {
	return func(v float64) bool { return v == want }
}

// /healthz answers while the process lives; /readyz while the game server
// serves, and 503 once it shuts down.
func TestHealthAndReady(t *testing.T) {
	e := start(t, "")
	if code, body := get(t, e.base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, _ := get(t, e.base+"/readyz"); code != 200 {
		t.Errorf("/readyz of a serving server: %d", code)
	}
	e.waitMetric(t, "rtype_ready", is(1))
	e.srv.Close()
	testutil.WaitFor(t, testutil.Wait, "/readyz 503", func() bool {
		code, _ := get(t, e.base+"/readyz")
		return code == http.StatusServiceUnavailable
	})
	if code, _ := get(t, e.base+"/healthz"); code != 200 {
		t.Errorf("/healthz of a stopping server: %d", code)
	}
	e.waitMetric(t, "rtype_ready", is(0))
}

// Every metric of /metrics moves when its thing happens, scraped as
// Prometheus would.
func TestMetricsMove(t *testing.T) {
	e := start(t, testToken)
	first := e.scrape(t)
	for _, s := range []string{`rtype_sessions{version="1"}`, `rtype_sessions{version="2"}`, `rtype_games{mode="classic"}`,
		`rtype_games{mode="stage"}`, `rtype_tick_duration_seconds_count`, `rtype_snapshot_sent_bytes_total`,
		`rtype_event_sent_bytes_total`, `rtype_datagrams_dropped_total{reason="version"}`, `rtype_logins_total{result="accepted"}`,
		`rtype_logins_total{result="banned"}`, `rtype_chat_messages_total`, `rtype_bans`, `rtype_bans_created_total`,
		`rtype_kicks_total`, `rtype_pending_connections`, `rtype_ready`, `rtype_spectators`, `rtype_webtransport_sessions`,
		`rtype_webtransport_datagrams_dropped_total`, `rtype_webtransport_connections`, `rtype_webtransport_connections_refused_total`, `go_goroutines`, `rtype_build_info{version="` + version.String() + `"}`} {
		if _, ok := metric(first, s); !ok {
			t.Errorf("/metrics lacks %s", s)
		}
	}
	if !strings.Contains(first, "# TYPE rtype_tick_duration_seconds histogram") ||
		!strings.Contains(first, `rtype_tick_duration_seconds_bucket{le="0.016666666666666666"}`) {
		t.Errorf("no tick histogram with a bucket at one tick:\n%s", grepRtype(first))
	}
	e.waitMetric(t, "rtype_tick_duration_seconds_count", positive)

	c := e.dial(t, "Metric") // v2: a Stage game
	e.waitMetric(t, `rtype_sessions{version="2"}`, is(1))
	e.waitMetric(t, `rtype_games{mode="stage"}`, is(1))
	e.waitMetric(t, `rtype_logins_total{result="accepted"}`, is(1))
	e.waitMetric(t, "rtype_snapshot_sent_bytes_total", positive)
	c1, err := client.Dial(context.Background(), client.Config{Addr: e.srv.Addr(), Name: "Classic", Version: wire.Version, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	e.waitMetric(t, `rtype_sessions{version="1"}`, is(1))
	e.waitMetric(t, `rtype_games{mode="classic"}`, is(1))
	// A v2 session's events ride in its Snapshots (PROTOCOL.md 7.8); a
	// v1 session's come in Event datagrams.
	e.waitMetric(t, "rtype_event_sent_bytes_total", positive)

	// Refused logins, by result.
	if _, err := client.Dial(context.Background(), client.Config{Addr: e.srv.Addr(), Name: "x", Logger: testutil.Logger(t)}); err == nil {
		t.Fatal("the name x was accepted")
	}
	e.waitMetric(t, `rtype_logins_total{result="invalid_name"}`, is(1))

	// Dropped datagrams: no magic, and an unknown session.
	u, err := net.Dial("udp", e.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	u.Write([]byte("not a datagram"))
	e.waitMetric(t, `rtype_datagrams_dropped_total{reason="version"}`, positive)

	// A ban through the admin API: the ban gauge, the counter, the kick
	// and the refused login.
	code, body := post(t, nil, e.base+"/admin/ban", url.Values{"name": {"Metric"}, "duration": {"1h"}, "reason": {"test"}},
		"Authorization", "Bearer "+testToken)
	if code != 200 {
		t.Fatalf("ban: %d %s", code, body)
	}
	<-c.Done()
	e.waitMetric(t, "rtype_bans", is(1))
	e.waitMetric(t, "rtype_bans_created_total", is(1))
	e.waitMetric(t, "rtype_kicks_total", is(1))
	if _, err := client.Dial(context.Background(), client.Config{Addr: e.srv.Addr(), Name: "metric", Logger: testutil.Logger(t)}); err == nil {
		t.Fatal("a banned name was accepted")
	}
	e.waitMetric(t, `rtype_logins_total{result="banned"}`, is(1))
	e.waitMetric(t, `rtype_sessions{version="2"}`, is(0))
	// Chat messages stay 0 until the chat code counts them
	// (serverStats.chatMessages); their test is the chat's.
	if v, _ := metric(e.scrape(t), "rtype_chat_messages_total"); v != 0 {
		t.Errorf("chat messages %v without chat", v)
	}
}

// Admin actions need the token: none, a wrong one, a page form without
// its hidden field or from another site are refused (403); the token as a
// bearer or a form field acts. A server without a token refuses them all.
func TestAdminNeedsToken(t *testing.T) {
	e := start(t, testToken)
	c := e.dial(t, "Victim")
	kick := url.Values{"session": {strconv.FormatUint(uint64(c.Session()), 10)}}
	_, other := e.ops.sessions.create(time.Now()) // another browser's session
	for _, tc := range []struct {
		what string
		form url.Values
		hdr  []string
	}{
		{"no token", kick, nil},
		{"a wrong bearer token", kick, []string{"Authorization", "Bearer " + strings.Repeat("x", len(testToken))}},
		{"a wrong form token", url.Values{"session": kick["session"], "token": {testToken + "x"}}, nil},
		{"a csrf field without the cookie", url.Values{"session": kick["session"], "csrf": {other.csrf}}, nil},
		{"the token from another site", kick, []string{"Authorization", "Bearer " + testToken, "Sec-Fetch-Site", "cross-site"}},
		{"the token with a foreign Origin", kick, []string{"Authorization", "Bearer " + testToken, "Origin", "http://evil.example"}},
	} {
		if code, body := post(t, nil, e.base+"/admin/kick", tc.form, tc.hdr...); code != http.StatusForbidden {
			t.Errorf("kick with %s: %d %s, want 403", tc.what, code, body)
		}
	}
	if code, _ := post(t, nil, e.base+"/signin", url.Values{"token": {"wrong-token-wrong-token"}}); code != http.StatusForbidden {
		t.Errorf("sign-in with a wrong token: %d, want 403", code)
	}
	select {
	case <-c.Done():
		t.Fatalf("the client was kicked by a refused action: %v", c.Err())
	default:
	}

	// A browser: signs in, gets the forms with their hidden field, kicks.
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	if code, body := post(t, hc, e.base+"/signin", url.Values{"token": {testToken}}); code != 200 || !strings.Contains(body, `id="kick-`) {
		t.Fatalf("sign-in: %d, page without kick forms:\n%s", code, body)
	}
	if strings.Contains(get2(t, hc, e.base+"/"), testToken) {
		t.Error("the page shows the token itself")
	}
	// The cookie alone, without the form's field, does not act.
	if code, _ := post(t, hc, e.base+"/admin/kick", kick); code != http.StatusForbidden {
		t.Errorf("kick with the cookie and no csrf field: %d, want 403", code)
	}
	m := csrfRE.FindStringSubmatch(get2(t, hc, e.base+"/"))
	if m == nil {
		t.Fatal("the signed-in page has no csrf field")
	}
	form := url.Values{"session": kick["session"], "csrf": {m[1]}}
	if code, body := post(t, hc, e.base+"/admin/kick", form, "Origin", e.base); code != 200 || !strings.Contains(body, "kicked Victim") {
		t.Fatalf("kick from the page: %d %s", code, body)
	}
	waitLogout(t, c, wire.LogoutKicked)

	// Scripts: the other actions with the bearer token.
	c2 := e.dial(t, "Roomer")
	games := e.srv.Games()
	if len(games) != 1 {
		t.Fatalf("games: %+v", games)
	}
	bearer := []string{"Authorization", "Bearer " + testToken}
	for _, a := range []struct {
		action string
		form   url.Values
		code   int
		want   string
	}{
		{"announce", url.Values{"text": {"server restarts at 20:00"}}, 200, `announced "server restarts at 20:00"`},
		{"announce", url.Values{"text": {strings.Repeat("a", maxAnnounce+1)}}, 400, "announce"},
		{"kick", url.Values{"session": {"1"}}, 404, "no such session"},
		{"kick", url.Values{"session": {"me"}}, 400, "session"},
		{"ban", url.Values{"addr": {"10.1.2.3"}, "duration": {"7d"}}, 200, "banned 10.1.2.3"},
		{"ban", url.Values{"addr": {"10.1.2.x"}, "duration": {"7d"}}, 400, "address"},
		{"ban", url.Values{"name": {"a"}, "addr": {"10.1.2.3"}, "duration": {"1h"}}, 400, "not both"},
		{"ban", url.Values{"name": {"a"}, "duration": {"1s"}}, 400, "duration"},
		{"unban", url.Values{"ban": {"x"}}, 400, "ban"},
		{"close", url.Values{"game": {strconv.Itoa(games[0].ID + 100)}}, 404, "no such game"},
		{"close", url.Values{"game": {strconv.Itoa(games[0].ID)}}, 200, "closed game"},
		{"nothing", url.Values{}, 404, "no admin action"},
	} {
		code, body := post(t, nil, e.base+"/admin/"+a.action, a.form, bearer...)
		if code != a.code || !strings.Contains(body, a.want) {
			t.Errorf("%s %v: %d %q, want %d and %q", a.action, a.form, code, body, a.code, a.want)
		}
	}
	waitLogout(t, c2, wire.LogoutServerShutdown)
	if bans, _ := e.st.Bans(context.Background(), time.Now()); len(bans) != 1 || bans[0].Addr.String() != "10.1.2.3" {
		t.Errorf("the stored bans: %+v", bans)
	}
	page := get2(t, hc, e.base+"/")
	for _, want := range []string{"kicked Victim", "announced", "closed game", "10.1.2.3"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %q", want)
		}
	}

	// Without a token, no action, no sign-in form.
	e2 := start(t, "")
	if code, _ := post(t, nil, e2.base+"/admin/announce", url.Values{"text": {"hi"}, "token": {""}}); code != http.StatusForbidden {
		t.Errorf("an action on a server without a token: %d, want 403", code)
	}
	if _, body := get(t, e2.base+"/"); strings.Contains(body, `id="signin"`) || !strings.Contains(body, "Admin actions are off") {
		t.Error("a server without a token offers to sign in")
	}
	if _, err := New(Config{Listen: "127.0.0.1:0", Server: e.srv, Token: "short"}); err == nil {
		t.Error("a 5-byte token was accepted")
	}
}

func get2(t *testing.T, hc *http.Client, url string) string {
	t.Helper()
	_, body := getWith(t, hc, url)
	return body
}

// waitLogout waits for the client's session to end with Logout(reason).
func waitLogout(t *testing.T, c *client.Client, reason uint8) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(testutil.Wait):
		t.Fatalf("the client was not logged out within %v", testutil.Wait)
	}
	var le *client.LogoutError
	if !errors.As(c.Err(), &le) || le.Reason != reason {
		t.Fatalf("the client ended with %v, want Logout(%d)", c.Err(), reason)
	}
}

// The page shows the games, players with their colours, the leaderboard
// and the bans, escaped.
func TestPageShows(t *testing.T) {
	e := start(t, testToken)
	if err := e.st.Record(context.Background(), []store.Score{{Name: "Ace<b>", Mode: store.ModeStage, Stage: "1", Score: 4242, Players: 1},
		{Name: "Ace<b>", Mode: store.ModeStage, Stage: wire.CampaignBoard, Score: 9000, Players: 1}}); err != nil {
		t.Fatal(err)
	}
	e.dial(t, "Pilot")
	if _, _, err := e.srv.Ban(context.Background(), store.Ban{Name: "Troll", Until: time.Now().Add(time.Hour), Reason: "<script>"}); err != nil {
		t.Fatal(err)
	}
	code, page := get(t, e.base+"/")
	if code != 200 {
		t.Fatalf("GET /: %d", code)
	}
	for _, want := range []string{`data-name="Pilot"`, "#22e4ff", "cyan", "stage mode, stage 1", "4242", "Ace&lt;b&gt;", "<b>stage 1</b>", "<b>campaign</b>", "9000",
		"troll", "&lt;script&gt;", `id="signin"`, `<span id="version">` + version.String() + `</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="kick-`) || strings.Contains(page, "<script>") {
		t.Error("the page offers kicks before sign-in, or does not escape")
	}
	if code, _ := get(t, e.base+"/nothing"); code != 404 {
		t.Errorf("GET /nothing: %d", code)
	}
}

// Scraping /metrics costs under a millisecond (issue 15's target), with
// a game of 4 players running.
func BenchmarkScrape(b *testing.B) {
	srv := testutil.Start(b, server.New, server.Config{Listen: "127.0.0.1:0", LoginLimit: 1 << 20,
		MaxSessionsPerIP: 1 << 20, Logger: testutil.Discard()})
	for i := range 4 {
		c, err := client.Dial(context.Background(), client.Config{Addr: srv.Addr(), Name: fmt.Sprintf("Bench%d", i), Logger: testutil.Discard()})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
	}
	o, err := New(Config{Listen: "127.0.0.1:0", Server: srv})
	if err != nil {
		b.Fatal(err)
	}
	h := o.Handler()
	req, _ := http.NewRequest("GET", "/metrics", nil)
	b.ResetTimer()
	for b.Loop() {
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.code != 0 && w.code != 200 {
			b.Fatalf("status %d", w.code)
		}
	}
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
