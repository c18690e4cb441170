package rendezvous

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// sent is a datagram the rendezvous sent.
type sent struct {
	b  []byte
	to netip.AddrPort
}

// vrv is a rendezvous on a virtual clock, called by Handle.
type vrv struct {
	s   *Server
	now time.Time
}

func newVRV(cfg Config) *vrv {
	v := &vrv{now: time.Unix(1_800_000_000, 0)}
	cfg.Now = func() time.Time { return v.now }
	cfg.Logger = testutil.Discard()
	v.s = NewServer(cfg)
	return v
}

// handle gives b from from to the rendezvous and returns what it sent.
func (v *vrv) handle(b []byte, from netip.AddrPort) []sent {
	var out []sent
	v.s.Handle(b, from, func(m []byte, to netip.AddrPort) { out = append(out, sent{bytes.Clone(m), to}) })
	return out
}

// cookie returns the cookie of from (its Retry).
func (v *vrv) cookie(t testing.TB, from netip.AddrPort) Cookie {
	t.Helper()
	out := v.handle(AppendLookup(nil, &Lookup{Nonce: 1, Code: exCode}), from)
	if len(out) != 1 || Type(out[0].b) != TRetry {
		t.Fatalf("a Lookup without cookie: %d answers, want a Retry", len(out))
	}
	r, _ := ParseRetry(out[0].b)
	return r.Cookie
}

// register registers code for the host at from and returns its token.
func (v *vrv) register(t testing.TB, from netip.AddrPort, codes ...wire.RoomCode) Token {
	t.Helper()
	out := v.handle(AppendRegister(nil, &Register{Nonce: 2, Cookie: v.cookie(t, from), Codes: codes, Local: from}), from)
	if len(out) != 1 || Type(out[0].b) != TRegistered || out[0].to != from {
		t.Fatalf("Register: %d answers (%v), want a Registered", len(out), out)
	}
	m, _ := ParseRegistered(out[0].b)
	if m.Observed != from {
		t.Errorf("Registered: observed %v, want %v", m.Observed, from)
	}
	return m.HostToken
}

// lookup looks code up from from and returns the pair's token.
func (v *vrv) lookup(t testing.TB, from netip.AddrPort, code wire.RoomCode) (Peer, []sent) {
	t.Helper()
	out := v.handle(AppendLookup(nil, &Lookup{Nonce: 3, Cookie: v.cookie(t, from), Code: code}), from)
	if len(out) == 0 {
		t.Fatal("Lookup: no answer")
	}
	m, err := ParsePeer(out[0].b)
	if err != nil {
		t.Fatalf("Lookup: answered type %d, want a Peer", Type(out[0].b))
	}
	return m, out
}

var (
	hostA   = netip.MustParseAddrPort("203.0.113.10:40000")
	friendB = netip.MustParseAddrPort("203.0.113.11:50000")
	evil    = netip.MustParseAddrPort("203.0.113.66:666")
)

// TestIntroduction: a host registers, a friend looks its code up and
// gets the host's address and the pair's token, and the host is told.
func TestIntroduction(t *testing.T) {
	v := newVRV(Config{})
	v.register(t, hostA, exCode)
	p, out := v.lookup(t, friendB, exCode)
	if p.Observed != hostA || p.Local != hostA || p.You != friendB || p.Nonce != 3 {
		t.Errorf("Peer %+v", p)
	}
	if len(out) != 2 || out[1].to != hostA || Type(out[1].b) != TIntro {
		t.Fatalf("after the Peer: %v, want an Intro to the host", out[1:])
	}
	in, _ := ParseIntro(out[1].b)
	if in.Token != p.Token || in.Friend != friendB {
		t.Errorf("Intro %+v, want token %x and friend %v", in, p.Token, friendB)
	}
	// Asked again (a lost answer): the same pair.
	if p2, _ := v.lookup(t, friendB, exCode); p2.Token != p.Token {
		t.Error("a second Lookup made another pair")
	}
	other := wire.RoomCode{'Z', 'Z', 'Z', 'Z', 'Z', 'Z'}
	out = v.handle(AppendLookup(nil, &Lookup{Nonce: 4, Cookie: v.cookie(t, friendB), Code: other}), friendB)
	if e, err := ParseError(out[0].b); err != nil || e.Code != CodeUnknownRoom || e.Nonce != 4 {
		t.Errorf("Lookup of an unknown code: %v %v", e, err)
	}
	if st := v.s.Stats(); st.Hosts != 1 || st.Pairs != 1 || st.Registers != 1 || st.Lookups != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestRegistration: a refresh with the host's token keeps the code; no
// other host takes it; the code ends TTL after the last refresh; a token
// the rendezvous did not issue is refused.
func TestRegistration(t *testing.T) {
	v := newVRV(Config{})
	tok := v.register(t, hostA, exCode)
	out := v.handle(AppendRegister(nil, &Register{Nonce: 5, Cookie: v.cookie(t, evil), Codes: []wire.RoomCode{exCode}}), evil)
	if e, err := ParseError(out[0].b); err != nil || e.Code != CodeTaken {
		t.Errorf("another host registering the code: %v %v, want CodeTaken", e, err)
	}
	v.now = v.now.Add(25 * time.Second)
	out = v.handle(AppendRegister(nil, &Register{Nonce: 6, Cookie: v.cookie(t, hostA), HostToken: tok, Codes: []wire.RoomCode{exCode}}), hostA)
	if m, err := ParseRegistered(out[0].b); err != nil || m.HostToken != tok {
		t.Errorf("refresh: %+v %v", m, err)
	}
	v.now = v.now.Add(25 * time.Second) // 50 s from the first, 25 from the refresh
	v.lookup(t, friendB, exCode)
	v.now = v.now.Add(6 * time.Second) // 31 s from the refresh
	out = v.handle(AppendLookup(nil, &Lookup{Nonce: 7, Cookie: v.cookie(t, friendB), Code: exCode}), friendB)
	if e, err := ParseError(out[0].b); err != nil || e.Code != CodeUnknownRoom {
		t.Errorf("Lookup after the TTL: %v %v, want CodeUnknownRoom", e, err)
	}
	if st := v.s.Stats(); st.Hosts != 0 || st.Pairs != 0 {
		t.Errorf("after the TTL: %d hosts, %d pairs", st.Hosts, st.Pairs)
	}
	out = v.handle(AppendRegister(nil, &Register{Nonce: 8, Cookie: v.cookie(t, hostA), HostToken: tok}), hostA)
	if e, err := ParseError(out[0].b); err != nil || e.Code != CodeBadToken {
		t.Errorf("an expired token: %v %v, want CodeBadToken", e, err)
	}
}

// TestRelay: the rendezvous forwards a pair's Relays between its two
// peers only, as they came, within the pair's budget.
func TestRelay(t *testing.T) {
	v := newVRV(Config{RelayBudget: 1000})
	v.register(t, hostA, exCode)
	p, _ := v.lookup(t, friendB, exCode)
	payload := bytes.Repeat([]byte{0x40}, 300)
	m := AppendRelay(nil, p.Token, payload)
	if out := v.handle(m, friendB); len(out) != 1 || out[0].to != hostA || !bytes.Equal(out[0].b, m) {
		t.Fatalf("friend → host: %v", out)
	}
	if out := v.handle(m, hostA); len(out) != 1 || out[0].to != friendB || !bytes.Equal(out[0].b, m) {
		t.Fatalf("host → friend: %v", out)
	}
	// Not a peer of the pair, or a token not issued: nothing.
	if out := v.handle(m, evil); len(out) != 0 {
		t.Errorf("a stranger's Relay was forwarded: %v", out)
	}
	bad := p.Token
	bad[0] ^= 1
	if out := v.handle(AppendRelay(nil, bad, payload), friendB); len(out) != 0 {
		t.Errorf("a Relay of a token never issued was forwarded: %v", out)
	}
	// 600 of 1000 bytes used: 300 more pass, then none.
	if out := v.handle(m, friendB); len(out) != 1 {
		t.Error("the third Relay (900 bytes of 1000) was not forwarded")
	}
	if out := v.handle(m, hostA); len(out) != 0 {
		t.Error("a Relay beyond the budget was forwarded")
	}
	st := v.s.Stats()
	if st.RelayedPackets != 3 || st.RelayedBytes != 900 || st.OverBudget != 1 || st.Dropped != 2 {
		t.Errorf("stats %+v: want 3 packets, 900 bytes, 1 over budget, 2 dropped", st)
	}
	// The pair ends PairIdle after its last datagram.
	v.now = v.now.Add(61 * time.Second)
	v.register(t, hostA, exCode)
	if out := v.handle(AppendRelay(nil, p.Token, payload[:10]), friendB); len(out) != 0 {
		t.Error("a Relay of an idle pair was forwarded")
	}
}

// TestRates: Registers and Lookups of one address beyond their rates are
// dropped without an answer; the buckets refill with time.
func TestRates(t *testing.T) {
	v := newVRV(Config{RegisterRate: 1, RegisterBurst: 3, LookupRate: 2, LookupBurst: 4})
	answered := func(b []byte, from netip.AddrPort) (n int) {
		for range 10 {
			if len(v.handle(b, from)) > 0 {
				n++
			}
		}
		return n
	}
	reg := AppendRegister(nil, &Register{Codes: []wire.RoomCode{exCode}})
	look := AppendLookup(nil, &Lookup{Code: exCode})
	if n := answered(reg, hostA); n != 3 {
		t.Errorf("10 Registers at once: %d answered, want 3", n)
	}
	if n := answered(look, hostA); n != 4 {
		t.Errorf("10 Lookups at once: %d answered, want 4", n)
	}
	if n := answered(look, friendB); n != 4 {
		t.Errorf("another address: %d answered, want 4 (its own bucket)", n)
	}
	v.now = v.now.Add(time.Second)
	if n, m := answered(reg, hostA), answered(look, hostA); n != 1 || m != 2 {
		t.Errorf("a second later: %d Registers and %d Lookups answered, want 1 and 2", n, m)
	}
	if st := v.s.Stats(); st.RateLimited != 10*5-14 {
		t.Errorf("%d rate-limited, want %d", st.RateLimited, 10*5-14)
	}
}

// TestNoAmplification: to an address that has not proven it receives
// (no valid cookie), the rendezvous never sends more bytes than it got;
// random datagrams, requests without or with a wrong cookie, Relays and
// Punches of strangers.
func TestNoAmplification(t *testing.T) {
	v := newVRV(Config{RegisterBurst: 1 << 20, LookupBurst: 1 << 20})
	v.register(t, hostA, exCode)
	r := rand.New(rand.NewPCG(1, 2))
	var in, outBytes int
	try := func(b []byte) {
		in += len(b)
		for _, s := range v.handle(b, evil) {
			if s.to == evil {
				outBytes += len(s.b)
				if len(s.b) > len(b) {
					t.Errorf("%d bytes (type %d) answered %d bytes (type %d)", len(b), Type(b), len(s.b), Type(s.b))
				}
			} else if s.to == hostA && Type(s.b) != TIntro {
				t.Errorf("a stranger's datagram made the rendezvous send type %d to the host", Type(s.b))
			}
		}
	}
	for range 2000 {
		b := make([]byte, r.IntN(100))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if len(b) >= HeaderLen && r.IntN(2) == 0 {
			b[0], b[1], b[2], b[3] = Magic, Version, byte(r.IntN(10)), 0
		}
		try(b)
	}
	wrong := Cookie(seq(0, CookieLen))
	try(AppendLookup(nil, &Lookup{Code: exCode, Cookie: wrong}))
	try(AppendRegister(nil, &Register{Codes: []wire.RoomCode{exCode}, Cookie: wrong}))
	try(AppendRelay(nil, exToken, make([]byte, 1000)))
	try(AppendPunch(nil, exToken))
	if outBytes > in {
		t.Errorf("%d bytes in, %d out", in, outBytes)
	}
	// A Register's cookie is its address': another's does not do.
	c := v.cookie(t, friendB)
	out := v.handle(AppendRegister(nil, &Register{Cookie: c, Codes: []wire.RoomCode{exCode}}), evil)
	if len(out) != 1 || Type(out[0].b) != TRetry {
		t.Errorf("a Register with another address' cookie: %v, want a Retry", out)
	}
	// A cookie lasts one to two epochs.
	c = v.cookie(t, evil)
	v.now = v.now.Add(2 * cookieEpoch)
	if out := v.handle(AppendLookup(nil, &Lookup{Cookie: c, Code: exCode}), evil); Type(out[0].b) != TRetry {
		t.Error("a cookie two epochs old was taken")
	}
}

// TestLoopback runs the rendezvous on a UDP socket of 127.0.0.1 with a
// host and a friend of their own sockets: the host registers, the friend
// looks the code up, the host is introduced, and a datagram goes each
// way through the relay, from and to the pair's relay address.
func TestLoopback(t *testing.T) {
	srv := NewServer(Config{Logger: testutil.Logger(t)})
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(pc) }()
	defer func() {
		pc.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	rv := pc.LocalAddr().(*net.UDPAddr).AddrPort()

	hpc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	hc := ListenConn(hpc, rv)
	hc.RelayOnly = true
	defer hc.Close()
	hostAddr := hpc.LocalAddr().(*net.UDPAddr).AddrPort()
	h := NewHost(hc, HostConfig{Codes: func() []wire.RoomCode { return []wire.RoomCode{exCode} },
		CertHash: func() [HashLen]byte { return exHash }, Local: hostAddr, Logger: testutil.Logger(t)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx)
	select {
	case <-h.Registered():
	case <-time.After(testutil.Wait):
		t.Fatal("no Registered")
	}
	if h.Observed() != hostAddr {
		t.Errorf("observed %v, want %v", h.Observed(), hostAddr)
	}

	fpc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	fc := ListenConn(fpc, rv)
	defer fc.Close()
	d := &Dialer{LookupEvery: time.Hour}
	lctx, lcancel := context.WithTimeout(ctx, 30*time.Second) // a guard, not a measure
	defer lcancel()
	p, _, err := d.lookup(lctx, fc, exCode)
	if err != nil {
		t.Fatal(err)
	}
	if p.Observed != hostAddr || p.CertHash != exHash || p.You != fpc.LocalAddr().(*net.UDPAddr).AddrPort() {
		t.Errorf("Peer %+v", p)
	}
	testutil.WaitFor(t, 30*time.Second, "the host's introduction", func() bool { return h.Intros() == 1 })

	// Friend → host through the relay.
	fRelay := fc.RelayAddr(p.Token)
	if _, err := fc.WriteTo([]byte("ping"), net.UDPAddrFromAddrPort(fRelay)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, from, err := hc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("the host read %q, %v", buf[:n], err)
	}
	if got := from.(*net.UDPAddr).AddrPort(); got != hc.RelayAddr(p.Token) {
		t.Errorf("relayed from %v, want the pair's relay address %v", got, hc.RelayAddr(p.Token))
	}
	if _, err := hc.WriteTo([]byte("pong"), from); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for got == nil { // the host's punches come first, skipped by ReadFrom
		n, from, err := fc.ReadFrom(buf)
		if err != nil {
			t.Fatal(err)
		}
		if from.(*net.UDPAddr).AddrPort() == fRelay {
			got = buf[:n]
		}
	}
	if string(got) != "pong" {
		t.Errorf("the friend read %q", got)
	}
	if st := srv.Stats(); st.RelayedPackets != 2 || st.RelayedBytes != 8 {
		t.Errorf("stats %+v", st)
	}
	if hc.RelayedIn.Load() != 4 || hc.RelayedOut.Load() != 4 {
		t.Errorf("host relayed in %d out %d", hc.RelayedIn.Load(), hc.RelayedOut.Load())
	}
}

// TestSpray: the friend of a pair, from its proven address, has the host
// told once to probe its ports; nobody else can.
func TestSpray(t *testing.T) {
	v := newVRV(Config{})
	v.register(t, hostA, exCode)
	p, _ := v.lookup(t, friendB, exCode)
	if out := v.handle(AppendSpray(nil, &Spray{Nonce: 1, Token: p.Token}), friendB); len(out) != 1 || Type(out[0].b) != TRetry {
		t.Fatalf("a Spray without cookie: %v, want a Retry", out)
	}
	if out := v.handle(AppendSpray(nil, &Spray{Nonce: 1, Cookie: v.cookie(t, evil), Token: p.Token}), evil); len(out) != 0 {
		t.Errorf("a stranger's Spray: %v", out)
	}
	sp := AppendSpray(nil, &Spray{Nonce: 2, Cookie: v.cookie(t, friendB), Token: p.Token})
	out := v.handle(sp, friendB)
	if len(out) != 1 || out[0].to != hostA || Type(out[0].b) != TProbe {
		t.Fatalf("the friend's Spray: %v, want a Probe to the host", out)
	}
	m, _ := ParseProbe(out[0].b)
	if m.Token != p.Token || m.Friend != friendB.Addr() || m.Count != SprayPorts {
		t.Errorf("Probe %+v", m)
	}
	if out := v.handle(sp, friendB); len(out) != 0 {
		t.Errorf("a second Spray of the pair: %v", out)
	}
	if st := v.s.Stats(); st.Probes != 1 {
		t.Errorf("%d probes, want 1", st.Probes)
	}
}

// TestOpen: the friend of a pair has the host told once to open sockets
// toward its address; a Spray of the same pair is another matter.
func TestOpen(t *testing.T) {
	v := newVRV(Config{})
	v.register(t, hostA, exCode)
	p, _ := v.lookup(t, friendB, exCode)
	op := AppendOpen(nil, &Spray{Nonce: 2, Cookie: v.cookie(t, friendB), Token: p.Token})
	out := v.handle(op, friendB)
	if len(out) != 1 || out[0].to != hostA || Type(out[0].b) != TReach {
		t.Fatalf("the friend's Open: %v, want a Reach to the host", out)
	}
	m, _ := ParseReach(out[0].b)
	if m.Token != p.Token || m.Friend != friendB || m.Count != SpraySockets {
		t.Errorf("Reach %+v", m)
	}
	if out := v.handle(op, friendB); len(out) != 0 {
		t.Errorf("a second Open: %v", out)
	}
	if out := v.handle(AppendOpen(nil, &Spray{Nonce: 3, Cookie: v.cookie(t, evil), Token: p.Token}), evil); len(out) != 0 {
		t.Errorf("a stranger's Open: %v", out)
	}
	sp := AppendSpray(nil, &Spray{Nonce: 4, Cookie: v.cookie(t, friendB), Token: p.Token})
	if out := v.handle(sp, friendB); len(out) != 1 || Type(out[0].b) != TProbe {
		t.Errorf("a Spray after the Open: %v, want a Probe", out)
	}
}

// TestAddSocket: a socket added to a host's Conn takes a peer that sends
// it a Punch of the pair (answered by one), then queues the peer's
// datagrams and carries what is written to it; strangers are dropped.
func TestAddSocket(t *testing.T) {
	rv := netip.MustParseAddrPort("127.0.0.1:9")
	c := NewConn(func([]byte, netip.AddrPort) error { return nil }, nil, rv, nil)
	c.RelayOnly = true
	defer c.Close()
	c.RelayAddr(exToken)
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	c.AddSocket(pc, exToken)
	to := pc.LocalAddr().(*net.UDPAddr).AddrPort()
	peer, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	peer.SetDeadline(time.Now().Add(testutil.Wait)) // a guard
	peer.WriteToUDPAddrPort([]byte{0x40, 1, 2}, to) // before its Punch: dropped
	other := exToken
	other[0]++
	peer.WriteToUDPAddrPort(AppendPunch(nil, other), to) // another pair's: dropped
	peer.WriteToUDPAddrPort(AppendPunch(nil, exToken), to)
	buf := make([]byte, 100)
	n, from, err := peer.ReadFromUDPAddrPort(buf)
	if err != nil || from != to || Type(buf[:n]) != TPunch {
		t.Fatalf("the answer: %x from %v, %v", buf[:n], from, err)
	}
	peer.WriteToUDPAddrPort([]byte{0x40, 7}, to)
	n, a, err := c.ReadFrom(buf)
	pa := peer.LocalAddr().(*net.UDPAddr).AddrPort()
	if err != nil || !bytes.Equal(buf[:n], []byte{0x40, 7}) || a.(*net.UDPAddr).AddrPort() != pa {
		t.Fatalf("ReadFrom: %x from %v, %v", buf[:n], a, err)
	}
	if _, err := c.WriteTo([]byte{0x40, 8}, net.UDPAddrFromAddrPort(pa)); err != nil {
		t.Fatal(err)
	}
	if n, _, err := peer.ReadFromUDPAddrPort(buf); err != nil || !bytes.Equal(buf[:n], []byte{0x40, 8}) {
		t.Fatalf("the peer read %x, %v", buf[:n], err)
	}
	if d := c.Dropped.Load(); d != 2 {
		t.Errorf("%d dropped, want 2", d)
	}
	// Pruning: kept while its peer talks, closed when it went quiet.
	now := time.Now()
	c.PruneSockets(now, time.Second, time.Minute)
	if _, err := c.WriteTo([]byte{0x40, 9}, net.UDPAddrFromAddrPort(pa)); err != nil {
		t.Errorf("after a prune within idle: %v", err)
	}
	c.PruneSockets(now.Add(2*time.Minute), time.Second, time.Minute)
	if _, err := pc.WriteToUDPAddrPort([]byte{1}, pa); err == nil {
		t.Error("the idle socket is still open")
	}
}

// BenchmarkRelay measures the rendezvous' work per relayed datagram (a
// 1200-byte QUIC packet), sending excluded.
func BenchmarkRelay(b *testing.B) {
	v := newVRV(Config{RelayBudget: 1 << 62})
	v.register(b, hostA, exCode)
	p, _ := v.lookup(b, friendB, exCode)
	m := AppendRelay(nil, p.Token, make([]byte, 1200))
	sent := 0
	send := func([]byte, netip.AddrPort) { sent++ }
	b.SetBytes(int64(len(m)))
	b.ReportAllocs()
	for b.Loop() {
		v.s.Handle(m, friendB, send)
	}
	if sent != b.N {
		b.Fatalf("%d relayed of %d", sent, b.N)
	}
}
