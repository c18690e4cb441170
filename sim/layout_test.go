package sim

import (
	"testing"
	"unsafe"

	"rtype/net/wire"
)

// TestEntityIsALine: an entity is one cache line (64 bytes) and w.ents
// starts on a line, for the default rules (those of rtype-bench's busy
// games too, whose MaxEntities is the default): a Classic step's first touch of an entity loads one line (touch
// loads only its kind). Go's allocator aligns a large slice (4,097
// entities) on a page.
func TestEntityIsALine(t *testing.T) {
	if n := unsafe.Sizeof(entity{}); n != 64 {
		t.Errorf("an entity is %d bytes, want 64", n)
	}
	if n := unsafe.Sizeof(wire.Motion{}); n != 20 {
		t.Errorf("a wire.Motion is %d bytes, want 20", n)
	}
	for _, r := range []Rules{DefaultRules()} {
		w := New(r, 1)
		if a := uintptr(unsafe.Pointer(&w.ents[0])) % 64; a != 0 {
			t.Errorf("MaxEntities %d: w.ents starts %d bytes into a line", r.MaxEntities, a)
		}
	}
}
