package render

import (
	"fmt"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"rtype/render/model"
)

// ChatBox is the chat's input line, as the play shows it while a player
// types.
type ChatBox struct {
	Open bool
	// Text is what was typed; Count its characters, of at most Max.
	Text       string
	Count, Max int
}

// Chat geometry: the history and the box in the bottom-left corner.
const (
	// ChatX is the left edge of the chat; ChatW the history's width, and
	// ChatBoxW the box's.
	ChatX     = 16.0
	ChatW     = 600.0
	ChatBoxW  = 760.0
	chatLineH = 24.0
	chatBoxH  = 34.0
)

// NetOverlayW is the width of the network overlay (F3).
const NetOverlayW = 330.0

// DrawChat draws the chat at x: the history, oldest line first, the
// newest just above bottom (above the box when it is open), each line on
// one line cut with an ellipsis: a player's name in its colour, the
// server's lines in gold, notices in the warning colour.
func (a *Atlas) DrawChat(dst *ebiten.Image, f *Fonts, lines []model.ChatLine, box ChatBox, x, bottom, t float64) {
	face := f.Small
	if box.Open {
		y := bottom - chatBoxH
		a.FillRect(dst, x, y, ChatBoxW, chatBoxH, Fade(color.RGBA{0, 0, 0, 0xff}, 0.7))
		a.StrokeRect(dst, x, y, ChatBoxW, chatBoxH, 2, ColAccent)
		hint := fmt.Sprintf("%d/%d  ·  Enter: send  ·  Esc: cancel", box.Count, box.Max)
		hw, _ := Measure(hint, f.Tiny)
		hintCol := Fade(ColDim, 0.9)
		if box.Count >= box.Max {
			hintCol = ColWarn
		}
		Text(dst, hint, f.Tiny, x+ChatBoxW-10, y+9, Right, hintCol)
		lw, _ := Measure("Say: ", face)
		Text(dst, "Say: ", face, x+10, y+6, Left, ColAccent)
		s := fitTail(box.Text, face, ChatBoxW-36-lw-hw) // the end of what is typed shows
		Text(dst, s, face, x+10+lw, y+6, Left, ColText)
		if int(t*2.5)%2 == 0 {
			tw, _ := Measure(s, face)
			a.FillRect(dst, x+10+lw+tw+2, y+7, 2, chatBoxH-14, ColAccent)
		}
		bottom = y - 6
	}
	y := bottom - chatLineH*float64(len(lines))
	if len(lines) > 0 {
		back := 0.0
		for _, l := range lines {
			back = max(back, l.Alpha)
		}
		a.FillRect(dst, x, y-4, ChatW, chatLineH*float64(len(lines))+6, Fade(color.RGBA{0, 0, 0, 0xff}, 0.45*back))
	}
	for _, l := range lines {
		lx, room := x+8, ChatW-16
		textCol := ColText
		switch l.Kind {
		case model.ChatPlayer, model.ChatServer:
			col := ColGold
			if l.Kind == model.ChatPlayer {
				col = PlayerColor(l.Player)
			} else {
				textCol = ColGold
			}
			name := Fit(l.Name, face, room/3) + ": "
			ShadowText(dst, name, face, lx, y, Left, Fade(col, l.Alpha))
			w, _ := Measure(name, face)
			lx, room = lx+w, room-w
		case model.ChatNotice:
			textCol = ColWarn
		}
		ShadowText(dst, Fit(l.Text, face, room), face, lx, y, Left, Fade(textCol, l.Alpha))
		y += chatLineH
	}
}

// fitTail returns s on one line (OneLine) or, when it is wider than
// width, its end after "…": the end of a line being typed. It measures O(log n) suffixes of s.
func fitTail(s string, face *text.GoTextFace, width float64) string {
	s = OneLine(s)
	if w, _ := Measure(s, face); w <= width {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // r[hi:] fits (or is empty), r[lo:] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if w, _ := Measure("…"+string(r[mid:]), face); w <= width {
			hi = mid
		} else {
			lo = mid
		}
	}
	return "…" + string(r[hi:])
}
