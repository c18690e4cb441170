package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

var testHeader = Header{Protocol: wire.Version2, Revision: wire.Revision, Mode: wire.ModeClassic, Player: 2, Session: 77, Tick: 1234,
	Ext:  wire.LoginExt{ShipSpeed: 300, ShipW: 32, ShipH: 16, AreaW: 960, AreaH: 540, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 6},
	Name: "Ripley", Start: time.Unix(0, 1_700_000_000_123_456_789)}

// testFile writes n records of every kind, some out of time order, and
// returns the file and the records. Its steps come in runs of ten with
// the same actions, so most are written as kindNextStep records.
func testFile(t testing.TB, n int) ([]byte, []Record) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &testHeader)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	at := time.Duration(0)
	for i := 0; i < n; i++ {
		at += time.Duration(i%7) * 3_333_333
		if i%11 == 5 {
			at -= 1000 // a step stamped before the snapshot applied before it
		}
		kind := []Kind{KindSnapshot, KindEvent, KindStep, KindRTT}[i%4]
		p := bytes.Repeat([]byte{byte(i)}, i%50)
		if kind == KindStep {
			p = AppendStep(nil, uint32(i/4), uint8(i/40))
		}
		if err := w.Record(kind, at, p); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, Record{kind, at, p})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Size() != int64(buf.Len()) {
		t.Fatalf("Size %d for %d bytes written", w.Size(), buf.Len())
	}
	return buf.Bytes(), recs
}

func readAll(b []byte) ([]Record, *Header, error) {
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	var out []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, &r.Header, nil
		}
		if err != nil {
			return out, &r.Header, err
		}
		rec.Payload = bytes.Clone(rec.Payload)
		out = append(out, rec)
	}
}

func sameRecords(t *testing.T, got, want []Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Kind != want[i].Kind || got[i].At != want[i].At || !bytes.Equal(got[i].Payload, want[i].Payload) {
			t.Fatalf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestRoundTrip: what a Writer writes, a Reader reads back: the header
// and every record, its kind, time (to the nanosecond) and payload.
func TestRoundTrip(t *testing.T) {
	b, want := testFile(t, 2000)
	got, h, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	h.Start = h.Start.Round(0)
	if *h != testHeader {
		t.Fatalf("header %+v, want %+v", *h, testHeader)
	}
	sameRecords(t, got, want)
	if len(b) < 2*blockBytes {
		t.Fatalf("a file of %d bytes: the test wants several blocks", len(b))
	}
}

// TestDamage: a byte changed anywhere in a block, or a file cut anywhere,
// gives a *FormatError naming the offset of the damaged block, and every
// record of the blocks before it reads.
func TestDamage(t *testing.T) {
	b, want := testFile(t, 2000)
	for _, at := range []int{len(b) / 3, len(b) / 2, len(b) - 3} {
		d := bytes.Clone(b)
		d[at] ^= 0x40
		got, _, err := readAll(d)
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
			t.Fatalf("byte %d changed: error %v, want a *FormatError", at, err)
		}
		if fe.Offset > int64(at) || fe.Offset < int64(at)-maxBlock {
			t.Fatalf("byte %d changed: error at byte %d", at, fe.Offset)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("at byte %d", fe.Offset)) {
			t.Fatalf("error %q does not name the offset", err)
		}
		if len(got) == 0 || at > 2*blockBytes && len(got) < 100 {
			t.Fatalf("byte %d changed: %d records read before the damage", at, len(got))
		}
		sameRecords(t, got, want[:len(got)])
	}
	for cut := 0; cut < len(b); cut += 97 {
		got, _, err := readAll(b[:cut])
		if err == nil {
			t.Fatalf("cut at %d: no error", cut)
		}
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if !strings.Contains(err.Error(), "truncated") && !strings.Contains(err.Error(), "ends inside") {
			t.Fatalf("cut at %d: %q does not say the file is cut", cut, err)
		}
		sameRecords(t, got, want[:len(got)])
	}
}

// TestHeaderErrors: a foreign file, another format version and a damaged
// header are refused with what is wrong.
func TestHeaderErrors(t *testing.T) {
	b, _ := testFile(t, 10)
	for _, tc := range []struct {
		name string
		mod  func([]byte) []byte
		want string
	}{
		{"foreign", func(b []byte) []byte { return []byte("PK\x03\x04 a zip file") }, "not a replay"},
		{"version", func(b []byte) []byte { b[len(Magic)+1] = 9; return b }, "format version 9"},
		{"crc", func(b []byte) []byte { b[len(Magic)+8] ^= 1; return b }, "CRC"},
		{"empty", func(b []byte) []byte { return nil }, "ends inside the header"},
	} {
		_, err := NewReader(bytes.NewReader(tc.mod(bytes.Clone(b))))
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestUnknownKind: a record of a kind a later version adds is skipped.
func TestUnknownKind(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, &testHeader)
	w.Record(KindEvent, 1, []byte{1})
	w.Record(99, 2, []byte{2, 2})
	w.Record(KindSnapshot, 3, []byte{3})
	w.Flush()
	got, _, err := readAll(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, got, []Record{{KindEvent, 1, []byte{1}}, {KindSnapshot, 3, []byte{3}}})
}

// TestReadDamaged: Read keeps the records before the damage and says
// where it is.
func TestReadDamaged(t *testing.T) {
	b, want := testFile(t, 2000)
	rep, err := Read(bytes.NewReader(b[:len(b)-10]))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Damage == nil || len(rep.Records) == 0 {
		t.Fatalf("damage %v, %d records", rep.Damage, len(rep.Records))
	}
	sameRecords(t, rep.Records, want[:len(rep.Records)])
}

// TestPrune: the oldest recordings go first, until the directory fits
// its cap with room for the next one.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, fmt.Sprintf("r%d%s", i, Ext))
		if err := os.WriteFile(p, make([]byte, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, base.Add(time.Duration(i)*time.Minute), base.Add(time.Duration(i)*time.Minute))
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), make([]byte, 5000), 0o644) // not a recording
	f, err := Create(dir, 4000, 1500, time.Now(), "alice/../x")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if strings.ContainsAny(filepath.Base(f.Name()), "/.") && !strings.HasSuffix(f.Name(), Ext) {
		t.Fatalf("file %s", f.Name())
	}
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, filepath.Base(e.Path))
	}
	// 5000 + 1500 > 4000: r0, r1, r2 go; r3 and r4 stay, and the new one.
	if len(names) != 3 || names[1] != "r4"+Ext || names[2] != "r3"+Ext {
		t.Fatalf("left %v", names)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal("pruned a file that is no recording")
	}
}

// TestRecorder: a Recorder writes the login's header, writes its records
// out every 2 s of the game without being asked, and stops at its cap
// with a file that reads to its end.
func TestRecorder(t *testing.T) {
	var buf bytes.Buffer
	r := NewRecorder(&buf, 4000)
	start := time.Now()
	r.Login(client.Login{Version: wire.Version2, Revision: wire.Revision, Mode: wire.ModeStage, Player: 1, Name: "Hicks", At: start})
	for i := 0; i < 200; i++ {
		at := start.Add(time.Duration(i) * 50 * time.Millisecond)
		r.Snapshot(bytes.Repeat([]byte{byte(i)}, 30), at)
		r.Step(client.Step{Step: uint32(i), Actions: 3, Sent: at})
		if i == 60 && buf.Len() < 1000 {
			t.Fatalf("3 s in, %d bytes written out", buf.Len())
		}
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 4000 || r.Size() != int64(buf.Len()) {
		t.Fatalf("%d bytes written (Size %d) for a cap of 4000", buf.Len(), r.Size())
	}
	got, h, err := readAll(buf.Bytes())
	if err != nil || h.Name != "Hicks" || h.Player != 1 || len(got) < 50 {
		t.Fatalf("%d records, header %+v, %v", len(got), h, err)
	}
}
