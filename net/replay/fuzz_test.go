package replay

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader: whatever the file, the Reader ends with io.EOF or a
// *FormatError, never a panic, and allocates by what it reads, not by
// what a length says.
func FuzzReader(f *testing.F) {
	b, _ := testFile(f, 40)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:40])
	b, _ = stepsFile(f, 150) // Step and kind 5 records
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := Read(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("header error %v is no *FormatError", err)
			}
			return
		}
		if rep.Damage != nil && !errors.Is(rep.Damage, ErrFormat) {
			t.Fatalf("damage %v is no *FormatError", rep.Damage)
		}
		r, _ := NewReader(bytes.NewReader(b))
		for {
			_, err := r.Next()
			if err == io.EOF || errors.Is(err, ErrFormat) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		p := NewPlayer(rep, rep.Header.Player)
		p.Advance(rep.Length)
		_ = p.Frames(nil)
	})
}
