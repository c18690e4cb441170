package render

import (
	"fmt"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"

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

// DrawHUD draws the players' panels: colour, name, score and lives, the
// local player's outlined in its colour; an empty slot shows as open.
func (a *Atlas) DrawHUD(dst *ebiten.Image, f *Fonts, players [4]HUDPlayer) {
	for p, pl := range players {
		x, y, w, h := HUDSlotX(p), float64(HUDTop), float64(HUDWidth), float64(HUDHeight)
		col := PlayerColors[p]
		if !pl.Present {
			a.StrokeRect(dst, x, y, w, h, 1, Fade(ColPanelEdge, 0.45))
			if !pl.Behind {
				Text(dst, "open slot", f.Tiny, x+w/2, y+h/2-10, Center, Fade(ColDim, 0.45))
			}
			continue
		}
		bg := 0.78
		if pl.Behind {
			bg = 0.3
		}
		a.FillRect(dst, x, y, w, h, Fade(ColPanel, bg))
		if pl.Local {
			a.FillRect(dst, x, y, w, h, Fade(col, 0.10))
			a.StrokeRect(dst, x, y, w, h, 2, col)
		} else {
			a.StrokeRect(dst, x, y, w, h, 1, ColPanelEdge)
		}
		a.FillRect(dst, x, y, 6, h, col)
		scoreW, _ := Measure("0000000", f.MonoBig)
		room := w - 16 - 10 - scoreW - 10
		if pl.Local {
			room -= 42
		}
		name := Fit(pl.Name, f.Small, room)
		nameCol := ColText
		if pl.Local {
			nameCol = col
		}
		Text(dst, name, f.Small, x+16, y+6, Left, nameCol)
		if pl.Local {
			nw, _ := Measure(name, f.Small)
			tx := x + 16 + nw + 8
			a.FillRect(dst, tx, y+10, 34, 17, col)
			Text(dst, "YOU", f.Tiny, tx+17, y+9, Center, ColBackground)
		}
		scoreCol := ColText
		if pl.Leader {
			scoreCol = ColGold
		}
		Text(dst, fmt.Sprintf("%07d", pl.Score), f.MonoBig, x+w-10, y+4, Right, scoreCol)
		// Lives.
		ly := y + 44
		switch {
		case pl.Lives > 0:
			for i := range min(pl.Lives, 9) {
				DrawSprite(dst, a.Life, x+24+float64(i)*20, ly, DrawOpts{Scale: 1.5, Tint: col})
			}
		case !pl.HasShip:
			Text(dst, "OUT", f.Tiny, x+16, ly-9, Left, ColWarn)
		}
		if pl.Leader {
			Text(dst, "LEAD", f.Tiny, x+w-10, ly-9, Right, ColGold)
		}
	}
}

// DrawNotices draws the notices ("Ripley joined") under the HUD, newest
// last, each fading out.
func (a *Atlas) DrawNotices(dst *ebiten.Image, f *Fonts, ns []model.Notice, now float64) {
	y := float64(HUDTop + HUDHeight + 18)
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
		a.FillRect(dst, Width/2-w/2-18, y-4, w+36, 38, Fade(color.RGBA{0, 0, 0, 0xff}, 0.55*al))
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
	w, h := NetOverlayW, 40+lh*float64(len(lines))
	x, y := 16.0, float64(Height)-16-h
	a.FillRect(dst, x, y, w, h, Fade(color.RGBA{0, 0, 0, 0xff}, 0.72))
	a.StrokeRect(dst, x, y, w, h, 1, ColPanelEdge)
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
