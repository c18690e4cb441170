// Package version is the game's version string: the one given at link
// time, else the module's version or the commit it was built from (Go's
// build information), else "dev".
package version

import (
	"runtime/debug"
	"strings"
)

// Version is set at link time:
//
//	go build -ldflags "-X rtype/internal/version.Version=v1.2.0" .
//
// Empty, String reads Go's build information.
var Version = ""

// String returns the version: Version when set; else the main module's
// version when it is not a development build; else "dev+" and the first
// 12 hex digits of the commit, "-dirty" when the tree had changes; else
// "dev".
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

// fromBuildInfo is String from info.
func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
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
