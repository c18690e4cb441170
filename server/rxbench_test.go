package server

import (
	"encoding/binary"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// BenchmarkReceiveInputs is the read loop's handling of v2 Inputs, per
// datagram, without the socket: batches of 64 Inputs of 64 bound sessions
// (16 games), as recvmmsg hands them over, through receiveOrQueue (the
// session lookup, the header's checks, the input steps, the link's
// acknowledgements, the lock). What the kernel costs is apart
// (BENCHMARKS.md, players per core).
//
//	go test -run '^$' -bench '^BenchmarkReceiveInputs$' -benchmem ./server/
func BenchmarkReceiveInputs(b *testing.B) {
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	cfg.SessionTimeout = time.Hour
	cfg.MaxGames, cfg.MaxSessions = 64, 256
	cfg.Logger = slog.New(slog.DiscardHandler)
	s := startServer(b, cfg)
	const n = 64
	cs := make([]*tclient2, n)
	addrs := make([]netip.AddrPort, n)
	for i := range cs {
		cs[i] = join2(b, s, "Bench"+strconv.Itoa(i))
		cs[i].keepAlive = false
		a := cs[i].udp.LocalAddr().(*net.UDPAddr).AddrPort()
		addrs[i] = netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
	}
	// Enough batches that no Input is a duplicate of one handled before
	// (5.1): a session's sequence numbers wrap at 65536.
	const batches = 512
	ds := make([][]datagram, batches)
	for k := range ds {
		ds[k] = make([]datagram, n)
		for i, c := range cs {
			in := wire2.Input{Step: c.step, Count: 1}
			in.Actions[0] = wire.ActionFire
			c.step++
			ds[k][i] = datagram{b: c.datagram(wire.TypeInput, wire2.AppendInput(nil, &in)), addr: addrs[i]}
		}
	}
	var rd reader
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%batches == 0 {
			// The next round: every sequence and step after the last
			// round's (7.2: seq at offset 6; 7.4: step at 20).
			b.StopTimer()
			for _, batch := range ds {
				for _, d := range batch {
					binary.LittleEndian.PutUint16(d.b[6:], binary.LittleEndian.Uint16(d.b[6:])+batches)
					binary.LittleEndian.PutUint32(d.b[20:], binary.LittleEndian.Uint32(d.b[20:])+batches)
				}
			}
			b.StartTimer()
		}
		s.in.receiveOrQueue(&rd, ds[i%batches], time.Now())
	}
	if st := s.Metrics(); st.Dropped[DropStale] > 0 {
		b.Fatalf("%d datagrams dropped as stale: the benchmark measured the wrong path", st.Dropped[DropStale])
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/datagram")
}
