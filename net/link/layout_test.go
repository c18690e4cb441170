package link

import (
	"testing"
	"unsafe"
)

// TestLinkLayout checks what the Link's field order is for: the fields
// written once, those every datagram received writes and those every
// datagram sent writes each in cache lines of their own, the first two
// groups in the first four lines, and each entry of the ring of sent
// datagrams one line of its own.
func TestLinkLayout(t *testing.T) {
	var l Link
	const line = 64
	type field struct {
		name      string
		off, size uintptr
	}
	groups := [][]field{
		{ // written once
			{"Session", unsafe.Offsetof(l.Session), unsafe.Sizeof(l.Session)},
			{"History", unsafe.Offsetof(l.History), unsafe.Sizeof(l.History)},
			{"History2", unsafe.Offsetof(l.History2), unsafe.Sizeof(l.History2)},
			{"v2", unsafe.Offsetof(l.v2), unsafe.Sizeof(l.v2)},
			{"out", unsafe.Offsetof(l.out), unsafe.Sizeof(l.out)},
		},
		{ // by the datagrams received
			{"recv", unsafe.Offsetof(l.recv), unsafe.Sizeof(l.recv)},
			{"peerAck", unsafe.Offsetof(l.peerAck), unsafe.Sizeof(l.peerAck)},
			{"peerAckBits", unsafe.Offsetof(l.peerAckBits), unsafe.Sizeof(l.peerAckBits)},
			{"lastRecv", unsafe.Offsetof(l.lastRecv), unsafe.Sizeof(l.lastRecv)},
			{"ackArrived", unsafe.Offsetof(l.ackArrived), unsafe.Sizeof(l.ackArrived)},
			{"srtt", unsafe.Offsetof(l.srtt), unsafe.Sizeof(l.srtt)},
			{"recvStats", unsafe.Offsetof(l.recvStats), unsafe.Sizeof(l.recvStats)},
		},
		{ // by the datagrams sent
			{"next", unsafe.Offsetof(l.next), unsafe.Sizeof(l.next)},
			{"tail", unsafe.Offsetof(l.tail), unsafe.Sizeof(l.tail)},
			{"sendStats", unsafe.Offsetof(l.sendStats), unsafe.Sizeof(l.sendStats)},
		},
	}
	lines := func(g []field) (lo, hi uintptr) {
		lo = ^uintptr(0)
		for _, f := range g {
			lo, hi = min(lo, f.off/line), max(hi, (f.off+f.size-1)/line)
		}
		return lo, hi
	}
	prev := -1
	for i, g := range groups {
		lo, hi := lines(g)
		if int(lo) <= prev {
			t.Errorf("group %d (%s...) starts in line %d, which the group before uses", i, g[0].name, lo)
		}
		prev = int(hi)
	}
	if _, hi := lines(groups[1]); hi >= 4 {
		t.Errorf("the fields of the datagrams received end in line %d, past the first four", hi)
	}
	if off, size := unsafe.Offsetof(l.ring), unsafe.Sizeof(l.ring[0]); off%line != 0 || line%size != 0 {
		t.Errorf("Link.ring at byte %d, entries of %d bytes: an entry spans two cache lines", off, size)
	}
}
