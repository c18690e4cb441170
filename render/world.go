package render

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/render/model"
	"rtype/vocab"
)

// Sprite is an entity to draw: what it is and where (model.Sprite).
type Sprite = model.Sprite

// Starfield is the parallax background: three layers of stars scrolling
// left at different speeds, laid out the same on every run.
type Starfield struct {
	Layers [3]model.StarLayer
}

// NewStarfield lays out the stars of the 1280 x 720 area.
func NewStarfield() *Starfield {
	return &Starfield{Layers: model.Starfield(Width, Height)}
}

var starTints = [3]color.RGBA{
	{0x8c, 0x9c, 0xd8, 0xff},
	{0xc4, 0xd2, 0xff, 0xff},
	{0xff, 0xff, 0xff, 0xff},
}

// Draw draws the stars at time t (seconds), far layer first.
func (sf *Starfield) Draw(dst *ebiten.Image, a *Atlas, t float64) {
	for i := range sf.Layers {
		l := &sf.Layers[i]
		img := a.Star[l.Size]
		for k := range l.Stars {
			s := &l.Stars[k]
			x, y := l.Pos(s, t, Width)
			var op ebiten.DrawImageOptions
			b := img.Bounds()
			op.GeoM.Translate(math.Round(x)-float64(b.Dx()/2), math.Round(y)-float64(b.Dy()/2))
			op.ColorScale.ScaleWithColor(starTints[i])
			op.ColorScale.Scale(float32(s.Twinkle(t)), float32(s.Twinkle(t)), float32(s.Twinkle(t)), 1)
			dst.DrawImage(img, &op)
		}
	}
}

// Invulnerable is the ship frame the server sends while a ship is
// invulnerable after a respawn (it blinks).
const Invulnerable = 3

// DrawWorld draws the entities in layers, back to front: bosses, enemy
// shots, enemies, items, player shots, ships and bits, Forces (the
// Classic kinds in their old order: enemy missiles, enemies, player
// missiles, ships). Unknown kinds are not drawn. t is the game time in
// seconds (animations).
func (a *Atlas) DrawWorld(dst *ebiten.Image, sprites []Sprite, t float64) {
	for layer := uint8(1); layer < numLayers; layer++ {
		for i := range sprites {
			s := &sprites[i]
			if layerOf[s.Kind] != layer {
				continue
			}
			z := zoomOf(style, s.Kind)
			switch s.Kind {
			case vocab.KindEnemyMissile:
				f := (int(t*12) + int(s.ID)) & 1
				img := a.EnemyMissile[f]
				if p := style.Palette; p > model.PaletteNormal {
					img = a.PaletteEnemyMissile[int(p-1)*2+f]
				}
				DrawSprite(dst, img, s.X, s.Y, z.of(DrawOpts{}))
			case vocab.KindBydosSlave:
				DrawSprite(dst, a.Bydos[s.Frame&7], s.X, s.Y, z.of(DrawOpts{}))
			case vocab.KindPlayerMissile:
				f := (int(t*20) + int(s.ID)) & 1
				img := a.Missile[f]
				if p := style.Palette; p > model.PaletteNormal {
					img = a.PaletteMissile[int(p-1)*2+f]
				}
				DrawSprite(dst, img, s.X, s.Y, z.of(DrawOpts{}))
			case vocab.KindPlayerShip:
				a.DrawShipScaled(dst, s.X, s.Y, s.Frame, s.Owner, t, float64(z))
			default:
				a.drawStageSprite(dst, s, t, z)
			}
		}
	}
}

// DrawShip draws a player's ship: its thruster, the grey body, then the
// accent layer in the player's colour. An invulnerable ship blinks.
func (a *Atlas) DrawShip(dst *ebiten.Image, x, y float64, frame, owner uint8, t float64) {
	a.DrawShipScaled(dst, x, y, frame, owner, t, 1)
}

// DrawShipScaled is DrawShip at scale times the size (menus).
func (a *Atlas) DrawShipScaled(dst *ebiten.Image, x, y float64, frame, owner uint8, t, scale float64) {
	f := frame & 3
	alpha := 1.0
	if f == Invulnerable {
		// Blink at 8 Hz between ghost and nearly solid.
		if int(t*16)%2 == 0 {
			alpha = 0.3
		} else {
			alpha = 0.85
		}
	}
	col := PlayerColor(owner)
	// Thruster flame behind the ship, flickering.
	flick := 0.55 + 0.2*math.Sin(t*47+float64(owner))
	DrawSprite(dst, a.Muzzle[1+int(t*30)%2], x-19*scale, y+scale, DrawOpts{Scale: flick * scale, Tint: Mix(col, color.RGBA{255, 255, 255, 255}, 0.35), Alpha: alpha * 0.9, Blend: ebiten.BlendLighter})
	DrawSprite(dst, a.Ship[f], x, y, DrawOpts{Alpha: alpha, Scale: scale})
	DrawSprite(dst, a.ShipAccent[f], x, y, DrawOpts{Tint: col, Alpha: alpha, Scale: scale})
}

// DrawEffects draws the explosions and muzzle flashes active at now.
func (a *Atlas) DrawEffects(dst *ebiten.Image, fx []model.Effect, now float64) {
	for _, e := range fx {
		if !e.Active(now) {
			continue
		}
		switch e.Kind {
		case model.FxExplosion:
			DrawSprite(dst, a.Explosion[e.Frame(now, 8)], e.X, e.Y, DrawOpts{})
		case model.FxShipExplosion:
			p := e.Progress(now)
			// A coloured flash, then a big fireball.
			if p < 0.35 && !style.NoFlashes {
				DrawSprite(dst, a.Muzzle[0], e.X, e.Y, DrawOpts{Scale: 5 + 14*p, Tint: PlayerColor(e.Owner), Alpha: 1 - p/0.35, Blend: ebiten.BlendLighter})
			}
			DrawSprite(dst, a.Explosion[e.Frame(now, 8)], e.X, e.Y, DrawOpts{Scale: 2})
		case model.FxMuzzle:
			o := DrawOpts{Blend: ebiten.BlendLighter}
			if style.NoFlashes {
				o.Alpha = 0.35
			}
			DrawSprite(dst, a.Muzzle[e.Frame(now, 3)], e.X, e.Y, o)
		case model.FxBossExplosion:
			a.drawBossExplosion(dst, e, now)
		}
	}
}
