package release

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"io"

	"github.com/tc-hib/winres"
	winversion "github.com/tc-hib/winres/version"
)

// PNG encodes an icon as a PNG file (the Linux desktop's icon).
func PNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WinresConfig is what WriteSyso puts in the game's Windows resources.
type WinresConfig struct {
	// Version is the release's version, as given ("v1.2.0"): the
	// ProductVersion and FileVersion strings; its first numbers are the
	// fixed (numeric) versions, "v1.2.0-rc.1" giving 1.2.0.0. Required.
	Version string
	// Icons are the application's icon at each size (assets.WindowIcons):
	// RT_GROUP_ICON "APP" and an RT_ICON each. Required.
	Icons []image.Image
	// Exe is the executable's name, "rtype.exe": its OriginalFilename.
	Exe string
	// Description is its FileDescription, what Windows shows as its
	// name in the Task Manager ("R-Type").
	Description string
}

// WriteSyso writes the COFF object of the game's Windows resources (the
// icon and the version information) for windows/amd64: put where the
// main package's files are as NAME_windows_amd64.syso (build.sh maps it
// there with go build -overlay), the linker puts it in the executable's
// .rsrc section. The same config gives the same bytes.
func WriteSyso(w io.Writer, cfg WinresConfig) error {
	if cfg.Version == "" || len(cfg.Icons) == 0 {
		return fmt.Errorf("release: Windows resources need a version and icons")
	}
	var rs winres.ResourceSet
	icon, err := winres.NewIconFromImages(cfg.Icons)
	if err != nil {
		return err
	}
	if err := rs.SetIcon(winres.Name("APP"), icon); err != nil {
		return err
	}
	// The strings in one language (en-US) only: a version set before
	// any string goes to the neutral language, a second RT_VERSION.
	var vi winversion.Info
	for k, v := range map[string]string{
		winversion.ProductName:      "R-Type",
		winversion.FileDescription:  cfg.Description,
		winversion.OriginalFilename: cfg.Exe,
		winversion.InternalName:     cfg.Exe,
	} {
		if v != "" {
			if err := vi.Set(winversion.LangDefault, k, v); err != nil {
				return err
			}
		}
	}
	vi.SetFileVersion(cfg.Version)
	vi.SetProductVersion(cfg.Version)
	rs.SetVersionInfo(vi)
	return rs.WriteObject(w, winres.ArchAMD64)
}

// icnsTypes are the ICNS element types of PNG icons by size (Apple's
// icns format: "icp4" 16 px, "icp5" 32, "icp6" 64, "ic07" 128, "ic08"
// 256); other sizes have none.
var icnsTypes = map[int]string{16: "icp4", 32: "icp5", 64: "icp6", 128: "ic07", 256: "ic08", 512: "ic09"}

// ICNS returns the macOS icon file of the icons: each size with an ICNS
// type, as PNG, in the order given.
func ICNS(icons []image.Image) ([]byte, error) {
	var body bytes.Buffer
	for _, img := range icons {
		typ, ok := icnsTypes[img.Bounds().Dx()]
		if !ok || img.Bounds().Dx() != img.Bounds().Dy() {
			continue
		}
		data, err := PNG(img)
		if err != nil {
			return nil, err
		}
		body.WriteString(typ)
		binary.Write(&body, binary.BigEndian, uint32(8+len(data)))
		body.Write(data)
	}
	if body.Len() == 0 {
		return nil, fmt.Errorf("release: no icon of a size ICNS has")
	}
	var out bytes.Buffer
	out.WriteString("icns")
	binary.Write(&out, binary.BigEndian, uint32(8+body.Len()))
	out.Write(body.Bytes())
	return out.Bytes(), nil
}
