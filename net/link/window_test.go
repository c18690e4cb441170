package link

import (
	"math/rand/v2"
	"testing"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// windowModel is the reference for 5.1, on unwrapped sequence numbers.
type windowModel struct {
	has      bool
	newest   int64
	recorded map[int64]bool
}

// unwrap places seq relative to the newest recorded, with the newer-than
// rule of 2.2.
func (m *windowModel) unwrap(seq uint16) int64 {
	n := uint16(m.newest)
	if wire.SeqNewer(seq, n) {
		return m.newest + int64(seq-n)
	}
	return m.newest - int64(n-seq)
}

func (m *windowModel) seen(seq uint16) bool {
	if !m.has {
		return false
	}
	u := m.unwrap(seq)
	if u > m.newest {
		return false
	}
	if m.newest-u >= RecvWindow {
		return true
	}
	return m.recorded[u]
}

func (m *windowModel) record(seq uint16) {
	if !m.has {
		m.has, m.newest, m.recorded = true, int64(seq)+1<<20, map[int64]bool{int64(seq) + 1<<20: true}
		return
	}
	u := m.unwrap(seq)
	m.recorded[u] = true
	if u > m.newest {
		m.newest = u
	}
}

func (m *windowModel) ack() (uint16, uint32) {
	if !m.has {
		return 0xFFFF, 0
	}
	var bits uint32
	for i := 0; i < 32; i++ {
		if m.recorded[m.newest-1-int64(i)] {
			bits |= 1 << i
		}
	}
	return uint16(m.newest), bits
}

func TestAckBeforeAnything(t *testing.T) {
	l := New(testSession, t0)
	b, seq := l.AppendDatagram(nil, wire.TypeAck, nil, t0)
	h, p := linktest.MustParse(t, b, wire.ToServer)
	if seq != 0 || h.Seq != 0 || h.Ack != 0xFFFF || h.AckBits != 0 || h.Session != testSession || h.Type != wire.TypeAck || len(p) != 0 {
		t.Fatalf("first datagram: seq %d header %+v payload %d bytes; want seq 0, ack 65535, bits 0", seq, h, len(p))
	}
	for _, s := range []uint16{0, 1, 255, 256, 32768, 65535} {
		if l.Seen(s) {
			t.Errorf("Seen(%d) before anything was accepted", s)
		}
	}
}

func TestSequencesNumberFromZeroAndWrap(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < 70000; i++ {
		if seq := sendOne(l, t0); seq != uint16(i) {
			t.Fatalf("datagram %d has sequence %d", i, seq)
		}
	}
}

func TestAckBitsMeaning(t *testing.T) {
	l := New(testSession, t0)
	for _, s := range []uint16{100, 99, 97, 68, 67, 66} { // 100-1-i for i = 0, 2, 31, 32, 33
		l.Accept(linktest.PeerHeader(wire.TypeAck, s, 0xFFFF, 0), wire.HeaderSize, t0)
	}
	b, _ := l.AppendDatagram(nil, wire.TypeAck, nil, t0)
	h, _ := linktest.MustParse(t, b, wire.ToServer)
	want := uint32(1<<0 | 1<<2 | 1<<31)
	if h.Ack != 100 || h.AckBits != want {
		t.Fatalf("ack %d bits %032b, want 100 %032b", h.Ack, h.AckBits, want)
	}
	// 68, 67 and 66 are beyond the 33 the header carries but still known.
	for _, s := range []uint16{100, 99, 97, 68, 67, 66} {
		if !l.Seen(s) {
			t.Errorf("Seen(%d) = false after Accept", s)
		}
	}
	for _, s := range []uint16{98, 96, 69, 65, 101} {
		if l.Seen(s) {
			t.Errorf("Seen(%d) = true, never accepted", s)
		}
	}
}

func TestDuplicatesAndOutOfOrder(t *testing.T) {
	l := New(testSession, t0)
	accept := func(s uint16) {
		t.Helper()
		if l.Seen(s) {
			t.Fatalf("Seen(%d) before it was accepted", s)
		}
		l.Accept(linktest.PeerHeader(wire.TypeAck, s, 0xFFFF, 0), wire.HeaderSize, t0)
		if !l.Seen(s) {
			t.Fatalf("Seen(%d) = false after Accept", s)
		}
	}
	accept(10)
	accept(12) // 11 missing
	accept(9)  // late
	accept(11) // late, fills the hole
	if a, b := ackFields(t, l); a != 12 || b != 0b111 {
		t.Fatalf("ack %d bits %b, want 12 and 111", a, b)
	}
	// Accepting a duplicate anyway changes nothing.
	l.Accept(linktest.PeerHeader(wire.TypeAck, 11, 0xFFFF, 0), wire.HeaderSize, t0)
	if a, b := ackFields(t, l); a != 12 || b != 0b111 {
		t.Fatalf("after a duplicate: ack %d bits %b", a, b)
	}
	// 256 or more older than the newest: a duplicate, never accepted.
	accept(312) // newest
	if l.Seen(312 - 255) {
		t.Errorf("312-255 never accepted but Seen")
	}
	if !l.Seen(312 - 256) {
		t.Errorf("312-256 is 256 older than the newest: must be a duplicate")
	}
	if !l.Seen(65535 - 700) {
		t.Errorf("65535-700 (1013 older) must be a duplicate")
	}
}

func TestWrapAround(t *testing.T) {
	l := New(testSession, t0)
	for _, s := range []uint16{65533, 65535, 0, 2} {
		l.Accept(linktest.PeerHeader(wire.TypeAck, s, 0xFFFF, 0), wire.HeaderSize, t0)
	}
	// Newest 2; received 0 (i=1), 65535 (i=2), 65533 (i=4).
	if a, b := ackFields(t, l); a != 2 || b != 0b10110 {
		t.Fatalf("ack %d bits %b, want 2 and 10110", a, b)
	}
	for s, want := range map[uint16]bool{65533: true, 65534: false, 65535: true, 0: true, 1: false, 2: true, 3: false} {
		if got := l.Seen(s); got != want {
			t.Errorf("Seen(%d) = %v, want %v", s, got, want)
		}
	}
	// 65535 - 253 = 65282 is 256 older than 2: duplicate; 65283 is not.
	if !l.Seen(65282) || l.Seen(65283) {
		t.Errorf("window edge across the wrap: Seen(65282)=%v Seen(65283)=%v", l.Seen(65282), l.Seen(65283))
	}
}

func TestWindowShifts(t *testing.T) {
	for _, base := range []uint16{0, 1000, 65500} {
		for _, d := range []int{1, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 1000, 32767, 32768} {
			var w recvWindow
			m := &windowModel{}
			// A full window below base, with holes, so every word is
			// populated.
			for k := 300; k >= 0; k-- {
				if k%3 != 1 {
					s := base - uint16(k)
					w.record(s)
					m.record(s)
				}
			}
			next := base + uint16(d)
			if w.seen(next) != m.seen(next) {
				t.Fatalf("base %d shift %d: seen(next) = %v, model %v", base, d, w.seen(next), m.seen(next))
			}
			w.record(next)
			m.record(next)
			checkWindow(t, &w, m, next)
		}
	}
}

// TestShiftBy40000: a sequence 40000 ahead is, by 2.2, 25536 behind: a
// duplicate. The window moves 40000 only in steps of at most 32768.
func TestShiftBy40000(t *testing.T) {
	l := New(testSession, t0)
	l.Accept(linktest.PeerHeader(wire.TypeAck, 5, 0xFFFF, 0), wire.HeaderSize, t0)
	l.Accept(linktest.PeerHeader(wire.TypeAck, 4, 0xFFFF, 0), wire.HeaderSize, t0)
	if !l.Seen(5 + 40000) {
		t.Fatalf("5+40000 is older than 5 by 25536: must be a duplicate")
	}
	var w recvWindow
	m := &windowModel{}
	for _, s := range []uint16{5, 4, 5 + 20000, 5 + 40000, 5 + 40000 - 1, 5 + 40000 - 33} {
		w.record(s)
		m.record(s)
		checkWindow(t, &w, m, s)
	}
	// 40004 is bit 0; 40005-33 is bit 32, beyond the header.
	if a, b := w.ack(); a != 40005 || b != 1 {
		t.Fatalf("after shifting by 40000: ack %d bits %b, want 40005 and 1", a, b)
	}
}

// checkWindow compares w with the model around the newest sequence and
// everywhere else.
func checkWindow(t *testing.T, w *recvWindow, m *windowModel, last uint16) {
	t.Helper()
	wa, wb := w.ack()
	ma, mb := m.ack()
	if wa != ma || wb != mb {
		t.Fatalf("after %d: ack %d bits %032b, model %d %032b", last, wa, wb, ma, mb)
	}
	n := wa
	for k := -300; k <= 300; k++ {
		s := n + uint16(k)
		if w.seen(s) != m.seen(s) {
			t.Fatalf("after %d: seen(%d) = %v, model %v", last, s, w.seen(s), m.seen(s))
		}
	}
}

func TestWindowMatchesModel(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		var w recvWindow
		m := &windowModel{}
		next := uint16(r.IntN(65536))
		for step := 0; step < 3000; step++ {
			var s uint16
			switch x := r.IntN(100); {
			case x < 60:
				s = next
				next++
			case x < 80: // late
				s = next - uint16(1+r.IntN(300))
			case x < 90: // duplicate or near
				s = next - uint16(r.IntN(3))
			case x < 97: // jump ahead
				next += uint16(r.IntN(400))
				s = next
			default: // anything
				s = uint16(r.IntN(65536))
			}
			if got, want := w.seen(s), m.seen(s); got != want {
				t.Fatalf("seed %d step %d: seen(%d) = %v, model %v", seed, step, s, got, want)
			}
			if !m.seen(s) {
				w.record(s)
				m.record(s)
			}
			a, b := m.ack()
			if wire.SeqNewer(a, next) {
				next = a + 1
			}
			if wa, wb := w.ack(); wa != a || wb != b {
				t.Fatalf("seed %d step %d: ack %d bits %032b, model %d %032b", seed, step, wa, wb, a, b)
			}
			if step%64 == 0 {
				checkWindow(t, &w, m, s)
			}
		}
	}
}

// TestAcceptThroughHeaders checks the window through Link and the bytes of
// the header, as the peer reads them.
func TestAcceptThroughHeaders(t *testing.T) {
	l := New(testSession, t0)
	m := &windowModel{}
	r := rand.New(rand.NewPCG(7, 7))
	next := uint16(65000)
	for i := 0; i < 2000; i++ {
		s := next
		if r.IntN(4) == 0 {
			s -= uint16(r.IntN(40))
		} else {
			next += uint16(1 + r.IntN(3))
		}
		if l.Seen(s) != m.seen(s) {
			t.Fatalf("Seen(%d) = %v, model %v", s, l.Seen(s), m.seen(s))
		}
		if !l.Seen(s) {
			l.Accept(linktest.PeerHeader(wire.TypeEvent, s, 0xFFFF, 0), 40, t0)
			m.record(s)
		}
		b, _ := l.AppendDatagram(nil, wire.TypeAck, nil, t0)
		h, _ := linktest.MustParse(t, b, wire.ToServer)
		ma, mb := m.ack()
		if h.Ack != ma || h.AckBits != mb {
			t.Fatalf("header ack %d bits %032b, model %d %032b", h.Ack, h.AckBits, ma, mb)
		}
	}
}
