package wire

import (
	"bytes"
	"errors"
	"testing"
)

// 7.4: the v2 Input. Each case takes a valid payload and changes one thing.

func TestInput2RoundTrip(t *testing.T) {
	for _, in := range []Input2{
		{Step: 0, Count: 1, Actions: [MaxInputActions2]uint8{ActionFire}},
		{Step: 7, Count: 8, Actions: [MaxInputActions2]uint8{0x3F, 1, 2, 4, 8, 16, 32, 0}},
		{Step: 0xFFFFFFFF, Count: 3, Actions: [MaxInputActions2]uint8{ActionForce, 0, ActionUp}},
	} {
		p := AppendInput2(nil, &in)
		if len(p) != 5+in.Count {
			t.Fatalf("%+v: %d bytes", in, len(p))
		}
		var got Input2
		if err := ParseInput2(p, &got); err != nil || got != in {
			t.Fatalf("%+v: got %+v %v", in, got, err)
		}
		for i := 0; i < in.Count; i++ {
			if a, ok := got.At(in.Step - uint32(i)); !ok || a != in.Actions[i] {
				t.Fatalf("At(step-%d) = %#x %v", i, a, ok)
			}
		}
		if _, ok := got.At(in.Step - uint32(in.Count)); ok && in.Step >= uint32(in.Count) {
			t.Fatalf("At before the oldest step")
		}
		if in.Step < 0xFFFFFFFF {
			if _, ok := got.At(in.Step + 1); ok {
				t.Fatalf("At after the newest step")
			}
		}
	}
}

func TestInput2Invalid(t *testing.T) {
	valid := func() []byte {
		return AppendInput2(nil, &Input2{Step: 10, Count: 3, Actions: [MaxInputActions2]uint8{1, 2, 3}})
	}
	cases := []struct {
		name string
		p    func() []byte
		want error
	}{
		{"empty", func() []byte { return nil }, ErrPayloadSize2},
		{"no actions byte", func() []byte { return valid()[:5] }, ErrPayloadSize2},
		{"v1 layout: one byte", func() []byte { return []byte{ActionFire} }, ErrPayloadSize2},
		{"14 bytes", func() []byte { return append(valid(), make([]byte, 6)...) }, ErrPayloadSize2},
		{"count 0", func() []byte { p := valid(); p[4] = 0; return p }, ErrInputCount2},
		{"count 9", func() []byte {
			p := AppendInput2(nil, &Input2{Step: 10, Count: 8})
			p[4] = 9
			return p
		}, ErrInputCount2},
		{"count above the bytes", func() []byte { p := valid(); p[4] = 4; return p }, ErrInputCount2},
		{"count below the bytes", func() []byte { p := valid(); p[4] = 2; return p }, ErrInputCount2},
		{"steps below 0", func() []byte { p := valid(); p[0] = 1; return p }, ErrInputStep2},
		{"bit 6 oldest", func() []byte { p := valid(); p[7] |= 0x40; return p }, ErrInputBits2},
		{"bit 7 newest", func() []byte { p := valid(); p[5] |= 0x80; return p }, ErrInputBits2},
	}
	for _, c := range cases {
		var in Input2
		if err := ParseInput2(c.p(), &in); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if _, _, err := ParseHeader2(datagram2(TypeInput, c.p()), ToServer); !errors.Is(err, c.want) {
			t.Errorf("%s in a datagram: got %v, want %v", c.name, err, c.want)
		}
	}
	// The edge that is valid: count = step + 1 (steps 0 to step).
	if err := ParseInput2(AppendInput2(nil, &Input2{Step: 2, Count: 3}), new(Input2)); err != nil {
		t.Errorf("count = step+1: %v", err)
	}
}

func TestInput2ParseAllocs(t *testing.T) {
	p := AppendInput2(nil, &Input2{Step: 99, Count: 4, Actions: [MaxInputActions2]uint8{1, 2, 3, 4}})
	var in Input2
	if n := testing.AllocsPerRun(100, func() { _ = ParseInput2(p, &in) }); n != 0 {
		t.Fatalf("%v allocs", n)
	}
}

func fuzzInputs2() [][]byte {
	var out [][]byte
	for _, in := range []Input2{{Step: 0, Count: 1}, {Step: 70, Count: 8, Actions: [MaxInputActions2]uint8{0x3F, 0x20}}} {
		out = append(out, AppendInput2(nil, &in))
	}
	return append(out, []byte{1, 0, 0, 0, 3, 1, 2, 3}, []byte{5, 0, 0, 0, 1, 0xC0})
}

func FuzzParseInput2(f *testing.F) {
	for _, p := range fuzzInputs2() {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var in Input2
		if err := ParseInput2(p, &in); err != nil {
			return
		}
		if in.Count < 1 || in.Count > MaxInputActions2 || uint32(in.Count-1) > in.Step {
			t.Fatalf("accepted %+v", in)
		}
		for _, a := range in.Actions {
			if a&^ActionsMask2 != 0 {
				t.Fatalf("accepted actions %#x", a)
			}
		}
		if got := AppendInput2(nil, &in); !bytes.Equal(got, p) {
			t.Fatalf("re-encoded % X from % X", got, p)
		}
	})
}
