// Package release makes the archives of a release (./build.sh release
// VERSION): it writes them byte for byte the same from the same inputs
// (files in name order, fixed times, owners and modes), gathers the
// license notices of the modules linked into the binaries, and makes the
// game's Windows resources (icon and version), Linux desktop entry,
// AppStream metainfo and macOS bundle from the game's icon.
//
// build.sh builds the binaries; the command rtype/internal/release/mkrelease
// turns them into dist/ with this package. TestRelease runs the whole of
// ./build.sh release twice and checks what it makes.
package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File is one file of an archive.
type File struct {
	// Name is its path in the archive, below the archive's top
	// directory, with slashes: "rtype", "share/applications/x.desktop".
	Name string
	// Exec marks an executable (mode 0755; else 0644).
	Exec bool
	// Data is its content.
	Data []byte
}

// mode is the file's permission bits.
func (f File) mode() fs.FileMode {
	if f.Exec {
		return 0o755
	}
	return 0o644
}

// sorted returns the files in name order, refusing a name twice or a
// name that is not a clean relative slash path.
func sorted(files []File) ([]File, error) {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	for i, f := range out {
		if f.Name == "" || strings.HasPrefix(f.Name, "/") || strings.Contains(f.Name, "\\") ||
			filepath.ToSlash(filepath.Clean(f.Name)) != f.Name || strings.HasPrefix(f.Name, "../") {
			return nil, fmt.Errorf("release: file name %q is not a clean relative path", f.Name)
		}
		if i > 0 && out[i-1].Name == f.Name {
			return nil, fmt.Errorf("release: file %q given twice", f.Name)
		}
	}
	return out, nil
}

// entry is a file of an archive, or one of its directories (Name
// ending in a slash, no data).
type entry struct {
	File
	dir bool
}

// entries returns the files and the directories that hold them, each
// directory once and before what it holds: all in the order of their
// names, a directory's with its slash.
func entries(files []File) []entry {
	seen := map[string]bool{}
	var out []entry
	for _, f := range files {
		out = append(out, entry{File: f})
		for d := pathDir(f.Name); d != "" && !seen[d]; d = pathDir(d) {
			seen[d] = true
			out = append(out, entry{File: File{Name: d + "/", Exec: true}, dir: true})
		}
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// pathDir is path.Dir with "" for a top-level name.
func pathDir(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ""
	}
	return name[:i]
}

// WriteTarGz writes a gzipped tar of files under the directory top (no
// slash), every entry dated mtime, owned by uid and gid 0 with no owner
// names, in name order, directories first of what they hold: the same
// files give the same bytes.
func WriteTarGz(w io.Writer, top string, files []File, mtime time.Time) error {
	files, err := sorted(files)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	// The gzip header: no name, no time, OS "unknown" (Go's default).
	tw := tar.NewWriter(zw)
	mtime = mtime.UTC().Truncate(time.Second)
	hdr := func(name string, typ byte, mode fs.FileMode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: int64(mode), Size: size, ModTime: mtime, Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr(top+"/", tar.TypeDir, 0o755, 0)); err != nil {
		return err
	}
	for _, f := range entries(files) {
		if f.dir {
			if err := tw.WriteHeader(hdr(top+"/"+f.Name, tar.TypeDir, 0o755, 0)); err != nil {
				return err
			}
			continue
		}
		if err := tw.WriteHeader(hdr(top+"/"+f.Name, tar.TypeReg, f.mode(), int64(len(f.Data)))); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// WriteZip writes a zip of files under the directory top, every entry
// dated mtime (in UTC), with Unix modes, in name order: the same files
// give the same bytes.
func WriteZip(w io.Writer, top string, files []File, mtime time.Time) error {
	files, err := sorted(files)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.DefaultCompression)
	})
	mtime = mtime.UTC().Truncate(2 * time.Second) // the DOS time's resolution
	header := func(name string, mode fs.FileMode) *zip.FileHeader {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(mode)
		return h
	}
	dirHeader := func(name string) error {
		h := header(top+"/"+name, fs.ModeDir|0o755)
		h.Method = zip.Store
		_, err := zw.CreateHeader(h)
		return err
	}
	if err := dirHeader(""); err != nil {
		return err
	}
	for _, f := range entries(files) {
		if f.dir {
			if err := dirHeader(f.Name); err != nil {
				return err
			}
			continue
		}
		fw, err := zw.CreateHeader(header(top+"/"+f.Name, f.mode()))
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// WriteSums writes dir's SHA256SUMS: a line "HEX  NAME" per regular file
// of dir (not SHA256SUMS itself), in name order, as sha256sum writes
// them and sha256sum -c reads them.
func WriteSums(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, e := range entries { // ReadDir sorts by name
		if !e.Type().IsRegular() || e.Name() == "SHA256SUMS" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), e.Name())
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), b.Bytes(), 0o644)
}
