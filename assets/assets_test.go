package assets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"go/format"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// allRects lists every rectangle declared in atlas_gen.go.
func allRects() map[string]image.Rectangle {
	m := map[string]image.Rectangle{}
	add := func(name string, rs ...image.Rectangle) {
		for i, r := range rs {
			m[name+"["+string(rune('0'+i))+"]"] = r
		}
	}
	add("ShipFrames", ShipFrames[:]...)
	add("ShipAccent", ShipAccent[:]...)
	add("MissileFrames", MissileFrames[:]...)
	add("BydosFrames", BydosFrames[:]...)
	add("EnemyMissileFrames", EnemyMissileFrames[:]...)
	add("ExplosionFrames", ExplosionFrames[:]...)
	add("MuzzleFrames", MuzzleFrames[:]...)
	add("StarFrames", StarFrames[:]...)
	m["Pixel"] = Pixel
	m["LifeIcon"] = LifeIcon
	// Stage mode.
	add("ForceFrames", ForceFrames[:]...)
	add("Beam1Frames", Beam1Frames[:]...)
	add("Beam2Frames", Beam2Frames[:]...)
	add("Beam3Frames", Beam3Frames[:]...)
	add("ForceShotFrames", ForceShotFrames[:]...)
	add("BitFrames", BitFrames[:]...)
	add("PowerUpFrames", PowerUpFrames[:]...)
	add("PowArmorFrames", PowArmorFrames[:]...)
	add("ChaserFrames", ChaserFrames[:]...)
	add("TurretFrames", TurretFrames[:]...)
	add("ArmoredFrames", ArmoredFrames[:]...)
	add("BossBulletFrames", BossBulletFrames[:]...)
	add("BossCoreFrames", BossCoreFrames[:]...)
	for name, r := range map[string]image.Rectangle{"Glow": Glow, "ForceAccent": ForceAccent, "CoreSocket": CoreSocket, "MidBoss": MidBoss, "Boss": Boss} {
		m[name] = r
	}
	return m
}

func TestAtlasDecodes(t *testing.T) {
	img, err := Sprites()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Sprites()
	if img != again {
		t.Error("Sprites should decode once and return the cached image")
	}
	b := img.Bounds()
	rects := allRects()
	if len(rects) != 4+4+2+8+2+8+3+3+1+1+ // Classic
		8+3+3+3+3+4+5+4+4+8+4+2+4+5 { // Stage
		t.Fatalf("unexpected number of rectangles: %d", len(rects))
	}
	for name, r := range rects {
		if r.Empty() {
			t.Errorf("%s is empty", name)
		}
		// Each sprite needs a 1px gutter inside the atlas.
		if !r.Inset(-1).In(b) {
			t.Errorf("%s %v (with gutter) not within atlas bounds %v", name, r, b)
		}
		for other, r2 := range rects {
			if other != name && r.Inset(-1).Overlaps(r2) {
				t.Errorf("%s %v overlaps %s %v (gutter included)", name, r, other, r2)
			}
		}
		opaque := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if _, _, _, a := img.At(x, y).RGBA(); a >= 0x4000 {
					opaque++
				}
			}
		}
		if opaque == 0 {
			t.Errorf("%s has no visible pixels", name)
		}
	}
	if _, _, _, a := img.At(Pixel.Min.X, Pixel.Min.Y).RGBA(); a != 0xffff {
		t.Error("Pixel must be fully opaque")
	}
	// Gutters are transparent (except around Pixel, which is padded white).
	for name, r := range rects {
		if name == "Pixel" {
			continue
		}
		g := r.Inset(-1)
		for y := g.Min.Y; y < g.Max.Y; y++ {
			for x := g.Min.X; x < g.Max.X; x++ {
				if image.Pt(x, y).In(r) {
					continue
				}
				if _, _, _, a := img.At(x, y).RGBA(); a != 0 {
					t.Fatalf("%s: gutter pixel (%d,%d) is not transparent", name, x, y)
				}
			}
		}
	}
	// Accent overlays must line up with the ship frames.
	for i := range ShipFrames {
		if ShipFrames[i].Size() != ShipAccent[i].Size() {
			t.Errorf("ShipAccent[%d] size differs from ShipFrames[%d]", i, i)
		}
	}
}

// TestAtlasMatchesGenerator regenerates the atlas with the generator's core
// function (as cmd/rtype-assetgen does) and checks the committed files match.
func TestAtlasMatchesGenerator(t *testing.T) {
	gen, rects := GenerateAtlas()

	dir := t.TempDir()
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, gen); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sprites.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(written, SpritesPNG) {
		// PNG compression output may change between Go releases, so fall
		// back to comparing decoded pixels.
		t.Log("encoded bytes differ from committed sprites.png; comparing pixels")
	}

	committed, err := png.Decode(bytes.NewReader(SpritesPNG))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := committed.(*image.NRGBA)
	if !ok {
		t.Fatalf("committed atlas decodes as %T, want *image.NRGBA", committed)
	}
	if c.Bounds() != gen.Bounds() {
		t.Fatalf("committed atlas is %v, generator makes %v: run go generate ./assets", c.Bounds(), gen.Bounds())
	}
	// amd64 does not fuse multiply-adds, so generation there is bit-exact;
	// other architectures may differ by a rounding step.
	tol := 0
	if runtime.GOARCH != "amd64" {
		tol = 2
	}
	bad := 0
	for i := range c.Pix {
		d := int(c.Pix[i]) - int(gen.Pix[i])
		if d < -tol || d > tol {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("committed sprites.png differs from the generator in %d bytes: run go generate ./assets", bad)
	}

	src := AtlasSource(rects)
	committedSrc, err := os.ReadFile("atlas_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, committedSrc) {
		t.Error("atlas_gen.go differs from the generator: run go generate ./assets")
	}
	formatted, err := format.Source(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(formatted, src) {
		t.Error("AtlasSource output is not gofmt-formatted")
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, ra := GenerateAtlas()
	b, rb := GenerateAtlas()
	if !bytes.Equal(a.Pix, b.Pix) || len(ra) != len(rb) {
		t.Fatal("GenerateAtlas is not deterministic")
	}
}

func TestFonts(t *testing.T) {
	if len(FontRegular) == 0 || len(FontMono) == 0 {
		t.Fatal("fonts are empty")
	}
}

// decodePCM splits interleaved float32 stereo PCM into channels.
func decodePCM(t *testing.T, name string, b []byte) (l, r []float32) {
	t.Helper()
	if len(b)%8 != 0 {
		t.Fatalf("%s: %d bytes is not a whole number of stereo float32 frames", name, len(b))
	}
	n := len(b) / 8
	l = make([]float32, n)
	r = make([]float32, n)
	for i := 0; i < n; i++ {
		l[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*8:]))
		r[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*8+4:]))
	}
	return l, r
}

func TestSounds(t *testing.T) {
	tests := []struct {
		name   string
		f      func() []byte
		frames int
	}{
		{"Shot", Shot, SampleRate * 80 / 1000},
		{"Explosion", Explosion, SampleRate * 600 / 1000},
		{"Death", Death, SampleRate * 1200 / 1000},
		{"Join", Join, SampleRate * 300 / 1000},
		{"Music", Music, int(MusicDuration * SampleRate)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.f()
			if got := len(b) / 8; got != tc.frames {
				t.Errorf("%d frames, want %d", got, tc.frames)
			}
			if &tc.f()[0] != &b[0] {
				t.Error("sound is not cached")
			}
			l, r := decodePCM(t, tc.name, b)
			peak := 0.0
			for i := range l {
				for _, v := range []float32{l[i], r[i]} {
					f := float64(v)
					if math.IsNaN(f) || math.IsInf(f, 0) {
						t.Fatalf("non-finite sample at %d", i)
					}
					peak = math.Max(peak, math.Abs(f))
				}
			}
			if peak > 1 {
				t.Errorf("peak %.3f exceeds 1", peak)
			}
			if peak < 0.05 {
				t.Errorf("peak %.3f: sound is (nearly) silent", peak)
			}
			if tc.name != "Music" {
				// Effects start and end silent: no clicks.
				n := len(l) - 1
				for _, v := range []float32{l[0], r[0], l[n], r[n]} {
					if math.Abs(float64(v)) > 0.01 {
						t.Errorf("effect does not start/end at silence: %v", v)
					}
				}
			}
		})
	}
}

func TestMusicLoopsWithoutClick(t *testing.T) {
	l, r := decodePCM(t, "Music", Music())
	n := len(l)
	// The jump from the last sample back to the first must be no larger
	// than the typical sample-to-sample steps inside the track.
	maxStep := 0.0
	for i := 1; i < n; i++ {
		maxStep = math.Max(maxStep, math.Abs(float64(l[i]-l[i-1])))
		maxStep = math.Max(maxStep, math.Abs(float64(r[i]-r[i-1])))
	}
	for _, ch := range [][]float32{l, r} {
		jump := math.Abs(float64(ch[0] - ch[n-1]))
		if jump > 0.05 || jump > maxStep {
			t.Errorf("loop seam jump %.4f (max in-track step %.4f)", jump, maxStep)
		}
	}
	// Peak stays modest.
	peak := 0.0
	for i := range l {
		peak = math.Max(peak, math.Max(math.Abs(float64(l[i])), math.Abs(float64(r[i]))))
	}
	if peak > 0.51 {
		t.Errorf("music peak %.3f, want <= 0.5", peak)
	}
}

func TestSoundsDeterministic(t *testing.T) {
	if !bytes.Equal(genShot(), Shot()) || !bytes.Equal(genExplosion(), Explosion()) ||
		!bytes.Equal(genJoin(), Join()) || !bytes.Equal(genDeath(), Death()) {
		t.Error("sound synthesis is not deterministic")
	}
}

// The sounds are the same, sample for sample, as when they were first
// tuned: a change to the synthesis (a split into functions, a reordered
// sum) must not change a byte. Floating point may round differently on
// another architecture (a fused multiply-add), so the pins hold on amd64.
func TestSoundsPinned(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the pins are of amd64's floating point, not %s's", runtime.GOARCH)
	}
	for _, c := range []struct {
		name string
		f    func() []byte
		sum  string
	}{
		{"Shot", Shot, "95cfe9f3fac61260bae0ff8b59b9d24e275638a7ee6a5bcecb9fb2ff1c35388c"},
		{"Explosion", Explosion, "61cf166ee5a9fdca00d2a5cbd512b67993ebecd8dfed6d5da8e583ccb778cee8"},
		{"Death", Death, "41fe46302c71d141bcad13730a2d657e4fd744f11a2b2c985f7036638e7c861f"},
		{"Join", Join, "6448a66b76aeb42144e9a5f0e1bac03b954936716892a1720151cc56c2c4ac17"},
		{"Music", Music, "847d74e452e17fc2edd80a46063aa48e34e07b29ed31a060676da1f9ee682ae9"},
	} {
		if got := fmt.Sprintf("%x", sha256.Sum256(c.f())); got != c.sum {
			t.Errorf("%s: sha256 %s, want %s", c.name, got, c.sum)
		}
	}
}
