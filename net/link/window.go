// Package link is the machinery both ends of a session share (PROTOCOL.md
// sections 4.8 and 5): datagram sequencing and acknowledgement, round-trip
// time and loss, reliable events with exactly-once delivery, and, for
// version 1, the server's history of snapshots sent to a client with its
// choice of baseline, and the client's rebuilding of snapshots from their
// baselines.
//
// A Link made by New speaks version 1 (Part I of PROTOCOL.md); one made by
// NewV2 speaks version 2 (Part II: the 20-byte header with ack_delay and
// round trips without it, 7.2; 32-bit event ids, 7.7), through the same
// methods. A Link tells its Baselines of the snapshots it sends and the peer acknowledges:
// a History here, package link2's History in a v2 session, whose
// snapshots (7.8, 7.9) are package link2's.
//
// Nothing here touches a socket or a clock: callers pass the time and the
// bytes, so tests drive every rule step by step. A Link is not safe for
// concurrent use; its owner serializes calls.
package link

import "rtype/net/wire"

// RecvWindow is the number of sequences a receiver remembers (5.1).
const RecvWindow = 256

// recvWindow records the sequences of accepted datagrams (5.1).
type recvWindow struct {
	has    bool
	newest uint16
	bits   [RecvWindow / 64]uint64 // bit i: newest-i recorded
}

// seen reports whether seq is a duplicate: recorded already, or RecvWindow
// or more older than the newest recorded.
func (w *recvWindow) seen(seq uint16) bool {
	if !w.has || wire.SeqNewer(seq, w.newest) {
		return false
	}
	d := int(w.newest - seq)
	if d >= RecvWindow {
		return true
	}
	return w.bits[d>>6]&(1<<(d&63)) != 0
}

// record marks seq as accepted.
func (w *recvWindow) record(seq uint16) {
	if !w.has {
		w.has, w.newest, w.bits = true, seq, [RecvWindow / 64]uint64{1}
		return
	}
	if wire.SeqNewer(seq, w.newest) {
		w.shift(int(seq - w.newest))
		w.newest = seq
		w.bits[0] |= 1
		return
	}
	if d := int(w.newest - seq); d < RecvWindow {
		w.bits[d>>6] |= 1 << (d & 63)
	}
}

// shift moves the window up by d sequences.
func (w *recvWindow) shift(d int) {
	if d >= RecvWindow {
		w.bits = [RecvWindow / 64]uint64{}
		return
	}
	words, bits := d/64, uint(d%64)
	for i := len(w.bits) - 1; i >= 0; i-- {
		var v uint64
		if j := i - words; j >= 0 {
			v = w.bits[j] << bits
			if bits > 0 && j > 0 {
				v |= w.bits[j-1] >> (64 - bits)
			}
		}
		w.bits[i] = v
	}
}

// ack returns the ack and ack_bits fields for a datagram to the peer:
// 65535 and 0 before anything was recorded.
func (w *recvWindow) ack() (uint16, uint32) {
	if !w.has {
		return 0xFFFF, 0
	}
	return w.newest, uint32(w.bits[0] >> 1) // bit i: newest-1-i
}
