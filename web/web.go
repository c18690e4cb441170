// Package web serves the game's page: index.html, Go's wasm_exec.js and
// the game built for the browser (GOOS=js, gzipped), all embedded in the
// binary, and config.json, which tells the page where the game's server
// speaks WebTransport and which certificate hashes to trust. It imports
// no Ebitengine, so the server and the commands can serve the page.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"rtype/net/webaddr"
	"strings"
	"time"
)

//go:embed index.html wasm_exec.js
var page embed.FS

// dist holds the game's wasm once ./build.sh has built it (WasmFile),
// and a README that says how.
//
//go:embed dist
var dist embed.FS

// WasmFile is where the build puts the gzipped game in the embedded dist
// directory (web/dist/rtype.wasm.gz in the source tree).
const WasmFile = "dist/rtype.wasm.gz"

// NoGame is what the page says when the binary was built without the
// game's wasm.
const NoGame = "This build of the server has no game for browsers.\n" +
	"Build one with ./build.sh build (it puts web/dist/rtype.wasm.gz in place before the binaries that embed it), then start the server again."

// Server is where the page's game finds its server.
type Server struct {
	// Addr is the "host:port" of the server's WebTransport binding (UDP).
	// A host that is empty or unspecified (":4443", "0.0.0.0:4443") is
	// replaced by the host the browser asked the page from.
	Addr string
	// CertHashes are the SHA-256 hashes of its certificates, for the
	// browser's serverCertificateHashes; empty when its certificate is
	// one browsers trust.
	CertHashes [][32]byte
}

// Config is what a Handler serves.
type Config struct {
	// Server tells where the game's server is, and whether it speaks
	// WebTransport (ok false: the game's menus work, but it cannot join
	// a game). Called for each page load; nil: none.
	Server func() (s Server, ok bool)
	// Wasm is the game, gzipped; nil: the embedded one (WasmFile), if
	// the build has it.
	Wasm []byte
	// Join, when set, is the lookup of hosted games' room codes at the
	// rendezvous this server runs (rendezvous.Web), served at /join:
	// config.json then names it, and the page joins by code (?code=).
	Join http.Handler
	// JoinURL, when Join is nil, is another server's lookup (an https
	// URL such as https://rv.example.org/join, which answers any origin):
	// config.json names it, and the page joins by code through it.
	JoinURL string
	// Logger receives the handler's logs. Default slog.Default().
	Logger *slog.Logger
}

// Handler serves the page at "/".
type Handler struct {
	cfg      Config
	wasm     []byte // gzipped; nil: no game
	wasmSize int64  // its size unzipped
	etag     string
	started  time.Time
}

// maxWasm bounds the game's size unzipped (it is about 20 MB).
const maxWasm = 256 << 20

// New returns the page's handler. A Wasm that is not gzip is an error.
func New(cfg Config) (*Handler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &Handler{cfg: cfg, wasm: cfg.Wasm, started: time.Now()}
	if h.wasm == nil {
		b, err := dist.ReadFile(WasmFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("web: %s: %w", WasmFile, err)
		}
		h.wasm = b
	}
	if len(h.wasm) > 0 {
		n, err := gunzipSize(h.wasm)
		if err != nil {
			return nil, fmt.Errorf("web: the game's wasm: %w", err)
		}
		h.wasmSize = n
		sum := sha256.Sum256(h.wasm)
		h.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	} else {
		h.wasm = nil
	}
	return h, nil
}

// HasGame reports whether the handler has the game to serve.
func (h *Handler) HasGame() bool { return h.wasm != nil }

// WasmSize returns the size of the game served, gzipped and not.
func (h *Handler) WasmSize() (gz, raw int64) { return int64(len(h.wasm)), h.wasmSize }

// gunzipSize checks that b is gzip and returns its size unzipped (the
// gzip reader checks its length and CRC; bounded).
func gunzipSize(b []byte) (int64, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, maxWasm+1))
	if err != nil {
		return 0, err
	}
	if n > maxWasm {
		return 0, fmt.Errorf("larger than %d MiB unzipped", maxWasm>>20)
	}
	return n, nil
}

// config is config.json.
type config struct {
	Game       bool     `json:"game"`
	NoGame     string   `json:"noGame,omitempty"`
	NoServer   string   `json:"noServer,omitempty"`
	WasmSize   int64    `json:"wasmSize,omitempty"`
	Addr       string   `json:"addr,omitempty"`
	CertHashes []string `json:"certHashes,omitempty"`
	// Join is the lookup's URL (relative to the page), when the page's
	// server runs a rendezvous.
	Join string `json:"join,omitempty"`
}

// JoinPath is the path of Config.Join, the lookup of room codes.
const JoinPath = "/join"

// ServeHTTP serves /, /index.html, /wasm_exec.js, /rtype.wasm,
// /config.json and, with Config.Join, /join.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch r.URL.Path {
	case "/", "/index.html":
		h.file(w, r, "index.html", "text/html; charset=utf-8")
	case "/wasm_exec.js":
		h.file(w, r, "wasm_exec.js", "text/javascript; charset=utf-8")
	case "/config.json":
		h.config(w, r)
	case "/rtype.wasm":
		h.serveWasm(w, r)
	case JoinPath:
		if h.cfg.Join == nil {
			http.NotFound(w, r)
			return
		}
		h.cfg.Join.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (h *Handler) file(w http.ResponseWriter, r *http.Request, name, ctype string) {
	b, err := page.ReadFile(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, h.started, bytes.NewReader(b))
}

func (h *Handler) config(w http.ResponseWriter, r *http.Request) {
	c := config{Game: h.wasm != nil, WasmSize: h.wasmSize}
	if !c.Game {
		c.NoGame = NoGame
	}
	if s, ok := h.server(); ok {
		c.Addr = webaddr.Public(s.Addr, r.Host)
		c.CertHashes = webaddr.HexHashes(s.CertHashes...)
	} else if h.cfg.Join == nil && h.cfg.JoinURL == "" {
		c.NoServer = "The game's server does not speak WebTransport, which browsers need: start it with -webtransport (or host a game)."
	}
	if h.cfg.Join != nil {
		c.Join = strings.TrimPrefix(JoinPath, "/")
	} else {
		c.Join = h.cfg.JoinURL
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(c)
}

// server asks Config.Server where the game's server is.
func (h *Handler) server() (Server, bool) {
	if h.cfg.Server == nil {
		return Server{}, false
	}
	return h.cfg.Server()
}

func (h *Handler) serveWasm(w http.ResponseWriter, r *http.Request) {
	if h.wasm == nil {
		http.Error(w, NoGame, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/wasm")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Accept-Encoding")
	w.Header().Set("ETag", h.etag)
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, h.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", fmt.Sprint(len(h.wasm)))
		if r.Method != http.MethodHead {
			w.Write(h.wasm)
		}
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(h.wasmSize))
	if r.Method == http.MethodHead {
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(h.wasm))
	if err != nil {
		h.cfg.Logger.Error("web: the game's wasm", "err", err)
		return
	}
	io.Copy(w, zr)
}

// acceptsGzip reports whether an Accept-Encoding takes gzip.
func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
