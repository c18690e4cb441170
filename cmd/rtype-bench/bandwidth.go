package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"rtype/bot"
	"rtype/net/client"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/server"
)

// Section 1: a scripted 4-player game (the bots, through the real server,
// the real link layer and the impairment relay, on loopback) with the
// waves at full strength. A tap between the relay and the server sees
// every datagram the server sends, before any loss: the bytes "as sent".
// The server's OnSnapshot gives the same world states, from which the
// other layouts are computed.

// The byte-aligned layout of seed 003 (a peer game): a 12-byte UDP header
// (type u16, sequence u16, timestamp u64), then its GameSnapshot:
// player_count u8, N x PlayerState (23 bytes: the ship's position is in
// it), missile_count u8, M x MissileState (8), enemy_count u8, E x
// EnemyState (8), enemy_missile_count u8, EM x MissileState (8). One
// datagram per snapshot.
const (
	seedUDPHeader    = 12
	seedPlayerState  = 23
	seedMissileState = 8
	seedEnemyState   = 8
	seedCounts       = 4 // the four u8 counts
)

// ipUDP is the IPv4 and UDP headers of every datagram.
const ipUDP = 28

// seed003Size returns the datagram size of seed 003's GameSnapshot for a
// world state, UDP header included (its counts are u8: above 255 entities
// of a kind it could not carry them, which these states never reach).
func seed003Size(players int, es []wire.Entity) int {
	n := seedUDPHeader + seedCounts + players*seedPlayerState
	for i := range es {
		switch es[i].Kind {
		case wire.KindPlayerMissile, wire.KindEnemyMissile:
			n += seedMissileState
		case wire.KindBydosSlave:
			n += seedEnemyState
		}
	}
	return n
}

// bwRun records one scenario.
type bwRun struct {
	name string
	loss float64
	secs int

	lastTick atomic.Uint32 // the server's newest snapshot tick

	mu       sync.Mutex
	started  bool
	finished bool
	t0, end  uint32 // the window, in ticks: from all 4 players in
	startCh  chan struct{}
	doneCh   chan struct{}
	enc      wire.SnapshotEncoder
	states   map[uint32][]wire.Entity // recent server states, by tick
	fullB    []float64                // per second: full snapshots, headers included
	fullDg   []float64
	seedB    []float64
	idealB   []float64 // against the previous snapshot: every snapshot acked
	idealDg  []float64
	prev     []wire.Entity
	prevTick uint32
	hasPrev  bool
	snaps    int
	kinds    kindCounts
	clients  map[uint32]*bwClient // by session

	// From the clients' side.
	upDg, upB float64 // sent by the 4 clients over the window
	wall      time.Duration
}

// bwClient is what the tap saw for one session.
type bwClient struct {
	snapB, snapDg, evB, evDg, otherDg []float64 // per second
	ages                              []uint32  // baseline_age of each Snapshot datagram, 0 full
	noBase                            int       // baselines the predictability check could not find
	predXY, predRec                   float64   // bits: x/y fields on straight lines; whole such records
	dec                               wire.Snapshot
}

func newBWRun(name string, loss float64, secs int) *bwRun {
	return &bwRun{
		name: name, loss: loss, secs: secs,
		startCh: make(chan struct{}), doneCh: make(chan struct{}),
		states: make(map[uint32][]wire.Entity),
		fullB:  make([]float64, secs), fullDg: make([]float64, secs), seedB: make([]float64, secs),
		idealB: make([]float64, secs), idealDg: make([]float64, secs),
		clients: make(map[uint32]*bwClient),
	}
}

// onSnapshot is the server's OnSnapshot, from its tick loop.
func (r *bwRun) onSnapshot(_ int, s server.Snapshot) {
	r.lastTick.Store(s.Tick)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states[s.Tick] = slices.Clone(s.Entities)
	prev, prevTick, hasPrev := r.prev, r.prevTick, r.hasPrev
	r.prev, r.prevTick, r.hasPrev = r.states[s.Tick], s.Tick, true
	if s.Tick >= 150 {
		delete(r.states, s.Tick-150) // baselines are at most 32 snapshots old
	}
	if !r.started {
		if len(s.Players) < wire.MaxPlayers {
			return
		}
		r.started, r.t0, r.end = true, s.Tick, s.Tick+uint32(r.secs*60)
		close(r.startCh)
	}
	if s.Tick >= r.end {
		if !r.finished {
			r.finished = true
			close(r.doneCh)
		}
		return
	}
	sec := (s.Tick - r.t0) / 60
	for _, p := range r.enc.Encode(s.Tick, s.Players, nil, 0, s.Entities) {
		r.fullB[sec] += float64(wire.HeaderSize + len(p))
		r.fullDg[sec]++
	}
	r.seedB[sec] += float64(seed003Size(len(s.Players), s.Entities))
	if !hasPrev {
		prev = nil // the first snapshot of the game is full
	} else if prev == nil {
		prev = []wire.Entity{}
	}
	for _, p := range r.enc.Encode(s.Tick, s.Players, prev, prevTick, s.Entities) {
		r.idealB[sec] += float64(wire.HeaderSize + len(p))
		r.idealDg[sec]++
	}
	r.snaps++
	r.kinds.add(s.Entities)
}

// onDown is the tap's callback for each server -> client datagram.
func (r *bwRun) onDown(b []byte) {
	typ, sess, ok := datagramInfo(b)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started {
		return
	}
	c := r.clients[sess]
	if c == nil {
		c = &bwClient{snapB: make([]float64, r.secs), snapDg: make([]float64, r.secs),
			evB: make([]float64, r.secs), evDg: make([]float64, r.secs), otherDg: make([]float64, r.secs)}
		r.clients[sess] = c
	}
	tick := r.lastTick.Load()
	if typ == wire.TypeSnapshot {
		if c.dec.Decode(b[wire.HeaderSize:]) != nil {
			return
		}
		tick = c.dec.Tick
	}
	if tick < r.t0 || tick >= r.end {
		return
	}
	sec := (tick - r.t0) / 60
	switch typ {
	case wire.TypeSnapshot:
		c.snapB[sec] += float64(len(b))
		c.snapDg[sec]++
		c.ages = append(c.ages, c.dec.BaselineAge)
		c.predict(r.states, &c.dec)
	case wire.TypeEvent:
		c.evB[sec] += float64(len(b))
		c.evDg[sec]++
	default:
		c.otherDg[sec]++
	}
}

// predict counts, in the updated records of s, the x and y fields that
// a client could have computed itself: the baseline's position moved by
// the baseline's velocity over baseline_age ticks, within the rounding of
// 4.3 (1/16 pixel on each position, 0.5 pixel per second on the
// velocity). Such a record that carries nothing else would vanish whole
// from a protocol that extrapolates.
func (c *bwClient) predict(states map[uint32][]wire.Entity, s *wire.Snapshot) {
	if !s.HasBaseline {
		return
	}
	base, ok := states[s.Tick-s.BaselineAge]
	if !ok {
		c.noBase++
		return
	}
	dt := float64(s.BaselineAge) / 60
	tol := 1 + 4*dt // eighths of a pixel
	var prev uint32
	for i := range s.Records {
		rec := &s.Records[i]
		idx := wire.Index(rec.ID)
		gap := idx - prev
		if i == 0 {
			gap = idx
		}
		prev = idx
		if rec.Change != wire.Updated || rec.Fields&(wire.MaskX|wire.MaskY) == 0 {
			continue
		}
		k, found := slices.BinarySearchFunc(base, rec.ID, func(e wire.Entity, id uint32) int {
			switch {
			case wire.Less(e.ID, id):
				return -1
			case e.ID == id:
				return 0
			}
			return 1
		})
		if !found {
			continue
		}
		b := &base[k]
		straight := func(f, v int) bool {
			return math.Abs(float64(rec.F[f])-(float64(b.F[f])+8*float64(b.F[v])*dt)) <= tol
		}
		bits, all := 0, true
		if rec.Fields&wire.MaskX != 0 {
			if straight(wire.FieldX, wire.FieldVX) {
				bits += 15
			} else {
				all = false
			}
		}
		if rec.Fields&wire.MaskY != 0 {
			if straight(wire.FieldY, wire.FieldVY) {
				bits += 15
			} else {
				all = false
			}
		}
		c.predXY += float64(bits)
		if all && rec.Fields&^(wire.MaskX|wire.MaskY) == 0 {
			c.predRec += float64(wire.VarintBits(gap) + 8 + 2 + 4 + bits)
		}
	}
}

// play runs the scenario: server, tap, impairment relay, four bots.
func (r *bwRun) play(ctx context.Context, o *opts) error {
	rules := fullStrengthRules()
	srv, stop, err := startServer(ctx, server.Config{MaxGames: 1, Seed: o.seed, Rules: &rules, OnSnapshot: r.onSnapshot})
	if err != nil {
		return err
	}
	defer stop()
	tp, err := newTap(srv.Addr(), r.onDown, nil)
	if err != nil {
		return err
	}
	defer tp.Close()
	im := netsim.Impairment{Loss: r.loss}
	relay, err := netsim.New(netsim.Config{To: tp.Addr(), Up: im, Down: im, Seed: int64(o.seed), Logger: quiet()})
	if err != nil {
		return err
	}
	go relay.Run(ctx)
	defer relay.Close()

	bctx, bcancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var clients []*client.Client
	defer func() {
		bcancel()
		wg.Wait()
		for _, c := range clients {
			c.Close()
		}
	}()
	for i := range wire.MaxPlayers {
		dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		c, err := client.Dial(dctx, client.Config{Addr: relay.Addr(), Name: fmt.Sprintf("bot%d", i+1), Logger: quiet()})
		cancel()
		if err != nil {
			return fmt.Errorf("%s: bot %d: %w", r.name, i+1, err)
		}
		clients = append(clients, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			bot.Play(bctx, c, rand.New(rand.NewPCG(o.seed, uint64(i))))
		}()
	}
	sent := func() (dg, b float64) {
		for _, c := range clients {
			st := c.Stats().Link
			dg += float64(st.SentDatagrams)
			b += float64(st.SentBytes)
		}
		return dg, b
	}
	select {
	case <-r.startCh:
	case <-time.After(20 * time.Second):
		return fmt.Errorf("%s: the 4 bots were not in the game after 20 s", r.name)
	case <-ctx.Done():
		return ctx.Err()
	}
	dg0, b0 := sent()
	t0 := time.Now()
	select {
	case <-r.doneCh:
	case <-time.After(time.Duration(r.secs)*2*time.Second + 30*time.Second):
		return fmt.Errorf("%s: the game did not reach %d s", r.name, r.secs)
	case <-ctx.Done():
		return ctx.Err()
	}
	dg1, b1 := sent()
	r.mu.Lock()
	r.upDg, r.upB, r.wall = dg1-dg0, b1-b0, time.Since(t0)
	r.mu.Unlock()
	for _, c := range clients {
		if err := c.Err(); err != nil {
			return fmt.Errorf("%s: a bot's session ended: %w", r.name, err)
		}
	}
	return nil
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// rows turns the scenario's records into the table's rows. Rates are per
// client and per second of game time, averaged over the clients and the
// seconds; "busiest" is the largest client-second.
func (r *bwRun) rows() []row {
	r.mu.Lock()
	defer r.mu.Unlock()
	var cl []*bwClient
	for _, c := range r.clients {
		if sum(c.snapDg) > 0 {
			cl = append(cl, c)
		}
	}
	n := float64(len(cl))
	secs := float64(r.secs)
	per := func(get func(c *bwClient) []float64) (mean, busiest, lo, hi float64) {
		lo = math.Inf(1)
		for _, c := range cl {
			v := get(c)
			s := sum(v) / secs
			mean += s / n
			lo, hi = min(lo, s), max(hi, s)
			busiest = max(busiest, slices.Max(v))
		}
		return
	}
	snapB, snapMax, snapLo, snapHi := per(func(c *bwClient) []float64 { return c.snapB })
	snapDg, _, _, _ := per(func(c *bwClient) []float64 { return c.snapDg })
	evB, evMax, _, _ := per(func(c *bwClient) []float64 { return c.evB })
	evDg, _, _, _ := per(func(c *bwClient) []float64 { return c.evDg })
	otherDg, _, _, _ := per(func(c *bwClient) []float64 { return c.otherDg })
	fullB, fullDg, seedB := sum(r.fullB)/secs, sum(r.fullDg)/secs, sum(r.seedB)/secs
	idealB, idealDg := sum(r.idealB)/secs, sum(r.idealDg)/secs
	seedDg := float64(r.snaps) / secs

	var ages []uint32
	var predXY, predRec float64
	full, noBase := 0, 0
	for _, c := range cl {
		ages = append(ages, c.ages...)
		for _, a := range c.ages {
			if a == 0 {
				full++
			}
		}
		predXY += c.predXY / 8 / n / secs
		predRec += c.predRec / 8 / n / secs
		noBase += c.noBase
	}
	var ageSum float64
	for _, a := range ages {
		ageSum += float64(a)
	}
	ageMean := ageSum / float64(max(1, len(ages)))
	ageP99, ageMax := quantile(ages, 0.99), quantile(ages, 1)

	cond := r.name
	withIP := func(b, dg float64) string { return fmt.Sprintf("%s B/s (%s with IP/UDP)", num(b), num(b+ipUDP*dg)) }
	rows := []row{
		{"Snapshot datagrams as sent, against acked baselines, headers included", cond,
			withIP(snapB, snapDg),
			fmt.Sprintf("per client; %.1f datagrams/s; clients %s–%s B/s; busiest client-second %s B", snapDg, num(snapLo), num(snapHi), num(snapMax))},
		{"Delta against the previous snapshot (every snapshot acked: the best 4.8 allows), same world states", cond,
			withIP(idealB, idealDg),
			fmt.Sprintf("%.1f datagrams/s; as sent = %s of it: the cost of older baselines and of the full snapshot at each join", idealDg, pct(snapB, idealB))},
		{"Full snapshots every time (no baseline), same world states", cond,
			withIP(fullB, fullDg),
			fmt.Sprintf("%.1f datagrams/s; busiest second %s B; as sent = %s of it", fullDg, num(slices.Max(r.fullB)), pct(snapB, fullB))},
		{"Seed-003 byte-aligned GameSnapshot, same world states", cond,
			withIP(seedB, seedDg),
			fmt.Sprintf("12-byte header, 23-byte PlayerState, 8-byte Missile/Enemy states; 1 datagram per snapshot; as sent = %s of it (%s with IP/UDP)",
				pct(snapB, seedB), pct(snapB+ipUDP*snapDg, seedB+ipUDP*seedDg))},
		{"Event datagrams as sent", cond, withIP(evB, evDg),
			fmt.Sprintf("per client; %.1f datagrams/s; busiest client-second %s B", evDg, num(evMax))},
		{"Datagrams per second, both ways", cond,
			fmt.Sprintf("down %.1f, up %.1f", snapDg+evDg+otherDg, r.upDg/n/r.wall.Seconds()),
			fmt.Sprintf("per client; down = snapshots %.1f + events %.1f + other %.1f, as sent; up = as the client sent them, %s B/s",
				snapDg, evDg, otherDg, num(r.upB/n/r.wall.Seconds()))},
		{"Baseline age of the snapshot datagrams", cond,
			fmt.Sprintf("mean %.2f ticks, p99 %d, max %d", ageMean, ageP99, ageMax),
			fmt.Sprintf("%d full snapshots of %d datagrams (3 ticks = the previous snapshot)", full, len(ages))},
		{"Bytes on predictable changes (x/y of straight-line motion, resent in v1)", cond,
			fmt.Sprintf("%s B/s (%s of as-sent snapshot bytes)", num(predXY), pct(predXY, snapB)),
			fmt.Sprintf("per client; whole updated records carrying only such x/y: %s B/s (%s)", num(predRec), pct(predRec, snapB))},
		{"World during the window", cond, r.kinds.String(),
			fmt.Sprintf("mean per snapshot; %d s of game time, %d clients", r.secs, len(cl))},
	}
	if noBase > 0 {
		rows[7].Note += fmt.Sprintf("; %d datagrams with an unknown baseline skipped", noBase)
	}
	return rows
}

// runBandwidth is section 1: the three loss rates in parallel, each with
// its own server, tap, relay and bots.
func runBandwidth(ctx context.Context, o *opts) ([]row, error) {
	secs := 120
	if o.quick {
		secs = 5
	}
	runs := []*bwRun{
		newBWRun("loopback, 0% loss", 0, secs),
		newBWRun("5% loss both ways", 0.05, secs),
		newBWRun("20% loss both ways", 0.20, secs),
	}
	logf(o, "3 games of %d s with 4 bots each, at 0, 5 and 20%% loss", secs)
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.play(ctx, o) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Grouped by measure, the three conditions side by side.
	per := make([][]row, len(runs))
	for i, r := range runs {
		per[i] = r.rows()
	}
	var rows []row
	for k := range per[0] {
		for i := range per {
			rows = append(rows, per[i][k])
		}
	}
	return rows, nil
}
