// Package agonesstub is a stand-in for the Agones SDK sidecar's REST API,
// for tests: the endpoints as Agones documents them (sdk.proto's HTTP
// annotations), on 127.0.0.1, checking each request's method, path and
// body and recording it; it can fail or hang calls. It is what the
// Agones integration is tested against here: no real sidecar runs. Only
// tests use it.
package agonesstub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// call is one request the stub sidecar received.
type call struct {
	method, path string
	key, value   string // of a label
	at           time.Time
	status       int
}

// Stub is the Agones SDK sidecar's REST API as its documentation gives
// it, on 127.0.0.1: it checks each request's method, path and body,
// records it, and can fail or hang the calls of a path.
type Stub struct {
	t   testing.TB
	srv *httptest.Server

	mu     sync.Mutex
	calls  []call
	bad    []string       // requests that break the documented API
	fail   map[string]int // path: how many calls to answer 503 yet
	hang   bool           // every call waits until its client gives up
	labels map[string]string
	state  string // of the GameServer record: Ready unless SetState

	release chan struct{}
}

// New starts a stub sidecar until the test ends; it fails the test
// if a request broke the documented API.
func New(t testing.TB) *Stub {
	s := &Stub{t: t, fail: map[string]int{}, labels: map[string]string{}, release: make(chan struct{}), state: "Ready"}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.release)
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, b := range s.bad {
			t.Errorf("stub sidecar: %s", b)
		}
	})
	return s
}

// SetState sets the state of the GameServer record, as Agones does when
// its allocator allocates the GameServer ("Allocated").
func (s *Stub) SetState(state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state = state
}

// Addr is the stub's "host:port".
func (s *Stub) Addr() string { return strings.TrimPrefix(s.srv.URL, "http://") }

func (s *Stub) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	c := call{method: r.Method, path: r.URL.Path, at: time.Now()}
	problem := ""
	switch {
	case err != nil:
		problem = fmt.Sprintf("reading the body: %v", err)
	case r.URL.Path == "/ready" || r.URL.Path == "/health" || r.URL.Path == "/allocate" || r.URL.Path == "/shutdown":
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || string(body) != "{}" {
			problem = fmt.Sprintf("%s %s with Content-Type %q and body %q: want POST, application/json, {}",
				r.Method, r.URL.Path, r.Header.Get("Content-Type"), body)
		}
	case r.URL.Path == "/metadata/label":
		var kv map[string]string
		if r.Method != http.MethodPut || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &kv) != nil ||
			len(kv) != 2 || kv["key"] == "" || !validLabelValue(kv["value"]) {
			problem = fmt.Sprintf("%s %s with body %q: want PUT of {\"key\": ..., \"value\": ...}", r.Method, r.URL.Path, body)
		}
		c.key, c.value = kv["key"], kv["value"]
	case r.URL.Path == "/gameserver":
		if r.Method != http.MethodGet {
			problem = fmt.Sprintf("%s /gameserver: want GET", r.Method)
		}
	default:
		problem = fmt.Sprintf("%s %s: no such endpoint", r.Method, r.URL.Path)
	}
	s.mu.Lock()
	hang := s.hang
	c.status = http.StatusOK
	switch {
	case problem != "":
		s.bad = append(s.bad, problem)
		c.status = http.StatusBadRequest
	case hang:
		c.status = 0
	case s.fail[c.path] > 0:
		s.fail[c.path]--
		c.status = http.StatusServiceUnavailable
	case c.key != "":
		s.labels[c.key] = c.value
	}
	state := s.state
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	if hang {
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(c.status)
	switch {
	case c.status != http.StatusOK:
		fmt.Fprintf(w, `{"error": "stub: %d"}`, c.status)
	case c.path == "/gameserver":
		io.WriteString(w, `{"object_meta":{"name":"rtype-fleet-abcde-xyz12","namespace":"default","generation":"1","labels":{"agones.dev/sdk-rtype-games":"0"}},`+
			`"status":{"state":"`+state+`","address":"127.0.0.1","ports":[{"name":"game","port":7042}]}}`)
	default:
		io.WriteString(w, "{}")
	}
}

// validLabelValue reports a valid Kubernetes label value: at most 63
// characters, alphanumeric at both ends, '-', '_', '.' inside.
func validLabelValue(v string) bool {
	if len(v) > 63 {
		return false
	}
	for i, r := range v {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && ((r != '-' && r != '_' && r != '.') || i == 0 || i == len(v)-1) {
			return false
		}
	}
	return true
}

// FailNext makes the next n calls of path answer 503.
func (s *Stub) FailNext(path string, n int) {
	s.mu.Lock()
	s.fail[path] = n
	s.mu.Unlock()
}

// SetHang makes every call wait until its client gives up.
func (s *Stub) SetHang(on bool) {
	s.mu.Lock()
	s.hang = on
	s.mu.Unlock()
}

// Count returns how many calls of path arrived, and how many of them
// were answered 200.
func (s *Stub) Count(path string) (all, ok int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		if c.path == path {
			all++
			if c.status == http.StatusOK {
				ok++
			}
		}
	}
	return all, ok
}

// Succeeded reports whether a call of path was answered 200.
func (s *Stub) Succeeded(path string) bool { _, ok := s.Count(path); return ok > 0 }

// Label returns the label's value as last set, and whether it was.
func (s *Stub) Label(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.labels[key]
	return v, ok
}

// FirstOK returns the time of the first call of path answered 200.
func (s *Stub) FirstOK(path string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		if c.path == path && c.status == http.StatusOK {
			return c.at
		}
	}
	return time.Time{}
}

// History returns the calls so far, for failure messages.
func (s *Stub) History() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, c := range s.calls {
		fmt.Fprintf(&b, "\n  %s %s %s=%s -> %d", c.method, c.path, c.key, c.value, c.status)
	}
	return b.String()
}
