package settings

import "strings"

// PadControl is a control of the standard gamepad layout
// (https://www.w3.org/TR/gamepad/#remapping): a button, or one direction
// of a stick.
type PadControl int

// The buttons, in the standard layout's order, then the stick directions.
const (
	PadRightBottom PadControl = iota // A, cross
	PadRightRight                    // B, circle
	PadRightLeft                     // X, square
	PadRightTop                      // Y, triangle
	PadFrontTopLeft
	PadFrontTopRight
	PadFrontBottomLeft
	PadFrontBottomRight
	PadCenterLeft  // Back, Select
	PadCenterRight // Start
	PadLeftStick
	PadRightStick
	PadLeftTop // d-pad up
	PadLeftBottom
	PadLeftLeft
	PadLeftRight
	PadCenterCenter
	PadLeftStickLeft
	PadLeftStickRight
	PadLeftStickUp
	PadLeftStickDown
	PadRightStickLeft
	PadRightStickRight
	PadRightStickUp
	PadRightStickDown
	NumPadControls

	// NumPadButtons is how many buttons the standard layout has.
	NumPadButtons = int(PadCenterCenter) + 1
	// NumPadAxes is how many axes: the sticks' horizontal and vertical.
	NumPadAxes = 4
)

var padNames = [NumPadControls]string{
	"RightBottom", "RightRight", "RightLeft", "RightTop",
	"FrontTopLeft", "FrontTopRight", "FrontBottomLeft", "FrontBottomRight",
	"CenterLeft", "CenterRight", "LeftStick", "RightStick",
	"LeftTop", "LeftBottom", "LeftLeft", "LeftRight", "CenterCenter",
	"LeftStickLeft", "LeftStickRight", "LeftStickUp", "LeftStickDown",
	"RightStickLeft", "RightStickRight", "RightStickUp", "RightStickDown",
}

// String returns the control's name in the settings file: the standard
// layout's button names as Ebitengine spells them, "LeftStickUp" for a
// stick direction.
func (c PadControl) String() string {
	if c < 0 || c >= NumPadControls {
		return ""
	}
	return padNames[c]
}

// PadControlByName returns the control of a name, ignoring case.
func PadControlByName(name string) (PadControl, bool) {
	for c, n := range padNames {
		if strings.EqualFold(n, name) {
			return PadControl(c), true
		}
	}
	return 0, false
}

// Button returns the control's button index in the standard layout, and
// false for a stick direction.
func (c PadControl) Button() (int, bool) { return int(c), c >= 0 && int(c) < NumPadButtons }

// Axis returns a stick direction's axis (0 left horizontal, 1 left
// vertical, 2 right horizontal, 3 right vertical; y grows down) and the
// sign of its direction, and false for a button.
func (c PadControl) Axis() (axis int, sign float64, ok bool) {
	if c < PadLeftStickLeft || c >= NumPadControls {
		return 0, 0, false
	}
	d := int(c - PadLeftStickLeft) // left, right, up, down of a stick
	sign = 1
	if d%2 == 0 {
		sign = -1
	}
	return d / 2, sign, true
}

// StickDeadzone is the part of the stick's travel that does nothing in
// the play.
const StickDeadzone = 0.35

// MenuStickThreshold is how far the stick is pushed to move in a menu.
const MenuStickThreshold = 0.5

// PadState is a standard gamepad's state: its buttons held and its axes
// (-1 to 1, y down).
type PadState struct {
	Buttons [NumPadButtons]bool
	Axes    [NumPadAxes]float64
}

// Held reports whether c is held: its button pressed, or its stick pushed
// in its direction beyond threshold.
func (p *PadState) Held(c PadControl, threshold float64) bool {
	if b, ok := c.Button(); ok {
		return p.Buttons[b]
	}
	if axis, sign, ok := c.Axis(); ok {
		return p.Axes[axis]*sign > threshold
	}
	return false
}

// Any reports whether one of cs is held.
func (p *PadState) Any(cs []PadControl, threshold float64) bool {
	for _, c := range cs {
		if p.Held(c, threshold) {
			return true
		}
	}
	return false
}
