package game

import (
	"slices"
	"unicode"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/game/core"
)

// Input is the state of the keyboard, the gamepads and the mouse for one
// tick: menu navigation (with key repeat), typed characters, the mouse,
// and the play actions through the key bindings.
type Input struct {
	pads    []ebiten.GamepadID
	keys    [core.NumActions][]ebiten.Key
	prevNav [4]bool // gamepad stick/d-pad directions of the last tick
	navHeld [4]int  // ticks each gamepad direction has been held

	// Menu navigation of this tick.
	Up, Down, Left, Right, Confirm, Back bool
	// MouseX, MouseY are the cursor in logical pixels; MouseMoved is set
	// when it moved this tick, Click when the left button went down.
	MouseX, MouseY int
	MouseMoved     bool
	Click          bool
	// Chars are the characters typed this tick.
	Chars []rune
	// TextMode makes Space and the letters type instead of navigating.
	TextMode bool
}

// SetKeymap resolves the key names of km.
func (in *Input) SetKeymap(km core.Keymap) {
	for a := range core.NumActions {
		in.keys[a] = in.keys[a][:0]
		for _, name := range km.Keys(a) {
			if k, ok := KeyByName(name); ok {
				in.keys[a] = append(in.keys[a], k)
			}
		}
	}
}

// KeyByName returns the key of an Ebitengine key name.
func KeyByName(name string) (ebiten.Key, bool) {
	var k ebiten.Key
	if err := k.UnmarshalText([]byte(name)); err != nil {
		return 0, false
	}
	return k, true
}

// ValidKeyName reports whether name is a key that can be bound.
func ValidKeyName(name string) bool {
	k, ok := KeyByName(name)
	return ok && bindable(k)
}

// bindable reports whether k can be bound to an action: not the keys the
// game keeps (Escape, F3, F11, Enter's Alt combination is fine).
func bindable(k ebiten.Key) bool {
	switch k {
	case ebiten.KeyEscape, ebiten.KeyF3, ebiten.KeyF11:
		return false
	}
	return k.String() != ""
}

// KeyLabel is how a key name shows in the settings ("ArrowUp" -> "Up").
func KeyLabel(name string) string {
	switch name {
	case "ArrowUp":
		return "Up"
	case "ArrowDown":
		return "Down"
	case "ArrowLeft":
		return "Left"
	case "ArrowRight":
		return "Right"
	}
	if k, ok := KeyByName(name); ok {
		if r := []rune(ebiten.KeyName(k)); len(r) == 1 && unicode.IsLetter(r[0]) {
			return string(unicode.ToUpper(r[0])) // the letter of the keyboard layout
		}
	}
	return name
}

// repeat reports whether a key or button held for d ticks fires this
// tick: at once, then after 18 ticks every 5.
func repeat(d int) bool { return d == 1 || (d >= 18 && (d-18)%5 == 0) }

func keyRepeat(keys ...ebiten.Key) bool {
	for _, k := range keys {
		if repeat(inpututil.KeyPressDuration(k)) {
			return true
		}
	}
	return false
}

// Update reads the devices for this tick.
func (in *Input) Update() {
	in.pads = ebiten.AppendGamepadIDs(in.pads[:0])
	in.Chars = ebiten.AppendInputChars(in.Chars[:0])

	in.Up = keyRepeat(ebiten.KeyArrowUp)
	in.Down = keyRepeat(ebiten.KeyArrowDown)
	in.Left = keyRepeat(ebiten.KeyArrowLeft)
	in.Right = keyRepeat(ebiten.KeyArrowRight)
	in.Confirm = inpututil.IsKeyJustPressed(ebiten.KeyEnter) || inpututil.IsKeyJustPressed(ebiten.KeyNumpadEnter)
	in.Back = inpututil.IsKeyJustPressed(ebiten.KeyEscape)
	if !in.TextMode {
		in.Up = in.Up || keyRepeat(ebiten.KeyW)
		in.Down = in.Down || keyRepeat(ebiten.KeyS)
		in.Left = in.Left || keyRepeat(ebiten.KeyA)
		in.Right = in.Right || keyRepeat(ebiten.KeyD)
		in.Confirm = in.Confirm || inpututil.IsKeyJustPressed(ebiten.KeySpace)
	}
	if ebiten.IsKeyPressed(ebiten.KeyAlt) {
		in.Confirm = false // Alt+Enter is fullscreen
	}

	// Gamepads: d-pad or left stick, A to confirm, B to go back.
	var nav [4]bool
	for _, id := range in.pads {
		if !ebiten.IsStandardGamepadLayoutAvailable(id) {
			continue
		}
		p := padState(id)
		nav[0] = nav[0] || p.Up || p.StickY < -0.5
		nav[1] = nav[1] || p.Down || p.StickY > 0.5
		nav[2] = nav[2] || p.Left || p.StickX < -0.5
		nav[3] = nav[3] || p.Right || p.StickX > 0.5
		if inpututil.IsStandardGamepadButtonJustPressed(id, ebiten.StandardGamepadButtonRightBottom) ||
			inpututil.IsStandardGamepadButtonJustPressed(id, ebiten.StandardGamepadButtonCenterRight) {
			in.Confirm = true
		}
		if inpututil.IsStandardGamepadButtonJustPressed(id, ebiten.StandardGamepadButtonRightRight) {
			in.Back = true
		}
	}
	for i := range nav {
		if nav[i] {
			in.navHeld[i]++
		} else {
			in.navHeld[i] = 0
		}
	}
	in.Up = in.Up || repeat(in.navHeld[0])
	in.Down = in.Down || repeat(in.navHeld[1])
	in.Left = in.Left || repeat(in.navHeld[2])
	in.Right = in.Right || repeat(in.navHeld[3])
	in.prevNav = nav

	x, y := ebiten.CursorPosition()
	in.MouseMoved = x != in.MouseX || y != in.MouseY
	in.MouseX, in.MouseY = x, y
	in.Click = inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft)
}

func padState(id ebiten.GamepadID) core.PadState {
	pressed := func(b ebiten.StandardGamepadButton) bool { return ebiten.IsStandardGamepadButtonPressed(id, b) }
	return core.PadState{
		Up:     pressed(ebiten.StandardGamepadButtonLeftTop),
		Down:   pressed(ebiten.StandardGamepadButtonLeftBottom),
		Left:   pressed(ebiten.StandardGamepadButtonLeftLeft),
		Right:  pressed(ebiten.StandardGamepadButtonLeftRight),
		StickX: ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisLeftStickHorizontal),
		StickY: ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxisLeftStickVertical),
		Fire:   pressed(ebiten.StandardGamepadButtonRightBottom),
	}
}

// Actions returns the play actions held: the bound keys and every
// standard gamepad.
func (in *Input) Actions() uint8 {
	var bits uint8
	for a := range core.NumActions {
		if slices.ContainsFunc(in.keys[a], ebiten.IsKeyPressed) {
			bits |= a.Bit()
		}
	}
	for _, id := range in.pads {
		if ebiten.IsStandardGamepadLayoutAvailable(id) {
			bits |= padState(id).Actions()
		}
	}
	return bits
}

// JustPressedKey returns a key pressed this tick that can be bound.
func (in *Input) JustPressedKey() (ebiten.Key, bool) {
	var ks [8]ebiten.Key
	for _, k := range inpututil.AppendJustPressedKeys(ks[:0]) {
		if bindable(k) {
			return k, true
		}
	}
	return 0, false
}

// In reports whether the mouse is in a rectangle.
func (in *Input) In(x, y, w, h float64) bool {
	mx, my := float64(in.MouseX), float64(in.MouseY)
	return mx >= x && mx < x+w && my >= y && my < y+h
}
