//go:build !js

package web_test

import (
	"testing"

	"rtype/internal/browsertest"
)

// maxServedWasm is issue 18's target for the game as served: under 5 MB
// compressed. build.sh checks its gzip -9 file against the same bound.
const maxServedWasm = 5_000_000

// TestServedWasmSize builds the game for browsers as build.sh does and
// fails when it is not under 5 MB gzipped (Go's best compression, which
// is a little larger than gzip -9's). A package pulled into the wasm by
// accident shows here: package net's dialer and resolver, reached
// through the native sockets, cost 140 KB until they were left out of
// GOOS=js builds.
func TestServedWasmSize(t *testing.T) {
	gz, raw := browsertest.Wasm(t)
	t.Logf("the game for browsers: %d bytes, %d gzipped (limit %d)", raw, len(gz), maxServedWasm)
	if len(gz) >= maxServedWasm {
		t.Errorf("the served wasm is %d bytes gzipped, not under %d: look for packages linked by accident (go list -deps with GOOS=js GOARCH=wasm)", len(gz), maxServedWasm)
	}
}
