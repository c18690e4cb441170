package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
)

// webAddr waits for the HTTP address in a server's log.
func webAddr(t *testing.T, log func() string) string {
	t.Helper()
	re := regexp.MustCompile(`msg="status page and metrics" addr=http://(\S+)/`)
	var web string
	testutil.WaitFor(t, 20*time.Second, "the status page's address in the log", func() bool {
		if m := re.FindStringSubmatch(log()); m != nil {
			web = m[1]
		}
		return web != ""
	})
	return web
}

// The binary with -http and $RTYPE_ADMIN_TOKEN: /healthz, /metrics and a
// ban through the admin API kick a real client; after a restart on the
// same -db the ban still refuses the name.
func TestHTTPAndBanAcrossRestart(t *testing.T) {
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "scores.db")
	token := "a-token-of-24-bytes-long"
	t.Setenv(tokenEnv, token) // the server inherits it
	args := []string{"-http", "127.0.0.1:0", "-db", db}
	cmd, game, log := runServer(t, bin, args...)
	web := webAddr(t, log)

	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/"} {
		r, err := http.Get("http://" + web + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 || (path == "/metrics" && !strings.Contains(string(body), "rtype_tick_duration_seconds_count")) {
			t.Errorf("GET %s: %d\n%.300s", path, r.StatusCode, body)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: game, Name: "Griefer", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req, _ := http.NewRequest("POST", "http://"+web+"/admin/ban",
		strings.NewReader(url.Values{"name": {"griefer"}, "duration": {"2h"}, "reason": {"griefing"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("ban: %d %s", r.StatusCode, body)
	}
	select {
	case <-c.Done():
	case <-time.After(testutil.Wait):
		t.Fatal("the banned client was not logged out")
	}
	var le *client.LogoutError
	if !errors.As(c.Err(), &le) || le.Reason != wire.LogoutKicked {
		t.Errorf("the banned client ended with %v, want Logout(Kicked)", c.Err())
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server exited with %v after SIGINT", err)
	}

	_, game, _ = runServer(t, bin, args...)
	_, err = client.Dial(ctx, client.Config{Addr: game, Name: "GRIEFER", Logger: testutil.Logger(t)})
	var rej *client.RejectedError
	if !errors.As(err, &rej) || rej.Reason != wire.RejectRateLimited || !strings.Contains(rej.Text, "griefing") {
		t.Fatalf("a banned name after a restart: %v, want LoginRejected(RateLimited) with the reason", err)
	}
	ok, err := client.Dial(ctx, client.Config{Addr: game, Name: "Fine", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("another name after the restart: %v", err)
	}
	ok.Close()
}

// The admin token comes from -admin-token-file or $RTYPE_ADMIN_TOKEN, at
// least 16 bytes; the environment's needs -http.
func TestAdminToken(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "good"), filepath.Join(dir, "short")
	os.WriteFile(good, []byte("  0123456789abcdefXYZ  \nsecond line\n"), 0o600)
	os.WriteFile(short, []byte("tiny\n"), 0o600)
	for _, c := range []struct {
		file, env, http string
		want            string
		err             string
	}{
		{"", "", "", "", ""},
		{good, "", ":0", "0123456789abcdefXYZ", ""},
		{good, "ignored-because-file-wins", ":0", "0123456789abcdefXYZ", ""},
		{short, "", ":0", "", "at least 16"},
		{filepath.Join(dir, "none"), "", ":0", "", "no such file"},
		{"", "0123456789abcdef", ":0", "0123456789abcdef", ""},
		{"", "short", ":0", "", "at least 16"},
		{"", "0123456789abcdef", "", "", "-http is not"},
	} {
		t.Setenv(tokenEnv, c.env)
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := opsFlags{http: fs.String("http", c.http, ""), tokenFile: fs.String("admin-token-file", c.file, "")}
		got, err := f.token()
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("file %q env %q http %q: %q, %v; want %q and an error with %q", c.file, c.env, c.http, got, err, c.want, c.err)
		}
	}
}
