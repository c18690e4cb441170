package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/internal/wirecount"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
)

// BenchmarkBinding measures what a session costs over each binding: four
// bots play the same seeded game for benchBindingFor, all over UDP, then
// all over WebTransport, each client's datagrams through a counting relay
// (the bytes on the wire, IP and UDP headers included: QUIC's own
// headers, encryption and acknowledgements too for WebTransport). It
// reports per client the kbit/s down and up on the wire, and the CPU time
// of the whole process (server and clients) per second of play.
//
//	go test -run '^$' -bench BenchmarkBinding -benchtime 1x ./e2e/
func BenchmarkBinding(b *testing.B) {
	for _, wt := range []bool{false, true} {
		name := "udp"
		if wt {
			name = "webtransport"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				benchBinding(b, wt)
			}
		})
	}
}

// benchBindingFor is how long the bots play in each run.
const benchBindingFor = 10 * time.Second

func benchBinding(b *testing.B, wt bool) {
	rules := fastRules()
	rules.Lives = 99
	srv := testserver.Start(b, server.Config{MaxGames: 1, Seed: 3, Rules: &rules, WebTransportAddr: "127.0.0.1:0",
		Logger: testutil.Discard()})
	info, _ := srv.WebTransport()
	ctx, cancel := context.WithTimeout(context.Background(), benchBindingFor)
	defer cancel()
	var relays []*wirecount.Relay
	var clients []*client.Client
	for i := range 4 {
		cfg := client.Config{Name: fmt.Sprintf("bench%d", i+1), Logger: testutil.Discard(), Version: wire.Version2,
			Mode: wire.ModeClassic}
		if wt {
			r := newCountRelay(b, info.Addr)
			tr, _ := wtTransport(b, srv)
			cfg.Addr, cfg.Transport = r.Addr(), tr
			relays = append(relays, r)
		} else {
			r := newCountRelay(b, srv.Addr())
			cfg.Addr, cfg.Transport = srv.Addr(), r.UDP()
			relays = append(relays, r)
		}
		dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := client.Dial(dctx, cfg)
		dcancel()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		clients = append(clients, c)
	}
	var in0, out0 uint64
	for _, r := range relays {
		c := r.Counts()
		in0, out0 = in0+c.DownB, out0+c.UpB
	}
	cpu0, t0 := cpuTime(), time.Now()
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); bot.Play(ctx, c, rand.New(rand.NewPCG(uint64(i), 7))) }()
	}
	wg.Wait()
	secs := time.Since(t0).Seconds()
	cpu := (cpuTime() - cpu0).Seconds()
	var in, out uint64
	for _, r := range relays {
		c := r.Counts()
		in, out = in+c.DownB, out+c.UpB
	}
	n := float64(len(clients))
	b.ReportMetric(float64(in-in0)*8/1000/secs/n, "kbit/s-down")
	b.ReportMetric(float64(out-out0)*8/1000/secs/n, "kbit/s-up")
	b.ReportMetric(cpu*1000/secs, "cpu-ms/s")
	b.ReportMetric(0, "ns/op")
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// newCountRelay starts a counting relay to the server at to
// (internal/wirecount), closed with the benchmark.
func newCountRelay(b *testing.B, to string) *wirecount.Relay {
	r, err := wirecount.New(to)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.Close)
	return r
}
