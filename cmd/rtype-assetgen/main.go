// Command rtype-assetgen draws the game's sprite atlas procedurally and writes
// sprites.png and atlas_gen.go into the assets directory.
//
//	go run ./cmd/rtype-assetgen [-out assets]
//	go generate ./assets (the same, from assets/assets.go)
//
// The output is deterministic; assets tests verify that the committed files
// match what this command generates.
package main

import (
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"rtype/assets"
)

func main() {
	out := flag.String("out", "assets", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-assetgen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	img, rects := assets.GenerateAtlas()
	f, err := os.Create(filepath.Join(dir, "sprites.png"))
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "atlas_gen.go"), assets.AtlasSource(rects), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%dx%d, %d sprites) and atlas_gen.go\n",
		filepath.Join(dir, "sprites.png"), img.Bounds().Dx(), img.Bounds().Dy(), len(rects))
	return nil
}
