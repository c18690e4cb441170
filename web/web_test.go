package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// get fetches path from a real HTTP server (loopback) with the given
// Accept-Encoding ("" asks for none: Go's client would add gzip itself).
func get(t *testing.T, url, ae string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept-Encoding", ae)
	if ae == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func TestPage(t *testing.T) {
	game := bytes.Repeat([]byte("\x00asm game "), 1000)
	hash := [32]byte{1, 2, 3}
	h, err := New(Config{Wasm: gz(t, game), Server: func() (Server, bool) {
		return Server{Addr: ":4443", CertHashes: [][32]byte{hash}}, true
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()

	res, b := get(t, hs.URL+"/", "")
	if res.StatusCode != 200 || !strings.Contains(string(b), "wasm_exec.js") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("index: %d %q %.60q", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	if res, b := get(t, hs.URL+"/wasm_exec.js", ""); res.StatusCode != 200 || !bytes.Contains(b, []byte("globalThis.Go = class")) {
		t.Errorf("wasm_exec.js: %d %.60q", res.StatusCode, b)
	}
	// gzip as it is stored, with the length of the gzip.
	res, b = get(t, hs.URL+"/rtype.wasm", "gzip, deflate, br")
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Type") != "application/wasm" || len(b) == 0 {
		t.Errorf("wasm, gzip: %q %q %d bytes", res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"), len(b))
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := io.ReadAll(zr); !bytes.Equal(raw, game) {
		t.Errorf("the gzipped wasm does not unzip to the game")
	}
	// A client without gzip gets it unzipped.
	res, b = get(t, hs.URL+"/rtype.wasm", "")
	if res.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, game) {
		t.Errorf("wasm, identity: %q, %d bytes, want %d", res.Header.Get("Content-Encoding"), len(b), len(game))
	}
	if res, _ := get(t, hs.URL+"/rtype.wasm", "gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 got %q", res.Header.Get("Content-Encoding"))
	}
	// config.json: the server's port on the host the page was asked from.
	res, b = get(t, hs.URL+"/config.json", "")
	var c config
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("config.json %q: %v", b, err)
	}
	if !c.Game || c.Addr != "127.0.0.1:4443" || len(c.CertHashes) != 1 || c.CertHashes[0] != "0102030000000000000000000000000000000000000000000000000000000000" || c.WasmSize != int64(len(game)) {
		t.Errorf("config.json: %+v", c)
	}
	for _, p := range []string{"/nothing", "/dist/README.md", "/../web.go"} {
		if res, _ := get(t, hs.URL+p, ""); res.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
	req, _ := http.NewRequest("POST", hs.URL+"/", nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 405 {
		t.Errorf("POST: %v %v", res, err)
	}
}

// A build without the game says so, and how to make one; a server
// without WebTransport lets the menus run but says why it cannot play.
func TestPageWithout(t *testing.T) {
	h, err := New(Config{Wasm: []byte{}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	var c config
	_, b := get(t, hs.URL+"/config.json", "")
	json.Unmarshal(b, &c)
	if c.Game || !strings.Contains(c.NoGame, "./build.sh build") {
		t.Errorf("no game: %+v", c)
	}
	if res, _ := get(t, hs.URL+"/rtype.wasm", ""); res.StatusCode != 404 {
		t.Errorf("wasm without a game: %d", res.StatusCode)
	}

	h, _ = New(Config{Wasm: gz(t, []byte("game")), Server: func() (Server, bool) { return Server{}, false }})
	hs2 := httptest.NewServer(h)
	defer hs2.Close()
	c = config{}
	_, b = get(t, hs2.URL+"/config.json", "")
	json.Unmarshal(b, &c)
	if !c.Game || c.Addr != "" || !strings.Contains(c.NoServer, "-webtransport") {
		t.Errorf("no WebTransport: %+v", c)
	}

	if _, err := New(Config{Wasm: []byte("not gzip")}); err == nil {
		t.Error("a wasm that is not gzip was taken")
	}
}

// wasm_exec.js must be the one of the Go that builds the game: the glue
// changes with Go's releases.
func TestWasmExecMatchesGo(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	want, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Skipf("this Go has no lib/wasm/wasm_exec.js: %v", err)
	}
	got, _ := page.ReadFile("wasm_exec.js")
	if !bytes.Equal(got, want) {
		t.Error("web/wasm_exec.js differs from this Go's: cp \"$(go env GOROOT)/lib/wasm/wasm_exec.js\" web/")
	}
}

// TestPageJoin: with a rendezvous' lookup (Config.Join), config.json
// names it ("join") and /join reaches it with the request's query; a
// page of a rendezvous alone (no game server) says nothing of a missing
// server; without one, /join is 404 and config.json names none. The
// page has the join-by-code field the script shows when config.json
// names a lookup.
func TestPageJoin(t *testing.T) {
	join := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"room":"`+r.URL.Query().Get("code")+`","error":"unknown"}`)
	})
	h, err := New(Config{Wasm: gz(t, []byte("game")), Join: join})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	var c config
	_, b := get(t, hs.URL+"/config.json", "")
	json.Unmarshal(b, &c)
	if c.Join != "join" || c.NoServer != "" {
		t.Errorf("config.json with a lookup: %+v, want join \"join\" and no noServer", c)
	}
	res, b := get(t, hs.URL+"/join?code=ABC123", "")
	if res.StatusCode != 404 || string(b) != `{"room":"ABC123","error":"unknown"}` {
		t.Errorf("/join: %d %q, want the lookup's answer", res.StatusCode, b)
	}
	_, b = get(t, hs.URL+"/", "")
	for _, want := range []string{`<form id="code">`, `cfg.join`, `q.set("code"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("index.html has no %q", want)
		}
	}

	h, _ = New(Config{Wasm: gz(t, []byte("game"))})
	hs2 := httptest.NewServer(h)
	defer hs2.Close()
	if res, _ := get(t, hs2.URL+"/join?code=ABC123", ""); res.StatusCode != 404 {
		t.Errorf("/join without a lookup: %d, want 404", res.StatusCode)
	}
	c = config{}
	_, b = get(t, hs2.URL+"/config.json", "")
	json.Unmarshal(b, &c)
	if c.Join != "" {
		t.Errorf("config.json without a lookup: %+v", c)
	}
}

// TestPageJoinURL: a page whose server runs no rendezvous names another
// server's lookup (Config.JoinURL) in config.json.
func TestPageJoinURL(t *testing.T) {
	h, err := New(Config{Wasm: gz(t, []byte("game")), JoinURL: "https://rv.example.org/join"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	var c config
	_, b := get(t, hs.URL+"/config.json", "")
	json.Unmarshal(b, &c)
	if c.Join != "https://rv.example.org/join" {
		t.Errorf("config.json: %+v, want the lookup's URL", c)
	}
	if res, _ := get(t, hs.URL+"/join?code=ABC123", ""); res.StatusCode != 404 {
		t.Errorf("/join of a page whose lookup is elsewhere: %d, want 404", res.StatusCode)
	}
}
