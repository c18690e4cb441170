package wirecount

import (
	"net"
	"testing"
	"time"
)

// TestRelayCounts relays datagrams to a UDP echo on loopback: each way,
// every datagram counts once with its 28 bytes of IPv4 and UDP.
func TestRelayCounts(t *testing.T) {
	echo, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := echo.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			echo.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	r, err := New(echo.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("udp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 2048)
	for _, n := range []int{10, 100, 1200} {
		if _, err := c.Write(make([]byte, n)); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Read(buf); err != nil || got != n {
			t.Fatalf("echo of %d bytes: %d, %v", n, got, err)
		}
	}
	want := Counts{DownB: 1310 + 3*IPUDP, UpB: 1310 + 3*IPUDP, DownPk: 3, UpPk: 3}
	if got := r.Counts(); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
	if got := r.Counts().Sub(Counts{DownB: 38, UpB: 38, DownPk: 1, UpPk: 1}); got.DownPk != 2 || got.UpB != 1300+2*IPUDP {
		t.Errorf("Sub: %+v", got)
	}
}
