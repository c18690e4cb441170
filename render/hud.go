package render

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"rtype/render/model"
)

// HUDPlayer is a player's line of the HUD (model.HUDPlayer).
type HUDPlayer = model.HUDPlayer

// HUD geometry: four panels along the top edge, one per player number
// (those of package model).
const (
	HUDMargin = model.HUDMargin
	HUDGap    = model.HUDGap
	HUDTop    = model.HUDTop
	HUDHeight = model.HUDHeight
	HUDWidth  = model.HUDWidth
)

// HUDSlotX returns the left edge of player p's HUD panel.
func HUDSlotX(p int) float64 { return model.HUDSlotX(p) }

// hudText caches the texts of a player's panel, made again only when
// what they show changes, so that drawing the HUD every frame allocates
// nothing of ours.
type hudText struct {
	// name is fit, the name cut to room pixels in a face of size size.
	name, fit  string
	room, size float64
	nameW      float64
	// The texts laid out (glyphs.go).
	open, nameT, you, out, lead cachedText
	scoreT                      digits
}

// fitName returns name cut to room in face (Fit) and its width, cached.
func (h *hudText) fitName(name string, face *text.GoTextFace, room float64) (string, float64) {
	if h.fit == "" || h.name != name || h.room != room || h.size != face.Size {
		h.name, h.room, h.size = name, room, face.Size
		h.fit = Fit(name, face, room)
		h.nameW, _ = Measure(h.fit, face)
	}
	return h.fit, h.nameW
}

// HUDPanelHeight is the height of a player's panel at UI scale k.
func HUDPanelHeight(k float64) float64 { return HUDHeight * max(k, 1) }

// DrawHUD draws the players' panels: colour, name, score and lives, the
// local player's outlined in its colour; an empty slot shows as open.
// The panels grow in height with the UI scale (f.Scale).
func (a *Atlas) DrawHUD(dst *ebiten.Image, f *Fonts, players [4]HUDPlayer) {
	k := max(f.Scale(), 1)
	for p, pl := range players {
		x, y, w, h := HUDSlotX(p), float64(HUDTop), float64(HUDWidth), HUDPanelHeight(k)
		col := PlayerColors[p]
		ht := &a.hud[p]
		if !pl.Present {
			a.stroke(dst, x, y, w, h, 1, Fade(ColPanelEdge, 0.45))
			if !pl.Behind {
				ht.open.draw(dst, "open slot", f.Tiny, x+w/2, y+h/2-10*k, Center, Fade(ColDim, 0.45))
			}
			continue
		}
		bg := 0.78
		if pl.Behind {
			bg = 0.3
		}
		a.rect(dst, x, y, w, h, Fade(ColPanel, bg))
		if pl.Local {
			a.rect(dst, x, y, w, h, Fade(col, 0.10))
			a.stroke(dst, x, y, w, h, 2, col)
		} else {
			a.stroke(dst, x, y, w, h, 1, ColPanelEdge)
		}
		a.rect(dst, x, y, 6, h, col)
		// At 100 % the score is on the name's line; larger, it would leave
		// the name no room, and goes down to the lives' line.
		scoreW, _ := a.scoreWidth(f.MonoBig)
		below := k > 1
		room := w - 16 - 10
		if !below {
			room -= scoreW + 10
		} else if pl.Leader {
			room -= 50 * k // LEAD
		}
		if pl.Local {
			room -= 42 * k
		}
		name, nw := ht.fitName(pl.Name, f.Small, room)
		nameCol := ColText
		if pl.Local {
			nameCol = col
		}
		ht.nameT.draw(dst, name, f.Small, x+16, y+6*k, Left, nameCol)
		if pl.Local {
			tx := x + 16 + nw + 8
			a.rect(dst, tx, y+10*k, 34*k, 17*k, col)
			ht.you.draw(dst, "YOU", f.Tiny, tx+17*k, y+9*k, Center, ColBackground)
		}
		scoreCol := ColText
		if pl.Leader {
			scoreCol = ColGold
		}
		sy := y + 4*k
		if below {
			sy = y + h - f.MonoBig.Size*1.2
		}
		ht.scoreT.drawNumber(dst, uint64(pl.Score), 7, f.MonoBig, x+w-10, sy, scoreCol)
		// Lives.
		ly := y + 44*k
		switch {
		case pl.Lives > 0:
			for i := range min(pl.Lives, 9) {
				DrawSprite(dst, a.Life, x+24+float64(i)*20*k, ly, DrawOpts{Scale: 1.5 * k, Tint: col})
			}
		case !pl.HasShip:
			ht.out.draw(dst, "OUT", f.Tiny, x+16, ly-9*k, Left, ColWarn)
		}
		if pl.Leader {
			ly := ly - 9*k
			if below {
				ly = y + 9*k
			}
			ht.lead.draw(dst, "LEAD", f.Tiny, x+w-10, ly, Right, ColGold)
		}
	}
}

// scoreWidth is the width of a 7-digit score in face, measured once per
// size.
func (a *Atlas) scoreWidth(face *text.GoTextFace) (float64, float64) {
	if a.scoreW.size != face.Size {
		a.scoreW.size = face.Size
		a.scoreW.w, a.scoreW.h = Measure("0000000", face)
	}
	return a.scoreW.w, a.scoreW.h
}

// DrawNotices draws the notices ("Ripley joined") under the HUD, newest
// last, each fading out.
func (a *Atlas) DrawNotices(dst *ebiten.Image, f *Fonts, ns []model.Notice, now float64) {
	y := HUDTop + HUDPanelHeight(f.Scale()) + 18
	for _, n := range ns {
		al := n.Alpha(now)
		if al <= 0 {
			continue
		}
		col := ColText
		if n.Player < 4 {
			col = Mix(PlayerColors[n.Player], ColText, 0.25)
		}
		w, _ := Measure(n.Text, f.Body)
		a.rect(dst, Width/2-w/2-18, y-4, w+36, 38, Fade(color.RGBA{0, 0, 0, 0xff}, 0.55*al))
		ShadowText(dst, n.Text, f.Body, Width/2, y, Center, Fade(col, al))
		y += 44
	}
}

// NetLine is a line of the network overlay.
type NetLine struct {
	Label, Value string
	Warn         bool
}

// DrawNetOverlay draws the network overlay (F3) in the bottom-left corner.
func (a *Atlas) DrawNetOverlay(dst *ebiten.Image, f *Fonts, lines []NetLine) {
	const lh = 21.0
	w, h := 330.0, 40+lh*float64(len(lines))
	x, y := 16.0, float64(Height)-16-h
	a.rect(dst, x, y, w, h, Fade(color.RGBA{0, 0, 0, 0xff}, 0.72))
	a.stroke(dst, x, y, w, h, 1, ColPanelEdge)
	Text(dst, "NETWORK  (F3)", f.MonoSmall, x+12, y+8, Left, ColAccent)
	for i, l := range lines {
		ly := y + 32 + float64(i)*lh
		Text(dst, l.Label, f.MonoSmall, x+12, ly, Left, ColDim)
		c := ColText
		if l.Warn {
			c = ColWarn
		}
		Text(dst, l.Value, f.MonoSmall, x+w-12, ly, Right, c)
	}
}
