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
	"rtype/internal/testrules"
	"rtype/net/client"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
	"rtype/sim"
)

// Section 1: a scripted 4-player game (the bots, through the real server,
// the real link layer and the impairment relay, on loopback) with the
// waves at full strength. A tap between the relay and the server sees
// every datagram the server sends, before any loss: the bytes "as sent".
// The server's OnSnapshot gives the same world states, from which the
// other layouts are computed. Bots 1 and 2 speak protocol v1, bots 3 and 4
// v2, in the same game (PROTOCOL.md 7.11): both versions are measured on
// the same world states. A second scenario has four ships standing still
// and nothing else alive (7.9's idle rate).

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
	name  string
	loss  float64
	secs  int
	still bool // four idle clients, no waves, instead of the bots

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

	// From the clients' side, by protocol version.
	upDg, upB [3]float64 // sent by the clients over the window
	wall      time.Duration
}

// bwVersion is the protocol version of bot i (0 to 3): the first half
// speak v1, the others v2.
func bwVersion(i int) uint8 {
	if i < wire.MaxPlayers/2 {
		return wire.Version
	}
	return wire.Version2
}

// bwClient is what the tap saw for one session.
type bwClient struct {
	version                           uint8     // of its first datagram: the report's grouping
	codec                             bwCodec   // of that version
	snapB, snapDg, evB, evDg, otherDg []float64 // per second
	ages                              []uint32  // baseline_age of each Snapshot datagram, 0 full
	noBase                            int       // baselines the predictability check could not find
	predXY, predRec                   float64   // bits: x/y fields on straight lines; whole such records
	dec                               wire.Snapshot
	dec2                              wire2.Snapshot
}

// bwCodec reads a client's Snapshot datagrams by the rules of its
// protocol version: the snapshot's tick and baseline age (false drops the
// datagram); predicts says whether the predictability check reads its
// records (v1's layout).
type bwCodec struct {
	snapshot func(c *bwClient, b []byte) (tick, age uint32, ok bool)
	predicts bool
}

// bwCodecs are the codecs by the version byte of a datagram's header.
var bwCodecs = map[uint8]bwCodec{
	wire.Version: {predicts: true, snapshot: func(c *bwClient, b []byte) (uint32, uint32, bool) {
		if c.dec.Decode(b[wire.HeaderSize:]) != nil {
			return 0, 0, false
		}
		return c.dec.Tick, c.dec.BaselineAge, true
	}},
	wire.Version2: {snapshot: func(c *bwClient, b []byte) (uint32, uint32, bool) {
		p := b[wire2.HeaderSize:]
		if c.dec2.Decode(p) != nil {
			if _, err := c.dec2.DecodeTail(p); err != nil { // a v2 session's (7.8)
				return 0, 0, false
			}
		}
		return c.dec2.Tick, c.dec2.BaselineAge, true
	}},
}

func newBWRun(name string, loss float64, secs int, still bool) *bwRun {
	return &bwRun{
		name: name, loss: loss, secs: secs, still: still,
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
		t0 := s.Tick
		if r.still {
			// Once the last ship's join invulnerability (blinking) is over.
			t0 += uint32(sim.DefaultRules().JoinInvulnTicks) + 3
		}
		r.started, r.t0, r.end = true, t0, t0+uint32(r.secs*60)
		close(r.startCh)
	}
	if s.Tick < r.t0 {
		return
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
		codec, known := bwCodecs[b[4]]
		if !known {
			return
		}
		c = &bwClient{version: b[4], codec: codec, snapB: make([]float64, r.secs), snapDg: make([]float64, r.secs),
			evB: make([]float64, r.secs), evDg: make([]float64, r.secs), otherDg: make([]float64, r.secs)}
		r.clients[sess] = c
	}
	tick := r.lastTick.Load()
	var age uint32
	if typ == wire.TypeSnapshot {
		var ok bool
		if tick, age, ok = c.codec.snapshot(c, b); !ok {
			return
		}
	}
	if tick < r.t0 || tick >= r.end {
		return
	}
	sec := (tick - r.t0) / 60
	switch typ {
	case wire.TypeSnapshot:
		c.snapB[sec] += float64(len(b))
		c.snapDg[sec]++
		c.ages = append(c.ages, age)
		if c.codec.predicts {
			c.predict(r.states, &c.dec)
		}
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
	rules := testrules.FullStrength()
	if r.still {
		rules.FirstWave = 1 << 30 // no Bydos, ever
	}
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
		c, err := client.Dial(dctx, client.Config{Addr: relay.Addr(), Name: fmt.Sprintf("bot%d", i+1), Logger: quiet(),
			Version: bwVersion(i)})
		cancel()
		if err != nil {
			return fmt.Errorf("%s: bot %d: %w", r.name, i+1, err)
		}
		clients = append(clients, c)
		if r.still {
			continue // its ship stands where it appeared
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			bot.Play(bctx, c, rand.New(rand.NewPCG(o.seed, uint64(i))))
		}()
	}
	sent := func() (dg, b [3]float64) {
		for _, c := range clients {
			st := c.Stats().Link
			dg[c.Version()] += float64(st.SentDatagrams)
			b[c.Version()] += float64(st.SentBytes)
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
	for v := range dg1 {
		r.upDg[v], r.upB[v] = dg1[v]-dg0[v], b1[v]-b0[v]
	}
	r.wall = time.Since(t0)
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

// bwVer is one protocol version's clients of a scenario, per client and
// per second of game time, averaged over its clients and the seconds.
type bwVer struct {
	n                                      float64 // clients
	snapB, snapMax, snapLo, snapHi, snapDg float64
	evB, evMax, evDg, otherDg, upDg, upB   float64
	ageMean                                float64
	ageP99, ageMax                         uint32
	full, dgs                              int
	predXY, predRec                        float64
	noBase                                 int
}

// perVersion sums the clients of version v; r.mu is held.
func (r *bwRun) perVersion(v uint8) bwVer {
	var cl []*bwClient
	for _, c := range r.clients {
		if c.version == v && sum(c.snapDg) > 0 {
			cl = append(cl, c)
		}
	}
	o := bwVer{n: float64(len(cl)), snapLo: math.Inf(1)}
	if len(cl) == 0 {
		o.snapLo = 0
		return o
	}
	secs := float64(r.secs)
	var ages []uint32
	var ageSum float64
	for _, c := range cl {
		s := sum(c.snapB) / secs
		o.snapB += s / o.n
		o.snapLo, o.snapHi = min(o.snapLo, s), max(o.snapHi, s)
		o.snapMax = max(o.snapMax, slices.Max(c.snapB))
		o.snapDg += sum(c.snapDg) / secs / o.n
		o.evB += sum(c.evB) / secs / o.n
		o.evMax = max(o.evMax, slices.Max(c.evB))
		o.evDg += sum(c.evDg) / secs / o.n
		o.otherDg += sum(c.otherDg) / secs / o.n
		o.predXY += c.predXY / 8 / o.n / secs
		o.predRec += c.predRec / 8 / o.n / secs
		o.noBase += c.noBase
		ages = append(ages, c.ages...)
		for _, a := range c.ages {
			ageSum += float64(a)
			if a == 0 {
				o.full++
			}
		}
	}
	o.dgs = len(ages)
	o.ageMean = ageSum / float64(max(1, len(ages)))
	o.ageP99, o.ageMax = quantile(ages, 0.99), quantile(ages, 1)
	if r.wall > 0 {
		o.upDg, o.upB = r.upDg[v]/o.n/r.wall.Seconds(), r.upB[v]/o.n/r.wall.Seconds()
	}
	return o
}

// ratio formats a / b as "0.31 x".
func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f ×", a/b)
}

// rows turns the scenario's records into the table's rows: v1's and v2's
// clients side by side on the same world states, and the layouts computed
// from those states. Rates are per client and per second of game time;
// "busiest" is the largest client-second.
func (r *bwRun) rows() []row {
	r.mu.Lock()
	defer r.mu.Unlock()
	v1, v2 := r.perVersion(wire.Version), r.perVersion(wire.Version2)
	secs := float64(r.secs)
	fullB, fullDg, seedB := sum(r.fullB)/secs, sum(r.fullDg)/secs, sum(r.seedB)/secs
	idealB, idealDg := sum(r.idealB)/secs, sum(r.idealDg)/secs
	seedDg := float64(r.snaps) / secs

	cond := r.name
	withIP := func(b, dg float64) string { return fmt.Sprintf("%s B/s (%s with IP/UDP)", num(b), num(b+ipUDP*dg)) }
	asSent := func(name string, v *bwVer) row {
		return row{"Snapshot datagrams as sent, " + name + " clients, against acked baselines, headers included", cond,
			withIP(v.snapB, v.snapDg),
			fmt.Sprintf("per client (%.0f clients); %.1f datagrams/s; clients %s–%s B/s; busiest client-second %s B",
				v.n, v.snapDg, num(v.snapLo), num(v.snapHi), num(v.snapMax))}
	}
	if r.still {
		return []row{
			asSent("v1", &v1),
			asSent("v2", &v2),
			{"v2 / v1, snapshot bytes as sent (target: at most 0.5)", cond, ratio(v2.snapB, v1.snapB),
				fmt.Sprintf("with IP/UDP %s; datagrams/s v1 %.1f, v2 %.1f (7.9: a snapshot at least every 200 ms)",
					ratio(v2.snapB+ipUDP*v2.snapDg, v1.snapB+ipUDP*v1.snapDg), v1.snapDg, v2.snapDg)},
			{"Datagrams per second, both ways", cond,
				fmt.Sprintf("v1: down %.1f, up %.1f; v2: down %.1f, up %.1f",
					v1.snapDg+v1.evDg+v1.otherDg, v1.upDg, v2.snapDg+v2.evDg+v2.otherDg, v2.upDg),
				fmt.Sprintf("per client; up bytes v1 %s B/s, v2 %s B/s (Inputs at 60/s)", num(v1.upB), num(v2.upB))},
			{"World during the window", cond, r.kinds.String(), fmt.Sprintf("mean per snapshot; %d s of game time", r.secs)},
		}
	}
	rows := []row{
		asSent("v1", &v1),
		asSent("v2", &v2),
		{"v2 / v1 and v2 / seed-003, snapshot bytes as sent (targets: at most 0.4 and 0.35)", cond,
			fmt.Sprintf("%s v1, %s seed-003", ratio(v2.snapB, v1.snapB), ratio(v2.snapB, seedB)),
			fmt.Sprintf("with IP/UDP: %s v1, %s seed-003; v2 / full v1 snapshots %s",
				ratio(v2.snapB+ipUDP*v2.snapDg, v1.snapB+ipUDP*v1.snapDg), ratio(v2.snapB+ipUDP*v2.snapDg, seedB+ipUDP*seedDg), ratio(v2.snapB, fullB))},
		{"v1 delta against the previous snapshot (every snapshot acked: the best 4.8 allows), same world states", cond,
			withIP(idealB, idealDg),
			fmt.Sprintf("%.1f datagrams/s; v1 as sent = %s of it: the cost of older baselines and of the full snapshot at each join", idealDg, pct(v1.snapB, idealB))},
		{"Full v1 snapshots every time (no baseline), same world states", cond,
			withIP(fullB, fullDg),
			fmt.Sprintf("%.1f datagrams/s; busiest second %s B; v1 as sent = %s of it, v2 as sent %s", fullDg, num(slices.Max(r.fullB)), pct(v1.snapB, fullB), pct(v2.snapB, fullB))},
		{"Seed-003 byte-aligned GameSnapshot, same world states", cond,
			withIP(seedB, seedDg),
			fmt.Sprintf("12-byte header, 23-byte PlayerState, 8-byte Missile/Enemy states; 1 datagram per snapshot; v1 as sent = %s of it (%s with IP/UDP), v2 as sent %s (%s)",
				pct(v1.snapB, seedB), pct(v1.snapB+ipUDP*v1.snapDg, seedB+ipUDP*seedDg), pct(v2.snapB, seedB), pct(v2.snapB+ipUDP*v2.snapDg, seedB+ipUDP*seedDg))},
		{"Event datagrams as sent", cond,
			fmt.Sprintf("v1 %s, v2 %s", withIP(v1.evB, v1.evDg), withIP(v2.evB, v2.evDg)),
			fmt.Sprintf("per client; datagrams/s v1 %.1f, v2 %.1f; busiest client-second v1 %s B, v2 %s B (v2 Spawns carry the motion, 7.6)",
				v1.evDg, v2.evDg, num(v1.evMax), num(v2.evMax))},
		{"Datagrams per second, both ways", cond,
			fmt.Sprintf("v1: down %.1f, up %.1f; v2: down %.1f, up %.1f",
				v1.snapDg+v1.evDg+v1.otherDg, v1.upDg, v2.snapDg+v2.evDg+v2.otherDg, v2.upDg),
			fmt.Sprintf("per client; down = snapshots + events + other, as sent (v1 %.1f + %.1f + %.1f, v2 %.1f + %.1f + %.1f); up = as the client sent them, v1 %s B/s, v2 %s B/s",
				v1.snapDg, v1.evDg, v1.otherDg, v2.snapDg, v2.evDg, v2.otherDg, num(v1.upB), num(v2.upB))},
		{"Baseline age of the snapshot datagrams", cond,
			fmt.Sprintf("v1: mean %.2f ticks, p99 %d, max %d; v2: mean %.2f, p99 %d, max %d",
				v1.ageMean, v1.ageP99, v1.ageMax, v2.ageMean, v2.ageP99, v2.ageMax),
			fmt.Sprintf("full snapshots: v1 %d of %d datagrams, v2 %d of %d (3 ticks = the previous snapshot)", v1.full, v1.dgs, v2.full, v2.dgs)},
		{"v1 bytes on predictable changes (x/y of straight-line motion, resent in v1)", cond,
			fmt.Sprintf("%s B/s (%s of v1's as-sent snapshot bytes)", num(v1.predXY), pct(v1.predXY, v1.snapB)),
			fmt.Sprintf("per client; whole updated records carrying only such x/y: %s B/s (%s); v2 sends a motion once", num(v1.predRec), pct(v1.predRec, v1.snapB))},
		{"World during the window", cond, r.kinds.String(),
			fmt.Sprintf("mean per snapshot; %d s of game time, %.0f v1 and %.0f v2 clients in one game", r.secs, v1.n, v2.n)},
	}
	if v1.noBase > 0 {
		rows[9].Note += fmt.Sprintf("; %d datagrams with an unknown baseline skipped", v1.noBase)
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
		newBWRun("loopback, 0% loss", 0, secs, false),
		newBWRun("5% loss both ways", 0.05, secs, false),
		newBWRun("20% loss both ways", 0.20, secs, false),
		newBWRun("four ships standing still, nothing else alive, 0% loss", 0, min(secs, 30), true),
	}
	logf(o, "3 games of %d s with 4 bots each (2 speak v1, 2 v2), at 0, 5 and 20%% loss; 1 game of 4 idle ships", secs)
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
			if k < len(per[i]) && !runs[i].still {
				rows = append(rows, per[i][k])
			}
		}
	}
	for i := range runs {
		if runs[i].still {
			rows = append(rows, per[i]...)
		}
	}
	return rows, nil
}
