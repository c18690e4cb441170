package link

import (
	"testing"
	"unsafe"
)

// TestLinkLayout checks what the Link's field order is for: the fields
// that every datagram in and out touches share its first two cache lines,
// and each entry of its ring of sent datagrams is one line of its own.
func TestLinkLayout(t *testing.T) {
	var l Link
	const line = 64
	for name, end := range map[string]uintptr{
		"recv":       unsafe.Offsetof(l.recv) + unsafe.Sizeof(l.recv),
		"v2":         unsafe.Offsetof(l.v2) + unsafe.Sizeof(l.v2),
		"next":       unsafe.Offsetof(l.next) + unsafe.Sizeof(l.next),
		"peerAck":    unsafe.Offsetof(l.peerAckHas) + unsafe.Sizeof(l.peerAckHas),
		"lastRecv":   unsafe.Offsetof(l.lastRecv) + unsafe.Sizeof(l.lastRecv),
		"ackArrived": unsafe.Offsetof(l.ackArrived) + unsafe.Sizeof(l.ackArrived),
	} {
		if end > 2*line {
			t.Errorf("Link.%s ends at byte %d, past the first two cache lines", name, end)
		}
	}
	if off, size := unsafe.Offsetof(l.ring), unsafe.Sizeof(l.ring[0]); off%line != 0 || line%size != 0 {
		t.Errorf("Link.ring at byte %d, entries of %d bytes: an entry spans two cache lines", off, size)
	}
}
