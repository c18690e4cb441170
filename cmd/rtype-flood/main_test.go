package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil/testserver"
	"rtype/server"
)

// The tool against a real server: a short UDP flood and every TCP case,
// from spread addresses; the server answers the flood with nothing and
// each case as the protocol says, so the exit status is 0.
func TestRunAgainstServer(t *testing.T) {
	srv := testserver.Start(t, server.Config{LoginTimeout: 500 * time.Millisecond})

	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"-target", srv.Addr(), "-rate", "5000", "-duration", "300ms",
		"-sockets", "2", "-session", "0xDEADBEEF,12", "-linger", "100ms",
		"-tcp", "2", "-tcp-from", "127.0.9.1-127.0.9.60", "-tcp-wait", "3s"}, &out, &errs)
	t.Log(out.String())
	if code != 0 || errs.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	for _, want := range []string{"received 0 datagrams, 0 bytes", "name-10000 ", "second-login "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the output", want)
		}
	}
	if strings.Contains(out.String(), "MISMATCH") {
		t.Error("a TCP case got another answer than the protocol's")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-mix", "nope=1"},
		{"-session", "0"},
		{"-tcp-from", "127.0.0.9-127.0.0.1"},
		{"-duration", "0"},
	} {
		var out, errs bytes.Buffer
		if code := run(context.Background(), args, &out, &errs); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
