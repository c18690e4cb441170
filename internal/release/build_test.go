package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tc-hib/winres"

	"rtype/assets"
	"rtype/internal/testutil"
)

// testVersion is the version TestRelease releases.
const testVersion = "v1.2.3-test"

// TestRelease runs ./build.sh release on a copy of the source tree (the
// files git tracks or would track), then again for linux-amd64 alone
// (RELEASE_PLATFORMS) on a second copy at another path, and checks what
// issue 31 asks of dist/:
//
//   - the files: the Linux tar.gz, the Windows zip, the arm64 server (and
//     its notices), SHA256SUMS, which sha256sum -c accepts;
//   - reproducible: the second build's files are byte for byte the first's
//     (it finds the first's packages in Go's build cache, -trimpath
//     leaving the path out: it links and archives). It rebuilds the
//     Linux archive, whose game links C (cgo) and whose binaries embed the
//     game for browsers; the archive writers and the Windows resources
//     are the same bytes each time by their own tests (TestTarGz, TestZip,
//     TestSyso). RTYPE_RELEASE_TWICE=1 rebuilds every platform and
//     compares every file;
//   - the Linux archive: rtype-server, rtype-bot and rtype (under Xvfb:
//     Ebitengine's init needs a display even for -version) print the
//     version; the game's and the server's first log lines, the server's
//     /metrics (rtype_build_info) and status page carry it; the desktop entry and metainfo pass their
//     validators; NOTICES.txt holds the license of every module linked
//     into the binaries;
//   - the Windows archive: rtype.exe is a GUI program whose resources hold
//     the icon (RT_GROUP_ICON of an RT_ICON per size) and the version
//     (RT_VERSION, its fixed and string versions), read back from the PE
//     file; both executables carry the version in their build settings;
//   - the arm64 server is a static arm64 ELF with the version.
//
// The checks of the first build's files run while the second builds.
func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the release builds every binary (minutes on a cold build cache)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	// A fixed time for the archives: the copies have no .git to read the
	// commit's from.
	const epoch = 1765036800 // 2025-12-06
	build := func(n int, src, dist, platforms string) error {
		start := time.Now()
		cmd := exec.Command("bash", filepath.Join(src, "build.sh"), "release", testVersion)
		cmd.Dir = src
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "RELEASE_PLATFORMS=") }),
			"DIST="+dist, "SOURCE_DATE_EPOCH="+strconv.Itoa(epoch))
		if platforms != "" {
			cmd.Env = append(cmd.Env, "RELEASE_PLATFORMS="+platforms)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build.sh release (build %d): %v\n%s", n, err, out)
		}
		t.Logf("build %d (%s): %v", n, cmp.Or(platforms, "every platform"), time.Since(start).Round(time.Second))
		return nil
	}
	want := []string{"SHA256SUMS", "rtype-server-" + testVersion + "-linux-arm64", "rtype-server-" + testVersion + "-linux-arm64.NOTICES.txt",
		"rtype-" + testVersion + "-linux-amd64.tar.gz", "rtype-" + testVersion + "-windows-amd64.zip"}
	want2, platforms2 := []string{"SHA256SUMS", "rtype-" + testVersion + "-linux-amd64.tar.gz"}, "linux-amd64"
	if os.Getenv("RTYPE_RELEASE_TWICE") == "1" {
		want2, platforms2 = want, ""
	}
	slices.Sort(want)
	slices.Sort(want2)
	src1, src2 := filepath.Join(tmp, "src"), filepath.Join(tmp, "src2")
	dist, dist2 := filepath.Join(tmp, "dist1"), filepath.Join(tmp, "dist2")
	snapshot(t, root, src1, src2) // at once: the tree may change while the first builds
	if err := build(1, src1, dist, ""); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dist); !slices.Equal(names, want) {
		t.Fatalf("build 1 wrote %q, want %q", names, want)
	}
	// The second build runs while the subtests check the first's files.
	built2, waited := make(chan error, 1), false
	go func() { built2 <- build(2, src2, dist2, platforms2) }()
	defer func() {
		if !waited {
			<-built2 // before TempDir's removal
		}
	}()

	t.Run("sums", func(t *testing.T) {
		sums := exec.Command("sha256sum", "-c", "SHA256SUMS")
		sums.Dir = dist
		if out, err := sums.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c SHA256SUMS: %v\n%s", err, out)
		}
	})
	t.Run("linux", func(t *testing.T) { checkLinux(t, dist, filepath.Join(tmp, "linux")) })
	t.Run("windows", func(t *testing.T) { checkWindows(t, dist, filepath.Join(tmp, "windows")) })
	t.Run("arm64", func(t *testing.T) {
		bin := filepath.Join(dist, "rtype-server-"+testVersion+"-linux-arm64")
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Machine != elf.EM_AARCH64 {
			t.Errorf("machine %v, want arm64", f.Machine)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("the arm64 server has an interpreter: it is not static")
			}
		}
		checkStamp(t, bin, "arm64", "linux")
		checkNotices(t, bin+".NOTICES.txt", bin)
	})
	t.Run("reproducible", func(t *testing.T) {
		err := <-built2
		waited = true
		if err != nil {
			t.Fatal(err)
		}
		if names := dirNames(t, dist2); !slices.Equal(names, want2) {
			t.Fatalf("build 2 wrote %q, want %q", names, want2)
		}
		for _, name := range want2 {
			a, _ := os.ReadFile(filepath.Join(dist, name))
			b, _ := os.ReadFile(filepath.Join(dist2, name))
			if name == "SHA256SUMS" && platforms2 != "" {
				// The second lists its files alone: each line is the first's.
				for _, l := range strings.SplitAfter(string(b), "\n") {
					if !strings.Contains(string(a), l) {
						t.Errorf("SHA256SUMS: build 2's line %q is not build 1's", l)
					}
				}
				continue
			}
			sa, sb := sha256.Sum256(a), sha256.Sum256(b)
			t.Logf("%-48s %10d bytes  sha256 %s, %s", name, len(a), hex.EncodeToString(sa[:8]), hex.EncodeToString(sb[:8]))
			if !bytes.Equal(a, b) {
				t.Errorf("%s: the two builds differ (%d and %d bytes)", name, len(a), len(b))
			}
		}
	})
}

// dirNames returns the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// snapshot copies the files git tracks or would track (not ignored) of
// root into each of dsts, as they are in the working tree.
func snapshot(t *testing.T, root string, dsts ...string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		from := filepath.Join(root, name)
		st, err := os.Lstat(from)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		for _, dst := range dsts {
			to := filepath.Join(dst, name)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, data, st.Mode().Perm()); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// unpack extracts the archive (tar.gz or zip) into dir with tar or unzip,
// as a user does; where unzip is missing, with Go's readers, which take
// tens of seconds under the race detector to inflate the tens of
// megabytes of an archive.
func unpack(t *testing.T, archive, dir string) {
	t.Helper()
	var tool *exec.Cmd
	if strings.HasSuffix(archive, ".zip") {
		if _, err := exec.LookPath("unzip"); err == nil {
			tool = exec.Command("unzip", "-q", archive, "-d", dir)
		}
	} else {
		tool = exec.Command("tar", "-xzf", archive, "-C", dir)
	}
	if tool != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := tool.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", tool.Args, err, out)
		}
		return
	}
	write := func(name string, mode os.FileMode, r io.Reader) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("%s: entry %q leaves the directory", archive, name)
		}
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	if strings.HasSuffix(archive, ".zip") {
		zr, err := zip.OpenReader(archive)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			write(f.Name, f.Mode().Perm(), rc)
			rc.Close()
		}
		return
	}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		write(h.Name, os.FileMode(h.Mode).Perm(), tr)
	}
}

// checkLinux unpacks the Linux archive into dir and checks it.
func checkLinux(t *testing.T, dist, dir string) {
	unpack(t, filepath.Join(dist, "rtype-"+testVersion+"-linux-amd64.tar.gz"), dir)
	top := filepath.Join(dir, "rtype-"+testVersion+"-linux-amd64")
	for _, n := range []string{"README.md", "NOTICES.txt", "rtype", "rtype-server", "rtype-bot"} {
		if _, err := os.Stat(filepath.Join(top, n)); err != nil {
			t.Error(err)
		}
	}
	for _, n := range []string{"rtype-server", "rtype-bot"} {
		out, err := exec.Command(filepath.Join(top, n), "-version").Output()
		if got, want := string(out), n+" "+testVersion+"\n"; err != nil || got != want {
			t.Errorf("%s -version: %q (%v), want %q", n, got, err, want)
		}
	}
	// The game: Ebitengine initialises GLFW in its package's init, which
	// panics with no display, before main reads -version: on an Xvfb of
	// the test's own.
	env := append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "DISPLAY=") }),
		"DISPLAY="+startXvfb(t))
	game := exec.Command(filepath.Join(top, "rtype"), "-version")
	game.Env = env
	if out, err := game.Output(); err != nil || string(out) != "rtype "+testVersion+"\n" {
		t.Errorf("rtype -version: %q (%v), want %q", out, err, "rtype "+testVersion+"\n")
	}
	// Its first log line: the game started (no sound, no page, no
	// discovery, nothing written), then quit cleanly by SIGTERM, as a
	// desktop's session ends it (the release's game has no test hooks:
	// -autotest-* is -tags autotest only). The signal goes once the game
	// logged a second line: it handles SIGTERM from its first line on.
	run := exec.Command(filepath.Join(top, "rtype"),
		"-mute", "-web=", "-discovery=", "-db", "none", "-replays", "none", "-config", filepath.Join(dir, "settings.json"))
	run.Env = env
	var stderr testutil.SyncBuffer
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	// logLines are the whole lines of its log (X11's client library may
	// write before them: no .Xauthority for an Xvfb without access
	// control).
	logLines := func() []string {
		var lines []string
		out := stderr.String()
		for l, rest, ok := strings.Cut(out, "\n"); ok; l, rest, ok = strings.Cut(rest, "\n") {
			if strings.HasPrefix(l, "time=") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	var runErr error
	ended := false
	testutil.Eventually(testutil.Wait, func() bool {
		select {
		case runErr = <-exited:
			ended = true
			return true
		default:
			return len(logLines()) >= 2
		}
	})
	if ended {
		t.Errorf("rtype ended before its second log line: %v\n%s", runErr, stderr.String())
	} else {
		run.Process.Signal(syscall.SIGTERM)
		select {
		case runErr = <-exited:
			if runErr != nil {
				t.Errorf("rtype, at SIGTERM: %v\n%s", runErr, stderr.String())
			}
		case <-time.After(testutil.Wait):
			run.Process.Kill()
			<-exited
			t.Errorf("rtype still ran %v after SIGTERM\n%s", testutil.Wait, stderr.String())
		}
	}
	var first string
	if lines := logLines(); len(lines) > 0 {
		first = lines[0]
	}
	if !regexp.MustCompile(`msg="rtype starting" version=` + regexp.QuoteMeta(testVersion) + `$`).MatchString(first) {
		t.Errorf("the game's first log line: %q; its output:\n%s", first, stderr.String())
	}
	validateDesktop(t, top)
	icon, err := os.ReadFile(filepath.Join(top, "share/icons/hicolor/128x128/apps", AppID+".png"))
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(icon)); err != nil || img.Bounds().Dx() != 128 || img.Bounds().Dy() != 128 {
		t.Errorf("the icon: %v", err)
	}
	meta, _ := os.ReadFile(filepath.Join(top, "share/metainfo", AppID+".metainfo.xml"))
	if !bytes.Contains(meta, []byte(`<release version="`+testVersion+`" date="2025-12-06"/>`)) {
		t.Errorf("the metainfo lacks the release:\n%s", meta)
	}
	bins := []string{filepath.Join(top, "rtype"), filepath.Join(top, "rtype-server"), filepath.Join(top, "rtype-bot")}
	checkNotices(t, filepath.Join(top, "NOTICES.txt"), bins...)
	for _, b := range bins {
		checkStamp(t, b, "amd64", "linux")
	}
	checkServer(t, filepath.Join(top, "rtype-server"))
}

// startXvfb starts an X server of the test's own and returns its display
// (":N"). Xvfb picks a free display number itself (-displayfd), so that
// the X servers of tests running at once never take the same one. The
// test's end stops it.
func startXvfb(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Fatalf("Xvfb is not installed (./build.sh deps installs it): %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x720x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w} // fd 3
	if err := x.Start(); err != nil {
		w.Close()
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if _, err := strconv.Atoi(n); err != nil {
			t.Fatalf("Xvfb -displayfd wrote %q", n)
		}
		return ":" + n
	case <-time.After(testutil.Wait):
		t.Fatal("Xvfb did not say its display")
	}
	return ""
}

// checkStamp checks a release binary's build settings (the target,
// -trimpath) and that it holds the version (-trimpath leaves -ldflags,
// with its -X, out of the settings: the string linked in is looked for).
func checkStamp(t *testing.T, bin, goarch, goos string) {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]string{}
	for _, s := range info.Settings {
		set[s.Key] = s.Value
	}
	if set["GOARCH"] != goarch || set["GOOS"] != goos || set["-trimpath"] != "true" {
		t.Errorf("%s: build settings %v", filepath.Base(bin), set)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(testVersion)) {
		t.Errorf("%s does not hold the version %q", filepath.Base(bin), testVersion)
	}
}

// checkNotices checks that the notices hold the license of every module
// linked into bins.
func checkNotices(t *testing.T, notices string, bins ...string) {
	t.Helper()
	text, err := os.ReadFile(notices)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := LinkedModules(bins...)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 5 {
		t.Errorf("%d modules linked, from %v", len(mods), bins)
	}
	for _, m := range mods {
		if !bytes.Contains(text, []byte("\n== "+m.Path+" "+m.Version+" (")) {
			t.Errorf("%s lacks the license of %s %s", filepath.Base(notices), m.Path, m.Version)
		}
	}
	if !bytes.Contains(text, []byte("== Go standard library and runtime (LICENSE)")) {
		t.Errorf("%s lacks Go's license", filepath.Base(notices))
	}
}

// checkServer runs the release's server on loopback: its first log line,
// its /metrics and its status page carry the version. The status page's
// port is picked free beforehand: when another process took it in
// between, the server exits, and it starts again on another (three
// tries).
func checkServer(t *testing.T, bin string) {
	for try := 1; ; try++ {
		if checkServerOn(t, bin) || try == 3 {
			return
		}
		t.Logf("the server exited before its status page answered (try %d): again on another port", try)
	}
}

// checkServerOn is a try of checkServer; false when the server exited
// before its status page answered.
func checkServerOn(t *testing.T, bin string) bool {
	port, err := testutil.FreeTCPPort()
	if err != nil {
		t.Fatal(err)
	}
	httpAddr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-db=", "-http", httpAddr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var log testutil.SyncBuffer
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(io.TeeReader(stderr, &log))
		if sc.Scan() {
			first <- sc.Text()
		}
		io.Copy(io.Discard, io.TeeReader(stderr, &log))
		cmd.Wait()
		close(exited)
	}()
	defer func() { cmd.Process.Kill(); <-exited }()
	select {
	case line := <-first:
		if !regexp.MustCompile(`msg="rtype-server starting" version=` + regexp.QuoteMeta(testVersion) + `$`).MatchString(line) {
			t.Errorf("the first log line: %q", line)
		}
	case <-exited:
		t.Fatalf("the server exited without a log line: %v", cmd.ProcessState)
	case <-time.After(testutil.Wait):
		t.Fatal("the server logged nothing")
	}
	// get returns the body of a 200 answer to GET path; ok false when the
	// server exited first.
	get := func(path string) (body string, ok bool) {
		testutil.WaitFor(t, testutil.Wait, "GET "+path, func() bool {
			select {
			case <-exited:
				return true
			default:
			}
			resp, err := http.Get("http://" + httpAddr + path)
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			body, ok = string(b), resp.StatusCode == 200
			return ok
		})
		return body, ok
	}
	m, ok := get("/metrics")
	if !ok {
		t.Logf("its log:\n%s", log.String())
		return false
	}
	if !strings.Contains(m, "\nrtype_build_info{version=\""+testVersion+"\"} 1\n") {
		t.Errorf("/metrics lacks rtype_build_info of the version")
	}
	if p, _ := get("/"); !strings.Contains(p, `<span id="version">`+testVersion+`</span>`) {
		t.Errorf("the status page lacks the version")
	}
	return true
}

// checkWindows unpacks the Windows archive into dir and checks it.
func checkWindows(t *testing.T, dist, dir string) {
	unpack(t, filepath.Join(dist, "rtype-"+testVersion+"-windows-amd64.zip"), dir)
	top := filepath.Join(dir, "rtype-"+testVersion+"-windows-amd64")
	for _, n := range []string{"README.md", "NOTICES.txt"} {
		if _, err := os.Stat(filepath.Join(top, n)); err != nil {
			t.Error(err)
		}
	}
	game, server := filepath.Join(top, "rtype.exe"), filepath.Join(top, "rtype-server.exe")
	checkStamp(t, game, "amd64", "windows")
	checkStamp(t, server, "amd64", "windows")
	checkNotices(t, filepath.Join(top, "NOTICES.txt"), game, server)

	f, err := pe.Open(game)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if oh, ok := f.OptionalHeader.(*pe.OptionalHeader64); !ok || oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_GUI {
		t.Errorf("rtype.exe is not a 64-bit GUI program: %T", f.OptionalHeader)
	}
	res := resources(t, f)
	const rtIcon, rtGroupIcon, rtVersion = 3, 14, 16
	if len(res[rtIcon]) != len(assets.IconSizes) || len(res[rtGroupIcon]) != 1 || len(res[rtVersion]) != 1 {
		t.Fatalf("rtype.exe's resources: %d RT_ICON (want %d), %d RT_GROUP_ICON, %d RT_VERSION (want 1 each)",
			len(res[rtIcon]), len(assets.IconSizes), len(res[rtGroupIcon]), len(res[rtVersion]))
	}
	var sizes []int
	for _, ico := range res[rtIcon] {
		img, err := png.Decode(bytes.NewReader(ico))
		if err != nil {
			t.Fatalf("an RT_ICON: %v", err)
		}
		sizes = append(sizes, img.Bounds().Dx())
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, assets.IconSizes) {
		t.Errorf("icon sizes %v, want %v", sizes, assets.IconSizes)
	}
	if grp := res[rtGroupIcon][0]; len(grp) < 6 || int(binary.LittleEndian.Uint16(grp[4:])) != len(assets.IconSizes) {
		t.Errorf("the RT_GROUP_ICON lists %d icons, want %d", binary.LittleEndian.Uint16(grp[4:]), len(assets.IconSizes))
	}
	vi := res[rtVersion][0]
	sig := bytes.Index(vi, []byte{0xbd, 0x04, 0xef, 0xfe}) // VS_FIXEDFILEINFO's 0xFEEF04BD
	if sig < 0 || len(vi) < sig+24 {
		t.Fatal("RT_VERSION has no VS_FIXEDFILEINFO")
	}
	le := binary.LittleEndian
	fileMS, fileLS, prodMS, prodLS := le.Uint32(vi[sig+8:]), le.Uint32(vi[sig+12:]), le.Uint32(vi[sig+16:]), le.Uint32(vi[sig+20:])
	if fileMS != 1<<16|2 || fileLS != 3<<16 || prodMS != fileMS || prodLS != fileLS {
		t.Errorf("fixed versions %x.%x, %x.%x: want 1.2.3.0 (0x10002.0x30000) both", fileMS, fileLS, prodMS, prodLS)
	}
	for _, kv := range [][2]string{{"ProductVersion", testVersion}, {"FileVersion", testVersion}, {"ProductName", "R-Type"}, {"OriginalFilename", "rtype.exe"}} {
		if !hasVersionString(vi, kv[0], kv[1]) {
			t.Errorf("RT_VERSION lacks %s = %q", kv[0], kv[1])
		}
	}

	// A second reader, winres's own, finds the icon group and the version.
	exe, err := os.Open(game)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	rs, err := winres.LoadFromEXE(exe)
	if err != nil {
		t.Fatalf("winres.LoadFromEXE: %v", err)
	}
	if icon, err := rs.GetIcon(winres.Name("APP")); err != nil || icon == nil {
		t.Errorf("winres finds no icon APP: %v", err)
	}
	var versions int
	rs.WalkType(winres.RT_VERSION, func(winres.Identifier, uint16, []byte) bool { versions++; return true })
	if versions != 1 {
		t.Errorf("winres finds %d RT_VERSION, want 1", versions)
	}
}

// hasVersionString tells whether a VS_VERSIONINFO holds the String of key
// with value: its UTF-16 key, NUL, padding to 4 bytes, its UTF-16 value.
func hasVersionString(vi []byte, key, value string) bool {
	k := append(utf16le(key), 0, 0)
	for off := 0; ; {
		i := bytes.Index(vi[off:], k)
		if i < 0 {
			return false
		}
		p := off + i + len(k)
		p += (4 - p%4) % 4
		if bytes.HasPrefix(vi[p:], append(utf16le(value), 0, 0)) {
			return true
		}
		off += i + 1
	}
}

// resources reads the resource directory of a PE file's .rsrc section:
// the data of every resource (every language), by type id.
func resources(t *testing.T, f *pe.File) map[uint32][][]byte {
	t.Helper()
	sec := f.Section(".rsrc")
	if sec == nil {
		t.Fatal("no .rsrc section")
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	type entry struct {
		id     uint32 // or a name's offset, with its high bit
		off    uint32 // of the subdirectory or the data entry
		subdir bool
	}
	dir := func(off uint32) []entry {
		if int(off)+16 > len(data) {
			t.Fatalf("resource directory at %d past the section", off)
		}
		n := int(le.Uint16(data[off+12:])) + int(le.Uint16(data[off+14:]))
		var out []entry
		for i := range n {
			e := int(off) + 16 + 8*i
			if e+8 > len(data) {
				t.Fatalf("resource entry at %d past the section", e)
			}
			o := le.Uint32(data[e+4:])
			out = append(out, entry{id: le.Uint32(data[e:]), off: o &^ (1 << 31), subdir: o&(1<<31) != 0})
		}
		return out
	}
	out := map[uint32][][]byte{}
	for _, typ := range dir(0) { // types, then names, then languages
		if !typ.subdir {
			t.Fatalf("type %d is not a directory", typ.id)
		}
		for _, name := range dir(typ.off) {
			for _, lang := range dir(name.off) {
				if lang.subdir || int(lang.off)+16 > len(data) {
					t.Fatalf("a bad data entry for type %d", typ.id)
				}
				rva, size := le.Uint32(data[lang.off:]), le.Uint32(data[lang.off+4:])
				start := int64(rva) - int64(sec.VirtualAddress)
				if start < 0 || start+int64(size) > int64(len(data)) {
					t.Fatalf("type %d: data at RVA %#x (%d bytes) outside .rsrc", typ.id, rva, size)
				}
				out[typ.id] = append(out[typ.id], data[start:start+int64(size)])
			}
		}
	}
	return out
}
