// Package flood generates hostile traffic against a server of protocol v1
// (PROTOCOL.md): UDP datagrams that the server must drop without an answer
// (6.1, 3.4), and TCP connections that break the login rules (3.1, 3.2). It
// is the generator of cmd/rtype-flood and of the end-to-end hostile tests,
// so that both send the same traffic.
//
// Nothing here is valid traffic: the generator never knows a session's
// token, so none of its datagrams may bind, and a server that answers any
// of them with a single byte breaks 3.4 and 6.1.
package flood

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rtype/net/wire"
)

// Kind is a kind of hostile datagram.
type Kind int

// The kinds of the mix.
const (
	// Random is random bytes of a random length, 0 to 1500.
	Random Kind = iota
	// Junk is a valid header of any type (both directions' types, and now
	// and then a reserved type, another version or session 0), of a known
	// or a random session, with a junk payload of any length.
	Junk
	// Unknown is a well-formed client datagram (Bind, Input, Event, Ack)
	// of a session the server does not know.
	Unknown
	// Stolen is a well-formed Input, Ack or Event of a known session, sent
	// from an address that is not the one bound to it.
	Stolen
	// Bind is a Bind with a wrong token: of a known session, or of a
	// random one.
	Bind
	// Oversize is 1201 to 1500 bytes with a valid header (1.3).
	Oversize
	// Truncated is 0 to 17 bytes: a header cut short (6.1).
	Truncated
	// NumKinds is the number of kinds.
	NumKinds
)

var kindNames = [NumKinds]string{"random", "junk", "unknown", "stolen", "bind", "oversize", "truncated"}

// String returns the kind's name, as -mix spells it.
func (k Kind) String() string {
	if k >= 0 && k < NumKinds {
		return kindNames[k]
	}
	return "kind" + strconv.Itoa(int(k))
}

// Mix is the weight of each kind in a flood (percentages, or any weights).
type Mix [NumKinds]int

// DefaultMix sends every kind.
var DefaultMix = Mix{Random: 15, Junk: 20, Unknown: 15, Stolen: 15, Bind: 15, Oversize: 10, Truncated: 10}

// ParseMix reads "random=20,junk=30,...": the kinds not named weigh 0.
// An empty string is DefaultMix.
func ParseMix(s string) (Mix, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultMix, nil
	}
	var m Mix
	total := 0
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return m, fmt.Errorf("flood: mix %q: want kind=weight", part)
		}
		k := Kind(-1)
		for i, n := range kindNames {
			if n == strings.TrimSpace(name) {
				k = Kind(i)
			}
		}
		if k < 0 {
			return m, fmt.Errorf("flood: mix: unknown kind %q (kinds: %s)", name, strings.Join(kindNames[:], ", "))
		}
		w, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || w < 0 {
			return m, fmt.Errorf("flood: mix: bad weight %q for %s", val, name)
		}
		m[k] = w
		total += w
	}
	if total == 0 {
		return m, errors.New("flood: mix: every weight is 0")
	}
	return m, nil
}

// String returns the mix as ParseMix reads it.
func (m Mix) String() string {
	var parts []string
	for k, w := range m {
		if w > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", Kind(k), w))
		}
	}
	return strings.Join(parts, ",")
}

// Generator makes hostile datagrams. It is not safe for concurrent use.
type Generator struct {
	rng      *rand.Rand
	cum      [NumKinds]int // cumulative weights
	sessions []uint32
	junk     []byte
}

// NewGenerator returns a generator of the mix, seeded with seed. Sessions
// are the sessions the server knows (Stolen and Bind target them, Junk and
// Oversize now and then); without any, random sessions stand in.
func NewGenerator(seed uint64, mix Mix, sessions []uint32) *Generator {
	g := &Generator{rng: rand.New(rand.NewPCG(seed, 0x666c6f6f64)), sessions: sessions}
	total := 0
	for k, w := range mix {
		total += max(w, 0)
		g.cum[k] = total
	}
	if total == 0 {
		g.cum = [NumKinds]int{}
		for k := range g.cum {
			g.cum[k] = k + 1
		}
	}
	g.junk = make([]byte, 1<<15)
	for i := 0; i < len(g.junk); i += 8 {
		binary.LittleEndian.PutUint64(g.junk[i:], g.rng.Uint64())
	}
	return g
}

// Next appends a datagram of a kind drawn from the mix to dst.
func (g *Generator) Next(dst []byte) (Kind, []byte) {
	r := g.rng.IntN(g.cum[NumKinds-1])
	k := Kind(0)
	for r >= g.cum[k] {
		k++
	}
	return k, g.Make(k, dst)
}

// junkBytes appends n random bytes.
func (g *Generator) junkBytes(dst []byte, n int) []byte {
	off := g.rng.IntN(len(g.junk) - n + 1)
	return append(dst, g.junk[off:off+n]...)
}

// session returns a known session (when there are any and known), else a
// random non-zero one.
func (g *Generator) session(known bool) uint32 {
	if known && len(g.sessions) > 0 {
		return g.sessions[g.rng.IntN(len(g.sessions))]
	}
	return g.randomSession()
}

// randomSession returns a non-zero session that is not a known one.
func (g *Generator) randomSession() uint32 {
	for {
		s := g.rng.Uint32()
		if s != 0 && !g.known(s) {
			return s
		}
	}
}

func (g *Generator) known(s uint32) bool {
	for _, k := range g.sessions {
		if k == s {
			return true
		}
	}
	return false
}

func (g *Generator) header(dst []byte, t wire.Type, session uint32) []byte {
	return wire.AppendHeader(dst, wire.Header{Type: t, Seq: uint16(g.rng.Uint32()),
		Ack: uint16(g.rng.Uint32()), AckBits: g.rng.Uint32(), Session: session})
}

// eventPayload appends a well-framed Event payload of 1 to 4 events of
// junk bytes (5.2).
func (g *Generator) eventPayload(dst []byte) []byte {
	n := 1 + g.rng.IntN(4)
	dst = append(dst, byte(n))
	for range n {
		dst = wire.AppendEventFrame(dst, uint16(g.rng.Uint32()), g.junkBytes(nil, 1+g.rng.IntN(40)))
	}
	return dst
}

// clientDatagram appends a well-formed datagram of a client type other
// than Bind (or Bind too, with a random token, when bind is set).
func (g *Generator) clientDatagram(dst []byte, session uint32, bind bool) []byte {
	types := []wire.Type{wire.TypeInput, wire.TypeEvent, wire.TypeAck, wire.TypeBind}
	n := 3
	if bind {
		n = 4
	}
	switch t := types[g.rng.IntN(n)]; t {
	case wire.TypeInput:
		return append(g.header(dst, t, session), byte(g.rng.IntN(32)))
	case wire.TypeEvent:
		return g.eventPayload(g.header(dst, t, session))
	case wire.TypeBind:
		return g.junkBytes(g.header(dst, t, session), wire.TokenSize)
	default:
		return g.header(dst, t, session)
	}
}

// Make appends a datagram of kind k to dst.
func (g *Generator) Make(k Kind, dst []byte) []byte {
	switch k {
	case Random:
		return g.junkBytes(dst, g.rng.IntN(1501))
	case Junk:
		t := wire.Type(1 + g.rng.IntN(6))
		if g.rng.IntN(8) == 0 {
			t = wire.Type(g.rng.IntN(256)) // reserved ones mostly
		}
		at := len(dst)
		dst = g.header(dst, t, g.session(g.rng.IntN(2) == 0))
		switch g.rng.IntN(10) {
		case 0:
			dst[at+4] = byte(2 + g.rng.IntN(254)) // another version
		case 1:
			binary.LittleEndian.PutUint32(dst[at+14:], 0) // session 0
		case 2:
			dst[at+g.rng.IntN(4)] ^= byte(1 + g.rng.IntN(255)) // bad magic
		}
		if g.rng.IntN(4) == 0 { // sizes a type requires, give or take one
			return g.junkBytes(dst, []int{0, 1, 5, 8, 9}[g.rng.IntN(5)])
		}
		return g.junkBytes(dst, g.rng.IntN(wire.MaxPayload+1))
	case Unknown:
		return g.clientDatagram(dst, g.randomSession(), true)
	case Stolen:
		return g.clientDatagram(dst, g.session(true), false)
	case Bind:
		return g.junkBytes(g.header(dst, wire.TypeBind, g.session(g.rng.IntN(4) != 0)), wire.TokenSize)
	case Oversize:
		at := len(dst)
		dst = g.header(dst, wire.Type(1+g.rng.IntN(6)), g.session(g.rng.IntN(2) == 0))
		return g.junkBytes(dst, 1201+g.rng.IntN(300)-(len(dst)-at))
	case Truncated:
		at := len(dst)
		dst = g.header(dst, wire.Type(1+g.rng.IntN(6)), g.session(g.rng.IntN(2) == 0))
		return dst[:at+g.rng.IntN(wire.HeaderSize)]
	}
	panic("flood: unknown kind " + k.String())
}

// Config configures a UDP flood.
type Config struct {
	// Target is the server's UDP address, host:port.
	Target string
	// Rate is the number of datagrams per second, all sockets together;
	// 0 sends as fast as the sockets go.
	Rate int
	// Duration is how long to send. Required unless Count is set.
	Duration time.Duration
	// Count, when above 0, stops after that many datagrams.
	Count int
	// Sockets is the number of local UDP sockets, each with its own
	// sending goroutine. Default 1.
	Sockets int
	// Mix weighs the kinds. The zero value is DefaultMix.
	Mix Mix
	// Sessions are sessions the server knows, for Stolen and Bind.
	Sessions []uint32
	// Seed seeds the generators (socket i gets Seed+i).
	Seed uint64
	// Local is the local IP address to send from; default: any.
	Local string
	// Linger is how long the sockets keep listening for answers after
	// the last datagram. Default 500 ms.
	Linger time.Duration
}

// Result is what a flood did.
type Result struct {
	Sent, SentBytes uint64           // datagrams and bytes sent
	Kinds           [NumKinds]uint64 // datagrams sent, per kind
	Errors          uint64           // failed writes
	// Received and ReceivedBytes count every datagram that arrived on the
	// flood's sockets, from anyone: a server that drops all the flood
	// leaves both at 0.
	Received, ReceivedBytes uint64
	Elapsed                 time.Duration // from the first datagram to the last
	Sockets                 []string      // the local addresses
}

// Rate returns the achieved rate, datagrams per second.
func (r Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Sent) / r.Elapsed.Seconds()
}

// String summarizes the result on one line.
func (r Result) String() string {
	return fmt.Sprintf("sent %d datagrams (%d bytes) in %v: %.0f/s, %d write errors; received %d datagrams, %d bytes",
		r.Sent, r.SentBytes, r.Elapsed.Round(time.Millisecond), r.Rate(), r.Errors, r.Received, r.ReceivedBytes)
}

// poolSize is how many datagrams each socket prepares, then sends in turn
// with a fresh sequence number, so that the flood's rate is the sockets'
// and not the generator's.
const poolSize = 2048

type pooled struct {
	b    []byte
	kind Kind
}

// Run floods cfg.Target until cfg.Duration passes, cfg.Count datagrams are
// sent or ctx is done, then listens cfg.Linger more for answers.
func Run(ctx context.Context, cfg Config) (Result, error) {
	to, err := resolveTarget(cfg.Target)
	if err != nil {
		return Result{}, err
	}
	local, err := cfg.setDefaults()
	if err != nil {
		return Result{}, err
	}
	conns, err := openSockets(to, local, cfg.Sockets)
	if err != nil {
		return Result{}, err
	}
	answers := listen(conns)
	res := sendAll(ctx, cfg, conns, to)
	linger(ctx, cfg.Linger)
	for _, c := range conns {
		c.Close()
	}
	res.Received, res.ReceivedBytes = answers.wait()
	return res, nil
}

// resolveTarget returns the target's address, an IPv4 one unmapped.
func resolveTarget(target string) (netip.AddrPort, error) {
	to, err := netip.ParseAddrPort(target)
	if err != nil {
		ua, rerr := net.ResolveUDPAddr("udp", target)
		if rerr != nil {
			return to, fmt.Errorf("flood: target %q: %w", target, rerr)
		}
		to = ua.AddrPort()
	}
	return netip.AddrPortFrom(to.Addr().Unmap(), to.Port()), nil
}

// setDefaults checks cfg, fills in its defaults and returns its local IP
// address (nil for any).
func (cfg *Config) setDefaults() (net.IP, error) {
	if cfg.Duration <= 0 && cfg.Count <= 0 {
		return nil, errors.New("flood: neither a duration nor a count")
	}
	if cfg.Sockets <= 0 {
		cfg.Sockets = 1
	}
	if cfg.Mix == (Mix{}) {
		cfg.Mix = DefaultMix
	}
	if cfg.Linger <= 0 {
		cfg.Linger = 500 * time.Millisecond
	}
	var local net.IP
	if cfg.Local != "" {
		if local = net.ParseIP(cfg.Local); local == nil {
			return nil, fmt.Errorf("flood: bad local address %q", cfg.Local)
		}
	}
	return local, nil
}

// openSockets opens n UDP sockets on local of the target's family.
func openSockets(to netip.AddrPort, local net.IP, n int) ([]*net.UDPConn, error) {
	network := "udp4"
	if to.Addr().Is6() {
		network = "udp6"
	}
	conns := make([]*net.UDPConn, n)
	for i := range conns {
		c, err := net.ListenUDP(network, &net.UDPAddr{IP: local})
		if err != nil {
			for _, c := range conns[:i] {
				c.Close()
			}
			return nil, fmt.Errorf("flood: socket: %w", err)
		}
		c.SetWriteBuffer(1 << 20)
		conns[i] = c
	}
	return conns, nil
}

// listener counts the datagrams that arrive on the flood's sockets.
type listener struct {
	n, bytes atomic.Uint64
	readers  sync.WaitGroup
}

// listen reads every socket until it is closed.
func listen(conns []*net.UDPConn) *listener {
	l := &listener{}
	for _, c := range conns {
		l.readers.Add(1)
		go func() {
			defer l.readers.Done()
			buf := make([]byte, 1<<16)
			for {
				n, _, err := c.ReadFromUDPAddrPort(buf)
				if err != nil {
					if errors.Is(err, net.ErrClosed) {
						return
					}
					continue
				}
				l.n.Add(1)
				l.bytes.Add(uint64(n))
			}
		}()
	}
	return l
}

// wait waits for the readers of the closed sockets and returns the
// datagrams and bytes they received.
func (l *listener) wait() (n, bytes uint64) {
	l.readers.Wait()
	return l.n.Load(), l.bytes.Load()
}

// counts are what one socket sent.
type counts struct {
	sent, bytes, errs uint64
	kinds             [NumKinds]uint64
	first, last       time.Time
}

// sendAll sends from every socket at once until the end, and adds up
// what they sent.
func sendAll(ctx context.Context, cfg Config, conns []*net.UDPConn, to netip.AddrPort) Result {
	per := make([]counts, len(conns))
	var senders sync.WaitGroup
	end := time.Now().Add(cfg.Duration)
	for i, c := range conns {
		senders.Add(1)
		go func() {
			defer senders.Done()
			per[i] = send(ctx, cfg, i, c, to, end)
		}()
	}
	senders.Wait()
	res := total(per)
	for _, c := range conns {
		res.Sockets = append(res.Sockets, c.LocalAddr().String())
	}
	return res
}

// send is the sender of socket i: it prepares its pool, then sends it
// round and round, paced, until its share of cfg.Count is sent, end
// passes or ctx is done.
func send(ctx context.Context, cfg Config, i int, c *net.UDPConn, to netip.AddrPort, end time.Time) counts {
	pool := makePool(NewGenerator(cfg.Seed+uint64(i), cfg.Mix, cfg.Sessions))
	count := share(cfg.Count, cfg.Sockets, i)
	var cn counts
	cn.first = time.Now()
	pace := newPacer(cfg.Rate, cfg.Sockets, cn.first)
	seq := uint16(i << 12)
	for j := 0; count != 0; j++ {
		if j%pace.batch == 0 {
			if ctx.Err() != nil || (cfg.Duration > 0 && !time.Now().Before(end)) {
				break
			}
			if j > 0 {
				pace.wait()
			}
		}
		cn.write(c, &pool[j%poolSize], seq, to)
		seq++
		if count > 0 {
			count--
		}
	}
	cn.last = time.Now()
	return cn
}

// makePool draws poolSize datagrams from gen.
func makePool(gen *Generator) []pooled {
	pool := make([]pooled, poolSize)
	for j := range pool {
		k, b := gen.Next(nil)
		pool[j] = pooled{b: b, kind: k}
	}
	return pool
}

// share is socket i's part of count datagrams over n sockets; -1 (no
// limit) when count is not above 0.
func share(count, n, i int) int {
	if count <= 0 {
		return -1
	}
	s := count / n
	if i < count%n {
		s++
	}
	return s
}

// pacer spaces a sender's datagrams: batches of about a millisecond, then
// a sleep until the batch's due time; a sender that falls behind by more
// than 100 ms forgets the lost time. Without a rate, batches of 64 go at
// once.
type pacer struct {
	interval time.Duration // between two datagrams, 0 for no pacing
	batch    int
	due      time.Time
}

func newPacer(rate, sockets int, start time.Time) pacer {
	p := pacer{batch: 64, due: start}
	if rate > 0 {
		perSocket := float64(rate) / float64(sockets)
		p.interval = time.Duration(float64(time.Second) / perSocket)
		p.batch = max(1, int(perSocket/1000))
	}
	return p
}

// wait sleeps until the next batch is due.
func (p *pacer) wait() {
	if p.interval <= 0 {
		return
	}
	p.due = p.due.Add(time.Duration(p.batch) * p.interval)
	if d := time.Until(p.due); d > 0 {
		time.Sleep(d)
	} else if d < -100*time.Millisecond {
		p.due = time.Now()
	}
}

// write writes p to the target with sequence number seq (a new datagram
// each time, 2.2), and counts it.
func (cn *counts) write(c *net.UDPConn, p *pooled, seq uint16, to netip.AddrPort) {
	if p.kind != Random && len(p.b) >= 8 {
		binary.LittleEndian.PutUint16(p.b[6:], seq)
	}
	if _, err := c.WriteToUDPAddrPort(p.b, to); err != nil {
		cn.errs++
		return
	}
	cn.sent++
	cn.bytes += uint64(len(p.b))
	cn.kinds[p.kind]++
}

// total adds up the sockets' counts; Elapsed runs from the first socket's
// start to the last one's end.
func total(per []counts) Result {
	var res Result
	var first, last time.Time
	for i, cn := range per {
		res.Sent += cn.sent
		res.SentBytes += cn.bytes
		res.Errors += cn.errs
		for k := range cn.kinds {
			res.Kinds[k] += cn.kinds[k]
		}
		if i == 0 || cn.first.Before(first) {
			first = cn.first
		}
		if cn.last.After(last) {
			last = cn.last
		}
	}
	res.Elapsed = last.Sub(first)
	return res
}

// linger waits d for late answers, or until ctx is done.
func linger(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
