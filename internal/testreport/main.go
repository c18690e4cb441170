// Command testreport reads the events of `go test -json` and tells what a
// red run needs said in one screen: each failing test's name, its
// assertions, and its own log (which holds the logs of its components,
// kept by testutil.Logger and written only when the test fails), with
// nothing of the passing tests mixed in.
//
// build.sh runs it in two ways:
//
//	go test -json ... | testreport -progress -label headless >events.json
//	testreport -summary events-headless.json events-gui.json
//
// With -progress it copies its input to its output unchanged and writes a
// line per package to standard error as each one ends ("ok  rtype/server
// 58.1s"), with the package's failing tests under it. With -summary it
// reads the files of a run and prints, in this order: the log of each
// failing test (at most -lines lines each, the newest kept), a package's
// own output when its test binary failed outside any test (a panic, a
// timeout, a build error), the slowest tests, and last the failures again,
// a line each with their assertions, then one line of counts:
//
//	FAIL rtype/e2e TestSoak/lan (12.3s)
//	    soak_test.go:412: client b: event 17 twice
//	1204 passed, 1 failed, 12 skipped
//
// It exits with status 1 when a test or a package failed, 2 when it
// cannot read its input.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json), with the fields
// this command reads. Build output (go 1.24 and later) comes with
// ImportPath and the Actions build-output and build-fail.
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string
}

// maxKept bounds what is kept of one test's or package's output while it
// runs: the newest lines, past this many bytes the older ones are cut.
const maxKept = 1 << 20

// output is the output of one test or package, kept until it passes.
type output struct {
	lines []string
	size  int
	cut   int // lines cut from the front
}

func (o *output) add(s string) {
	o.lines = append(o.lines, s)
	o.size += len(s)
	for o.size > maxKept && len(o.lines) > 1 {
		o.size -= len(o.lines[0])
		o.lines = o.lines[1:]
		o.cut++
	}
}

// result is a test that ended.
type result struct {
	pkg, test string
	action    string
	elapsed   float64
	out       *output
}

// report is what the events of one or more runs came to.
type report struct {
	running   map[string]*output // by package + "\x00" + test, while running
	pkgOut    map[string]*output // a package's own output, outside any test
	build     map[string]*output // build output, by import path
	buildFail []string           // the import paths that did not build
	failed    []result           // tests that failed, in the order they ended
	pkgFail   []result           // packages that failed
	slow      []result           // every passing top-level test (for the slowest)
	passed    int
	skipped   int
	pkgsDone  int
}

func newReport() *report {
	return &report{running: map[string]*output{}, pkgOut: map[string]*output{}, build: map[string]*output{}}
}

func key(pkg, test string) string { return pkg + "\x00" + test }

// add takes one event; it returns the lines -progress prints for it.
func (r *report) add(e event) []string {
	if e.ImportPath != "" && e.Package == "" {
		// Build output.
		o := r.build[e.ImportPath]
		if o == nil {
			o = &output{}
			r.build[e.ImportPath] = o
		}
		switch e.Action {
		case "build-output":
			o.add(e.Output)
		case "build-fail":
			r.buildFail = append(r.buildFail, e.ImportPath)
		}
		return nil
	}
	k := key(e.Package, e.Test)
	switch e.Action {
	case "output":
		if e.Test == "" {
			o := r.pkgOut[e.Package]
			if o == nil {
				o = &output{}
				r.pkgOut[e.Package] = o
			}
			o.add(e.Output)
			return nil
		}
		o := r.running[k]
		if o == nil {
			o = &output{}
			r.running[k] = o
		}
		o.add(e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			return r.endPackage(e)
		}
		o := r.running[k]
		delete(r.running, k)
		switch e.Action {
		case "pass":
			r.passed++
			if !strings.Contains(e.Test, "/") {
				r.slow = append(r.slow, result{pkg: e.Package, test: e.Test, elapsed: e.Elapsed})
			}
		case "skip":
			r.skipped++
		case "fail":
			if o == nil {
				o = &output{}
			}
			r.failed = append(r.failed, result{pkg: e.Package, test: e.Test, action: e.Action, elapsed: e.Elapsed, out: o})
		}
	}
	return nil
}

// endPackage records a package's end and returns its progress lines.
func (r *report) endPackage(e event) []string {
	r.pkgsDone++
	o := r.pkgOut[e.Package]
	delete(r.pkgOut, e.Package)
	status := map[string]string{"pass": "ok  ", "fail": "FAIL", "skip": "?   "}[e.Action]
	lines := []string{fmt.Sprintf("%s %-32s %6.1fs", status, e.Package, e.Elapsed)}
	if e.Action != "fail" {
		return lines
	}
	var names []string
	for _, f := range r.failed {
		if f.pkg == e.Package {
			names = append(names, f.test)
		}
	}
	// Tests still running when the package ended: a panic or a timeout
	// in them.
	for k, to := range r.running {
		pkg, test, _ := strings.Cut(k, "\x00")
		if pkg != e.Package {
			continue
		}
		delete(r.running, k)
		r.failed = append(r.failed, result{pkg: pkg, test: test, action: "unfinished", out: to})
		names = append(names, test+" (unfinished)")
	}
	sort.Strings(names)
	for _, n := range leaves(names) {
		lines = append(lines, "     --- FAIL: "+n)
	}
	if o == nil {
		o = &output{}
	}
	r.pkgFail = append(r.pkgFail, result{pkg: e.Package, action: "fail", elapsed: e.Elapsed, out: o})
	return lines
}

// leaves returns the names that no other name of the list has as a
// parent: the tests that failed themselves, not because a subtest did.
// names is sorted.
func leaves(names []string) []string {
	var out []string
	for i, n := range names {
		base := strings.TrimSuffix(n, " (unfinished)")
		if i+1 < len(names) && strings.HasPrefix(names[i+1], base+"/") {
			continue
		}
		out = append(out, n)
	}
	return out
}

// assertion matches a line a test's t.Error, t.Fatal or t.Log wrote
// ("    file_test.go:123: message").
var assertion = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: `)

// failureLines returns the lines of a failing test that say why: those
// its t.Error and t.Fatal calls wrote (the lines with a file:line: head
// and the lines indented under them), panics and the timeout, at most max.
func failureLines(o *output, max int) []string {
	var out []string
	in := false
	for _, l := range o.lines {
		l = strings.TrimRight(l, "\n")
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") || strings.HasPrefix(strings.TrimSpace(l), "=== "):
			in = false
			continue
		case strings.Contains(l, "log of the components:"):
			// The logs of a test's components come after its
			// assertions, and are in its log above.
			in = false
			continue
		case assertion.MatchString(l), strings.HasPrefix(l, "panic:"), strings.Contains(l, "test timed out"):
			in = true
		case in && (strings.HasPrefix(l, "        ") || strings.HasPrefix(l, "\t")):
		default:
			in = false
		}
		if in {
			out = append(out, l)
		}
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("        (%d lines more)", len(out)-max))
	}
	return out
}

// ownLines reports whether o has lines other than go test's markers
// (=== RUN, --- FAIL and the like).
func ownLines(o *output) bool {
	for _, l := range o.lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- ") {
			return true
		}
	}
	return false
}

// tail returns the newest n lines of o, with a note of those cut.
func tail(o *output, n int) []string {
	lines := o.lines
	cut := o.cut
	if len(lines) > n {
		cut += len(lines) - n
		lines = lines[len(lines)-n:]
	}
	var out []string
	if cut > 0 {
		out = append(out, fmt.Sprintf("    (%d earlier lines cut)\n", cut))
	}
	return append(out, lines...)
}

// ownFailures returns the failures to detail: the leaves, without those
// whose subtest failed too.
func (r *report) ownFailures() []result {
	var names []string
	for _, f := range r.failed {
		names = append(names, key(f.pkg, f.test))
	}
	sort.Strings(names)
	keep := map[string]bool{}
	for i, n := range names {
		if i+1 < len(names) && strings.HasPrefix(names[i+1], n+"/") {
			continue
		}
		keep[n] = true
	}
	var out []result
	for _, f := range r.failed {
		if keep[key(f.pkg, f.test)] {
			out = append(out, f)
		}
	}
	return out
}

// summary writes the report of a finished run to w and reports whether
// it was red.
func (r *report) summary(w io.Writer, lines, slowest int) bool {
	fails := r.ownFailures()
	// Packages whose binary failed outside any test: a panic, a timeout,
	// a build error, TestMain.
	var bare []result
	for _, p := range r.pkgFail {
		has := false
		for _, f := range fails {
			has = has || f.pkg == p.pkg
		}
		if !has {
			bare = append(bare, p)
		}
	}
	// Every failing test's log, a parent's too where it has lines of its
	// own (the logs of the components it started come at its end).
	for _, f := range r.failed {
		if !ownLines(f.out) {
			continue
		}
		fmt.Fprintf(w, "\n=== the log of %s %s (%.1fs)\n", f.pkg, f.test, f.elapsed)
		for _, l := range tail(f.out, lines) {
			io.WriteString(w, l)
			if !strings.HasSuffix(l, "\n") {
				io.WriteString(w, "\n")
			}
		}
	}
	for _, b := range r.buildFail {
		fmt.Fprintf(w, "\n=== %s did not build\n", b)
		for _, l := range tail(r.build[b], lines) {
			io.WriteString(w, l)
		}
	}
	for _, p := range bare {
		fmt.Fprintf(w, "\n=== %s failed outside its tests (a build error, a panic, a timeout, TestMain)\n", p.pkg)
		for _, l := range tail(p.out, lines) {
			io.WriteString(w, l)
			if !strings.HasSuffix(l, "\n") {
				io.WriteString(w, "\n")
			}
		}
	}
	// Still running when the input ended: the run was killed.
	var unended []string
	for k := range r.running {
		pkg, test, _ := strings.Cut(k, "\x00")
		unended = append(unended, pkg+" "+test)
	}
	sort.Strings(unended)

	if slowest > 0 && len(r.slow) > 0 {
		sort.Slice(r.slow, func(i, j int) bool { return r.slow[i].elapsed > r.slow[j].elapsed })
		fmt.Fprintf(w, "\nthe %d slowest tests:\n", min(slowest, len(r.slow)))
		for _, s := range r.slow[:min(slowest, len(r.slow))] {
			fmt.Fprintf(w, "    %6.1fs %s %s\n", s.elapsed, s.pkg, s.test)
		}
	}
	red := len(fails) > 0 || len(r.pkgFail) > 0 || len(unended) > 0
	if red {
		fmt.Fprintf(w, "\nFAILED:\n")
		for _, f := range fails {
			what := "FAIL"
			if f.action == "unfinished" {
				what = "UNFINISHED (its package's binary ended: a panic or a timeout)"
			}
			fmt.Fprintf(w, "%s %s %s (%.1fs)\n", what, f.pkg, f.test, f.elapsed)
			for _, l := range failureLines(f.out, 12) {
				fmt.Fprintf(w, "    %s\n", strings.TrimSpace(l))
			}
		}
		for _, p := range bare {
			fmt.Fprintf(w, "FAIL %s (outside its tests)\n", p.pkg)
			for _, l := range failureLines(p.out, 6) {
				fmt.Fprintf(w, "    %s\n", strings.TrimSpace(l))
			}
		}
		for _, b := range r.buildFail {
			fmt.Fprintf(w, "BUILD FAILED %s\n", b)
		}
		for _, u := range unended {
			fmt.Fprintf(w, "NOT ENDED %s (the run was stopped)\n", u)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", r.passed, len(fails)+len(bare)+len(unended), r.skipped)
	return red
}

// read feeds every event of in to r; with progress, it copies in to copyTo
// and writes the progress lines to prog. Lines that are not JSON (go
// test's own messages) are kept as output of the package "" and copied.
func read(r *report, in io.Reader, copyTo, prog io.Writer, label string) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if copyTo != nil {
			copyTo.Write(line)
			copyTo.Write([]byte{'\n'})
		}
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			e = event{Action: "output", Package: "(go test)", Output: string(line) + "\n"}
			if prog != nil && len(line) > 0 {
				fmt.Fprintf(prog, "%s%s\n", label, line)
			}
		}
		for _, l := range r.add(e) {
			if prog != nil {
				fmt.Fprintf(prog, "%s%s\n", label, l)
			}
		}
	}
	return sc.Err()
}

func main() {
	progress := flag.Bool("progress", false, "copy standard input to standard output, and write a line per package to standard error as it ends")
	label := flag.String("label", "", "with -progress, a word put before each line (the run's name)")
	summary := flag.Bool("summary", false, "read the files named as arguments (go test -json output) and print the report")
	lines := flag.Int("lines", 150, "with -summary, the most lines of one failing test's log printed")
	slowest := flag.Int("slowest", 10, "with -summary, how many of the slowest tests to list")
	flag.Parse()
	r := newReport()
	switch {
	case *progress:
		l := ""
		if *label != "" {
			l = *label + ": "
		}
		out := bufio.NewWriter(os.Stdout)
		if err := read(r, os.Stdin, out, os.Stderr, l); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			out.Flush()
			os.Exit(2)
		}
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
	case *summary:
		for _, name := range flag.Args() {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "testreport:", err)
				os.Exit(2)
			}
			err = read(r, f, nil, nil, "")
			f.Close()
			if err != nil {
				fmt.Fprintf(os.Stderr, "testreport: %s: %v\n", name, err)
				os.Exit(2)
			}
		}
		if r.summary(os.Stdout, *lines, *slowest) {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "testreport: -progress or -summary")
		flag.Usage()
		os.Exit(2)
	}
}
