package release

import (
	"bytes"
	"embed"
	"fmt"
	"html"
	"strings"
	"text/template"
	"time"
)

// AppID is the game's id on the Linux desktop: its AppStream component
// id, the name of its desktop entry (AppID.desktop) and of its icon.
const AppID = "io.github.rtype.RType"

// developerID is the AppStream id of the game's developers.
const developerID = "io.github.rtype"

//go:embed files
var files embed.FS

// fill renders the template file of files/ with the release's data.
func fill(name, version string, date time.Time) ([]byte, error) {
	text, err := files.ReadFile("files/" + name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(text))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = t.Execute(&b, map[string]string{"ID": AppID, "DeveloperID": developerID,
		// The metainfo and Info.plist are XML.
		"Version": html.EscapeString(version), "Date": date.UTC().Format(time.DateOnly),
		"NumVersion": numVersion(version)})
	return b.Bytes(), err
}

// numVersion is the numbers a version starts with, as macOS wants its
// CFBundleShortVersionString: "v1.2.3-rc.1" gives "1.2.3"; "0" when none.
func numVersion(v string) string {
	v = strings.TrimLeft(v, "vV")
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || v[end] == '.' && end > 0 && v[end-1] != '.') {
		end++
	}
	if n := strings.Trim(v[:end], "."); n != "" {
		return n
	}
	return "0"
}

// LinuxDesktopFiles returns the game's files for a Linux desktop, as the
// archive's share/ holds them (copied into ~/.local/share or
// /usr/local/share, the desktop finds them): the desktop entry, the icon
// (a PNG of icon's size, in the hicolor theme) and the AppStream metainfo
// of the release version, dated date.
func LinuxDesktopFiles(version string, date time.Time, icon []byte, size int) ([]File, error) {
	entry, err := fill("rtype.desktop", version, date)
	if err != nil {
		return nil, err
	}
	meta, err := fill("rtype.metainfo.xml", version, date)
	if err != nil {
		return nil, err
	}
	return []File{
		{Name: "share/applications/" + AppID + ".desktop", Data: entry},
		{Name: "share/metainfo/" + AppID + ".metainfo.xml", Data: meta},
		{Name: fmt.Sprintf("share/icons/hicolor/%dx%d/apps/%s.png", size, size, AppID), Data: icon},
	}, nil
}

// MacBundle returns the files of rtype.app, the macOS application bundle
// of the game binary bin (built on a Mac, with cgo), of the release
// version, with the icon file icns.
func MacBundle(version string, bin, icns []byte) ([]File, error) {
	plist, err := fill("Info.plist", version, time.Time{})
	if err != nil {
		return nil, err
	}
	return []File{
		{Name: "rtype.app/Contents/Info.plist", Data: plist},
		{Name: "rtype.app/Contents/MacOS/rtype", Data: bin, Exec: true},
		{Name: "rtype.app/Contents/Resources/rtype.icns", Data: icns},
	}, nil
}
