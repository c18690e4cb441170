// Package agones runs a game server as an Agones GameServer: it tells the
// Agones SDK sidecar, through its REST API (HTTP and JSON on
// localhost:$AGONES_SDK_HTTP_PORT), that the server is Ready once it
// listens, that it is healthy every two seconds, that it is Allocated
// when its first player joins, and, if asked, to shut it down once its
// last game ended; the counts of games and players go into labels of the
// GameServer.
//
// SDK is the REST client, one request per call. Agent follows a
// server.Server (Server.Watch) and makes those calls in the background,
// retrying with backoff: the game server never waits for the sidecar.
//
// The REST API is Agones' (sdk.proto of agones.dev/sdk, its HTTP
// annotations): POST /ready, /health, /allocate and /shutdown with the
// body {}, PUT /metadata/label with {"key": ..., "value": ...} (Agones
// prefixes the key with "agones.dev/sdk-"), GET /gameserver.
package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// DefaultPort is the sidecar's REST port when AGONES_SDK_HTTP_PORT is not
// set.
const DefaultPort = 9358

// PortEnv is the environment variable in which Agones gives the game
// server process the sidecar's REST port.
const PortEnv = "AGONES_SDK_HTTP_PORT"

// DefaultAddr returns the sidecar's REST address: localhost and the port
// of $AGONES_SDK_HTTP_PORT, else DefaultPort.
func DefaultAddr() string { return defaultAddr(os.Getenv(PortEnv)) }

func defaultAddr(port string) string {
	if n, err := strconv.Atoi(port); err == nil && n > 0 && n < 65536 {
		return net.JoinHostPort("localhost", strconv.Itoa(n))
	}
	return net.JoinHostPort("localhost", strconv.Itoa(DefaultPort))
}

// maxBody bounds what is read of a sidecar's answer.
const maxBody = 1 << 20

// SDK is a client of the Agones SDK sidecar's REST API. Each method makes
// one request, bounded by its context, and retries nothing.
type SDK struct {
	base string // "http://host:port"
	hc   *http.Client
}

// NewSDK returns a client of the sidecar at addr ("host:port"). A nil hc
// means a client of its own that never goes through a proxy.
func NewSDK(addr string, hc *http.Client) *SDK {
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		}}
	}
	return &SDK{base: "http://" + addr, hc: hc}
}

// Ready marks the GameServer Ready: it takes players (POST /ready).
func (c *SDK) Ready(ctx context.Context) error { return c.post(ctx, "/ready") }

// Health tells the sidecar that the game server is healthy (POST
// /health); Agones restarts a GameServer that stops sending it.
func (c *SDK) Health(ctx context.Context) error { return c.post(ctx, "/health") }

// Allocate marks the GameServer Allocated (POST /allocate): a fleet
// scaling down no longer removes it.
func (c *SDK) Allocate(ctx context.Context) error { return c.post(ctx, "/allocate") }

// Shutdown asks Agones to shut the GameServer down (POST /shutdown).
func (c *SDK) Shutdown(ctx context.Context) error { return c.post(ctx, "/shutdown") }

// SetLabel sets the label "agones.dev/sdk-"+key of the GameServer to
// value (PUT /metadata/label). Both must be valid in a Kubernetes label.
func (c *SDK) SetLabel(ctx context.Context, key, value string) error {
	body, err := json.Marshal(keyValue{Key: key, Value: value})
	if err != nil {
		return fmt.Errorf("agones: label %q: %w", key, err)
	}
	return c.do(ctx, http.MethodPut, "/metadata/label", body, nil)
}

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// GameServer is what this package reads of the GameServer record.
type GameServer struct {
	ObjectMeta struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"object_meta"`
	Status struct {
		State   string `json:"state"`
		Address string `json:"address"`
		Ports   []struct {
			Name string `json:"name"`
			Port int32  `json:"port"`
		} `json:"ports"`
	} `json:"status"`
}

// GameServer returns the GameServer record (GET /gameserver).
func (c *SDK) GameServer(ctx context.Context) (GameServer, error) {
	var gs GameServer
	err := c.do(ctx, http.MethodGet, "/gameserver", nil, &gs)
	return gs, err
}

func (c *SDK) post(ctx context.Context, path string) error {
	return c.do(ctx, http.MethodPost, path, []byte("{}"), nil)
}

// do makes one request; a status other than 2xx is an error that quotes
// the start of the answer. out, if not nil, receives the JSON answer.
func (c *SDK) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("agones: %s %s: reading the answer: %w", method, path, err)
	}
	if err := readAnswer(resp.StatusCode, b, out); err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	return nil
}

// readAnswer checks the status of a sidecar's answer and decodes its
// body b (at most maxBody bytes) into out, if not nil. The error of a
// status other than 2xx quotes the start of b.
func readAnswer(status int, b []byte, out any) error {
	if status/100 != 2 {
		return fmt.Errorf("%d %s: %q", status, http.StatusText(status), b[:min(len(b), 200)])
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("the answer: %w", err)
		}
	}
	return nil
}
