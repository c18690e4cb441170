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
	"runtime"
	"strings"
	"sync"
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
	// The colour-blind palettes' shots.
	add("PaletteMissileFrames", PaletteMissileFrames[:]...)
	add("PaletteEnemyMissileFrames", PaletteEnemyMissileFrames[:]...)
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
		8+3+3+3+3+4+5+4+4+8+4+2+4+5+ // Stage
		6+6 { // the colour-blind palettes' shots
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
// generated is the atlas GenerateAtlas makes, made once for the tests
// that compare it (with the race detector, a generation takes seconds).
var generated = sync.OnceValues(GenerateAtlas)

func TestAtlasMatchesGenerator(t *testing.T) {
	gen, rects := generated()

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
	a, ra := generated()
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
		{"Beam", Beam, SampleRate * 550 / 1000},
		{"ForceAttach", ForceAttach, SampleRate * 220 / 1000},
		{"ForceLaunch", ForceLaunch, SampleRate * 380 / 1000},
		{"Pickup", Pickup, SampleRate * 420 / 1000},
		{"BossAlarm", BossAlarm, SampleRate * 1800 / 1000},
		{"BossExplosion", BossExplosion, SampleRate * 2600 / 1000},
		{"StageMusic", StageMusic, int(math.Round(StageMusicDuration * SampleRate))},
		{"BossMusic", BossMusic, int(math.Round(BossMusicDuration * SampleRate))},
		{"ClearJingle", ClearJingle, int(math.Round(ClearDuration * SampleRate))},
		{"WarshipMusic", WarshipMusic, int(math.Round(WarshipMusicDuration * SampleRate))},
		{"WarshipBossMusic", WarshipBossMusic, int(math.Round(WarshipBossMusicDuration * SampleRate))},
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
			if !strings.HasSuffix(tc.name, "Music") {
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
	for _, m := range []struct {
		name string
		f    func() []byte
	}{{"Music", Music}, {"StageMusic", StageMusic}, {"BossMusic", BossMusic}} {
		t.Run(m.name, func(t *testing.T) { testLoop(t, m.name, m.f()) })
	}
}

// testLoop checks that a music loops without a click and stays under 0.5.
func testLoop(t *testing.T, name string, b []byte) {
	l, r := decodePCM(t, name, b)
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
	for _, c := range []struct {
		name string
		gen  func() []byte
		f    func() []byte
	}{
		{"Beam", genBeam, Beam}, {"ForceAttach", genForceAttach, ForceAttach},
		{"ForceLaunch", genForceLaunch, ForceLaunch}, {"Pickup", genPickup, Pickup},
		{"BossAlarm", genBossAlarm, BossAlarm}, {"BossExplosion", genBossExplosion, BossExplosion},
		{"ClearJingle", genClear, ClearJingle}, {"StageMusic", genStageMusic, StageMusic},
		{"BossMusic", genBossMusic, BossMusic}, {"WarshipMusic", genWarshipMusic, WarshipMusic},
		{"WarshipBossMusic", genWarshipBossMusic, WarshipBossMusic},
	} {
		if testing.Short() && strings.HasSuffix(c.name, "Music") {
			continue
		}
		if !bytes.Equal(c.gen(), c.f()) {
			t.Errorf("%s: synthesis is not deterministic", c.name)
		}
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
		{"Beam", Beam, "6d4084282967c4121c1cc9605d8a0f9ba5bfad6c19a0e04784fd4719d2803d54"},
		{"ForceAttach", ForceAttach, "f36436a8c88dc15bcea49f7d60144ae38178a9bcf6036b20517a0c204d23820c"},
		{"ForceLaunch", ForceLaunch, "c50d66e4338e955ded69d2d56d1bb15729fcc588238c27b2495c1ee64c617f86"},
		{"Pickup", Pickup, "216a797a71c37eb7691b2fb241f278d08e383171df12806b92f3d23e6669c721"},
		{"BossAlarm", BossAlarm, "03738585504fae3037cc4cc1e50e29bbdb82ca3d2ddc5b35dcde7f0d6889ba4b"},
		{"BossExplosion", BossExplosion, "6a4f540dcede16dd052b6fc8b7f79db46f1dc3f32fdc2c124d296f2159468e4c"},
		{"StageMusic", StageMusic, "05e0c5af72ef2588cffe7fb400851fb7532a21ee14d04270803e134d3084513a"},
		{"BossMusic", BossMusic, "7a50f3b991669bf9c35e79abb695b5bd5b7545d3189424c7367aaa034bdc5b28"},
		{"ClearJingle", ClearJingle, "e4d5f17f1033c813691fbbce016397c3234beafabfff5441682d7562bd1e38f0"},
		{"WarshipMusic", WarshipMusic, "5eeabfc82089e34c57725d59110ac9bad38caa16d32eb56553c1426cc10af9f0"},
		{"WarshipBossMusic", WarshipBossMusic, "26b3c5d6b435d1d23a1439f6e9029d6a4ff790b9f04001dfda95298f012dbda2"},
	} {
		if got := fmt.Sprintf("%x", sha256.Sum256(c.f())); got != c.sum {
			t.Errorf("%s: sha256 %s, want %s", c.name, got, c.sum)
		}
	}
}

// humRead reads n frames of h's left channel.
func humRead(t *testing.T, h *Hum, n int) []float32 {
	t.Helper()
	b := make([]byte, n*8+5) // not a whole frame more: left unwritten
	got, err := h.Read(b)
	if err != nil || got != n*8 {
		t.Fatalf("Read = %d, %v; want %d", got, err, n*8)
	}
	l, _ := decodePCM(t, "Hum", b[:got])
	return l
}

// TestHum: the charge hum is silent at 0, louder and higher with the
// level, never clips, and is the same for the same levels.
func TestHum(t *testing.T) {
	h := NewHum()
	for _, v := range humRead(t, h, 4800) {
		if v != 0 {
			t.Fatal("the hum at level 0 is not silent")
		}
	}
	stats := func(l []float32) (peak float64, crossings int) {
		for i, v := range l {
			peak = math.Max(peak, math.Abs(float64(v)))
			if i > 0 && (l[i-1] < 0) != (v < 0) {
				crossings++
			}
		}
		return
	}
	var peaks [2]float64
	var cross [2]int
	for i, lv := range []float64{0.2, 1} {
		h.Set(lv)
		humRead(t, h, SampleRate/4) // settle
		peaks[i], cross[i] = stats(humRead(t, h, SampleRate/2))
		if peaks[i] > 1 || peaks[i] < 0.03 {
			t.Errorf("level %v: peak %.3f", lv, peaks[i])
		}
	}
	if peaks[1] <= peaks[0] || cross[1] <= cross[0] {
		t.Errorf("the hum must rise with the level: peaks %v, zero crossings %v", peaks, cross)
	}
	// Back to 0: it fades out to silence, without a jump.
	h.Set(0)
	l := humRead(t, h, SampleRate/4)
	for i := 1; i < len(l); i++ {
		if d := math.Abs(float64(l[i] - l[i-1])); d > 0.2 {
			t.Fatalf("a jump of %.3f at %d while fading out", d, i)
		}
	}
	if p, _ := stats(l[len(l)-480:]); p != 0 {
		t.Errorf("still %.4f after fading out", p)
	}
	// Deterministic.
	a, b := NewHum(), NewHum()
	for _, lv := range []float64{0.1, 0.5, 1, 0} {
		a.Set(lv)
		b.Set(lv)
		x, y := humRead(t, a, 1000), humRead(t, b, 1000)
		for i := range x {
			if x[i] != y[i] {
				t.Fatalf("two hums differ at level %v", lv)
			}
		}
	}
}
