package link

import (
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

func TestPeerAcksMarkRing(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < 40; i++ {
		sendOne(l, at(i))
	}
	// The peer received 39 (ack), 38 (bit 0), 36 (bit 2) and 7 (bit 31).
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, 39, 1|1<<2|1<<31), wire.HeaderSize, at(100))
	for i := 0; i < 40; i++ {
		want := i == 39 || i == 38 || i == 36 || i == 7
		if got := l.ring[i].acked; got != want {
			t.Errorf("datagram %d acked = %v, want %v", i, got, want)
		}
	}
	if st := l.Stats(); st.Acked != 4 {
		t.Errorf("Stats.Acked = %d, want 4", st.Acked)
	}
	// The same acknowledgements again count nothing new.
	l.Accept(linktest.PeerHeader(wire.TypeAck, 1, 39, 1|1<<2|1<<31), wire.HeaderSize, at(200))
	if st := l.Stats(); st.Acked != 4 {
		t.Errorf("Stats.Acked = %d after repeated acks, want 4", st.Acked)
	}
}

func TestPeerAcksAcrossWrap(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < 65534; i++ {
		sendOne(l, t0)
	}
	// 65534, 65535, 0, 1.
	for i := 0; i < 4; i++ {
		sendOne(l, at(1000))
	}
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, 1, 1|1<<1|1<<2), wire.HeaderSize, at(1100))
	for _, s := range []uint16{65534, 65535, 0, 1} {
		if e := l.ring[s%sentRing]; e.seq != s || !e.acked {
			t.Errorf("datagram %d: ring entry seq %d acked %v", s, e.seq, e.acked)
		}
	}
	if rtt, ok := l.RTT(); !ok || rtt != 100*time.Millisecond {
		t.Errorf("RTT = %v %v, want 100ms", rtt, ok)
	}
}

func TestInitialAckMeansNothing(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < 10; i++ {
		sendOne(l, t0)
	}
	// A peer that recorded nothing yet sends ack 65535 and bits 0.
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, 0xFFFF, 0), wire.HeaderSize, at(50))
	if st := l.Stats(); st.Acked != 0 {
		t.Errorf("Acked = %d after ack 65535 bits 0", st.Acked)
	}
	if _, ok := l.RTT(); ok {
		t.Errorf("an RTT sample from ack 65535")
	}
}

func TestRTTFirstSampleThenSmoothing(t *testing.T) {
	l := New(testSession, t0)
	if _, ok := l.RTT(); ok {
		t.Fatalf("RTT before any sample")
	}
	s0 := sendOne(l, at(0))
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, s0, 0), wire.HeaderSize, at(200))
	if rtt, ok := l.RTT(); !ok || rtt != 200*time.Millisecond {
		t.Fatalf("first sample: RTT = %v %v, want 200ms", rtt, ok)
	}
	// A later ack of the same datagram is no sample.
	l.Accept(linktest.PeerHeader(wire.TypeAck, 1, s0, 0), wire.HeaderSize, at(900))
	if rtt, _ := l.RTT(); rtt != 200*time.Millisecond {
		t.Fatalf("a second ack of one datagram changed RTT to %v", rtt)
	}
	want := 200 * time.Millisecond
	for k, sample := range []time.Duration{100, 300, 50, 50, 1000} {
		sample *= time.Millisecond
		sentAt := at(1000 * (k + 1))
		s := sendOne(l, sentAt)
		l.Accept(linktest.PeerHeader(wire.TypeAck, uint16(2+k), s, 0), wire.HeaderSize, sentAt.Add(sample))
		want = want + (sample-want)/10
		if rtt, _ := l.RTT(); rtt != want {
			t.Fatalf("after sample %v: RTT = %v, want %v", sample, rtt, want)
		}
	}
	// 200 -> 190 -> 201 -> 185.9 -> 172.31 -> 255.079 ms
	if want != 255079*time.Microsecond {
		t.Fatalf("smoothing arithmetic: %v", want)
	}
}

// TestRTTPerDatagram: one header acknowledging several datagrams gives one
// sample each, measured from its own sending.
func TestRTTPerDatagram(t *testing.T) {
	l := New(testSession, t0)
	sendOne(l, at(0))   // 0
	sendOne(l, at(100)) // 1
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, 1, 1), wire.HeaderSize, at(300))
	// 1 first (200 ms), then 0 (300 ms): 200 + (300-200)/10 = 210 ms.
	if rtt, _ := l.RTT(); rtt != 210*time.Millisecond {
		t.Fatalf("RTT = %v, want 210ms", rtt)
	}
}

func TestLossWindow(t *testing.T) {
	l := New(testSession, t0)
	if got := l.Loss(at(5000)); got != 0 {
		t.Fatalf("Loss with nothing sent = %v", got)
	}
	// 10 datagrams at 0..900 ms; the peer acknowledges 7 of them.
	for i := 0; i < 10; i++ {
		sendOne(l, at(100*i))
	}
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, 9, 0b1011111), wire.HeaderSize, at(1000)) // 9, 8..2 but 3
	// Acked: 9, 8, 7, 6, 5, 4, 2 => lost 3, 1, 0.
	for _, tc := range []struct {
		now  int
		want float64
	}{
		{500, 0},        // all younger than 1 s
		{1000, 1},       // only 0, exactly 1 s old: lost
		{1450, 3.0 / 5}, // 0..4: 0, 1 and 3 lost
		{2900, 3.0 / 10},
		{3000, 3.0 / 10}, // 0 exactly 3 s old still counts
		{3050, 2.0 / 9},  // 0 is older than 3 s: 1 and 3 lost of 1..9
		{4000, 0},        // 9 is 3.1 s old: none in the window
	} {
		if got := l.Loss(at(tc.now)); got != tc.want {
			t.Errorf("Loss at %d ms = %v, want %v", tc.now, got, tc.want)
		}
	}
}

func TestStatsCounters(t *testing.T) {
	a, b := New(1, t0), New(1, t0)
	d1, _ := a.AppendDatagram(nil, wire.TypeAck, nil, at(0))
	d2, _ := a.AppendDatagram(nil, wire.TypeInput, []byte{0x18}, at(1))
	a.QueueEvent(linktest.Spawn(1))
	a.QueueEvent(linktest.Spawn(2))
	d3, ok := a.AppendEvents(nil, at(2))
	if !ok {
		t.Fatal("no event datagram")
	}
	d4, ok := a.AppendEvents(nil, at(200)) // both resent
	if !ok {
		t.Fatal("no resent event datagram")
	}
	st := a.Stats()
	sent := uint64(len(d1) + len(d2) + len(d3) + len(d4))
	if st.SentDatagrams != 4 || st.SentBytes != sent || st.EventsSent != 2 || st.EventsResent != 2 {
		t.Fatalf("sender stats %+v, want 4 datagrams, %d bytes, 2 sent, 2 resent", st, sent)
	}
	var fresh []wire.EventFrame
	for _, d := range [][]byte{d1, d2, d3, d4} {
		h, p := linktest.MustParse(t, d, wire.ToServer)
		if b.Seen(h.Seq) {
			continue
		}
		if h.Type == wire.TypeEvent {
			var err error
			if fresh, err = b.ReceiveEvents(p, fresh[:0]); err != nil {
				t.Fatal(err)
			}
		}
		b.Accept(h, len(d), at(50))
	}
	st = b.Stats()
	if st.RecvDatagrams != 4 || st.RecvBytes != sent || st.EventsDelivered != 2 {
		t.Fatalf("receiver stats %+v, want 4 datagrams, %d bytes, 2 delivered", st, sent)
	}
	back, _ := b.AppendDatagram(nil, wire.TypeAck, nil, at(60))
	h, _ := linktest.MustParse(t, back, wire.ToClient)
	a.Accept(h, len(back), at(260))
	if st := a.Stats(); st.Acked != 4 || st.RecvDatagrams != 1 || st.RecvBytes != wire.HeaderSize {
		t.Fatalf("sender stats after the ack %+v", st)
	}
	if a.Unacked() != 0 {
		t.Fatalf("Unacked = %d after the ack", a.Unacked())
	}
}

func TestTimedOut(t *testing.T) {
	l := New(testSession, at(0))
	if l.TimedOut(at(4999)) {
		t.Fatal("timed out before 5 s of silence since New")
	}
	if !l.TimedOut(at(5000)) {
		t.Fatal("not timed out after 5 s of silence since New")
	}
	// Sending is not hearing.
	sendOne(l, at(3000))
	if !l.TimedOut(at(5000)) {
		t.Fatal("sending reset the silence timer")
	}
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, 0xFFFF, 0), wire.HeaderSize, at(4000))
	if got := l.Silence(at(6000)); got != 2*time.Second {
		t.Fatalf("Silence = %v, want 2s", got)
	}
	if l.TimedOut(at(8999)) || !l.TimedOut(at(9000)) {
		t.Fatalf("TimedOut at 8999/9000 ms = %v/%v, want false/true", l.TimedOut(at(8999)), l.TimedOut(at(9000)))
	}
	// A datagram that is only Seen (not Accepted) does not count.
	l.Seen(1)
	if !l.TimedOut(at(9000)) {
		t.Fatal("Seen reset the silence timer")
	}
}

func TestAckOfOverwrittenRingEntry(t *testing.T) {
	l := New(testSession, t0)
	l.QueueEvent(linktest.Spawn(0))
	d, _ := l.AppendEvents(nil, at(0)) // seq 0 carries event 0
	h, _ := linktest.MustParse(t, d, wire.ToClient)
	if h.Seq != 0 {
		t.Fatalf("seq %d", h.Seq)
	}
	for i := 1; i <= sentRing; i++ { // seq sentRing reuses the entry of 0
		sendOne(l, at(10))
	}
	// The peer acknowledges 0 late: the entry now belongs to 1024.
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, 0, 0), wire.HeaderSize, at(500))
	if st := l.Stats(); st.Acked != 0 {
		t.Fatalf("Acked = %d: an ack of an overwritten entry counted", st.Acked)
	}
	if _, ok := l.RTT(); ok {
		t.Fatalf("an RTT sample from an overwritten entry")
	}
	if e := l.ring[0]; e.acked || e.seq != sentRing {
		t.Fatalf("ring entry 0: seq %d acked %v", e.seq, e.acked)
	}
	if l.Unacked() != 1 {
		t.Fatalf("event 0 counted as acknowledged through an overwritten entry")
	}
	// The entry's own sequence is acknowledged normally.
	l.Accept(linktest.PeerHeader(wire.TypeAck, 1, sentRing, 0), wire.HeaderSize, at(600))
	if st := l.Stats(); st.Acked != 1 {
		t.Fatalf("Acked = %d, want 1", st.Acked)
	}
}

// TestNothingRecordedIsNoAck: ack 65535 with ack_bits 0 means the peer has
// recorded nothing yet (5.1); it must not acknowledge our sequence 65535.
func TestNothingRecordedIsNoAck(t *testing.T) {
	now := time.Unix(100, 0)
	l := New(1, now)
	for range 65536 {
		l.AppendDatagram(nil, wire.TypeAck, nil, now) // the last one is 65535
	}
	l.Accept(wire.Header{Type: wire.TypeAck, Seq: 0, Ack: 0xFFFF, AckBits: 0, Session: 1}, 18, now)
	if st := l.Stats(); st.Acked != 0 {
		t.Fatalf("the 'nothing recorded' ack acknowledged %d datagrams", st.Acked)
	}
	l.Accept(wire.Header{Type: wire.TypeAck, Seq: 1, Ack: 0xFFFF, AckBits: 1, Session: 1}, 18, now)
	if st := l.Stats(); st.Acked != 2 {
		t.Fatalf("a real ack of 65535 and 65534 acknowledged %d datagrams", st.Acked)
	}
}

// TestLossWaitsForSlowAcks: with a 2 s round trip, datagrams sent 1.5 s
// ago cannot have been acknowledged yet and are not counted as lost.
func TestLossWaitsForSlowAcks(t *testing.T) {
	t0 := time.Unix(100, 0)
	l := New(1, t0)
	// A first exchange sets the smoothed RTT to 2 s.
	l.AppendDatagram(nil, wire.TypeAck, nil, t0)
	l.Accept(wire.Header{Type: wire.TypeAck, Seq: 0, Ack: 0, Session: 1}, 18, t0.Add(2*time.Second))
	for i := range 200 { // 100 datagrams a second for 2 s, none acknowledged yet
		l.AppendDatagram(nil, wire.TypeAck, nil, t0.Add(2*time.Second+time.Duration(i)*10*time.Millisecond))
	}
	if got := l.Loss(t0.Add(4 * time.Second)); got != 0 {
		t.Fatalf("Loss = %v with every unacknowledged datagram younger than two round trips", got)
	}
	if got := l.Loss(t0.Add(8 * time.Second)); got != 1 {
		t.Fatalf("Loss = %v once they are older than two round trips", got)
	}
}
