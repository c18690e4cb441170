package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"rtype/net/client"
	"rtype/net/rendezvous"
)

// A Dialer is the client's transport.
var _ client.Transport = (*rendezvous.Dialer)(nil)

// rendezvousDialer returns the transport of -rendezvous ADDR: the room's
// host is found there, and the session goes over the first path that
// works (-path: only those, comma-separated).
func rendezvousDialer(addr, paths string) (*rendezvous.Dialer, error) {
	d := &rendezvous.Dialer{Rendezvous: addr}
	if paths == "" {
		return d, nil
	}
	for _, p := range strings.Split(paths, ",") {
		switch q := rendezvous.Path(strings.TrimSpace(p)); q {
		case rendezvous.PathDirect, rendezvous.PathMapped, rendezvous.PathPunched, rendezvous.PathRelayed:
			d.Paths = append(d.Paths, q)
		default:
			return nil, fmt.Errorf("-path %q: direct, mapped, punched or relayed", p)
		}
	}
	return d, nil
}

// reportPath makes the -rendezvous dialer of o (if any) print the path of
// each session, "path: punched", and its times from the start.
func reportPath(o *options, start time.Time, out io.Writer, log *slog.Logger) {
	d, ok := o.transport.(*rendezvous.Dialer)
	if !ok {
		return
	}
	d.Logger = log
	d.OnPath = func(p rendezvous.Path, _ netip.AddrPort) {
		r := d.Last()
		fmt.Fprintf(out, "path: %s\n", p)
		fmt.Fprintf(out, "lookup: %v, session: %v\n", r.LookedUp.Round(time.Millisecond), r.Opened.Round(time.Millisecond))
	}
	o.started = start
}

// reportSnapshot prints, for a -rendezvous bot, the time from the start
// to c's first snapshot, then c's round trip after 3 s of play.
func reportSnapshot(ctx context.Context, o *options, c *client.Client) {
	if o.started.IsZero() {
		return
	}
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for len(c.Frames(nil)) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-c.Done():
				return
			case <-t.C:
			}
		}
		fmt.Fprintf(o.out, "first snapshot: %v\n", time.Since(o.started).Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return
		case <-c.Done():
			return
		case <-time.After(3 * time.Second):
		}
		st := c.Stats()
		fmt.Fprintf(o.out, "rtt: %v\n", st.RTT.Round(100*time.Microsecond))
	}()
}
