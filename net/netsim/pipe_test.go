package netsim

import (
	"encoding/binary"
	"testing"
	"time"

	"rtype/internal/testutil"
)

var p0 = time.Unix(1000, 0)

// pipeRun sends n numbered datagrams 1 ms apart through a pipe and
// receives every millisecond until it is empty: the numbers in the order
// they came out, with the time each took.
func pipeRun(p *Pipe, n int) (seqs []uint64, took []time.Duration) {
	var b [16]byte
	var out []byte
	sentAt := map[uint64]time.Time{}
	for ms := 0; ms < n || p.Len() > 0; ms++ {
		now := p0.Add(time.Duration(ms) * time.Millisecond)
		if ms < n {
			binary.BigEndian.PutUint64(b[:], uint64(ms))
			p.Send(b[:], now)
			sentAt[uint64(ms)] = now
		}
		for {
			var ok bool
			out, ok = p.Receive(out[:0], now)
			if !ok {
				break
			}
			s := binary.BigEndian.Uint64(out)
			seqs = append(seqs, s)
			took = append(took, now.Sub(sentAt[s]))
		}
	}
	return seqs, took
}

func TestPipeClean(t *testing.T) {
	p := NewPipe(Impairment{Delay: 5 * time.Millisecond}, 1)
	seqs, took := pipeRun(p, 100)
	for i, s := range seqs {
		if s != uint64(i) || took[i] != 5*time.Millisecond {
			t.Fatalf("datagram %d: number %d after %v, want %d after 5ms", i, s, took[i], i)
		}
	}
	if len(seqs) != 100 || p.Stats() != (Stats{Forwarded: 100}) || p.Sent() != 100 {
		t.Fatalf("%d datagrams out, stats %v, %d sent", len(seqs), p.Stats(), p.Sent())
	}
}

// The pipe applies the relay's model: its decisions are decide's, drawn
// from its seed; the same seed gives the same run.
func TestPipeImpaired(t *testing.T) {
	im := Impairment{Loss: 0.2, Dup: 0.1, Reorder: 0.1, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}
	const n = 20000
	a, ta := pipeRun(NewPipe(im, 7), n)
	b, _ := pipeRun(NewPipe(im, 7), n)
	c, _ := pipeRun(NewPipe(im, 8), n)
	if len(a) != len(b) {
		t.Fatalf("same seed: %d and %d datagrams out", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed: datagram %d differs", i)
		}
	}
	if len(a) == len(c) {
		t.Error("another seed let exactly as many datagrams through")
	}
	p := NewPipe(im, 7)
	pipeRun(p, n)
	st := p.Stats()
	rate := func(k uint64, of uint64) float64 { return float64(k) / float64(of) }
	if r := rate(st.Dropped, n); r < 0.18 || r > 0.22 {
		t.Errorf("loss %.3f, want 0.2", r)
	}
	if r := rate(st.Duplicated, n-st.Dropped); r < 0.09 || r > 0.11 {
		t.Errorf("duplication %.3f, want 0.1", r)
	}
	if r := rate(st.Reordered, n-st.Dropped); r < 0.09 || r > 0.11 {
		t.Errorf("reordering %.3f, want 0.1", r)
	}
	if st.Forwarded != uint64(len(a)) || st.Forwarded != n-st.Dropped+st.Duplicated {
		t.Errorf("stats %v, %d datagrams out", st, len(a))
	}
	hold := reorderHold(&im)
	late := 0
	for i, d := range ta {
		if d < im.Delay-im.Jitter || d > im.Delay+im.Jitter+hold+time.Millisecond {
			t.Fatalf("datagram %d took %v, outside [%v, %v]", a[i], d, im.Delay-im.Jitter, im.Delay+im.Jitter+hold)
		}
		if i > 0 && a[i] < a[i-1] {
			late++
		}
	}
	if late == 0 {
		t.Error("no datagram overtaken")
	}
}

func TestPipeOversizedAndHealed(t *testing.T) {
	p := NewPipe(Impairment{Loss: 1}, 1)
	p.Send(make([]byte, 10), p0)
	p.SetImpairment(Impairment{})
	p.Send(make([]byte, MaxDatagram+1), p0)
	p.Send(make([]byte, MaxDatagram), p0)
	out, ok := p.Receive(nil, p0)
	if !ok || len(out) != MaxDatagram {
		t.Fatalf("got %d bytes, %v; want the %d-byte datagram", len(out), ok, MaxDatagram)
	}
	if _, ok := p.Receive(nil, p0.Add(time.Hour)); ok || p.Stats().Dropped != 2 {
		t.Fatalf("stats %v after a lost and an oversized datagram", p.Stats())
	}
}

// In steady state a datagram through the pipe allocates nothing.
func TestPipeNoAllocs(t *testing.T) {
	p := NewPipe(Impairment{Loss: 0.1, Dup: 0.2, Reorder: 0.1, Delay: 3 * time.Millisecond, Jitter: 2 * time.Millisecond}, 1)
	b, out := make([]byte, 1200), make([]byte, 0, 1200)
	now := p0
	step := func() {
		p.Send(b, now)
		for ok := true; ok; out, ok = p.Receive(out[:0], now) {
		}
		now = now.Add(time.Millisecond)
	}
	for range 1000 {
		step()
	}
	testutil.NoAllocs(t, 1000, "Send and Receive", step)
}
