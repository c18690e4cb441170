package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/assets"
)

var (
	when      = time.Date(2026, 12, 6, 16, 0, 1, 0, time.UTC)
	testFiles = []File{
		{Name: "rtype", Exec: true, Data: []byte("\x7fELF game")},
		{Name: "share/applications/x.desktop", Data: []byte("[Desktop Entry]\n")},
		{Name: "README.md", Data: []byte("# R-Type\n")},
		{Name: "share-notes.txt", Data: []byte("a file beside share/\n")},
		{Name: "share/icons/hicolor/128x128/apps/x.png", Data: []byte("png")},
	}
)

// wantOrder is the entries of files' archives under top "top", in order:
// names sorted, each directory before what it holds.
var wantOrder = []string{"top/", "top/README.md", "top/rtype", "top/share-notes.txt", "top/share/",
	"top/share/applications/", "top/share/applications/x.desktop", "top/share/icons/", "top/share/icons/hicolor/",
	"top/share/icons/hicolor/128x128/", "top/share/icons/hicolor/128x128/apps/", "top/share/icons/hicolor/128x128/apps/x.png"}

// TestTarGz: the same files, in any order, give the same bytes; the
// entries come in name order, directories first, dated when, owned by 0
// with no owner names, with the files' modes and contents.
func TestTarGz(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteTarGz(&a, "top", testFiles, when); err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(testFiles)
	slices.Reverse(rev)
	if err := WriteTarGz(&b, "top", rev, when.Add(time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same files in another order give other bytes")
	}
	zr, err := gzip.NewReader(&a)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header: name %q, time %v: want neither", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(when.Truncate(time.Second)) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: time %v, owner %d:%d %q:%q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		want := int64(0o644)
		if h.Typeflag == tar.TypeDir || h.Name == "top/rtype" {
			want = 0o755
		}
		if h.Mode != want {
			t.Errorf("%s: mode %o, want %o", h.Name, h.Mode, want)
		}
		if h.Typeflag == tar.TypeReg {
			data, _ := io.ReadAll(tr)
			if i := slices.IndexFunc(testFiles, func(f File) bool { return "top/"+f.Name == h.Name }); i < 0 || !bytes.Equal(data, testFiles[i].Data) {
				t.Errorf("%s: content %q", h.Name, data)
			}
		}
	}
	if !slices.Equal(names, wantOrder) {
		t.Errorf("entries\n%q\nwant\n%q", names, wantOrder)
	}
}

// TestZip: as TestTarGz, for the zip.
func TestZip(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteZip(&a, "top", testFiles, when); err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(testFiles)
	slices.Reverse(rev)
	if err := WriteZip(&b, "top", rev, when); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same files in another order give other bytes")
	}
	zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(when.Truncate(2 * time.Second)) {
			t.Errorf("%s: time %v", f.Name, f.Modified)
		}
		if f.Name == "top/rtype" && f.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v", f.Name, f.Mode())
		}
	}
	if !slices.Equal(names, wantOrder) {
		t.Errorf("entries\n%q\nwant\n%q", names, wantOrder)
	}
}

// TestBadNames: a name given twice, absolute, with .. or a backslash is
// refused.
func TestBadNames(t *testing.T) {
	for _, name := range []string{"/etc/passwd", "../x", "a/../../x", "a\\b", "", "a//b", "a/"} {
		err := WriteTarGz(io.Discard, "top", []File{{Name: name}}, when)
		if err == nil {
			t.Errorf("%q: no error", name)
		}
	}
	if err := WriteZip(io.Discard, "top", []File{{Name: "a"}, {Name: "a"}}, when); err == nil {
		t.Error("a name twice: no error")
	}
}

// TestSums: SHA256SUMS lists every other file, in name order, as
// sha256sum -c checks them.
func TestSums(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.zip", "a.tar.gz", "SHA256SUMS"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteSums(dir); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	line := func(name string) string {
		h := sha256.Sum256([]byte(name))
		return hex.EncodeToString(h[:]) + "  " + name + "\n"
	}
	if want := line("a.tar.gz") + line("b.zip"); string(sums) != want {
		t.Fatalf("SHA256SUMS:\n%s\nwant\n%s", sums, want)
	}
	cmd := exec.Command("sha256sum", "-c", "SHA256SUMS")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
}

// TestNotices: the notices hold the Go distribution's license and every
// linked module's license files; with a module's license gone from the
// module cache, Notices fails and names it. The binary is mkrelease,
// whose build information lists its modules (winres among them; a test
// binary's lists none).
func TestNotices(t *testing.T) {
	self := buildMkrelease(t)
	mods, err := LinkedModules(self)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(mods, func(m Module) bool { return m.Path == "github.com/tc-hib/winres" })
	if i < 0 {
		t.Fatalf("the test binary's modules lack winres: %v", mods)
	}
	// A module cache of the modules' license files, each with its text.
	cache, goroot := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(goroot, "LICENSE"), []byte("Go's license\n"), 0o644)
	for _, m := range mods {
		dir := filepath.Join(cache, escape(m.Path)+"@"+escape(m.Version))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "LICENSE"), []byte("license of "+m.Path+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("package x\n"), 0o644)
	}
	os.WriteFile(filepath.Join(cache, escape(mods[i].Path)+"@"+escape(mods[i].Version), "NOTICE.md"), []byte("winres notice\n"), 0o644)
	cfg := NoticesConfig{ModCache: cache, GoRoot: goroot, Title: "R-Type test notices"}
	text, err := Notices(cfg, self)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"R-Type test notices", "Go's license", "winres notice", "== github.com/tc-hib/winres " + mods[i].Version + " (NOTICE.md)"} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("the notices lack %q", want)
		}
	}
	for _, m := range mods {
		if !bytes.Contains(text, []byte("license of "+m.Path+"\n")) {
			t.Errorf("the notices lack %s's license", m.Path)
		}
	}
	if bytes.Contains(text, []byte("package x")) {
		t.Error("the notices hold a source file")
	}

	os.Remove(filepath.Join(cache, escape(mods[i].Path)+"@"+escape(mods[i].Version), "LICENSE"))
	os.Remove(filepath.Join(cache, escape(mods[i].Path)+"@"+escape(mods[i].Version), "NOTICE.md"))
	_, err = Notices(cfg, self)
	if !errors.Is(err, ErrNoLicense) || !strings.Contains(err.Error(), "github.com/tc-hib/winres "+mods[i].Version) {
		t.Fatalf("a module without a license: %v, want ErrNoLicense naming it", err)
	}
	if _, err := Notices(cfg, filepath.Join(goroot, "LICENSE")); err == nil {
		t.Error("a file with no build information: no error")
	}
}

// TestEscape: the module cache spells upper-case letters "!" and the
// lower case.
func TestEscape(t *testing.T) {
	if got := escape("github.com/BurntSushi/toml"); got != "github.com/!burnt!sushi/toml" {
		t.Fatal(got)
	}
}

// TestSyso: the Windows resources are the same bytes each time, and a
// COFF object for amd64 (machine 0x8664) with a .rsrc section.
func TestSyso(t *testing.T) {
	icons, err := assets.WindowIcons()
	if err != nil {
		t.Fatal(err)
	}
	cfg := WinresConfig{Version: "v1.2.3-rc.1", Icons: icons, Exe: "rtype.exe", Description: "R-Type"}
	var a, b bytes.Buffer
	if err := WriteSyso(&a, cfg); err != nil {
		t.Fatal(err)
	}
	if err := WriteSyso(&b, cfg); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two runs give other bytes")
	}
	if m := a.Bytes()[:2]; m[0] != 0x64 || m[1] != 0x86 || !bytes.Contains(a.Bytes(), []byte(".rsrc")) {
		t.Fatalf("not an amd64 COFF object with .rsrc: % x", a.Bytes()[:20])
	}
	if !bytes.Contains(a.Bytes(), utf16le("v1.2.3-rc.1")) {
		t.Error("the object lacks the version string")
	}
	if err := WriteSyso(io.Discard, WinresConfig{Icons: icons}); err == nil {
		t.Error("no version: no error")
	}
}

// utf16le is s in UTF-16, little-endian (ASCII only).
func utf16le(s string) []byte {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), 0)
	}
	return b
}

// TestICNS: the macOS icon holds a PNG per size ICNS has, each decoding
// to its size, and its lengths add up.
func TestICNS(t *testing.T) {
	icons, err := assets.WindowIcons()
	if err != nil {
		t.Fatal(err)
	}
	data, err := ICNS(icons)
	if err != nil {
		t.Fatal(err)
	}
	if string(data[:4]) != "icns" || int(be32(data[4:])) != len(data) {
		t.Fatalf("header %q %d, file %d bytes", data[:4], be32(data[4:]), len(data))
	}
	var types []string
	for p := 8; p < len(data); {
		typ, n := string(data[p:p+4]), int(be32(data[p+4:]))
		img, err := png.Decode(bytes.NewReader(data[p+8 : p+n]))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if img.Bounds().Dx() != map[string]int{"icp4": 16, "icp5": 32, "icp6": 64, "ic07": 128}[typ] {
			t.Errorf("%s is %v", typ, img.Bounds())
		}
		types = append(types, typ)
		p += n
	}
	if !slices.Equal(types, []string{"icp4", "icp5", "icp6", "ic07"}) {
		t.Errorf("types %q", types)
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// TestLinuxDesktopFiles: the desktop entry passes desktop-file-validate
// and the metainfo appstreamcli validate (Debian's desktop-file-utils
// and appstream, which build.sh deps installs); they name the icon, and
// the metainfo the release.
func TestLinuxDesktopFiles(t *testing.T) {
	icons, err := assets.WindowIcons()
	if err != nil {
		t.Fatal(err)
	}
	icon, err := PNG(icons[len(icons)-1])
	if err != nil {
		t.Fatal(err)
	}
	fs, err := LinuxDesktopFiles("v1.2.3<&>", when, icon, 128)
	if err != nil {
		t.Fatal(err)
	}
	validateDesktop(t, writeFiles(t, fs))
	if img, _, err := image.Decode(bytes.NewReader(fs[2].Data)); err != nil || img.Bounds().Dx() != 128 {
		t.Errorf("the icon: %v", err)
	}
	if !bytes.Contains(fs[1].Data, []byte(`<release version="v1.2.3&lt;&amp;&gt;" date="2026-12-06"/>`)) {
		t.Errorf("the metainfo's release:\n%s", fs[1].Data)
	}
}

// writeFiles writes fs into a new directory, which it returns.
func writeFiles(t *testing.T, fs []File) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range fs {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, f.mode()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// validateDesktop runs the validators on the share/ of dir: the desktop
// entry, the metainfo, and checks that the entry's icon is there.
func validateDesktop(t *testing.T, dir string) {
	t.Helper()
	entry := filepath.Join(dir, "share/applications", AppID+".desktop")
	meta := filepath.Join(dir, "share/metainfo", AppID+".metainfo.xml")
	for _, c := range [][]string{{"desktop-file-validate", entry}, {"appstreamcli", "validate", "--no-net", meta}} {
		if _, err := exec.LookPath(c[0]); err != nil {
			t.Fatalf("%s is not installed (./build.sh deps installs it): %v", c[0], err)
		}
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
		t.Logf("%s: %s", c[0], bytes.TrimSpace(out))
	}
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("\nIcon="+AppID+"\n")) || !bytes.Contains(data, []byte("\nExec=rtype\n")) {
		t.Errorf("the entry's Icon or Exec:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "share/icons/hicolor/128x128/apps", AppID+".png")); err != nil {
		t.Error(err)
	}
}

// mkreleaseBin is the mkrelease the tests built.
var mkreleaseBin struct {
	once sync.Once
	path string
	err  error
}

// buildMkrelease builds mkrelease once per test binary, in a directory
// TestMain removes, and returns its path.
func buildMkrelease(t *testing.T) string {
	t.Helper()
	mkreleaseBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "mkrelease-test-")
		if err != nil {
			mkreleaseBin.err = err
			return
		}
		mkreleaseBin.path = filepath.Join(dir, "mkrelease")
		if out, err := exec.Command("go", "build", "-o", mkreleaseBin.path, "./mkrelease").CombinedOutput(); err != nil {
			mkreleaseBin.err = fmt.Errorf("go build ./mkrelease: %v\n%s", err, out)
		}
	})
	if mkreleaseBin.err != nil {
		t.Fatal(mkreleaseBin.err)
	}
	return mkreleaseBin.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if mkreleaseBin.path != "" {
		os.RemoveAll(filepath.Dir(mkreleaseBin.path))
	}
	os.Exit(code)
}

// TestNumVersion: the numbers of a version, for macOS.
func TestNumVersion(t *testing.T) {
	for v, want := range map[string]string{"v1.2.3": "1.2.3", "v1.2.3-rc.1": "1.2.3", "2.0": "2.0", "dev": "0", "v1..2": "1", "1.2.": "1.2"} {
		if got := numVersion(v); got != want {
			t.Errorf("%q: %q, want %q", v, got, want)
		}
	}
}

// TestPackageMac: mkrelease package with a macOS game (what build.sh
// builds on a Mac; a Linux binary stands in for it here, as no Mac
// builds here) writes rtype-VERSION-macos-ARCH.zip: rtype.app with its
// Info.plist (well-formed, naming the executable, the icon and the
// version), the executable and the icon, the README and the notices; and
// the other platforms, not built, are left out.
func TestPackageMac(t *testing.T) {
	mk := buildMkrelease(t)
	bin, dist := t.TempDir(), t.TempDir()
	game, _ := os.ReadFile(mk)
	os.MkdirAll(filepath.Join(bin, "darwin-arm64"), 0o755)
	os.WriteFile(filepath.Join(bin, "darwin-arm64", "rtype"), game, 0o755)
	cmd := exec.Command(mk, "package", "-version", "v1.4.0-beta", "-bin", bin, "-dist", dist, "-readme", "../../README.md", "-epoch", "1765036800")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mkrelease package: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(dist)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"SHA256SUMS", "rtype-v1.4.0-beta-macos-arm64.zip"}) {
		t.Fatalf("dist holds %q", names)
	}
	zr, err := zip.OpenReader(filepath.Join(dist, names[1]))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string][]byte{}
	var order []string
	for _, f := range zr.File {
		rc, _ := f.Open()
		got[f.Name], _ = io.ReadAll(rc)
		rc.Close()
		order = append(order, f.Name)
		if f.Name == "rtype-v1.4.0-beta-macos-arm64/rtype.app/Contents/MacOS/rtype" && f.Mode().Perm() != 0o755 {
			t.Errorf("the executable's mode %v", f.Mode())
		}
	}
	top := "rtype-v1.4.0-beta-macos-arm64/"
	want := []string{top, top + "NOTICES.txt", top + "README.md", top + "rtype.app/", top + "rtype.app/Contents/",
		top + "rtype.app/Contents/Info.plist", top + "rtype.app/Contents/MacOS/", top + "rtype.app/Contents/MacOS/rtype",
		top + "rtype.app/Contents/Resources/", top + "rtype.app/Contents/Resources/rtype.icns"}
	if !slices.Equal(order, want) {
		t.Fatalf("the zip holds\n%q\nwant\n%q", order, want)
	}
	if !bytes.Equal(got[top+"rtype.app/Contents/MacOS/rtype"], game) || !bytes.HasPrefix(got[top+"rtype.app/Contents/Resources/rtype.icns"], []byte("icns")) {
		t.Error("the executable or the icon is not what was given")
	}
	plist := got[top+"rtype.app/Contents/Info.plist"]
	// Well-formed XML, and its keys' values.
	d := xml.NewDecoder(bytes.NewReader(plist))
	d.Strict = true
	var keys []string
	vals := map[string]string{}
	var last string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Info.plist: %v\n%s", err, plist)
		}
		if se, ok := tok.(xml.StartElement); ok && (se.Name.Local == "key" || se.Name.Local == "string") {
			var s string
			d.DecodeElement(&s, &se)
			if se.Name.Local == "key" {
				last = s
				keys = append(keys, s)
			} else {
				vals[last] = s
			}
		}
	}
	for k, v := range map[string]string{"CFBundleExecutable": "rtype", "CFBundleIconFile": "rtype.icns", "CFBundleIdentifier": AppID,
		"CFBundlePackageType": "APPL", "CFBundleShortVersionString": "1.4.0", "CFBundleVersion": "1.4.0", "CFBundleGetInfoString": "R-Type v1.4.0-beta"} {
		if vals[k] != v {
			t.Errorf("Info.plist: %s = %q, want %q", k, vals[k], v)
		}
	}
	if !bytes.Contains(got[top+"NOTICES.txt"], []byte("github.com/tc-hib/winres")) {
		t.Error("the notices lack the modules of the game given")
	}
}
