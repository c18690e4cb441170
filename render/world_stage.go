package render

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/assets"
	"rtype/render/model"
	"rtype/vocab"
)

// loadStage cuts the sprites of Stage mode out of the atlas.
func (a *Atlas) loadStage(sub func(image.Rectangle) *ebiten.Image) {
	a.Glow, a.ForceAccent, a.CoreSocket = sub(assets.Glow), sub(assets.ForceAccent), sub(assets.CoreSocket)
	a.MidBoss, a.Boss = sub(assets.MidBoss), sub(assets.Boss)
	a.CoreShutter, a.Warship = sub(assets.CoreShutter), sub(assets.Warship)
	cut := func(dst []*ebiten.Image, rs []image.Rectangle) {
		for i, r := range rs {
			dst[i] = sub(r)
		}
	}
	cut(a.Force[:], assets.ForceFrames[:])
	cut(a.Beam[0][:], assets.Beam1Frames[:])
	cut(a.Beam[1][:], assets.Beam2Frames[:])
	cut(a.Beam[2][:], assets.Beam3Frames[:])
	cut(a.ForceShot[:], assets.ForceShotFrames[:])
	cut(a.Bit[:], assets.BitFrames[:])
	cut(a.PowerUp[:], assets.PowerUpFrames[:])
	cut(a.PowArmor[:], assets.PowArmorFrames[:])
	cut(a.Chaser[:], assets.ChaserFrames[:])
	cut(a.Turret[:], assets.TurretFrames[:])
	cut(a.Armored[:], assets.ArmoredFrames[:])
	cut(a.BossBullet[:], assets.BossBulletFrames[:])
	cut(a.BossCore[:], assets.BossCoreFrames[:])
	cut(a.Hatch[:], assets.HatchFrames[:])
	cut(a.Crawler[:], assets.CrawlerFrames[:])
	cut(a.Plate[:], assets.PlateFrames[:])
}

// Layers of the world, back to front: every kind drawn has one, the
// kinds without one (0) are not drawn. The Classic kinds keep their order.
const (
	layerNone = iota
	layerBoss
	layerCore
	layerFoeShot
	layerFoe
	layerItem
	layerShot
	layerShip
	layerForce
	numLayers
)

var layerOf = func() (l [256]uint8) {
	for k, v := range map[uint8]uint8{
		vocab.KindBoss: layerBoss, vocab.KindMidBoss: layerBoss, vocab.KindWarship: layerBoss,
		vocab.KindBossCore: layerCore, vocab.KindPlate: layerCore,
		vocab.KindHatch: layerFoe, vocab.KindCrawler: layerFoe,
		vocab.KindEnemyMissile: layerFoeShot, vocab.KindBossBullet: layerFoeShot,
		vocab.KindBydosSlave: layerFoe, vocab.KindPowArmor: layerFoe, vocab.KindChaser: layerFoe,
		vocab.KindTurret: layerFoe, vocab.KindArmored: layerFoe,
		vocab.KindPowerUp:       layerItem,
		vocab.KindPlayerMissile: layerShot, vocab.KindWaveBeam: layerShot, vocab.KindForceShot: layerShot,
		vocab.KindPlayerShip: layerShip, vocab.KindBit: layerShip,
		vocab.KindForce: layerForce,
	} {
		l[k] = v
	}
	return l
}()

// Frames of a boss's body (sim's BossFrame*): calm (phase 1) and angry
// (phase 2) between attacks, and from BossTell on the tell of an attack
// announced (one frame per attack, 2 to 7). A boss core's frame is its
// phase - 1.
const (
	BossCalm  = 0
	BossAngry = 1
	BossTell  = 2
)

// tellColors are the tells' glows by frame - BossTell: orange for the
// missiles (fan, sweep, twin sweep), violet for the big bullets (ring,
// spiral), red for both (crossfire).
var tellColors = [6]color.RGBA{
	{0xff, 0x70, 0x20, 0xff}, // fan
	{0xc0, 0x40, 0xff, 0xff}, // ring
	{0xff, 0x70, 0x20, 0xff}, // sweep
	{0xc0, 0x40, 0xff, 0xff}, // spiral
	{0xff, 0x30, 0x20, 0xff}, // crossfire
	{0xff, 0x70, 0x20, 0xff}, // twin sweep
}

// bossDX is how far right of an end boss's position its sprite's centre
// is: the sprite reaches further forward than back.
var bossDX = float64(assets.Boss.Dx())/2 - assets.BossOriginX

// warshipDX is the same for the warship's bridge.
var warshipDX = float64(assets.Warship.Dx())/2 - assets.WarshipOriginX

// coreShut is the frame of the warship's core shut behind its plates
// (sim's coreFrameShut).
const coreShut = 2

// Colours of the Stage sprites' glows.
var (
	colForceGlow = color.RGBA{0xff, 0x8a, 0x30, 0xff}
	colTell      = color.RGBA{0xff, 0x30, 0x20, 0xff}
	colCoreGlow  = color.RGBA{0xff, 0x70, 0x30, 0xff}
	colBullet    = color.RGBA{0xd0, 0x40, 0xff, 0xff}
	itemGlow     = [5]color.RGBA{
		{0xff, 0x50, 0x40, 0xff}, {0x50, 0x90, 0xff, 0xff}, {0xff, 0xe0, 0x40, 0xff},
		{0x70, 0xff, 0x80, 0xff}, {0x70, 0xff, 0x80, 0xff},
	}
)

// anim returns the frame of an n-frame loop at fps frames a second at
// time t, offset by the entity's id.
func anim(t, fps float64, id uint32, n int) int {
	return int((uint64(max(t*fps, 0)) + uint64(id)) % uint64(n))
}

// drawStageSprite draws one entity of a Stage kind.
func (a *Atlas) drawStageSprite(dst *ebiten.Image, s *Sprite, t float64, z zoom) {
	switch s.Kind {
	case vocab.KindBoss, vocab.KindMidBoss, vocab.KindWarship:
		img, x := a.Boss, s.X+bossDX
		switch s.Kind {
		case vocab.KindMidBoss:
			img, x = a.MidBoss, s.X
		case vocab.KindWarship:
			img, x = a.Warship, s.X+warshipDX
		}
		DrawSprite(dst, img, x, s.Y, z.of(DrawOpts{}))
		switch {
		case s.Frame >= BossTell:
			// An attack announced: the body glows in the colour of what
			// comes, pulsing fast.
			c := colTell
			if i := int(s.Frame - BossTell); i < len(tellColors) {
				c = tellColors[i]
			}
			p := 0.5 + 0.5*math.Sin(t*2*math.Pi*6)
			DrawSprite(dst, img, x, s.Y, z.of(DrawOpts{Tint: c, Alpha: 0.25 + 0.35*p, Blend: ebiten.BlendLighter}))
		case s.Frame == BossAngry:
			// The second phase: a slow red throb.
			p := 0.5 + 0.5*math.Sin(t*2*math.Pi*1.2)
			DrawSprite(dst, img, x, s.Y, z.of(DrawOpts{Tint: colTell, Alpha: 0.08 + 0.12*p, Blend: ebiten.BlendLighter}))
		}
	case vocab.KindBossCore:
		if s.Frame == coreShut { // the warship's, behind its shutter
			DrawSprite(dst, a.BossCore[0], s.X, s.Y, z.of(DrawOpts{Alpha: 0.5}))
			DrawSprite(dst, a.CoreShutter, s.X, s.Y, z.of(DrawOpts{}))
			return
		}
		hz, glow := 1.5, colCoreGlow
		if s.Frame > 0 { // the second phase: faster, redder
			hz, glow = 3.5, colTell
		}
		p := 0.5 + 0.5*math.Sin(t*2*math.Pi*hz)
		DrawSprite(dst, a.CoreSocket, s.X, s.Y, z.of(DrawOpts{}))
		DrawSprite(dst, a.BossCore[anim(t, 4*hz, s.ID, 4)], s.X, s.Y, z.of(DrawOpts{}))
		DrawSprite(dst, a.Glow, s.X, s.Y, z.of(DrawOpts{Scale: 2.2 + 0.3*p, Tint: glow, Alpha: 0.35 + 0.25*p, Blend: ebiten.BlendLighter}))
	case vocab.KindBossBullet:
		DrawSprite(dst, a.Glow, s.X, s.Y, z.of(DrawOpts{Scale: 1.3, Tint: colBullet, Alpha: 0.5, Blend: ebiten.BlendLighter}))
		DrawSprite(dst, a.BossBullet[anim(t, 12, s.ID, 2)], s.X, s.Y, z.of(DrawOpts{}))
	case vocab.KindPowArmor:
		DrawSprite(dst, a.PowArmor[anim(t, 8, s.ID, 4)], s.X, s.Y, z.of(DrawOpts{}))
	case vocab.KindChaser:
		// Its frame is its heading (aim frames): 0 left, turning clockwise.
		DrawSprite(dst, a.Chaser[anim(t, 12, s.ID, 4)], s.X, s.Y, z.of(DrawOpts{Rotate: float64(s.Frame&7) * math.Pi / 4}))
	case vocab.KindTurret:
		aim := int(s.Frame & 7)
		if s.Y < Height/2 { // on the ceiling: upside down
			DrawSprite(dst, a.Turret[(8-aim)%8], s.X, s.Y, z.of(DrawOpts{FlipY: true}))
		} else {
			DrawSprite(dst, a.Turret[aim], s.X, s.Y, z.of(DrawOpts{}))
		}
	case vocab.KindArmored:
		DrawSprite(dst, a.Armored[anim(t, 6, s.ID, 4)], s.X, s.Y, z.of(DrawOpts{}))
	case vocab.KindHatch:
		// Frame: 0 shut, 1 opening, 2 open; +4 on the ceiling (flipped).
		img := a.Hatch[min(int(s.Frame&3), len(a.Hatch)-1)]
		DrawSprite(dst, img, s.X, s.Y, z.of(DrawOpts{FlipY: s.Frame&4 != 0}))
		if s.Frame&3 == 1 { // opening: the seam's warning glow
			p := 0.5 + 0.5*math.Sin(t*2*math.Pi*8)
			DrawSprite(dst, a.Glow, s.X, s.Y, z.of(DrawOpts{Scale: 1.2, Tint: colTell, Alpha: 0.3 + 0.4*p, Blend: ebiten.BlendLighter}))
		}
	case vocab.KindCrawler:
		// Frame 1: on the ceiling, upside down.
		DrawSprite(dst, a.Crawler[anim(t, 10, s.ID, 4)], s.X, s.Y, z.of(DrawOpts{FlipY: s.Frame == 1}))
	case vocab.KindPlate:
		DrawSprite(dst, a.Plate[min(int(s.Frame), len(a.Plate)-1)], s.X, s.Y, z.of(DrawOpts{}))
	case vocab.KindPowerUp:
		if int(s.Frame) >= len(a.PowerUp) {
			return
		}
		p := 0.5 + 0.5*math.Sin(t*2*math.Pi*2+float64(s.ID))
		DrawSprite(dst, a.Glow, s.X, s.Y, z.of(DrawOpts{Scale: 1.4 + 0.3*p, Tint: itemGlow[s.Frame], Alpha: 0.35 + 0.35*p, Blend: ebiten.BlendLighter}))
		DrawSprite(dst, a.PowerUp[s.Frame], s.X, s.Y, z.of(DrawOpts{}))
	case vocab.KindWaveBeam:
		lv := min(max(int(s.Frame), 1), 3) - 1
		DrawSprite(dst, a.Beam[lv][anim(t, 24, s.ID, 3)], s.X, s.Y, z.of(DrawOpts{Blend: ebiten.BlendLighter}))
	case vocab.KindForceShot:
		if int(s.Frame) >= len(a.ForceShot) {
			return
		}
		DrawSprite(dst, a.ForceShot[s.Frame], s.X, s.Y, z.of(DrawOpts{Blend: ebiten.BlendLighter}))
	case vocab.KindBit:
		DrawSprite(dst, a.Glow, s.X, s.Y, z.of(DrawOpts{Scale: 0.9, Tint: PlayerColor(s.Owner), Alpha: 0.45, Blend: ebiten.BlendLighter}))
		DrawSprite(dst, a.Bit[anim(t, 10, s.ID, 4)], s.X, s.Y, z.of(DrawOpts{}))
	case vocab.KindForce:
		p := 0.5 + 0.5*math.Sin(t*2*math.Pi*2)
		DrawSprite(dst, a.Glow, s.X, s.Y, z.of(DrawOpts{Scale: 1.5 + 0.2*p, Tint: colForceGlow, Alpha: 0.45 + 0.2*p, Blend: ebiten.BlendLighter}))
		DrawSprite(dst, a.Force[anim(t, 16, 0, 8)], s.X, s.Y, z.of(DrawOpts{}))
		DrawSprite(dst, a.ForceAccent, s.X, s.Y, z.of(DrawOpts{Tint: PlayerColor(s.Owner)}))
	}
}

// bossBlasts are the blasts of a boss's explosion: where over its body,
// when (seconds after the start) and how big.
var bossBlasts = [...]struct{ dx, dy, at, scale float64 }{
	{0, 0, 0, 3}, {-60, -70, 0.12, 2.2}, {50, 60, 0.25, 2.5}, {-40, 80, 0.4, 2},
	{70, -50, 0.5, 2.4}, {-80, 10, 0.65, 2.2}, {20, -95, 0.8, 2}, {40, 20, 0.95, 2.8},
	{-20, 50, 1.1, 2.2}, {0, 0, 1.25, 3.6},
}

// bossBlastLife is how long each blast of a boss's explosion lasts.
const bossBlastLife = 0.55

// drawBossExplosion draws a boss's explosion: a white flash, then its
// blasts one after the other.
func (a *Atlas) drawBossExplosion(dst *ebiten.Image, e model.Effect, now float64) {
	age := now - e.Start
	if age < 0.4 && !style.NoFlashes {
		DrawSprite(dst, a.Glow, e.X, e.Y, DrawOpts{Scale: 6 + 14*age, Tint: white, Alpha: 1 - age/0.4, Blend: ebiten.BlendLighter})
	}
	for _, b := range bossBlasts {
		p := (age - b.at) / bossBlastLife
		if p < 0 || p >= 1 {
			continue
		}
		DrawSprite(dst, a.Explosion[int(p*8)], e.X+b.dx, e.Y+b.dy, DrawOpts{Scale: b.scale})
	}
}
