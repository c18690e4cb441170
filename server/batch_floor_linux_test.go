//go:build linux

package server

import (
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkLoopbackFloor measures what the kernel alone costs the server
// per datagram on loopback, through the server's own batched calls: the
// floor under the players-per-core figure (rtype-bench, section 6), which
// no change of the server's own code can go below. Sizes and batches are
// those the bench reads at 1,000 players: Snapshots of 174 bytes sent 54
// to a sendmmsg, to 63 sockets (the load generator's, 16 sessions each),
// and Inputs of 32 bytes read 48 to a recvmmsg.
//
// Only the server's calls are timed (send-ns/datagram, recv-ns/datagram):
// on loopback the sender's call also delivers into the receiver's socket,
// so that a send costs the server what a NIC's driver and the peer's
// machine would take over on a network.
func BenchmarkLoopbackFloor(b *testing.B) {
	b.Run("send", func(b *testing.B) {
		_, o, _, _ := loopbackBatch(b)
		const peers, batch, size = 63, 54, 174
		var fds [peers]int
		var to [peers]netip.AddrPort
		for i := range fds {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { unix.Close(fd) })
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
			if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
				b.Fatal(err)
			}
			sa, err := unix.Getsockname(fd)
			if err != nil {
				b.Fatal(err)
			}
			fds[i], to[i] = fd, netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(sa.(*unix.SockaddrInet4).Port))
		}
		p := make([]byte, size)
		drain := make([]byte, 2048)
		var spent time.Duration
		k := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for range batch {
				o.add(p, to[k%peers])
				k++
			}
			t := time.Now()
			o.flush()
			spent += time.Since(t)
			if i%4 == 3 { // 3.4 datagrams a socket: within its buffer
				for _, fd := range fds {
					for {
						if _, _, err := unix.Recvfrom(fd, drain, 0); err != nil {
							break
						}
					}
				}
			}
		}
		if got := o.w.stats.datagrams.Load(); got != uint64(b.N*batch) {
			b.Fatalf("%d datagrams sent, want %d", got, b.N*batch)
		}
		b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N*batch), "send-ns/datagram")
	})
	b.Run("recv", func(b *testing.B) {
		r, o, to, _ := loopbackBatch(b)
		const batch, size = 48, 32
		p := make([]byte, size)
		var spent time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for range batch {
				o.add(p, to)
			}
			o.flush()
			t := time.Now()
			for got := 0; got < batch; {
				ds, err := r.read()
				if err != nil {
					b.Fatal(err)
				}
				got += len(ds)
			}
			spent += time.Since(t)
		}
		b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N*batch), "recv-ns/datagram")
	})
}
