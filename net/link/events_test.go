package link

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// sentEvents parses an Event datagram and returns its header and frames.
func sentEvents(tb testing.TB, d []byte) (wire.Header, []wire.EventFrame) {
	tb.Helper()
	if len(d) > wire.MaxDatagram {
		tb.Fatalf("event datagram of %d bytes", len(d))
	}
	h, p := linktest.MustParse(tb, d, wire.ToClient)
	if h.Type != wire.TypeEvent {
		tb.Fatalf("datagram of type %v, want Event", h.Type)
	}
	frames, err := wire.ParseEventFrames(p, nil)
	if err != nil {
		tb.Fatalf("ParseEventFrames: %v", err)
	}
	if len(frames) < 1 || len(frames) > 255 {
		tb.Fatalf("%d frames", len(frames))
	}
	return h, frames
}

// drain calls AppendEvents until it has nothing due and returns the
// datagrams.
func drain(tb testing.TB, l *Link, now time.Time) [][]byte {
	tb.Helper()
	var out [][]byte
	for {
		d, ok := l.AppendEvents(nil, now)
		if !ok {
			if d != nil {
				tb.Fatalf("AppendEvents returned %d bytes with false", len(d))
			}
			return out
		}
		out = append(out, d)
		if len(out) > 2000 {
			tb.Fatal("AppendEvents never stops")
		}
	}
}

func ids(frames []wire.EventFrame) []uint16 {
	out := make([]uint16, len(frames))
	for i, f := range frames {
		out[i] = uint16(f.ID)
	}
	return out
}

func TestQueueEventNumbersFromZero(t *testing.T) {
	l := New(testSession, t0)
	var want [][]byte
	for i := 0; i < 5; i++ {
		ev := linktest.EventFor(i)
		if err := l.QueueEvent(ev); err != nil {
			t.Fatal(err)
		}
		want = append(want, wire.AppendEvent(nil, ev))
	}
	if l.Unacked() != 5 {
		t.Fatalf("Unacked = %d", l.Unacked())
	}
	ds := drain(t, l, t0)
	if len(ds) != 1 {
		t.Fatalf("%d datagrams for 5 small events", len(ds))
	}
	h, frames := sentEvents(t, ds[0])
	if h.Seq != 0 || h.Session != testSession {
		t.Fatalf("header %+v", h)
	}
	for i, f := range frames {
		if f.ID != uint32(uint16(i)) || !bytes.Equal(f.Data, want[i]) {
			t.Fatalf("frame %d: id %d data %x, want id %d data %x", i, f.ID, f.Data, i, want[i])
		}
	}
}

func TestQueueEventCopies(t *testing.T) {
	l := New(testSession, t0)
	ev := linktest.Spawn(1)
	want := wire.AppendEvent(nil, ev)
	l.QueueEvent(ev)
	ev.X, ev.ID = 999, 999 // the caller reuses its event
	_, frames := sentEvents(t, drain(t, l, t0)[0])
	if !bytes.Equal(frames[0].Data, want) {
		t.Fatalf("queued event changed with the caller's struct")
	}
}

func TestAppendEventsFillsDatagrams(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   func(i int) *wire.Event
	}{
		{"spawn27", func(i int) *wire.Event { return linktest.Spawn(i) }},
		{"mixed", linktest.EventFor},
		{"name247", func(i int) *wire.Event {
			return &wire.Event{Type: wire.EventPlayerJoined, Tick: uint32(i), Name: string(bytes.Repeat([]byte{'x'}, 247))}
		}},
		{"leave7", func(i int) *wire.Event {
			return &wire.Event{Type: wire.EventPlayerLeft, Tick: uint32(i), Player: 1}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(testSession, t0)
			var sizes []int
			for i := 0; i < 1000; i++ {
				ev := tc.ev(i)
				if err := l.QueueEvent(ev); err != nil {
					t.Fatal(err)
				}
				sizes = append(sizes, len(wire.AppendEvent(nil, ev)))
			}
			next := 0
			for k, d := range drain(t, l, t0) {
				_, frames := sentEvents(t, d)
				for _, f := range frames {
					if uint16(f.ID) != uint16(next) {
						t.Fatalf("datagram %d: id %d, want %d (oldest first)", k, f.ID, next)
					}
					next++
				}
				// As many as fit: 255 frames, or the next one would
				// not fit in 1200 bytes.
				if next < 1000 && len(frames) < 255 && len(d)+wire.FrameOverhead+sizes[next] <= wire.MaxDatagram {
					t.Fatalf("datagram %d: %d bytes, %d frames; event %d (%d bytes) would have fit",
						k, len(d), len(frames), next, sizes[next])
				}
			}
			if next != 1000 {
				t.Fatalf("%d events sent, want 1000", next)
			}
		})
	}
}

// TestAtMost255PerDatagram: 255 frames of the smallest legal size (4 bytes,
// 1 byte of data) take 1039 bytes with the header, so only the count limit
// stops a datagram. No event of 4.4 is that small, so they are queued
// directly.
func TestAtMost255PerDatagram(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < 600; i++ {
		o := &l.out[l.tail%MaxUnacked]
		o.data[0], o.n, o.sent, o.acked = byte(i), 1, false, false
		l.tail++
	}
	ds := drain(t, l, t0)
	if len(ds) != 3 {
		t.Fatalf("%d datagrams for 600 one-byte events, want 3", len(ds))
	}
	next := 0
	for k, want := range []int{255, 255, 90} {
		_, frames := sentEvents(t, ds[k])
		if len(frames) != want {
			t.Fatalf("datagram %d: %d frames, want %d", k, len(frames), want)
		}
		for _, f := range frames {
			if uint16(f.ID) != uint16(next) || f.Data[0] != byte(next) {
				t.Fatalf("frame id %d data %d, want %d", f.ID, f.Data[0], next)
			}
			next++
		}
	}
}

func TestResendTiming(t *testing.T) {
	l := New(testSession, t0)
	if r := l.ResendAfter(); r != 100*time.Millisecond {
		t.Fatalf("R before any RTT sample = %v, want 100ms", r)
	}
	l.QueueEvent(linktest.Spawn(0))
	if ds := drain(t, l, at(0)); len(ds) != 1 {
		t.Fatalf("new event not sent at once")
	}
	if ds := drain(t, l, at(0)); len(ds) != 0 {
		t.Fatalf("event sent twice at once")
	}
	if ds := drain(t, l, at(0).Add(100*time.Millisecond-1)); len(ds) != 0 {
		t.Fatalf("event resent before R")
	}
	l.QueueEvent(linktest.Spawn(1)) // new: sent at once, alone
	ds := drain(t, l, at(50))
	if len(ds) != 1 {
		t.Fatalf("%d datagrams", len(ds))
	}
	if _, f := sentEvents(t, ds[0]); len(f) != 1 || f[0].ID != 1 {
		t.Fatalf("at 50 ms sent %v, want [1]", ids(f))
	}
	ds = drain(t, l, at(100))
	if len(ds) != 1 {
		t.Fatalf("event 0 not resent after R")
	}
	if _, f := sentEvents(t, ds[0]); len(f) != 1 || f[0].ID != 0 {
		t.Fatalf("at 100 ms sent %v, want [0]", ids(f))
	}
	ds = drain(t, l, at(160))
	if _, f := sentEvents(t, ds[0]); len(ds) != 1 || len(f) != 1 || f[0].ID != 1 {
		t.Fatalf("at 160 ms sent %v, want [1]", ids(f))
	}
	// Both due: resent together, oldest first.
	ds = drain(t, l, at(400))
	if _, f := sentEvents(t, ds[0]); len(ds) != 1 || len(f) != 2 || f[0].ID != 0 || f[1].ID != 1 {
		t.Fatalf("at 400 ms sent %v, want [0 1]", ids(f))
	}
	if st := l.Stats(); st.EventsSent != 2 || st.EventsResent != 4 {
		t.Fatalf("stats %+v", st)
	}
}

func TestResendAfterFollowsRTT(t *testing.T) {
	for _, tc := range []struct {
		rtt, want time.Duration
	}{
		{200 * time.Millisecond, 250 * time.Millisecond},
		{40 * time.Millisecond, 50 * time.Millisecond},
		{20 * time.Millisecond, 50 * time.Millisecond},
		{80 * time.Millisecond, 100 * time.Millisecond},
	} {
		l := New(testSession, t0)
		s := sendOne(l, at(0))
		l.Accept(linktest.PeerHeader(wire.TypeAck, 0, s, 0), wire.HeaderSize, at(0).Add(tc.rtt))
		if r := l.ResendAfter(); r != tc.want {
			t.Errorf("RTT %v: R = %v, want %v", tc.rtt, r, tc.want)
		}
		l.QueueEvent(linktest.Spawn(0))
		if len(drain(t, l, at(1000))) != 1 {
			t.Fatalf("not sent")
		}
		if n := len(drain(t, l, at(1000).Add(tc.want-1))); n != 0 {
			t.Errorf("RTT %v: resent before R = %v", tc.rtt, tc.want)
		}
		if n := len(drain(t, l, at(1000).Add(tc.want))); n != 1 {
			t.Errorf("RTT %v: not resent at R = %v", tc.rtt, tc.want)
		}
	}
}

func TestAcknowledgedEventsNeverResent(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < 4; i++ {
		l.QueueEvent(linktest.Spawn(i))
	}
	d1 := drain(t, l, at(0))
	l.QueueEvent(linktest.Spawn(4))
	l.QueueEvent(linktest.Spawn(5))
	d2 := drain(t, l, at(10))
	h1, _ := sentEvents(t, d1[0])
	h2, _ := sentEvents(t, d2[0])
	// The peer acknowledges the second datagram only: 4 and 5 are done,
	// 0-3 are still owed (and block Unacked, which counts from the oldest).
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, h2.Seq, 0), wire.HeaderSize, at(60))
	if l.Unacked() != 6 {
		t.Fatalf("Unacked = %d, want 6 (0-3 pending hold the window)", l.Unacked())
	}
	for _, now := range []int{500, 1000, 2000} {
		for _, d := range drain(t, l, at(now)) {
			_, f := sentEvents(t, d)
			for _, id := range ids(f) {
				if id >= 4 {
					t.Fatalf("at %d ms acknowledged event %d resent", now, id)
				}
			}
		}
	}
	// The first datagram is lost for good, but a resend of 0-3 arrives.
	resent := drain(t, l, at(3000))
	h3, f3 := sentEvents(t, resent[0])
	if len(f3) != 4 {
		t.Fatalf("resent %v", ids(f3))
	}
	l.Accept(linktest.PeerHeader(wire.TypeAck, 1, h3.Seq, 0), wire.HeaderSize, at(3050))
	if l.Unacked() != 0 {
		t.Fatalf("Unacked = %d after every event was acknowledged", l.Unacked())
	}
	if ds := drain(t, l, at(10000)); len(ds) != 0 {
		t.Fatalf("acknowledged events resent")
	}
	// A late ack of the first datagram is harmless.
	l.Accept(linktest.PeerHeader(wire.TypeAck, 2, h1.Seq, 0), wire.HeaderSize, at(10050))
	if l.Unacked() != 0 || len(drain(t, l, at(20000))) != 0 {
		t.Fatalf("late ack disturbed the queue")
	}
	// Numbering goes on.
	l.QueueEvent(linktest.Spawn(6))
	if _, f := sentEvents(t, drain(t, l, at(20000))[0]); f[0].ID != 6 {
		t.Fatalf("next id %d, want 6", f[0].ID)
	}
}

func TestTooManyEvents(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < MaxUnacked; i++ {
		if err := l.QueueEvent(linktest.Spawn(i)); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if err := l.QueueEvent(linktest.Spawn(MaxUnacked)); !errors.Is(err, ErrTooManyEvents) {
		t.Fatalf("event 1025: %v, want ErrTooManyEvents", err)
	}
	if l.Unacked() != MaxUnacked {
		t.Fatalf("Unacked = %d after a refused event", l.Unacked())
	}
	// Send them all, acknowledge the datagram holding the oldest: room
	// again, and the next id is 1024.
	ds := drain(t, l, at(0))
	h, f := sentEvents(t, ds[0])
	if f[0].ID != 0 {
		t.Fatal("oldest not first")
	}
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, h.Seq, 0), wire.HeaderSize, at(50))
	if l.Unacked() != MaxUnacked-len(f) {
		t.Fatalf("Unacked = %d, want %d", l.Unacked(), MaxUnacked-len(f))
	}
	for i := 0; i < len(f); i++ {
		if err := l.QueueEvent(linktest.Spawn(i)); err != nil {
			t.Fatalf("after the ack: %v", err)
		}
	}
	if err := l.QueueEvent(linktest.Spawn(0)); !errors.Is(err, ErrTooManyEvents) {
		t.Fatalf("over the limit again: %v", err)
	}
	last := drain(t, l, at(60))
	_, lf := sentEvents(t, last[len(last)-1])
	if id := lf[len(lf)-1].ID; uint16(id) != uint16(MaxUnacked+len(f)-1) {
		t.Fatalf("newest id %d, want %d", id, MaxUnacked+len(f)-1)
	}
}

// exchange moves every event datagram from a to b and b's Ack back, with
// optional loss, and returns the frames b delivered.
type pair struct {
	a, b  *Link
	now   time.Time
	fresh []wire.EventFrame
}

func (p *pair) step(tb testing.TB, lose func() bool) []wire.EventFrame {
	tb.Helper()
	p.now = p.now.Add(20 * time.Millisecond)
	p.fresh = p.fresh[:0]
	for _, d := range drain(tb, p.a, p.now) {
		if lose != nil && lose() {
			continue
		}
		h, pl := linktest.MustParse(tb, d, wire.ToClient)
		if p.b.Seen(h.Seq) {
			continue
		}
		var err error
		if p.fresh, err = p.b.ReceiveEvents(pl, p.fresh); err != nil {
			tb.Fatal(err)
		}
		p.b.Accept(h, len(d), p.now)
	}
	back, _ := p.b.AppendDatagram(nil, wire.TypeAck, nil, p.now)
	if lose == nil || !lose() {
		h, _ := linktest.MustParse(tb, back, wire.ToServer)
		if !p.a.Seen(h.Seq) {
			p.a.Accept(h, len(back), p.now)
		}
	}
	return p.fresh
}

func TestEventIDsWrap(t *testing.T) {
	const total = 70000
	p := &pair{a: New(1, t0), b: New(1, t0), now: t0}
	r := rand.New(rand.NewPCG(3, 4))
	lose := func() bool { return r.IntN(10) == 0 }
	queued, got := 0, 0
	for step := 0; got < total; step++ {
		if step > 20000 {
			t.Fatalf("stuck: %d queued, %d delivered", queued, got)
		}
		for n := r.IntN(300); n > 0 && queued < total && p.a.Unacked() < MaxUnacked; n-- {
			if err := p.a.QueueEvent(linktest.EventFor(queued)); err != nil {
				t.Fatal(err)
			}
			queued++
		}
		for _, f := range p.step(t, lose) {
			// Delivery may be out of order; match by id within the
			// window of what was queued.
			k := queued - 1 - int(uint16(queued-1)-uint16(f.ID))
			if k < 0 || k >= queued || uint16(k) != uint16(f.ID) {
				t.Fatalf("id %d does not match a queued event (queued %d)", f.ID, queued)
			}
			if !bytes.Equal(f.Data, wire.AppendEvent(nil, linktest.EventFor(k))) {
				t.Fatalf("event %d (id %d) changed in transit", k, f.ID)
			}
			got++
		}
	}
	if queued != total || got != total {
		t.Fatalf("queued %d, delivered %d", queued, got)
	}
	for i := 0; i < 10 && p.a.Unacked() > 0; i++ {
		p.step(t, nil)
	}
	if p.a.Unacked() != 0 {
		t.Fatalf("Unacked = %d at the end", p.a.Unacked())
	}
	if st := p.b.Stats(); st.EventsDelivered != total {
		t.Fatalf("EventsDelivered = %d", st.EventsDelivered)
	}
	if p.a.tail != uint16(total%65536) || p.b.inNew != uint16((total-1)%65536) {
		t.Fatalf("tail %d, receiver's newest %d", p.a.tail, p.b.inNew)
	}
}

// TestEventIDsWrapExactlyOnce tracks each delivery by its unwrapped number.
func TestEventIDsWrapExactlyOnce(t *testing.T) {
	const total = 70000
	p := &pair{a: New(1, t0), b: New(1, t0), now: t0}
	r := rand.New(rand.NewPCG(5, 6))
	lose := func() bool { return r.IntN(5) == 0 }
	delivered := make([]int, total)
	queued, got := 0, 0
	for step := 0; got < total; step++ {
		if step > 40000 {
			t.Fatalf("stuck: %d queued, %d delivered", queued, got)
		}
		for n := 150; n > 0 && queued < total && p.a.Unacked() < MaxUnacked; n-- {
			p.a.QueueEvent(&wire.Event{Type: wire.EventSpawn, ID: uint32(queued)})
			queued++
		}
		for _, f := range p.step(t, lose) {
			var ev wire.Event
			if err := wire.ParseEvent(f.Data, &ev); err != nil {
				t.Fatal(err)
			}
			if uint16(ev.ID) != uint16(f.ID) {
				t.Fatalf("event %d delivered under id %d", ev.ID, f.ID)
			}
			delivered[ev.ID]++
			got++
		}
	}
	for i, n := range delivered {
		if n != 1 {
			t.Fatalf("event %d delivered %d times", i, n)
		}
	}
}

func TestReceiveEventsOnce(t *testing.T) {
	l := New(testSession, t0)
	d := func(i int) []byte { return wire.AppendEvent(nil, linktest.Spawn(i)) }
	prefix := []wire.EventFrame{{ID: 999, Data: []byte{1}}}
	total := 0
	recv := func(ids ...uint16) []uint16 {
		t.Helper()
		data := make([][]byte, len(ids))
		for k, id := range ids {
			data[k] = d(int(id))
		}
		out, err := l.ReceiveEvents(eventPayload(ids, data), append([]wire.EventFrame(nil), prefix...))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) < 1 || out[0].ID != 999 {
			t.Fatalf("ReceiveEvents lost the caller's frames")
		}
		var got []uint16
		for _, f := range out[1:] {
			if !bytes.Equal(f.Data, d(int(f.ID))) {
				t.Fatalf("id %d data changed", f.ID)
			}
			got = append(got, uint16(f.ID))
		}
		total += len(got)
		return got
	}
	eq := func(a []uint16, b ...uint16) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if g := recv(0, 1, 1, 2, 0); !eq(g, 0, 1, 2) {
		t.Fatalf("duplicates within a datagram: got %v", g)
	}
	if g := recv(2, 3, 1); !eq(g, 3) {
		t.Fatalf("duplicates in a later datagram: got %v", g)
	}
	if g := recv(10, 5); !eq(g, 10, 5) {
		t.Fatalf("out of order: got %v", g)
	}
	if g := recv(4, 5, 6, 10); !eq(g, 4, 6) {
		t.Fatalf("got %v", g)
	}
	// Newest 2000: 976 is 1024 older, taken as received; 977 is not.
	if g := recv(2000); !eq(g, 2000) {
		t.Fatalf("got %v", g)
	}
	if g := recv(976, 977, 7, 1999); !eq(g, 977, 1999) {
		t.Fatalf("window edge: got %v, want [977 1999]", g)
	}
	if g := recv(977, 1999, 2000); len(g) != 0 {
		t.Fatalf("got %v", g)
	}
	// Up to the wrap, in steps the window cannot follow.
	for u := 2900; u <= 64100; u += 900 {
		if g := recv(uint16(u)); !eq(g, uint16(u)) {
			t.Fatalf("got %v, want [%d]", g, u)
		}
	}
	if g := recv(65500); !eq(g, 65500) {
		t.Fatalf("got %v", g)
	}
	if g := recv(65535, 0, 65500, 65535); !eq(g, 65535, 0) {
		t.Fatalf("wrap: got %v, want [65535 0]", g)
	}
	// Newest 0: 64512 is 1024 older, 64513 1023; 64100 was delivered.
	if g := recv(64512, 64513, 65534, 1, 0, 64100); !eq(g, 64513, 65534, 1) {
		t.Fatalf("wrap window: got %v, want [64513 65534 1]", g)
	}
	if st := l.Stats(); st.EventsDelivered != uint64(total) {
		t.Fatalf("EventsDelivered = %d, delivered %d", st.EventsDelivered, total)
	}
}

func TestReceiveEventsFramingErrors(t *testing.T) {
	l := New(testSession, t0)
	good := wire.AppendEvent(nil, linktest.Spawn(1))
	valid := eventPayload([]uint16{1, 2}, [][]byte{good, good})
	for name, p := range map[string][]byte{
		"empty":        {},
		"count0":       {0},
		"short":        valid[:len(valid)-1],
		"extra":        append(append([]byte(nil), valid...), 0),
		"count3":       append([]byte{3}, valid[1:]...),
		"length0":      {1, 9, 0, 0},
		"header only":  {1, 9, 0},
		"length long":  {1, 9, 0, 5, 1, 2},
		"count1 of 2":  append([]byte{1}, valid[1:]...),
		"zero in tail": eventPayload([]uint16{3, 4}, [][]byte{good, {}}),
	} {
		prefix := []wire.EventFrame{{ID: 77}}
		out, err := l.ReceiveEvents(p, prefix)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if len(out) != 1 || out[0].ID != 77 {
			t.Errorf("%s: delivered %d frames on error", name, len(out)-1)
		}
	}
	if st := l.Stats(); st.EventsDelivered != 0 {
		t.Fatalf("EventsDelivered = %d after framing errors", st.EventsDelivered)
	}
	// Nothing was marked: the same ids in a valid datagram are delivered.
	out, err := l.ReceiveEvents(valid, nil)
	if err != nil || len(out) != 2 || out[0].ID != 1 || out[1].ID != 2 {
		t.Fatalf("valid datagram after errors: %v %v", ids(out), err)
	}
	if out, _ := l.ReceiveEvents(eventPayload([]uint16{3, 4}, [][]byte{good, good}), nil); len(out) != 2 {
		t.Fatalf("ids of a bad datagram were marked received: got %v", ids(out))
	}
}

// TestReceiveEventsModel compares delivery with a set of every id ever
// delivered, on unwrapped ids, for streams with reordering and duplicates
// but no id 1024 or more behind the newest (which a legal sender never
// has outstanding).
func TestReceiveEventsModel(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	l := New(testSession, t0)
	seen := map[int]bool{}
	newest := -1
	data := [][]byte{{1}}
	for step := 0; step < 20000; step++ {
		n := 1 + r.IntN(20)
		idsU := make([]int, n)
		for k := range idsU {
			switch {
			case newest < 0 || r.IntN(3) == 0:
				idsU[k] = newest + 1 + r.IntN(30)
			default:
				idsU[k] = max(0, newest-r.IntN(min(newest+1, 1023)))
			}
		}
		wireIDs := make([]uint16, n)
		dd := make([][]byte, n)
		for k, u := range idsU {
			wireIDs[k], dd[k] = uint16(u), data[0]
		}
		out, err := l.ReceiveEvents(eventPayload(wireIDs, dd), nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []uint16
		for _, u := range idsU {
			if !seen[u] && newest-u < EventWindow {
				seen[u] = true
				want = append(want, uint16(u))
				newest = max(newest, u)
			}
		}
		if len(out) != len(want) {
			t.Fatalf("step %d: delivered %v, want %v", step, ids(out), want)
		}
		for k := range want {
			if uint16(out[k].ID) != want[k] {
				t.Fatalf("step %d: delivered %v, want %v", step, ids(out), want)
			}
		}
	}
	if newest < 70000 {
		t.Fatalf("the model did not wrap: newest %d", newest)
	}
}

// TestEventDatagramExactly1200 fills a datagram to the byte: 39 Spawn
// frames (30 bytes each) and an 11-byte frame make 18 + 1 + 1181 = 1200.
func TestEventDatagramExactly1200(t *testing.T) {
	for _, tc := range []struct {
		name       string
		wantFrames int
		wantLen    int
	}{{"", 40, wire.MaxDatagram}, {"a", 39, wire.MaxDatagram - 11}} {
		l := New(testSession, t0)
		for i := 0; i < 39; i++ {
			l.QueueEvent(linktest.Spawn(i))
		}
		l.QueueEvent(&wire.Event{Type: wire.EventPlayerJoined, Name: tc.name})
		ds := drain(t, l, t0)
		_, frames := sentEvents(t, ds[0])
		if len(ds[0]) != tc.wantLen || len(frames) != tc.wantFrames {
			t.Errorf("name %q: first datagram %d bytes, %d frames; want %d bytes, %d frames",
				tc.name, len(ds[0]), len(frames), tc.wantLen, tc.wantFrames)
		}
	}
}

// TestAppendEventsAfterPrefix: AppendEvents appends after what dst holds.
func TestAppendEventsAfterPrefix(t *testing.T) {
	l := New(testSession, t0)
	for i := 0; i < 100; i++ {
		l.QueueEvent(linktest.Spawn(i))
	}
	prefix := []byte("previous datagram")
	buf := append([]byte(nil), prefix...)
	next := 0
	for k := 0; ; k++ {
		start := len(buf)
		var ok bool
		buf, ok = l.AppendEvents(buf, t0)
		if !ok {
			if len(buf) != start {
				t.Fatal("AppendEvents changed dst with nothing to send")
			}
			break
		}
		if string(buf[:len(prefix)]) != string(prefix) {
			t.Fatal("prefix overwritten")
		}
		_, frames := sentEvents(t, buf[start:])
		if n := len(buf) - start; n+30 <= wire.MaxDatagram && next+len(frames) < 100 {
			t.Fatalf("datagram %d: %d bytes, another 30-byte frame fits", k, n)
		}
		for _, f := range frames {
			if uint16(f.ID) != uint16(next) {
				t.Fatalf("id %d, want %d", f.ID, next)
			}
			next++
		}
	}
	if next != 100 {
		t.Fatalf("%d events sent", next)
	}
}

// TestLateAckOfReusedEventSlot: a datagram carrying event 0 is
// acknowledged late, after event 0 was acknowledged through a resend and
// its slot reused by event 1024: event 1024 must stay owed.
func TestLateAckOfReusedEventSlot(t *testing.T) {
	l := New(testSession, t0)
	l.QueueEvent(linktest.Spawn(0))
	a, _ := sentEvents(t, drain(t, l, at(0))[0])   // carries 0, will be acked late
	b, _ := sentEvents(t, drain(t, l, at(200))[0]) // resend of 0
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, b.Seq, 0), wire.HeaderSize, at(250))
	for i := 1; i < MaxUnacked; i++ {
		l.QueueEvent(linktest.Spawn(i))
	}
	for k, d := range drain(t, l, at(300)) {
		h, _ := sentEvents(t, d)
		l.Accept(linktest.PeerHeader(wire.TypeAck, uint16(1+k), h.Seq, 0), wire.HeaderSize, at(350))
	}
	if l.Unacked() != 0 {
		t.Fatalf("Unacked = %d", l.Unacked())
	}
	l.QueueEvent(linktest.Spawn(MaxUnacked)) // id 1024, the slot of id 0
	_, f := sentEvents(t, drain(t, l, at(400))[0])
	if f[0].ID != MaxUnacked {
		t.Fatalf("id %d", f[0].ID)
	}
	l.Accept(linktest.PeerHeader(wire.TypeAck, 100, a.Seq, 0), wire.HeaderSize, at(450))
	if l.Unacked() != 1 {
		t.Fatal("a late ack of event 0 acknowledged event 1024")
	}
	ds := drain(t, l, at(1000))
	if len(ds) != 1 {
		t.Fatal("event 1024 not resent")
	}
}
