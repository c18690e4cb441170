package stage

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// builtin holds the stages built into the binaries: stages/NAME.stage.
//
//go:embed stages/*.stage
var builtin embed.FS

// Names returns the names of the built-in stages, sorted.
func Names() []string {
	ents, _ := fs.ReadDir(builtin, "stages")
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".stage"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Campaign returns the built-in stages, parsed anew, in the order of
// their names: the campaign that Stage games play from whichever of them
// they start with (sim.StageOptions.Campaign).
func Campaign() []*Stage {
	var c []*Stage
	for _, n := range Names() {
		if st, err := Builtin(n); err == nil {
			c = append(c, st)
		}
	}
	return c
}

// Builtin returns the built-in stage name ("1"), parsed anew (a caller
// may keep it), or an error listing the built-in stages when there is
// none of that name.
func Builtin(name string) (*Stage, error) {
	if checkName(name, false) == "" {
		file := "stages/" + name + ".stage"
		if src, err := builtin.ReadFile(file); err == nil {
			return Parse(path.Base(file), src)
		}
	}
	return nil, fmt.Errorf("stage %q: no built-in stage of that name (built-in: %s)", name, strings.Join(Names(), ", "))
}

// Load reads and parses the stage file at path (Parse). A file larger
// than MaxSize is refused before it is read whole.
func Load(path string) (*Stage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("stage: %s: %w", path, err)
	}
	if len(src) > MaxSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than the limit of %d bytes (1 MiB)", MaxSize)}
	}
	return Parse(path, src)
}

// Resolve returns the stage that -stage NAME|FILE names: the built-in
// stage of that name, else the stage file at that path.
func Resolve(nameOrPath string) (*Stage, error) {
	for _, n := range Names() {
		if n == nameOrPath {
			return Builtin(n)
		}
	}
	st, err := Load(nameOrPath)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("stage %q: neither a built-in stage (%s) nor a file: %w", nameOrPath, strings.Join(Names(), ", "), err)
	}
	return st, err
}
