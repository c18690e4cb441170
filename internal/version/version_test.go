package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "67d68a2c0ffee1234567890abcdef"}, {Key: "vcs.modified", Value: "true"}}}, "dev+67d68a2c0ffe-dirty"},
		{debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "dev+abc"},
		// The pseudo-versions Go 1.24 stamps a build of a commit with
		// (the title screen read the first one whole).
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261206153012-d24c1d575ed9"}}, "dev+d24c1d575ed9"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261206153012-d24c1d575ed9+dirty"}}, "dev+d24c1d575ed9-dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.1-0.20261206153012-d24c1d575ed9"}}, "dev+d24c1d575ed9"},
		{debug.BuildInfo{Main: debug.Module{Version: "v1.3.0-rc.1"}}, "v1.3.0-rc.1"},
	} {
		if got := fromBuildInfo(&c.info); got != c.want {
			t.Errorf("%+v: %q, want %q", c.info, got, c.want)
		}
	}
}

func TestLinkTimeVersionWins(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	Version = "v9.9.9"
	if String() != "v9.9.9" {
		t.Fatal(String())
	}
	Version = ""
	if String() == "" {
		t.Fatal("empty version")
	}
}
