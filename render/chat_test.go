package render

import (
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/render/model"
)

// The end of a long line being typed shows, after an ellipsis, within the
// width.
func TestFitTail(t *testing.T) {
	f, _ := LoadFonts()
	s := strings.Repeat("W", 300) + " the end"
	got := fitTail(s, f.Small, 200)
	if w, _ := Measure(got, f.Small); w > 200 || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, " the end") {
		t.Errorf("fitTail = %q (%v wide)", got, w)
	}
	if got := fitTail("\u202Eab\ncd", f.Small, 1000); got != "ab cd" {
		t.Errorf("fitTail of a short hostile text = %q", got)
	}
}

// DrawChat draws every kind of line, cut to its width, and the open box
// with a long text, without touching outside the chat's corner.
func TestDrawChat(t *testing.T) {
	a, err := LoadAtlas()
	if err != nil {
		t.Fatal(err)
	}
	f, _ := LoadFonts()
	dst := ebiten.NewImage(Width, Height)
	defer dst.Deallocate()
	long := strings.Repeat("spam ", 100)
	lines := []model.ChatLine{
		{Kind: model.ChatPlayer, Player: 1, Name: strings.Repeat("N", 20), Text: long, Alpha: 1},
		{Kind: model.ChatServer, Player: 255, Name: "Server", Text: long, Alpha: 0.5},
		{Kind: model.ChatNotice, Player: 255, Text: "Not sent: " + long, Alpha: 1},
	}
	a.DrawChat(dst, f, lines, ChatBox{Open: true, Text: long, Count: 120, Max: 120}, ChatX, Height-60, 0)
	// Nothing right of the box nor below its bottom.
	for _, p := range [][2]int{{int(ChatX + ChatBoxW + 4), Height - 80}, {100, Height - 50}, {Width - 10, Height - 200}} {
		if _, _, _, al := dst.At(p[0], p[1]).RGBA(); al != 0 {
			t.Errorf("pixel (%d, %d) drawn", p[0], p[1])
		}
	}
	if _, _, _, al := dst.At(int(ChatX+10), Height-60-20).RGBA(); al == 0 {
		t.Error("the box is not drawn")
	}
}
