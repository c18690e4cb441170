package game

import (
	"slices"
	"unicode"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/game/settings"
)

// Input is the state of the keyboard, the gamepads and the mouse for one
// tick: menu navigation (with key repeat), typed characters, the mouse,
// and the play actions, all through the bindings of the settings.
type Input struct {
	pads     []ebiten.GamepadID
	keys     [settings.NumActions][]ebiten.Key
	controls [settings.NumActions][]settings.PadControl
	padHeld  [settings.NumActions]int // ticks a gamepad has held each action
	pad      settings.PadState        // the last gamepad read

	// Menu navigation of this tick.
	Up, Down, Left, Right, Confirm, Back bool
	// Pause is set when a Pause binding went down this tick (Escape or
	// the gamepad's Start by default).
	Pause bool
	// Chat is set when a Chat binding went down this tick (T by default);
	// never in text mode.
	Chat bool
	// MouseX, MouseY are the cursor in logical pixels; MouseMoved is set
	// when it moved this tick, Click when the left button went down.
	MouseX, MouseY int
	MouseMoved     bool
	Click          bool
	// Chars are the characters typed this tick.
	Chars []rune
	// TextMode makes the keys that type (letters, digits, Space) type
	// instead of navigating.
	TextMode bool
}

// SetBindings resolves the key names of keys and the gamepad control
// names of pad.
func (in *Input) SetBindings(keys settings.Keymap, pad settings.Padmap) {
	for a := range settings.NumActions {
		in.keys[a] = in.keys[a][:0]
		for _, name := range keys.Keys(a) {
			if k, ok := KeyByName(name); ok {
				in.keys[a] = append(in.keys[a], k)
			}
		}
		in.controls[a] = pad.Controls(a)
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

// ValidKeyName reports whether name is a key Ebitengine knows. Which
// action may take it is settings.Action.CanBind.
func ValidKeyName(name string) bool {
	k, ok := KeyByName(name)
	return ok && k.String() != ""
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
	case "ShiftLeft":
		return "Left Shift"
	case "ShiftRight":
		return "Right Shift"
	}
	if k, ok := KeyByName(name); ok {
		if r := []rune(ebiten.KeyName(k)); len(r) == 1 && unicode.IsLetter(r[0]) {
			return string(unicode.ToUpper(r[0])) // the letter of the keyboard layout
		}
	}
	return name
}

// types reports whether k types a character in a text field: a letter, a
// digit, Space or a punctuation key.
func types(k ebiten.Key) bool {
	switch {
	case k >= ebiten.KeyA && k <= ebiten.KeyZ,
		k >= ebiten.KeyDigit0 && k <= ebiten.KeyDigit9,
		k >= ebiten.KeyNumpad0 && k <= ebiten.KeyNumpad9:
		return true
	}
	switch k {
	case ebiten.KeySpace, ebiten.KeyBackquote, ebiten.KeyBackslash, ebiten.KeyBracketLeft, ebiten.KeyBracketRight,
		ebiten.KeyComma, ebiten.KeyEqual, ebiten.KeyMinus, ebiten.KeyPeriod, ebiten.KeyQuote, ebiten.KeySemicolon,
		ebiten.KeySlash, ebiten.KeyIntlBackslash, ebiten.KeyNumpadAdd, ebiten.KeyNumpadDecimal,
		ebiten.KeyNumpadDivide, ebiten.KeyNumpadMultiply, ebiten.KeyNumpadSubtract, ebiten.KeyNumpadEqual:
		return true
	}
	return false
}

// repeat reports whether a key or button held for d ticks fires this
// tick: at once, then after 18 ticks every 5.
func repeat(d int) bool { return d == 1 || (d >= 18 && (d-18)%5 == 0) }

// Update reads the devices for this tick.
func (in *Input) Update() {
	in.pads = ebiten.AppendGamepadIDs(in.pads[:0])
	in.Chars = ebiten.AppendInputChars(in.Chars[:0])
	in.readPads()

	in.Up = in.repeated(settings.ActMenuUp)
	in.Down = in.repeated(settings.ActMenuDown)
	in.Left = in.repeated(settings.ActMenuLeft)
	in.Right = in.repeated(settings.ActMenuRight)
	// Alt+Enter is fullscreen, not Confirm.
	in.Confirm = in.pressed(settings.ActConfirm) && !ebiten.IsKeyPressed(ebiten.KeyAlt)
	in.Back = in.pressed(settings.ActBack)
	in.Pause = in.pressed(settings.ActPause)
	in.Chat = in.pressed(settings.ActChat)

	x, y := ebiten.CursorPosition()
	in.MouseMoved = x != in.MouseX || y != in.MouseY
	in.MouseX, in.MouseY = x, y
	in.Click = inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft)
}

// readPads counts the ticks each action has been held on a gamepad, a
// stick counting as pushed beyond settings.MenuStickThreshold.
func (in *Input) readPads() {
	var held [settings.NumActions]bool
	for _, id := range in.pads {
		p, ok := in.readPad(id)
		if !ok {
			continue
		}
		for a := range settings.NumActions {
			held[a] = held[a] || p.Any(in.controls[a], settings.MenuStickThreshold)
		}
	}
	for a, h := range held {
		if h {
			in.padHeld[a]++
		} else {
			in.padHeld[a] = 0
		}
	}
}

// readPad reads a gamepad of the standard layout, or reports false.
func (in *Input) readPad(id ebiten.GamepadID) (*settings.PadState, bool) {
	if !ebiten.IsStandardGamepadLayoutAvailable(id) {
		return nil, false
	}
	p := &in.pad
	for b := range p.Buttons {
		p.Buttons[b] = ebiten.IsStandardGamepadButtonPressed(id, ebiten.StandardGamepadButton(b))
	}
	for a := range p.Axes {
		p.Axes[a] = ebiten.StandardGamepadAxisValue(id, ebiten.StandardGamepadAxis(a))
	}
	return p, true
}

// navKey reports whether k counts for a menu action this tick: in text
// mode the keys that type do not.
func (in *Input) navKey(k ebiten.Key) bool { return !in.TextMode || !types(k) }

// repeated reports whether menu action a fires this tick, with repeat.
func (in *Input) repeated(a settings.Action) bool {
	for _, k := range in.keys[a] {
		if in.navKey(k) && repeat(inpututil.KeyPressDuration(k)) {
			return true
		}
	}
	return repeat(in.padHeld[a])
}

// pressed reports whether a binding of a went down this tick.
func (in *Input) pressed(a settings.Action) bool {
	for _, k := range in.keys[a] {
		if in.navKey(k) && inpututil.IsKeyJustPressed(k) {
			return true
		}
	}
	return in.padHeld[a] == 1
}

// Actions returns the ship actions held: the bound keys and controls of
// every standard gamepad, a stick counting beyond settings.StickDeadzone.
func (in *Input) Actions() uint8 {
	var bits uint8
	for a := range settings.NumShipActions {
		if slices.ContainsFunc(in.keys[a], ebiten.IsKeyPressed) {
			bits |= a.Bit()
		}
	}
	for _, id := range in.pads {
		p, ok := in.readPad(id)
		if !ok {
			continue
		}
		for a := range settings.NumShipActions {
			if p.Any(in.controls[a], settings.StickDeadzone) {
				bits |= a.Bit()
			}
		}
	}
	return bits
}

// JustPressedKey returns a key pressed this tick that can be bound to a.
func (in *Input) JustPressedKey(a settings.Action) (ebiten.Key, bool) {
	var ks [8]ebiten.Key
	for _, k := range inpututil.AppendJustPressedKeys(ks[:0]) {
		if k.String() != "" && a.CanBind(k.String()) {
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
