package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// events encodes a run's events as go test -json writes them.
func events(t *testing.T, evs ...event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func out(pkg, test, s string) event {
	return event{Action: "output", Package: pkg, Test: test, Output: s}
}

// A red run: the summary gives the failing subtest's own log and its
// assertion, not the passing test's log nor the parent's, then the counts.
func TestSummaryOfAFailure(t *testing.T) {
	in := events(t,
		event{Action: "run", Package: "rtype/a", Test: "TestGood"},
		out("rtype/a", "TestGood", "=== RUN   TestGood\n"),
		out("rtype/a", "TestGood", "    a_test.go:10: chatter of a passing test\n"),
		event{Action: "pass", Package: "rtype/a", Test: "TestGood", Elapsed: 1.5},
		event{Action: "run", Package: "rtype/a", Test: "TestBad"},
		event{Action: "run", Package: "rtype/a", Test: "TestBad/sub"},
		out("rtype/a", "TestBad/sub", "=== RUN   TestBad/sub\n"),
		out("rtype/a", "TestBad/sub", "    a_test.go:20: got 3 events, want 4\n"),
		out("rtype/a", "TestBad/sub", "        event 3: Spawn\n"),
		out("rtype/a", "TestBad/sub", "    testutil.go:160: log of the components:\n"),
		out("rtype/a", "TestBad/sub", "        level=INFO msg=\"server started\"\n"),
		out("rtype/a", "TestBad/sub", "    --- FAIL: TestBad/sub (2.00s)\n"),
		event{Action: "fail", Package: "rtype/a", Test: "TestBad/sub", Elapsed: 2},
		event{Action: "skip", Package: "rtype/a", Test: "TestSkipped"},
		event{Action: "fail", Package: "rtype/a", Test: "TestBad", Elapsed: 2},
		out("rtype/a", "", "FAIL\n"),
		event{Action: "fail", Package: "rtype/a", Elapsed: 4},
	)
	r := newReport()
	var copied, prog bytes.Buffer
	if err := read(r, strings.NewReader(in), &copied, &prog, "headless: "); err != nil {
		t.Fatal(err)
	}
	if copied.String() != in {
		t.Errorf("-progress changed its input")
	}
	wantProg := "headless: FAIL rtype/a                             4.0s\nheadless:      --- FAIL: TestBad/sub\n"
	if prog.String() != wantProg {
		t.Errorf("progress:\n%s\nwant:\n%s", prog.String(), wantProg)
	}
	var w strings.Builder
	if !r.summary(&w, 100, 1) {
		t.Error("a run with a failing test is not red")
	}
	s := w.String()
	for _, want := range []string{
		"=== the log of rtype/a TestBad/sub (2.0s)",
		`level=INFO msg="server started"`,
		"the 1 slowest tests:\n       1.5s rtype/a TestGood\n",
		"FAILED:\nFAIL rtype/a TestBad/sub (2.0s)\n    a_test.go:20: got 3 events, want 4\n    event 3: Spawn\n",
		"\n1 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "chatter of a passing test") {
		t.Errorf("the summary shows a passing test's log:\n%s", s)
	}
	if strings.Contains(s, "the log of rtype/a TestBad (") {
		t.Errorf("the summary details the parent of a failing subtest:\n%s", s)
	}
	if !strings.HasSuffix(s, "1 passed, 1 failed, 1 skipped\n") {
		t.Errorf("the summary does not end with its counts:\n%s", s)
	}
}

// A test binary that panics, or times out, fails its package with the
// test still running: the summary names the test and the panic.
func TestSummaryOfAPanic(t *testing.T) {
	in := events(t,
		event{Action: "run", Package: "rtype/b", Test: "TestHang"},
		out("rtype/b", "TestHang", "=== RUN   TestHang\n"),
		out("rtype/b", "TestHang", "panic: test timed out after 10m0s\n"),
		out("rtype/b", "TestHang", "\trunning tests:\n"),
		out("rtype/b", "TestHang", "\t\tTestHang (10m0s)\n"),
		event{Action: "fail", Package: "rtype/b", Elapsed: 600},
	)
	r := newReport()
	if err := read(r, strings.NewReader(in), nil, nil, ""); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	if !r.summary(&w, 100, 0) {
		t.Error("a panicked package is not red")
	}
	s := w.String()
	for _, want := range []string{
		"UNFINISHED (its package's binary ended: a panic or a timeout) rtype/b TestHang",
		"    panic: test timed out after 10m0s\n",
		"0 passed, 1 failed, 0 skipped\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the summary lacks %q:\n%s", want, s)
		}
	}
}

// A package that does not build fails outside its tests: its build
// output is in the summary.
func TestSummaryOfABuildError(t *testing.T) {
	in := events(t,
		event{Action: "build-output", ImportPath: "rtype/c [rtype/c.test]", Output: "# rtype/c\n"},
		event{Action: "build-output", ImportPath: "rtype/c [rtype/c.test]", Output: "c.go:3:1: syntax error: non-declaration statement outside function body\n"},
		event{Action: "build-fail", ImportPath: "rtype/c [rtype/c.test]"},
		event{Action: "start", Package: "rtype/c"},
		out("rtype/c", "", "FAIL\trtype/c [build failed]\n"),
		event{Action: "fail", Package: "rtype/c"},
	)
	r := newReport()
	if err := read(r, strings.NewReader(in), nil, nil, ""); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	if !r.summary(&w, 100, 0) {
		t.Error("a package that did not build is not red")
	}
	s := w.String()
	for _, want := range []string{
		"=== rtype/c [rtype/c.test] did not build\n# rtype/c\nc.go:3:1: syntax error",
		"BUILD FAILED rtype/c [rtype/c.test]\n",
		"FAIL\trtype/c [build failed]",
		"FAIL rtype/c (outside its tests)",
		"0 passed, 1 failed, 0 skipped\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the summary lacks %q:\n%s", want, s)
		}
	}
}

// A green run is not red, and says so in its counts.
func TestSummaryGreen(t *testing.T) {
	in := events(t,
		event{Action: "run", Package: "rtype/d", Test: "TestA"},
		event{Action: "pass", Package: "rtype/d", Test: "TestA", Elapsed: 0.1},
		event{Action: "pass", Package: "rtype/d", Elapsed: 0.2},
	)
	r := newReport()
	if err := read(r, strings.NewReader(in), nil, nil, ""); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	if r.summary(&w, 100, 0) {
		t.Errorf("a green run is red:\n%s", w.String())
	}
	if got := w.String(); got != "1 passed, 0 failed, 0 skipped\n" {
		t.Errorf("summary %q", got)
	}
}
