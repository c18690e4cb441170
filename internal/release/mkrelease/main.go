// Command mkrelease is the packaging half of ./build.sh release VERSION
// (package rtype/internal/release): build.sh builds the binaries, this
// turns them into the release's files.
//
//	mkrelease syso -version V -o FILE
//
// writes the game's Windows resources (icon, version information) as a
// COFF object, which build.sh links into rtype.exe.
//
//	mkrelease package -version V -bin DIR -dist DIR -readme README.md -epoch SECONDS
//
// reads the binaries build.sh put in DIR (linux-amd64/rtype, rtype-server
// and rtype-bot; windows-amd64/rtype.exe and rtype-server.exe;
// linux-arm64/rtype-server; on a Mac darwin-ARCH/rtype) and writes into
// -dist the files of those there (the Linux archive on Linux only, the
// macOS one on a Mac only):
//
//	rtype-V-linux-amd64.tar.gz       the three Linux binaries, README.md, NOTICES.txt, share/ (desktop entry, icon, metainfo)
//	rtype-V-windows-amd64.zip        rtype.exe, rtype-server.exe, README.md, NOTICES.txt
//	rtype-server-V-linux-arm64       the server alone (static)
//	rtype-server-V-linux-arm64.NOTICES.txt  its license notices
//	rtype-V-macos-ARCH.zip           (on a Mac) rtype.app, README.md, NOTICES.txt
//	SHA256SUMS                       sha256sum -c reads it
//
// Every archive entry is dated -epoch (the commit's time), so two runs on
// the same binaries write the same bytes. NOTICES.txt holds the license of
// every module linked into the archive's binaries, read from the module
// cache; a module with none fails the release.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"rtype/assets"
	"rtype/internal/release"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkrelease:", err)
		os.Exit(1)
	}
}

// versionRE is what a release's version may be: it names files.
var versionRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$`)

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: mkrelease syso|package [flags]")
	}
	fs := flag.NewFlagSet("mkrelease "+args[0], flag.ContinueOnError)
	ver := fs.String("version", "", "the release's version (v1.2.0)")
	out := fs.String("o", "", "syso: the object file to write")
	bin := fs.String("bin", "", "package: the directory of the binaries built")
	dist := fs.String("dist", "dist", "package: the directory to write the release into")
	readme := fs.String("readme", "README.md", "package: the README every archive holds")
	epoch := fs.Int64("epoch", 0, "package: the time of every archive entry, in seconds since 1970 (the commit's)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if !versionRE.MatchString(*ver) {
		return fmt.Errorf("-version %q: want letters, digits and . + _ - (up to 64), starting with a letter or digit", *ver)
	}
	icons, err := assets.WindowIcons()
	if err != nil {
		return err
	}
	switch args[0] {
	case "syso":
		var b bytes.Buffer
		if err := release.WriteSyso(&b, release.WinresConfig{Version: *ver, Icons: icons, Exe: "rtype.exe", Description: "R-Type"}); err != nil {
			return err
		}
		return os.WriteFile(*out, b.Bytes(), 0o644)
	case "package":
		return pack(*ver, *bin, *dist, *readme, time.Unix(*epoch, 0).UTC(), icons)
	}
	return fmt.Errorf("unknown command %q: syso or package", args[0])
}

// goEnv returns go env NAME.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// pack writes the release's files into dist.
func pack(ver, bin, dist, readme string, date time.Time, icons []image.Image) error {
	modCache, err := goEnv("GOMODCACHE")
	if err != nil {
		return err
	}
	goRoot, err := goEnv("GOROOT")
	if err != nil {
		return err
	}
	readmeData, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	// notices returns the NOTICES.txt of the binaries.
	notices := func(what string, bins ...string) ([]byte, error) {
		return release.Notices(release.NoticesConfig{ModCache: modCache, GoRoot: goRoot,
			Title: fmt.Sprintf("R-Type %s, %s: third-party license notices", ver, what)}, bins...)
	}
	// archive gathers the binaries of dir (executables) with the README
	// and their notices.
	archive := func(what, dir string, names ...string) ([]release.File, error) {
		var files []release.File
		var paths []string
		for _, n := range names {
			p := filepath.Join(bin, dir, n)
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			paths = append(paths, p)
			files = append(files, release.File{Name: n, Exec: true, Data: data})
		}
		n, err := notices(what, paths...)
		if err != nil {
			return nil, err
		}
		return append(files, release.File{Name: "README.md", Data: readmeData}, release.File{Name: "NOTICES.txt", Data: n}), nil
	}
	write := func(name string, f func(*bytes.Buffer) error) error {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return os.WriteFile(filepath.Join(dist, name), b.Bytes(), 0o644)
	}

	// Each platform whose binaries build.sh built (Linux amd64 on Linux
	// only, macOS on a Mac only).
	made := 0
	has := func(path string) bool {
		_, err := os.Stat(filepath.Join(bin, path))
		return err == nil
	}
	if has("linux-amd64/rtype") {
		if err := packLinux(ver, bin, date, icons, archive, write); err != nil {
			return err
		}
		made++
	}
	if has("windows-amd64/rtype.exe") {
		files, err := archive("Windows amd64", "windows-amd64", "rtype.exe", "rtype-server.exe")
		if err != nil {
			return err
		}
		top := "rtype-" + ver + "-windows-amd64"
		if err := write(top+".zip", func(b *bytes.Buffer) error { return release.WriteZip(b, top, files, date) }); err != nil {
			return err
		}
		made++
	}
	if has("linux-arm64/rtype-server") {
		// The server for Linux on arm64, alone, with its notices beside it.
		arm := filepath.Join(bin, "linux-arm64", "rtype-server")
		data, err := os.ReadFile(arm)
		if err != nil {
			return err
		}
		name := "rtype-server-" + ver + "-linux-arm64"
		if err := os.WriteFile(filepath.Join(dist, name), data, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(dist, name), 0o755); err != nil { // past the umask
			return err
		}
		n, err := notices("rtype-server for Linux arm64", arm)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dist, name+".NOTICES.txt"), n, 0o644); err != nil {
			return err
		}
		made++
	}

	// macOS: the app bundle, when build.sh ran on a Mac.
	macs, _ := filepath.Glob(filepath.Join(bin, "darwin-*", "rtype"))
	for _, mac := range macs {
		arch := strings.TrimPrefix(filepath.Base(filepath.Dir(mac)), "darwin-")
		game, err := os.ReadFile(mac)
		if err != nil {
			return err
		}
		icns, err := release.ICNS(icons)
		if err != nil {
			return err
		}
		app, err := release.MacBundle(ver, game, icns)
		if err != nil {
			return err
		}
		n, err := notices("macOS "+arch, mac)
		if err != nil {
			return err
		}
		app = append(app, release.File{Name: "README.md", Data: readmeData}, release.File{Name: "NOTICES.txt", Data: n})
		top := "rtype-" + ver + "-macos-" + arch
		if err := write(top+".zip", func(b *bytes.Buffer) error { return release.WriteZip(b, top, app, date) }); err != nil {
			return err
		}
		made++
	}
	if made == 0 {
		return fmt.Errorf("no binaries in %s", bin)
	}
	return release.WriteSums(dist)
}

// packLinux writes the Linux archive: the binaries (with the README and
// notices, from archive) and the desktop files.
func packLinux(ver, bin string, date time.Time, icons []image.Image,
	archive func(what, dir string, names ...string) ([]release.File, error),
	write func(name string, f func(*bytes.Buffer) error) error) error {
	files, err := archive("Linux amd64", "linux-amd64", "rtype", "rtype-server", "rtype-bot")
	if err != nil {
		return err
	}
	big := icons[len(icons)-1] // assets.IconSizes: the largest last
	png, err := release.PNG(big)
	if err != nil {
		return err
	}
	desk, err := release.LinuxDesktopFiles(ver, date, png, big.Bounds().Dx())
	if err != nil {
		return err
	}
	top := "rtype-" + ver + "-linux-amd64"
	return write(top+".tar.gz", func(b *bytes.Buffer) error {
		return release.WriteTarGz(b, top, append(files, desk...), date)
	})
}
