package game

import (
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"rtype/render"
)

// MenuItem is a row of a Menu.
type MenuItem struct {
	Label string
	// Value returns the value shown on the right (settings), nil for none.
	Value func() string
	// Slider returns a 0 to 1 value drawn as a bar, nil for none.
	Slider func() float64
	// Activate runs on Enter, A or a click; Adjust on Left/Right (-1, +1)
	// and on clicks of a slider.
	Activate func()
	Adjust   func(dir int)
	Disabled bool
	// Active shows the row as waiting for input.
	Active func() bool
}

// Menu is a vertical list of rows navigated with the keyboard, gamepads
// and the mouse.
type Menu struct {
	Items         []MenuItem
	Sel           int
	X, Y, W, RowH float64
	Gap           float64
	Face          *text.GoTextFace
	Align         render.Align
}

// menuBottom is the lowest a menu reaches: below, the hints.
const menuBottom = render.Height - 80

// rowH is the rows' height: RowH, or more when the UI scale makes the
// text taller.
func (m *Menu) rowH() float64 {
	if m.Face == nil {
		return m.RowH
	}
	return max(m.RowH, m.Face.Size*1.3+8)
}

// scroll is how far the rows are moved up so that the selected one shows
// when the menu is taller than the room under its top.
func (m *Menu) scroll() float64 {
	step := m.rowH() + m.Gap
	bottom := m.Y + float64(m.Sel)*step + m.rowH()
	return max(0, bottom-menuBottom)
}

func (m *Menu) rowY(i int) float64 {
	return m.Y + float64(i)*(m.rowH()+m.Gap) - m.scroll()
}

// shown reports whether row i is within the menu's room.
func (m *Menu) shown(i int) bool {
	y := m.rowY(i)
	return y >= m.Y-0.5 && y+m.rowH() <= max(menuBottom, m.Y+m.rowH())+0.5
}

// Height is the menu's height, all its rows.
func (m *Menu) Height() float64 {
	return float64(len(m.Items))*(m.rowH()+m.Gap) - m.Gap
}

// ShownHeight is the height of the rows shown (Height, or the room under
// its top when the menu scrolls).
func (m *Menu) ShownHeight() float64 {
	return min(m.Height(), max(menuBottom-m.Y, m.rowH()))
}

// Update moves the selection and runs the selected row's actions.
func (m *Menu) Update(in *Input) {
	n := len(m.Items)
	if n == 0 {
		return
	}
	step := func(d int) {
		for range n {
			m.Sel = (m.Sel + d + n) % n
			if !m.Items[m.Sel].Disabled {
				return
			}
		}
	}
	if m.Items[m.Sel].Disabled {
		step(1)
	}
	if in.Up {
		step(-1)
	}
	if in.Down {
		step(1)
	}
	hover := -1
	for i := range m.Items {
		if !m.Items[i].Disabled && m.shown(i) && in.In(m.X, m.rowY(i), m.W, m.rowH()) {
			hover = i
		}
	}
	if hover >= 0 && (in.MouseMoved || in.Click) {
		m.Sel = hover
	}
	it := &m.Items[m.Sel]
	if it.Adjust != nil {
		if in.Left {
			it.Adjust(-1)
		}
		if in.Right {
			it.Adjust(1)
		}
	}
	switch {
	case in.Confirm:
		m.activate(it, 1)
	case in.Click && hover >= 0:
		dir := 1
		if it.Slider != nil && float64(in.MouseX) < m.X+m.W-20-90 {
			dir = -1 // the left half of the slider lowers it
		}
		m.activate(it, dir)
	}
}

func (m *Menu) activate(it *MenuItem, dir int) {
	switch {
	case it.Activate != nil:
		it.Activate()
	case it.Adjust != nil:
		it.Adjust(dir)
	}
}

// Draw draws the rows.
func (m *Menu) Draw(dst *ebiten.Image, g *Game) {
	for i, it := range m.Items {
		if !m.shown(i) {
			continue
		}
		row := render.Item{
			X: m.X, Y: m.rowY(i), W: m.W, H: m.rowH(),
			Label: it.Label, Slider: -1,
			Selected: i == m.Sel, Disabled: it.Disabled,
			Face: m.Face, Align: m.Align,
		}
		if it.Value != nil {
			row.Value = it.Value()
		}
		if it.Slider != nil {
			row.Slider = it.Slider()
		}
		if it.Active != nil {
			row.Active = it.Active()
		}
		g.atlas.DrawItem(dst, g.fonts, row, g.T())
	}
}
