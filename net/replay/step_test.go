package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"rtype/net/client"
)

// stepsFile writes a recording of a v2 client's 5 s: a step every
// 1/60 s (its time off the tick by some microseconds, as a ticker's),
// the actions changing every 40 steps, a snapshot every 3 steps and an
// RTT now and then; old writes the steps as a version-1 writer before
// kind 5 did (every one a Step record), from step from on. It returns
// the file and the records.
func stepsFile(t testing.TB, from int) ([]byte, []Record) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &testHeader)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	add := func(kind Kind, at time.Duration, p []byte, old bool) {
		var err error
		if old {
			err = w.record(kind, at, p)
		} else {
			err = w.Record(kind, at, p)
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, Record{kind, at, p})
	}
	for i := 0; i < 300; i++ {
		at := time.Duration(i)*time.Second/60 + time.Duration(i*7919%50_000)
		if i%3 == 0 {
			add(KindSnapshot, at-1500, bytes.Repeat([]byte{byte(i)}, 20+i%30), false)
		}
		add(KindStep, at, AppendStep(nil, uint32(1000+i), uint8(i/40%4)), i >= from)
		if i%4 == 1 {
			add(KindRTT, at+900, binary.AppendUvarint(nil, uint64(40*time.Millisecond)+uint64(i*1013)), false)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), recs
}

// TestNextStep: the steps after the first of a run with the same actions
// are written short (kind 5) and read back as the Step records they are,
// at their times and in their places among the other records, in a
// recording of only new records, of only old ones (every step a Step
// record, as recordings made before kind 5 are), and of both; a new one
// is smaller by about 2.6 bytes a step.
func TestNextStep(t *testing.T) {
	newFile, want := stepsFile(t, 300)
	oldFile, _ := stepsFile(t, 0)
	mixed, _ := stepsFile(t, 150)
	for _, tc := range []struct {
		name string
		b    []byte
	}{{"new", newFile}, {"old", oldFile}, {"mixed", mixed}} {
		got, _, err := readAll(tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameRecords(t, got, want)
	}
	if saved := len(oldFile) - len(newFile); saved < 2*280 {
		t.Fatalf("%d bytes with kind 5, %d without: the steps are not written short", len(newFile), len(oldFile))
	}
	if len(mixed) <= len(newFile) || len(mixed) >= len(oldFile) {
		t.Fatalf("the mixed recording takes %d bytes (old %d, new %d)", len(mixed), len(oldFile), len(newFile))
	}
	t.Logf("300 steps, 100 snapshots, 75 RTTs: %d bytes with kind 5, %d without", len(newFile), len(oldFile))
}

// TestNextStepPlays: a Player of a recording whose steps are written
// short feeds its client.Feed the same steps at the same times as one of
// only Step records: at every record's time, the steps and actions are
// the same.
func TestNextStepPlays(t *testing.T) {
	newFile, recs := stepsFile(t, 300)
	oldFile, _ := stepsFile(t, 0)
	read := func(b []byte) *Player {
		rep, err := Read(bytes.NewReader(b))
		if err != nil || rep.Damage != nil {
			t.Fatal(err, rep.Damage)
		}
		return NewPlayer(rep, rep.Header.Player)
	}
	pn, po := read(newFile), read(oldFile)
	var sn, so []client.Step
	for _, r := range recs {
		for _, d := range []time.Duration{r.At - 1, r.At} {
			pn.Advance(d)
			po.Advance(d)
			sn, so = pn.Steps(^uint32(0), sn[:0]), po.Steps(^uint32(0), so[:0])
			if len(sn) != len(so) || pn.Actions() != po.Actions() {
				t.Fatalf("at %v: %d steps holding %#x, an old recording %d holding %#x", d, len(sn), pn.Actions(), len(so), po.Actions())
			}
			for i := range sn {
				if sn[i] != so[i] {
					t.Fatalf("at %v: step %+v, an old recording %+v", d, sn[i], so[i])
				}
			}
		}
	}
	// (The snapshots are not a game's: they fail alike in both.)
	if !pn.Done() || fmt.Sprint(pn.Err()) != fmt.Sprint(po.Err()) || len(sn) != client.StepsKept {
		t.Fatalf("done %v, %v (old: %v), %d steps kept", pn.Done(), pn.Err(), po.Err(), len(sn))
	}
}

// TestNextStepErrors: a kind 5 record with no step record before it in
// its block (a block reads alone), after a malformed one, or with a
// payload, is damage: a *FormatError at its offset, the records before
// it read; and a Writer writes no kind 5 record it is given.
func TestNextStepErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(w *Writer)
	}{
		{"first in the file", func(w *Writer) {}},
		{"first in its block", func(w *Writer) {
			w.Record(KindStep, 1, AppendStep(nil, 1, 2))
			w.Flush()
		}},
		{"after a malformed step", func(w *Writer) { w.Record(KindStep, 1, []byte{0x80}) }},
		{"with a payload", func(w *Writer) { w.Record(KindStep, 1, AppendStep(nil, 1, 2)) }},
	} {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, &testHeader)
		w.Record(KindEvent, 0, []byte{7})
		tc.write(w)
		p := []byte(nil)
		if tc.name == "with a payload" {
			p = []byte{2}
		}
		w.record(kindNextStep, 2, p)
		w.Record(KindEvent, 3, []byte{8})
		w.Flush()
		got, _, err := readAll(buf.Bytes())
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "next-step record") {
			t.Fatalf("%s: %v, want a *FormatError", tc.name, err)
		}
		if len(got) == 0 || got[0].Kind != KindEvent {
			t.Fatalf("%s: %d records read before the damage", tc.name, len(got))
		}
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, &testHeader)
	if err := w.Record(kindNextStep, 0, nil); err == nil {
		t.Fatal("the Writer wrote a kind 5 record it was given")
	}
}
