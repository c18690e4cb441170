package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// The game serves its page for the game it hosts: the URL printed for
// this machine answers, and with nothing hosted its config.json says
// that there is no server to play on.
func TestServeWeb(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls, err := serveWeb(ctx, "127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	local := urls[len(urls)-1]
	if !strings.HasPrefix(local, "http://127.0.0.1:") {
		t.Fatalf("URLs %q: want http://127.0.0.1:PORT/ last", urls)
	}
	res, err := http.Get(local + "config.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var c struct {
		Addr     string `json:"addr"`
		NoGame   string `json:"noGame"`
		NoServer string `json:"noServer"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("config.json %q: %v", b, err)
	}
	if c.Addr != "" || c.NoGame == "" && c.NoServer == "" {
		t.Errorf("nothing hosted, yet config.json is %s", b)
	}
}
