// Command rtype-flood sends hostile traffic at an R-Type server, to check
// that it stays up, answers nothing it must not (PROTOCOL.md 3.4, 6.1) and
// keeps its players playing. Run it only against your own servers.
//
// UDP: -rate datagrams per second for -duration, from -sockets local
// sockets, of a mix of kinds (package rtype/net/flood): random bytes,
// valid headers with junk payloads, unknown sessions, a known session
// (-session) from the wrong address, Binds with wrong tokens, oversize
// datagrams and truncated headers. Every socket also counts what comes
// back, which must be nothing.
//
//	rtype-flood -target 127.0.0.1:4242 -rate 50000 -duration 10s -sockets 4
//	rtype-flood -target 127.0.0.1:4242 -session 0xDEADBEEF -mix stolen=50,bind=50
//
// TCP (-tcp N): N connections that never send, plus every malformed case
// (-tcp-rounds times): frame lengths 0, 1025 and 65535, truncated frames,
// unknown types, LoginRequests with control characters, bidi overrides,
// 10,000 characters or invalid UTF-8 in the name. Each connection reports
// what the server answered; the summary compares it with the protocol.
// The server counts LoginRequests per IP address (3.3) and holds at most
// a few pending connections per address (server.Config.MaxPendingPerIP,
// 8 by default; more are closed at once): -tcp-from spreads the
// connections over a range of local addresses (127.0.0.0/8 on Linux), so
// that each case gets the answer of its own rule.
//
//	rtype-flood -duration 0 -tcp 64 -tcp-from 127.0.0.2-127.0.0.250 -target 127.0.0.1:4242
//
// The exit status is 1 when the server answered a datagram or a TCP case
// got another answer than the protocol's.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"rtype/net/flood"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rtype-flood", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "127.0.0.1:4242", "the server's address (TCP and UDP, same port)")
	rate := fs.Int("rate", 50000, "UDP datagrams per second, all sockets together (0: as fast as possible)")
	duration := fs.Duration("duration", 5*time.Second, "how long to flood UDP (0: no UDP flood)")
	sockets := fs.Int("sockets", 4, "local UDP sockets, each with its own sender")
	mixFlag := fs.String("mix", flood.DefaultMix.String(), "weights of the datagram kinds: "+strings.Join(kindNames(), ", "))
	sessFlag := fs.String("session", "", "known session numbers to target (decimal or 0x hex, comma-separated)")
	seed := fs.Uint64("seed", 1, "seed of the generators")
	local := fs.String("local", "", "local IP address to send UDP from")
	linger := fs.Duration("linger", 500*time.Millisecond, "how long to keep listening for answers after the flood")
	tcpN := fs.Int("tcp", 0, "TCP mode: this many connections that never send, plus every malformed case")
	rounds := fs.Int("tcp-rounds", 1, "how many times to play each malformed TCP case")
	tcpWait := fs.Duration("tcp-wait", 10*time.Second, "how long a TCP connection waits for the server to close it")
	tcpFrom := fs.String("tcp-from", "", "range of local IP addresses for TCP, first-last (e.g. 127.0.0.2-127.0.0.250)")
	tag := fs.String("tcp-tag", "", "suffix of the names of the logins that may be accepted (default: from the time)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mix, err := flood.ParseMix(*mixFlag)
	if err != nil {
		fmt.Fprintln(stderr, "rtype-flood:", err)
		return 2
	}
	sessions, err := parseSessions(*sessFlag)
	if err != nil {
		fmt.Fprintln(stderr, "rtype-flood:", err)
		return 2
	}
	from, err := parseRange(*tcpFrom)
	if err != nil {
		fmt.Fprintln(stderr, "rtype-flood:", err)
		return 2
	}
	if *tag == "" {
		*tag = strconv.Itoa(int(time.Now().UnixMilli() % 100000))
	}
	if *duration <= 0 && *tcpN <= 0 {
		fmt.Fprintln(stderr, "rtype-flood: nothing to do: -duration 0 and no -tcp")
		return 2
	}

	code := 0
	var wg sync.WaitGroup
	var udpRes flood.Result
	var udpErr error
	if *duration > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			udpRes, udpErr = flood.Run(ctx, flood.Config{Target: *target, Rate: *rate, Duration: *duration,
				Sockets: *sockets, Mix: mix, Sessions: sessions, Seed: *seed, Local: *local, Linger: *linger})
		}()
	}
	var cases []flood.Case
	var outcomes []flood.Outcome
	if *tcpN > 0 {
		cases = flood.Cases(*tag)
		outcomes = runTCP(ctx, *target, cases, *tcpN, *rounds, *tcpWait, from)
	}
	wg.Wait()

	if *duration > 0 {
		if udpErr != nil {
			fmt.Fprintln(stderr, "rtype-flood:", udpErr)
			return 1
		}
		fmt.Fprintf(stdout, "UDP flood of %s from %d sockets, mix %s (target rate %d/s)\n", *target, len(udpRes.Sockets), mix, *rate)
		fmt.Fprintln(stdout, " ", udpRes)
		for k, n := range udpRes.Kinds {
			fmt.Fprintf(stdout, "  %-10s %d\n", flood.Kind(k), n)
		}
		if udpRes.ReceivedBytes > 0 {
			fmt.Fprintf(stdout, "FAIL: the server answered %d bytes to the flood (PROTOCOL.md 3.4, 6.1)\n", udpRes.ReceivedBytes)
			code = 1
		}
	}
	if *tcpN > 0 {
		fmt.Fprintf(stdout, "TCP: %d silent connections, %d cases x %d\n", *tcpN, len(cases)-1, *rounds)
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "case\tcount\tresult\tresets\tafter\tverdict")
		for _, s := range flood.Summarize(cases, outcomes) {
			verdict := "ok"
			if s.Result != s.Case.Want {
				verdict = "MISMATCH: protocol says " + s.Case.Want + " (" + s.Case.Why + ")"
				code = 1
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%v..%v\t%s\n", s.Case.Name, s.Count, s.Result, s.Resets,
				s.Min.Round(time.Millisecond), s.Max.Round(time.Millisecond), verdict)
		}
		tw.Flush()
	}
	return code
}

// runTCP plays n silent connections and every other case rounds times, at
// once, each from the next address of from (when given).
func runTCP(ctx context.Context, target string, cases []flood.Case, n, rounds int, wait time.Duration, from []netip.Addr) []flood.Outcome {
	var jobs []flood.Case
	for range n {
		jobs = append(jobs, cases[0]) // silent
	}
	for range rounds {
		jobs = append(jobs, cases[1:]...)
	}
	out := make([]flood.Outcome, len(jobs))
	var wg sync.WaitGroup
	for i, c := range jobs {
		var d flood.Dialer
		if len(from) > 0 {
			d.Local = net.IP(from[i%len(from)].AsSlice())
		}
		if (c.Then != nil || c.LeaveAfterFirst) && rounds > 1 {
			// Distinct names per round, or the second round is NameTaken.
			c = withRound(c, i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = d.RunCase(ctx, target, c, wait)
		}()
	}
	wg.Wait()
	return out
}

// withRound renames the logins of an accepted case so that each round's
// names differ.
func withRound(c flood.Case, i int) flood.Case {
	for _, rc := range flood.Cases(fmt.Sprintf("r%d", i)) {
		if rc.Name == c.Name {
			return rc
		}
	}
	return c
}

func kindNames() []string {
	var names []string
	for k := flood.Kind(0); k < flood.NumKinds; k++ {
		names = append(names, k.String())
	}
	return names
}

func parseSessions(s string) ([]uint32, error) {
	var out []uint32
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 0, 32)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("-session %q: want a session number, 1 to 0xFFFFFFFF", f)
		}
		out = append(out, uint32(v))
	}
	return out, nil
}

// parseRange reads "first-last" (or one address) into the addresses of
// the range, at most 65536.
func parseRange(s string) ([]netip.Addr, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	first, err1 := netip.ParseAddr(strings.TrimSpace(a))
	last, err2 := netip.ParseAddr(strings.TrimSpace(b))
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("-tcp-from %q: %w", s, err)
	}
	if first.BitLen() != last.BitLen() || last.Less(first) {
		return nil, fmt.Errorf("-tcp-from %q: want first-last, same family, first <= last", s)
	}
	var out []netip.Addr
	for a := first; len(out) < 1<<16; a = a.Next() {
		out = append(out, a)
		if a == last {
			break
		}
	}
	return out, nil
}
