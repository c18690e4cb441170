package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// binaries is the rtype-server executables the package's tests run, built
// once per test binary: as `go build` builds it, and without cgo as the
// Dockerfile does. Each build links for seconds (the one without cgo
// compiles every dependency again the first time, the build cache holding
// them with cgo), and a dozen tests run one. TestMain removes them.
var binaries builtBinaries

type builtBinaries struct {
	mu   sync.Mutex
	dir  string
	bins [2]string // default, CGO_ENABLED=0
}

// build returns the executable, building it the first time, and the
// time the build took (0: built before).
func (b *builtBinaries) build(static bool) (string, time.Duration, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := 0
	if static {
		i = 1
	}
	if b.bins[i] != "" {
		return b.bins[i], 0, nil
	}
	if b.dir == "" {
		dir, err := os.MkdirTemp("", "rtype-server-test-")
		if err != nil {
			return "", 0, err
		}
		b.dir = dir
	}
	bin := filepath.Join(b.dir, fmt.Sprintf("rtype-server-%d", i))
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if static {
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("%v: %v\n%s", cmd.Args, err, out)
	}
	b.bins[i] = bin
	return bin, time.Since(start), nil
}

// remove deletes the executables built.
func (b *builtBinaries) remove() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
	b.dir, b.bins = "", [2]string{}
}

// buildBinary returns rtype-server as `go build` builds it, built once
// for all the package's tests; they only run it.
func buildBinary(t testing.TB) string {
	t.Helper()
	return builtBinary(t, false)
}

// buildStaticBinary returns rtype-server built with CGO_ENABLED=0, as the
// Dockerfile builds it, once for all the package's tests.
func buildStaticBinary(t testing.TB) string {
	t.Helper()
	return builtBinary(t, true)
}

func builtBinary(t testing.TB, static bool) string {
	t.Helper()
	bin, took, err := binaries.build(static)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	if took > 0 {
		t.Logf("built rtype-server (CGO_ENABLED=0: %v) in %v", static, took.Round(time.Millisecond))
	}
	return bin
}
