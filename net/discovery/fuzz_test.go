package discovery

import (
	"bytes"
	"testing"
)

// Fuzz targets of the discovery decoders, each with a committed corpus
// under testdata/fuzz/<FuzzName>/.

func FuzzParseQuery(f *testing.F) {
	f.Add(AppendQuery(nil, exNonce))
	f.Add(AppendQuery(nil, Nonce{})[:20])
	f.Add(AppendAnswer(nil, exNonce, &exInfo))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseQuery(b)
		if err != nil {
			return
		}
		if len(b) != QuerySize {
			t.Fatalf("accepted a query of %d bytes", len(b))
		}
		if got := AppendQuery(nil, n); !bytes.Equal(got[:14], b[:14]) {
			t.Fatalf("re-encoded % X\n        from % X", got[:14], b[:14])
		}
	})
}

func FuzzParseAnswer(f *testing.F) {
	f.Add(AppendAnswer(nil, exNonce, &exInfo))
	f.Add(AppendAnswer(nil, Nonce{}, &Info{Port: 1, DefaultMode: 1, Versions: 1}))
	f.Add(AppendQuery(nil, exNonce))
	long := exInfo
	long.Name = "Ellen's Nostromo ★ long name of 35b"
	f.Add(AppendAnswer(nil, exNonce, &long))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, info, err := ParseAnswer(b)
		if err != nil {
			return
		}
		if len(b) > QuerySize || len(info.Name) > MaxName || CleanName(info.Name) != info.Name {
			t.Fatalf("accepted %+v from %d bytes", info, len(b))
		}
		if got := AppendAnswer(nil, n, &info); !bytes.Equal(got, b) {
			t.Fatalf("re-encoded % X\n        from % X", got, b)
		}
	})
}
