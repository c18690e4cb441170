package game

import (
	"unicode"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
)

// TextField is a one-line text input: typed characters are appended,
// Backspace deletes (with repeat), Ctrl+U or Ctrl+Backspace clears.
type TextField struct {
	Text string
	// Max is the longest text in characters.
	Max int
	// Allow filters the characters typed; nil allows printable ones.
	Allow func(r rune) bool
}

// Update applies this tick's typing. It reports whether the text changed.
func (f *TextField) Update(in *Input) bool {
	old := f.Text
	ctrl := ebiten.IsKeyPressed(ebiten.KeyControl) || ebiten.IsKeyPressed(ebiten.KeyMeta)
	for _, r := range in.Chars {
		if !unicode.IsPrint(r) || (f.Allow != nil && !f.Allow(r)) {
			continue
		}
		if f.Max > 0 && utf8.RuneCountInString(f.Text) >= f.Max {
			break
		}
		f.Text += string(r)
	}
	if ctrl && (inpututil.IsKeyJustPressed(ebiten.KeyU) || inpututil.IsKeyJustPressed(ebiten.KeyBackspace)) {
		f.Text = ""
	} else if repeat(inpututil.KeyPressDuration(ebiten.KeyBackspace)) && f.Text != "" {
		_, n := utf8.DecodeLastRuneInString(f.Text)
		f.Text = f.Text[:len(f.Text)-n]
	}
	return f.Text != old
}
