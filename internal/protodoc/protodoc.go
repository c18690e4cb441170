// Package protodoc checks a codec against the worked examples of a
// Markdown specification (PROTOCOL.md): each example is a fenced code
// block of hex bytes right after a line `<!-- example: NAME -->`, and a
// test gives, for each NAME, how the codec encodes it and a check that
// decoding the bytes gives it back.
package protodoc

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Example is one worked example: how the codec encodes it, the bytes the
// rules give (worked out by hand, independently of the codec, in hex),
// and a check that decoding those bytes gives the example back.
type Example struct {
	Name   string
	Want   string // hex, spaces allowed
	Encode func() []byte
	Decode func(b []byte) error
}

// CheckBytes checks the codec against the bytes of each example as the
// rules give them, whether the document exists or not.
func CheckBytes(t *testing.T, examples []Example) {
	t.Helper()
	for _, ex := range examples {
		want := Unhex(t, ex.Want)
		if got := ex.Encode(); !bytes.Equal(got, want) {
			t.Errorf("%s: encoded\n got % X\nwant % X", ex.Name, got, want)
		}
		if err := ex.Decode(want); err != nil {
			t.Errorf("%s: decoding % X: %v", ex.Name, want, err)
		}
	}
}

// CheckDoc checks each example against the document at path: the
// document must have it, the codec must produce exactly its bytes and
// decode them back. It skips the test when the document does not exist.
func CheckDoc(t *testing.T, path string, examples []Example) {
	t.Helper()
	md, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s does not exist", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := Blocks(md)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, ex := range examples {
		lines, ok := blocks[ex.Name]
		if !ok {
			t.Errorf("%s has no example %q (a fenced code block right after `<!-- example: %s -->`)", path, ex.Name, ex.Name)
			continue
		}
		doc := Hex(lines)
		if got := ex.Encode(); !bytes.Equal(got, doc) {
			t.Errorf("%s example %q:\n   doc % X\ncodec % X", path, ex.Name, doc, got)
		}
		if err := ex.Decode(doc); err != nil {
			t.Errorf("%s example %q: decoding the doc's bytes: %v", path, ex.Name, err)
		}
	}
}

// Unhex decodes s, hex digits with any white space between them, or
// fails the test.
func Unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	exampleMarker = regexp.MustCompile(`^\s*<!--\s*example:\s*(\S+)\s*-->\s*$`)
	fenceLine     = regexp.MustCompile("^\\s*(```+|~~~+)")
	hexByte       = regexp.MustCompile(`^[0-9A-Fa-f]{2}$`)
)

// Blocks returns the fenced code blocks of a Markdown document that are
// immediately preceded (blank lines aside) by a line
// `<!-- example: NAME -->`, by NAME, as their lines.
func Blocks(md []byte) (map[string][]string, error) {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	blocks := map[string][]string{}
	for i := 0; i < len(lines); i++ {
		m := exampleMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		name := m[1]
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		f := []string(nil)
		if j < len(lines) {
			f = fenceLine.FindStringSubmatch(lines[j])
		}
		if f == nil {
			return nil, fmt.Errorf("line %d: example %q is not followed by a fenced code block", i+1, name)
		}
		if _, dup := blocks[name]; dup {
			return nil, fmt.Errorf("line %d: example %q given twice", i+1, name)
		}
		var body []string
		k := j + 1
		for ; k < len(lines); k++ {
			if strings.HasPrefix(strings.TrimSpace(lines[k]), f[1]) {
				break
			}
			body = append(body, lines[k])
		}
		if k == len(lines) {
			return nil, fmt.Errorf("line %d: the code block of example %q is not closed", j+1, name)
		}
		blocks[name] = body
		i = k
	}
	return blocks, nil
}

// Hex reads the bytes of a block: on each line, the leading tokens of
// two hex digits. What follows them on the line (a comment, a label), and
// lines that start with anything else (field names under the bytes), are
// not bytes.
func Hex(lines []string) []byte {
	var b []byte
	for _, l := range lines {
		for _, tok := range strings.Fields(l) {
			if !hexByte.MatchString(tok) {
				break
			}
			v, _ := hex.DecodeString(tok)
			b = append(b, v...)
		}
	}
	return b
}
