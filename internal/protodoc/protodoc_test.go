package protodoc

import (
	"bytes"
	"testing"
)

func TestHexParsing(t *testing.T) {
	md := "text\n<!-- example: a -->\n\n```text\n01  64 02 00 00  09\ntyp tick 612     id\n0A 0b   count\n```\n" +
		"<!-- example: b -->\n~~~\nFF\n~~~\nno marker:\n```\n00\n```\n"
	blocks, err := Blocks([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if got := Hex(blocks["a"]); !bytes.Equal(got, []byte{1, 0x64, 2, 0, 0, 9, 0x0A, 0x0B}) {
		t.Fatalf("a: % X", got)
	}
	if got := Hex(blocks["b"]); !bytes.Equal(got, []byte{0xFF}) {
		t.Fatalf("b: % X", got)
	}
	if len(blocks) != 2 {
		t.Fatalf("blocks %v", blocks)
	}
	if _, err := Blocks([]byte("<!-- example: x -->\ntext\n```\n00\n```\n")); err == nil {
		t.Fatal("a marker without its block")
	}
	if _, err := Blocks([]byte("<!-- example: x -->\n```\n00\n")); err == nil {
		t.Fatal("a block not closed")
	}
	if _, err := Blocks([]byte("<!-- example: x -->\n```\n00\n```\n<!-- example: x -->\n```\n01\n```\n")); err == nil {
		t.Fatal("an example given twice")
	}
}
