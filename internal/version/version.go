// Package version is the game's version string: the one given at link
// time, else the module's version or the commit it was built from (Go's
// build information), else "dev".
//
// A release stamps it into every binary (./build.sh release VERSION):
//
//	go build -ldflags "-X rtype/internal/version.Version=v1.2.0" .
//
// and every binary shows it the same way: -version prints it, the game's
// title screen and the first line of every log carry it, and the server
// shows it on its status page and as the label of rtype_build_info.
package version

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Version is set at link time:
//
//	go build -ldflags "-X rtype/internal/version.Version=v1.2.0" .
//
// Empty, String reads Go's build information. It wins over the build
// information when set.
var Version = ""

// String returns the version: Version when set; else the main module's
// version when it is a released one (not "(devel)" nor a pseudo-version
// of a commit); else "dev+" and the first 12 hex digits of the commit,
// "-dirty" when the tree had changes; else "dev".
func String() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return fromBuildInfo(info)
}

// pseudo matches the pseudo-version Go 1.24 and later stamp a build of a
// commit with no tag with (v0.0.0-20260102150405-abcdef012345, with
// "+dirty" when the tree had changes): its commit and its mark.
var pseudo = regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:[0-9A-Za-z.]*\.)?\d{14}-([0-9a-f]{12})(\+dirty)?$`)

// fromBuildInfo is String from info.
func fromBuildInfo(info *debug.BuildInfo) string {
	v := info.Main.Version
	if m := pseudo.FindStringSubmatch(v); m != nil {
		if m[2] != "" {
			return "dev+" + m[1] + "-dirty"
		}
		return "dev+" + m[1]
	}
	if v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	var b strings.Builder
	b.WriteString("dev+")
	b.WriteString(rev[:min(12, len(rev))])
	if dirty {
		b.WriteString("-dirty")
	}
	return b.String()
}
