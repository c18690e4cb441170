package main

import (
	"context"
	"time"

	"rtype/game/view"
	"rtype/net/client"
	"rtype/net/netsim"
	"rtype/server"
	"rtype/sim"
)

// viewer is what the game does with a client (package game's PlayScene,
// without the drawing): the game's own view (rtype/game/view), updated
// with the actions held and asked for the frame at each drawn frame's
// time, on a clock that reads that time.
type viewer struct {
	v   *view.View
	now time.Time // the clock of v
	f   view.Frame
}

func newViewer(c *client.Client, rules sim.Rules) *viewer {
	vw := &viewer{}
	vw.now = time.Now()
	vw.v = view.New(c, view.Config{Rules: rules, Clock: func() time.Time { return vw.now }, Name: "bench"})
	return vw
}

// frame runs one game frame at now: the Update with the actions held,
// then the Frame drawn at now (valid until the next call).
func (vw *viewer) frame(now time.Time, actions uint8) *view.Frame {
	vw.now = now
	vw.v.Update(actions)
	return vw.v.Frame(&vw.f, now)
}

// renderLoop calls fn at every frame of a 60 Hz display that started at
// start, with the frame's number and its time on that grid (as a vsync
// timestamp), until fn returns false or ctx ends. A frame the loop was too
// late for is skipped and counted in missed.
func renderLoop(ctx context.Context, start time.Time, fn func(k int64, now time.Time) bool) (missed int, err error) {
	const period = time.Second / 60
	tk := time.NewTicker(period / 4)
	defer tk.Stop()
	last := int64(-1)
	for {
		select {
		case <-ctx.Done():
			return missed, ctx.Err()
		case <-tk.C:
		}
		k := int64(time.Since(start) / period)
		if k <= last {
			continue
		}
		if last >= 0 {
			missed += int(k - last - 1)
		}
		last = k
		if !fn(k, start.Add(time.Duration(k)*period)) {
			return missed, nil
		}
	}
}

// link40 is the impaired network of sections 4 and 5: 40 ms ± 20 ms each
// way (uniform), plus loss.
func link40(loss float64) netsim.Impairment {
	return netsim.Impairment{Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: loss}
}

// serverClock estimates the server's present tick from its snapshots.
type serverClock struct {
	tick uint32
	at   time.Time
}

// via starts an impairment relay in front of srv when im is not nil, and
// returns the address a client dials and the relay's stop.
func via(ctx context.Context, srv *server.Server, im *netsim.Impairment, seed uint64) (string, func(), error) {
	if im == nil {
		return srv.Addr(), func() {}, nil
	}
	r, err := netsim.New(netsim.Config{To: srv.Addr(), Up: *im, Down: *im, Seed: int64(seed), Logger: quiet()})
	if err != nil {
		return "", nil, err
	}
	go r.Run(ctx)
	return r.Addr(), func() { r.Close() }, nil
}

// joinServer starts a server with cfg (startServer), an impairment relay
// in front of it when im is not nil (via), and dials it as a client named
// name. It returns the address the players dial and the client; stop
// closes them all. The client speaks the default version (7.1: 2).
func joinServer(ctx context.Context, cfg server.Config, im *netsim.Impairment, seed uint64, name string) (addr string, c *client.Client, stop func(), err error) {
	return joinServerVersion(ctx, cfg, im, seed, name, 0)
}

// joinServerVersion is joinServer with a client that speaks version (0:
// the default).
func joinServerVersion(ctx context.Context, cfg server.Config, im *netsim.Impairment, seed uint64, name string, version uint8) (addr string, c *client.Client, stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	srv, stopSrv, err := startServer(ctx, cfg)
	if err != nil {
		return "", nil, nil, err
	}
	stops = append(stops, stopSrv)
	addr, stopRelay, err := via(ctx, srv, im, seed)
	if err != nil {
		stop()
		return "", nil, nil, err
	}
	stops = append(stops, stopRelay)
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err = client.Dial(dctx, client.Config{Addr: addr, Name: name, Logger: quiet(), Version: version})
	if err != nil {
		stop()
		return "", nil, nil, err
	}
	stops = append(stops, func() { c.Close() })
	return addr, c, stop, nil
}

// dialTimeout bounds a client's login to a server of the bench.
const dialTimeout = 15 * time.Second
