package web

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Serve answers http and https on one port, and stops with its context.
func TestServeHTTPAndHTTPS(t *testing.T) {
	cert, err := SelfSigned([]string{"127.0.0.1", "localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Wasm: gz(t, []byte("game"))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, &cert, nil) }()
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for _, scheme := range []string{"http", "https"} {
		res, err := cl.Get(scheme + "://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(b), "wasm_exec.js") {
			t.Errorf("%s: %d %.80q", scheme, res.StatusCode, b)
		}
		if (res.TLS != nil) != (scheme == "https") {
			t.Errorf("%s: TLS %v", scheme, res.TLS != nil)
		}
	}
	// A connection that says nothing is dropped, and does not hold others.
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if res, err := cl.Get("http://" + ln.Addr().String() + "/config.json"); err != nil {
		t.Fatalf("with an idle connection open: %v", err)
	} else {
		res.Body.Close()
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
