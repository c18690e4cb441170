//go:build linux

package load

import (
	"net"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// TestPolledConn: a polled socket (outside the runtime's poller) sends
// in a batch, and poll returns what it holds without waiting: none when
// empty, every datagram sent to it in order otherwise.
func TestPolledConn(t *testing.T) {
	peer, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	b, err := newPolledConn(peer.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if ds := b.poll(); len(ds) != 0 {
		t.Fatalf("an empty socket polled %d datagrams", len(ds))
	}
	b.write([][]byte{[]byte("one"), []byte("two")})
	peer.SetReadDeadline(time.Now().Add(testutil.Wait))
	var buf [64]byte
	var from *net.UDPAddr
	for _, want := range []string{"one", "two"} {
		n, a, err := peer.ReadFromUDP(buf[:])
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("the peer read %q, %v; want %q", buf[:n], err, want)
		}
		from = a
	}
	const k = 5
	for i := range k {
		if _, err := peer.WriteToUDP([]byte{byte(i)}, from); err != nil {
			t.Fatal(err)
		}
	}
	var got []byte
	for deadline := time.Now().Add(testutil.Wait); len(got) < k && time.Now().Before(deadline); {
		for _, d := range b.poll() {
			got = append(got, d...)
		}
	}
	if string(got) != "\x00\x01\x02\x03\x04" {
		t.Fatalf("polled %v, want the %d datagrams in order", got, k)
	}
}
