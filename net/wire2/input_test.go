package wire2

import (
	"bytes"
	"errors"
	"rtype/net/wire"
	"testing"
)

// 7.4: the v2 Input. Each case takes a valid payload and changes one thing.

func TestInput2RoundTrip(t *testing.T) {
	for _, in := range []Input{
		{Step: 0, Count: 1, Actions: [MaxInputActions]uint8{wire.ActionFire}},
		{Step: 7, Count: 8, Actions: [MaxInputActions]uint8{0x3F, 1, 2, 4, 8, 16, 32, 0}},
		{Step: 0xFFFFFFFF, Count: 3, Actions: [MaxInputActions]uint8{wire.ActionForce, 0, wire.ActionUp}},
	} {
		p := AppendInput(nil, &in)
		if len(p) != 5+in.Count {
			t.Fatalf("%+v: %d bytes", in, len(p))
		}
		var got Input
		if err := ParseInput(p, &got); err != nil || got != in {
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
		return AppendInput(nil, &Input{Step: 10, Count: 3, Actions: [MaxInputActions]uint8{1, 2, 3}})
	}
	cases := []struct {
		name string
		p    func() []byte
		want error
	}{
		{"empty", func() []byte { return nil }, ErrPayloadSize},
		{"no actions byte", func() []byte { return valid()[:5] }, ErrPayloadSize},
		{"v1 layout: one byte", func() []byte { return []byte{wire.ActionFire} }, ErrPayloadSize},
		{"14 bytes", func() []byte { return append(valid(), make([]byte, 6)...) }, ErrPayloadSize},
		{"count 0", func() []byte { p := valid(); p[4] = 0; return p }, ErrInputCount},
		{"count 9", func() []byte {
			p := AppendInput(nil, &Input{Step: 10, Count: 8})
			p[4] = 9
			return p
		}, ErrInputCount},
		{"count above the bytes", func() []byte { p := valid(); p[4] = 4; return p }, ErrInputCount},
		{"count below the bytes", func() []byte { p := valid(); p[4] = 2; return p }, ErrInputCount},
		{"steps below 0", func() []byte { p := valid(); p[0] = 1; return p }, ErrInputStep},
		{"bit 6 oldest", func() []byte { p := valid(); p[7] |= 0x40; return p }, ErrInputBits},
		{"bit 7 newest", func() []byte { p := valid(); p[5] |= 0x80; return p }, ErrInputBits},
	}
	for _, c := range cases {
		var in Input
		if err := ParseInput(c.p(), &in); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if _, _, err := ParseHeader(datagram(wire.TypeInput, c.p()), wire.ToServer); !errors.Is(err, c.want) {
			t.Errorf("%s in a datagram: got %v, want %v", c.name, err, c.want)
		}
	}
	// The edge that is valid: count = step + 1 (steps 0 to step).
	if err := ParseInput(AppendInput(nil, &Input{Step: 2, Count: 3}), new(Input)); err != nil {
		t.Errorf("count = step+1: %v", err)
	}
}

func TestInput2ParseAllocs(t *testing.T) {
	p := AppendInput(nil, &Input{Step: 99, Count: 4, Actions: [MaxInputActions]uint8{1, 2, 3, 4}})
	var in Input
	if n := testing.AllocsPerRun(100, func() { _ = ParseInput(p, &in) }); n != 0 {
		t.Fatalf("%v allocs", n)
	}
}

func fuzzInputs() [][]byte {
	var out [][]byte
	for _, in := range []Input{{Step: 0, Count: 1}, {Step: 70, Count: 8, Actions: [MaxInputActions]uint8{0x3F, 0x20}}} {
		out = append(out, AppendInput(nil, &in))
	}
	return append(out, []byte{1, 0, 0, 0, 3, 1, 2, 3}, []byte{5, 0, 0, 0, 1, 0xC0})
}

func FuzzParseInput(f *testing.F) {
	for _, p := range fuzzInputs() {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var in Input
		if err := ParseInput(p, &in); err != nil {
			return
		}
		if in.Count < 1 || in.Count > MaxInputActions || uint32(in.Count-1) > in.Step {
			t.Fatalf("accepted %+v", in)
		}
		for _, a := range in.Actions {
			if a&^wire.ActionsMaskStage != 0 {
				t.Fatalf("accepted actions %#x", a)
			}
		}
		if got := AppendInput(nil, &in); !bytes.Equal(got, p) {
			t.Fatalf("re-encoded % X from % X", got, p)
		}
	})
}
