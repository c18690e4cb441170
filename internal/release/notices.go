package release

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Module is a module linked into a binary: its path and version as the
// binary's build information records them (a replacement's when it was
// replaced).
type Module struct {
	Path, Version string
}

// LinkedModules returns the modules linked into the Go binaries, each
// once, in path order, read from their build information (as `go version
// -m` prints it); the main module is not among them.
func LinkedModules(bins ...string) ([]Module, error) {
	seen := map[Module]bool{}
	var out []Module
	for _, bin := range bins {
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			return nil, fmt.Errorf("release: build information of %s: %w", bin, err)
		}
		for _, d := range info.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			m := Module{d.Path, d.Version}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(a, b Module) int {
		return strings.Compare(a.Path+"@"+a.Version, b.Path+"@"+b.Version)
	})
	return out, nil
}

// escape is the module cache's spelling of a path or version: each
// upper-case letter as "!" and its lower case (golang.org/x/mod/module's
// EscapePath).
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isLicense tells whether a file name at a module's root is a license or
// a notice its license asks to be kept with it: LICENSE, LICENCE,
// COPYING, NOTICE, PATENTS, UNLICENSE, with any suffix (LICENSE.md,
// LICENSE-APACHE).
func isLicense(name string) bool {
	n := strings.ToUpper(name)
	for _, p := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE", "PATENTS", "UNLICENSE"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// licenseFiles returns the names of the license files at the root of
// dir, in name order.
func licenseFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && isLicense(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// NoticesConfig says where Notices finds the license texts.
type NoticesConfig struct {
	// ModCache is the module cache (go env GOMODCACHE). Required.
	ModCache string
	// GoRoot is the Go tree the binaries were built with (go env
	// GOROOT): its LICENSE covers the standard library and runtime linked
	// into every Go binary. Required.
	GoRoot string
	// Title heads the text: what the notices are for.
	Title string
}

// ErrNoLicense is the error of Notices when a linked module has no
// license file in the module cache; its message names the modules.
var ErrNoLicense = errors.New("release: a linked module has no license file")

// Notices returns the license notices of the Go binaries bins: the Go
// distribution's LICENSE, then each linked module's license files from
// the module cache, in path order. It fails with ErrNoLicense, naming
// them all, when any module has none: a binary is not shipped without its
// modules' notices.
func Notices(cfg NoticesConfig, bins ...string) ([]byte, error) {
	mods, err := LinkedModules(bins...)
	if err != nil {
		return nil, err
	}
	goLicense, err := os.ReadFile(filepath.Join(cfg.GoRoot, "LICENSE"))
	if err != nil {
		return nil, fmt.Errorf("release: the Go distribution's license: %w", err)
	}
	var b bytes.Buffer
	if cfg.Title != "" {
		fmt.Fprintf(&b, "%s\n\n", cfg.Title)
	}
	b.WriteString("These programs are written in Go and link its standard library and the\n" +
		"modules below. Each one's license follows, as its authors wrote it.\n\n")
	b.WriteString("  Go standard library and runtime (golang.org)\n")
	for _, m := range mods {
		fmt.Fprintf(&b, "  %s %s\n", m.Path, m.Version)
	}
	section := func(title, file string, text []byte) {
		fmt.Fprintf(&b, "\n%s\n== %s (%s)\n%s\n\n", strings.Repeat("=", 72), title, file, strings.Repeat("=", 72))
		b.Write(bytes.TrimRight(text, "\n"))
		b.WriteString("\n")
	}
	section("Go standard library and runtime", "LICENSE", goLicense)
	var missing []string
	for _, m := range mods {
		dir := filepath.Join(cfg.ModCache, escape(m.Path)+"@"+escape(m.Version))
		names, err := licenseFiles(dir)
		if err != nil || len(names) == 0 {
			why := "no LICENSE, COPYING or NOTICE file"
			if err != nil {
				why = err.Error()
			}
			missing = append(missing, fmt.Sprintf("%s %s (%s)", m.Path, m.Version, why))
			continue
		}
		for _, n := range names {
			text, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return nil, err
			}
			section(m.Path+" "+m.Version, n, text)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoLicense, strings.Join(missing, "; "))
	}
	return b.Bytes(), nil
}
