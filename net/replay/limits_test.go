package replay

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"rtype/net/client"
	"rtype/net/wire"
)

// appendBomb appends to dst a replay file of about size bytes: the
// header, then blocks of 1,365 records of 3 bytes (a Snapshot record at
// the same time, of no payload), and returns it with its records. A file
// of issue 27: 50 MiB of it made 17.4 M records, 2.35 GB of RSS.
func appendBomb(dst []byte, size int) ([]byte, int) {
	const perBlock = 1365
	body := bytes.Repeat([]byte{byte(KindSnapshot), 0, 0}, perBlock)
	blk := binary.AppendUvarint(nil, uint64(len(body)))
	blk = append(blk, body...)
	blk = binary.BigEndian.AppendUint32(blk, crc32.ChecksumIEEE(body))
	dst = appendHeader(dst, &testHeader)
	n := 0
	for len(dst)+len(blk) <= size {
		dst = append(dst, blk...)
		n += perBlock
	}
	return dst, n
}

// gzipBomb returns the gzip of a bomb of size bytes, and its records:
// the header, then a gzip member of 1 MiB of its blocks, compressed
// once and repeated (a gzip file may hold several members, RFC 1952,
// read as one stream), so that the file itself is never in memory.
func gzipBomb(t testing.TB, size int) ([]byte, int) {
	file, n := appendBomb(nil, 1<<20)
	hdr := len(appendHeader(nil, &testHeader))
	member := func(b []byte) []byte {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(b)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return gz.Bytes()
	}
	out := member(file[:hdr])
	blocks := member(file[hdr:])
	total, recs := hdr, 0
	for total+len(file)-hdr <= size {
		out = append(out, blocks...)
		total += len(file) - hdr
		recs += n
	}
	return out, recs
}

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Issue 27, item 5: 50 MiB of 3-byte records (79 KB gzipped) was read
// into 17.4 M records. Read refuses it at MaxRecords, naming the limit,
// having allocated a bounded number of bytes whatever the file's size.
func TestReadRefusesARecordBomb(t *testing.T) {
	gz, n := gzipBomb(t, 50<<20)
	t.Logf("the bomb: 50 MiB, %d records, %d bytes gzipped", n, len(gz))
	var rep *Replay
	var err error
	alloc := allocated(func() {
		zr, zerr := gzip.NewReader(bytes.NewReader(gz))
		if zerr != nil {
			t.Fatal(zerr)
		}
		rep, err = Read(zr)
	})
	t.Logf("Read: %d bytes allocated; %v", alloc, err)
	if err == nil {
		t.Fatalf("the bomb was read: %d records", len(rep.Records))
	}
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2000000 records") {
		t.Errorf("error %q: want ErrTooLarge naming the limit of 2000000 records", err)
	}
	// The records read up to the limit, 16 bytes each while reading
	// (32 MB), and the readers' buffers: 48 MiB, whatever the file.
	if alloc > 48<<20 {
		t.Errorf("Read allocated %d bytes for the bomb: at most %d", alloc, 48<<20)
	}
}

// Open refuses the bomb too, the file named with the limit; a file
// larger than MaxFileBytes is refused before it is read (a sparse file
// here: its size is all that counts).
func TestOpenRefusesPastTheLimits(t *testing.T) {
	dir := t.TempDir()
	bomb, n := appendBomb(nil, 3*MaxRecords+(64<<10)) // just past MaxRecords
	if n <= MaxRecords {
		t.Fatalf("a bomb of %d records", n)
	}
	path := filepath.Join(dir, "bomb"+Ext)
	if err := os.WriteFile(path, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	alloc := allocated(func() { _, err = Open(path) })
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "2000000 records") {
		t.Errorf("Open(%d records): %v; want ErrTooLarge naming %s and 2000000 records", n, err, path)
	}
	if alloc > 48<<20 {
		t.Errorf("Open allocated %d bytes for the bomb: at most %d", alloc, 48<<20)
	}

	big := filepath.Join(dir, "big"+Ext)
	if err := os.WriteFile(big, appendHeader(nil, &testHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	alloc = allocated(func() { _, err = Open(big) })
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "at most 134217728 bytes") {
		t.Errorf("Open(%d bytes): %v; want ErrTooLarge naming %s and 134217728 bytes", MaxFileBytes+1, err, big)
	}
	if alloc > 1<<20 {
		t.Errorf("Open allocated %d bytes for a file it refuses by its size", alloc)
	}
}

// A stream of MaxFileBytes and more (a bomb of big records, endless) is
// read up to MaxFileBytes, no further, and refused, naming the limit; the
// Reader keeps nothing of what it read. The Writer writes up to the
// limit, not past it.
func TestReaderStopsAtMaxFileBytes(t *testing.T) {
	var file countWriter
	w, err := NewWriter(&file, &testHeader)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, MaxPayload)
	for w.Fits(len(big)) {
		if err := w.Record(KindSnapshot, 0, big); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Record(KindSnapshot, 0, big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a record past MaxFileBytes written: %v", err)
	}
	w.Flush()
	if w.Size() > MaxFileBytes || file.n != w.Size() {
		t.Fatalf("the Writer wrote %d bytes (Size %d), MaxFileBytes %d", file.n, w.Size(), MaxFileBytes)
	}

	// The header, then the same block of one record of MaxPayload bytes
	// for ever.
	var blk bytes.Buffer
	bw, _ := NewWriter(&blk, &testHeader)
	bw.Record(KindSnapshot, 0, big)
	bw.Flush()
	hdr := len(appendHeader(nil, &testHeader))
	cr := &countReader{r: io.MultiReader(bytes.NewReader(blk.Bytes()[:hdr]), &endless{b: blk.Bytes()[hdr:]})}
	var recs int
	alloc := allocated(func() {
		rd, err := NewReader(cr)
		if err != nil {
			t.Fatal(err)
		}
		for {
			_, err = rd.Next()
			if err != nil {
				break
			}
			recs++
		}
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "at most 134217728 bytes") {
			t.Errorf("after %d records: %v; want ErrTooLarge naming 134217728 bytes", recs, err)
		}
	})
	t.Logf("%d records, %d bytes read, %d allocated", recs, cr.n, alloc)
	if cr.n > MaxFileBytes+(64<<10) {
		t.Errorf("%d bytes read: past MaxFileBytes and the reader's buffer", cr.n)
	}
	if alloc > 1<<20 {
		t.Errorf("the Reader allocated %d bytes", alloc)
	}
}

// endless repeats b for ever.
type endless struct {
	b   []byte
	off int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.b[e.off:])
		n += c
		e.off = (e.off + c) % len(e.b)
	}
	return n, nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// The Writer refuses a record past MaxRecords; the Recorder stops
// before it, and what it wrote reads.
func TestWritersStopAtMaxRecords(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &testHeader)
	if err != nil {
		t.Fatal(err)
	}
	w.recs = MaxRecords - 1
	if err := w.Record(KindEvent, 0, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Record(KindEvent, 0, []byte{2}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("record %d: %v, want ErrTooLarge", MaxRecords+1, err)
	}

	buf.Reset()
	rec := NewRecorder(&buf, 0)
	at := testHeader.Start
	rec.Login(client.Login{Version: wire.Version2, Revision: wire.Revision, Mode: wire.ModeClassic, At: at, Name: "Ripley"})
	rec.Event([]byte{1}, at)
	rec.mu.Lock()
	rec.w.recs = MaxRecords - 1
	rec.mu.Unlock()
	rec.Event([]byte{2}, at)
	rec.Event([]byte{3}, at)
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	rep, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil || rep.Damage != nil || len(rep.Records) != 2 || rep.Records[1].Payload[0] != 2 {
		t.Fatalf("the recording: %v %+v", err, rep)
	}
}
