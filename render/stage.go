package render

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/render/model"
	"rtype/vocab"
)

// Stage HUD geometry: the charge meter at the bottom centre, the arms to
// its right, the boss bar under the players' panels.
const (
	ChargeW = 320.0
	ChargeH = 14.0
	ChargeX = (Width - ChargeW) / 2
	ChargeY = Height - 38.0

	BossBarW = 640.0
	BossBarH = 12.0
	BossBarX = (Width - BossBarW) / 2
	BossBarY = float64(HUDTop+HUDHeight) + 34

	// The results panel's width and top; over it, the banner's middle.
	ResultsW       = 600.0
	ResultsY       = 290.0
	BannerResultsY = 170.0
)

// ChargeColors are the charge meter's colours by level reached (0 none,
// then 1 to 3, like the beams).
var ChargeColors = [4]color.RGBA{
	{0x5a, 0x68, 0x98, 0xff},
	{0x40, 0xc8, 0xff, 0xff},
	{0x78, 0x84, 0xff, 0xff},
	{0xd8, 0x70, 0xff, 0xff},
}

// LaserColors are the Force's lasers' colours (vocab.Laser*).
var LaserColors = [3]color.RGBA{
	{0xff, 0x40, 0x30, 0xff},
	{0x40, 0x90, 0xff, 0xff},
	{0xff, 0xd8, 0x30, 0xff},
}

var (
	colBossBar  = color.RGBA{0xff, 0x50, 0x30, 0xff}
	colBossHigh = color.RGBA{0xff, 0xb0, 0x40, 0xff}
	colEdge     = color.RGBA{0xff, 0x20, 0x10, 0xff}
	black       = color.RGBA{0, 0, 0, 0xff}
	white       = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// numText caches the text of a number, formatted again only when the
// number changes, so that a HUD drawn every frame does not allocate.
type numText struct {
	v   int64
	s   string
	set bool
}

func (n *numText) get(v int64, format string) string {
	if !n.set || n.v != v {
		n.v, n.s, n.set = v, fmt.Sprintf(format, v), true
	}
	return n.s
}

// stageText are the cached texts of the Stage HUD (drawing happens on
// the one game goroutine).
type stageText struct {
	scores [4]numText
	total  numText
	loop   numText
}

// DrawStageHUD draws what Stage mode adds to the screen at time t: the
// charge meter, the boss's health bar, the banners, the attack warning and
// the results. It draws nothing when s is not Active.
func (a *Atlas) DrawStageHUD(dst *ebiten.Image, f *Fonts, s *model.StageHUD, t float64) {
	if !s.Active {
		return
	}
	if s.BossShown {
		a.drawBossBar(dst, f, s.BossName, s.BossHP, s.BossMax)
	}
	a.drawCharge(dst, f, s, t)
	a.drawArms(dst, s.Arms)
	if s.BannerAlpha > 0 && s.Banner != "" {
		cy := Height/2 - 40.0
		if s.ResultsShown {
			cy = BannerResultsY
		}
		a.drawBanner(dst, f, s.Banner, s.BannerSub, s.BannerAlpha, cy)
	}
	if s.Warning > 0 {
		a.drawWarningEdges(dst, s.Warning)
	}
	if s.ResultsShown {
		a.drawResults(dst, f, &s.Results)
	}
}

// NoticeY returns where a notice of the middle of the screen (a title
// at y, its line under it; "You are out") goes so that it stays clear of
// the Stage HUD's banner and results: y0 when nothing of them shows,
// under the banner's band while a banner shows; show is false while the
// results show (they fill the middle).
func NoticeY(s *model.StageHUD, y0 float64) (y float64, show bool) {
	switch {
	case !s.Active:
		return y0, true
	case s.ResultsShown:
		return y0, false
	case s.BannerAlpha > 0 && s.Banner != "":
		return Height/2 - 40 + 100 + 24, true // the band ends 100 under its middle
	}
	return y0, true
}

// HintY returns the top of a line of small text at the bottom of the
// play area (the controls at the start of a game): Height-40, or above
// the charge meter in a Stage game, which it covered there.
func HintY(s *model.StageHUD) float64 {
	if s.Active {
		return ChargeY - 38
	}
	return Height - 40
}

// drawWarningEdges draws a red glow along the screen's edges at opacity
// al: strips fading towards the middle.
func (a *Atlas) drawWarningEdges(dst *ebiten.Image, al float64) {
	al = min(al, 1)
	if style.NoFlashes {
		al = 0.45 // steady: the warning stays, the flashing goes
	}
	const strips, sw = 6, 8.0
	for i := range strips {
		c := Fade(colEdge, al*0.55*(1-float64(i)/strips))
		o := float64(i) * sw
		a.rect(dst, o, o, Width-2*o, sw, c)
		a.rect(dst, o, Height-o-sw, Width-2*o, sw, c)
		a.rect(dst, o, o+sw, sw, Height-2*o-2*sw, c)
		a.rect(dst, Width-o-sw, o+sw, sw, Height-2*o-2*sw, c)
	}
}

// drawBossBar draws the boss's name and health bar under the players'
// panels.
func (a *Atlas) drawBossBar(dst *ebiten.Image, f *Fonts, name string, hp, maxHP int) {
	frac := 0.0
	if maxHP > 0 {
		frac = min(max(float64(hp)/float64(maxHP), 0), 1)
	}
	// Lower by what the UI scale adds to the panels and the name.
	k := max(f.Scale(), 1)
	x, y, w, h := BossBarX, BossBarY+HUDPanelHeight(k)-HUDHeight+26*(k-1), BossBarW, BossBarH
	ShadowText(dst, Fit(name, f.Small, w), f.Small, x, y-26*k, Left, ColWarn)
	a.rect(dst, x-3, y-3, w+6, h+6, Fade(black, 0.7))
	a.rect(dst, x, y, w, h, Fade(ColPanelEdge, 0.8))
	a.rect(dst, x, y, w*frac, h, colBossBar)
	a.rect(dst, x, y, w*frac, 3, colBossHigh)
	// Quarter marks.
	for i := 1; i < 4; i++ {
		a.rect(dst, x+w*float64(i)/4, y, 1, h, Fade(black, 0.6))
	}
	a.stroke(dst, x-3, y-3, w+6, h+6, 1, ColWarn)
}

// drawCharge draws the wave cannon's charge meter with its level marks.
func (a *Atlas) drawCharge(dst *ebiten.Image, f *Fonts, s *model.StageHUD, t float64) {
	x, y, w, h := ChargeX, ChargeY, ChargeW, ChargeH
	lv := min(max(s.ChargeLevel, 0), 3)
	col := ChargeColors[lv]
	frac := min(max(s.Charge, 0), 1)
	if frac >= 1 {
		// Full: it pulses towards white.
		col = Mix(col, white, 0.3+0.3*math.Sin(t*2*math.Pi*4))
	}
	Text(dst, "BEAM", f.Tiny, x-10, y-3, Right, Fade(ColDim, 0.9))
	a.rect(dst, x-2, y-2, w+4, h+4, Fade(black, 0.6))
	a.rect(dst, x, y, w, h, Fade(ColPanelEdge, 0.7))
	a.rect(dst, x, y, w*frac, h, col)
	a.rect(dst, x, y, w*frac, 2, Fade(white, 0.45))
	for _, m := range s.ChargeMarks {
		if m <= 0 || m >= 1 {
			continue
		}
		a.rect(dst, x+w*m-1, y-4, 2, h+8, ColText)
	}
	a.stroke(dst, x-2, y-2, w+4, h+4, 1, ColPanelEdge)
}

// drawArms draws the own arms right of the charge meter: the Force (in
// its laser's colour, a pip per level), the speed-ups and the bits.
func (a *Atlas) drawArms(dst *ebiten.Image, arms model.Arms) {
	x, cy := ChargeX+ChargeW+28, ChargeY+ChargeH/2
	if arms.Force > 0 {
		lc := LaserColors[min(int(arms.Laser), 2)]
		DrawSprite(dst, a.Force[0], x+8, cy, DrawOpts{Scale: 0.6})
		for i := range 3 {
			c := Fade(ColPanelEdge, 0.9)
			if i < int(arms.Force) {
				c = lc
			}
			a.rect(dst, x+22+float64(i)*9, cy-4, 7, 8, c)
		}
		if arms.ForceAt == vocab.ForceLoose {
			a.stroke(dst, x-3, cy-11, 22, 22, 1, lc)
		}
	}
	x += 60
	for i := range 3 {
		c := Fade(ColPanelEdge, 0.9)
		if i < int(arms.Speed) {
			c = ChargeColors[1]
		}
		// A chevron-like pip per speed-up.
		a.rect(dst, x+float64(i)*9, cy-5, 6, 10, c)
	}
	x += 36
	for i := range min(int(arms.Bits), 2) {
		DrawSprite(dst, a.Bit[0], x+8+float64(i)*18, cy, DrawOpts{})
	}
}

// drawBanner draws a big centred title on a dark band with a line under
// it, at opacity al and centred on cy; "WARNING" is red, "… CLEAR" gold.
func (a *Atlas) drawBanner(dst *ebiten.Image, f *Fonts, banner, sub string, al, cy float64) {
	al = min(al, 1)
	col := ColText
	switch {
	case strings.HasPrefix(banner, "WARNING"):
		col = ColWarn
	case strings.HasSuffix(banner, "CLEAR"):
		col = ColGold
	}
	a.rect(dst, 0, cy-70, Width, 170, Fade(black, 0.45*al))
	a.rect(dst, 0, cy-70, Width, 2, Fade(col, 0.6*al))
	a.rect(dst, 0, cy+98, Width, 2, Fade(col, 0.6*al))
	ShadowText(dst, Fit(banner, f.Banner, Width-80), f.Banner, Width/2, cy-60, Center, Fade(col, al))
	if sub != "" {
		ShadowText(dst, Fit(sub, f.Body, Width-80), f.Body, Width/2, cy+56, Center, Fade(ColDim, al))
	}
}

// drawResults draws the results of a cleared loop: each present player's
// name in their colour, score and lives, and the team's total.
func (a *Atlas) drawResults(dst *ebiten.Image, f *Fonts, r *model.Results) {
	n := 0
	for _, l := range r.Lines {
		if l.Present {
			n++
		}
	}
	const lh = 46.0
	w, h := ResultsW, 150+lh*float64(n)
	x, y := (Width-w)/2, ResultsY
	a.Panel(dst, x, y, w, h)
	st := &a.stage
	Text(dst, st.loop.get(int64(r.Loop), "LOOP %d CLEAR"), f.Big, Width/2, y+14, Center, ColGold)
	ly := y + 70
	for p, l := range r.Lines {
		if !l.Present {
			continue
		}
		col := PlayerColors[p]
		a.rect(dst, x+20, ly, 6, lh-10, col)
		Text(dst, Fit(l.Name, f.Body, 230), f.Body, x+38, ly+2, Left, col)
		for i := range min(max(l.Lives, 0), 5) {
			DrawSprite(dst, a.Life, x+300+float64(i)*20, ly+lh/2-5, DrawOpts{Scale: 1.5, Tint: col})
		}
		Text(dst, st.scores[p].get(int64(l.Score), "%07d"), f.MonoBig, x+w-20, ly+2, Right, ColText)
		ly += lh
	}
	a.rect(dst, x+20, ly+4, w-40, 1, ColPanelEdge)
	Text(dst, "TEAM TOTAL", f.Body, x+38, ly+16, Left, ColDim)
	Text(dst, st.total.get(int64(r.Total), "%07d"), f.MonoBig, x+w-20, ly+14, Right, ColGold)
}
