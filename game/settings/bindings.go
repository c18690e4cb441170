package settings

import (
	"slices"
	"strings"
)

// Keymap binds each action (by name) to key names (Ebitengine's key names:
// "ArrowUp", "W", "Space").
type Keymap map[string][]string

// DefaultKeymap is arrows and WASD to move, Space or J to fire, X or the
// left Shift for the Force, Escape to pause, T to chat; in the menus arrows and WASD, Enter or Space to confirm, Escape
// to go back.
func DefaultKeymap() Keymap {
	return Keymap{
		"up":         {"ArrowUp", "W"},
		"down":       {"ArrowDown", "S"},
		"left":       {"ArrowLeft", "A"},
		"right":      {"ArrowRight", "D"},
		"fire":       {"Space", "J"},
		"force":      {"X", "ShiftLeft"},
		"pause":      {"Escape"},
		"chat":       {"T"},
		"menu_up":    {"ArrowUp", "W"},
		"menu_down":  {"ArrowDown", "S"},
		"menu_left":  {"ArrowLeft", "A"},
		"menu_right": {"ArrowRight", "D"},
		"confirm":    {"Enter", "NumpadEnter", "Space"},
		"back":       {"Escape"},
	}
}

// Keys returns the keys bound to a.
func (k Keymap) Keys(a Action) []string { return k[a.String()] }

// Sanitized returns a copy with every action bound: unknown keys (by
// validKey, nil accepting every name) and keys a cannot take dropped,
// a key bound to one action only of the play and one of the menus, at
// most MaxKeysPerAction keys for a ship action and MaxBindings for the
// others, and the defaults for an action left without a key.
func (k Keymap) Sanitized(validKey func(string) bool) Keymap {
	valid := func(a Action, key string) (string, bool) {
		return key, a.CanBind(key) && (validKey == nil || validKey(key))
	}
	return Keymap(sanitized(k, DefaultKeymap(), valid, Action.maxKeys))
}

// Rebind returns a copy of k where key becomes a's first key, its previous
// first key becomes the second, and key is removed from the other actions
// of the same side (play or menus); an action left without a key gets its
// default back, when free.
func (k Keymap) Rebind(a Action, key string) Keymap {
	out := Keymap{}
	for b := range NumActions {
		keys := slices.Clone(k[b.String()])
		if b.inMenus() == a.inMenus() {
			keys = slices.DeleteFunc(keys, func(s string) bool { return strings.EqualFold(s, key) })
		}
		if b == a {
			keys = append([]string{key}, keys...)
		}
		out[b.String()] = keys
	}
	return out.Sanitized(nil)
}

// Padmap binds each action (by name) to controls of the standard gamepad
// (PadControl names: "RightBottom", "LeftStickUp").
type Padmap map[string][]string

// DefaultPadmap is the d-pad or the left stick to move, the bottom face
// button (A) to fire and confirm, the left one (X) or the right shoulder
// for the Force, the right one (B) to go back, Start to pause or confirm,
// Select (Back) to open the chat box.
func DefaultPadmap() Padmap {
	return Padmap{
		"up":         {"LeftTop", "LeftStickUp"},
		"down":       {"LeftBottom", "LeftStickDown"},
		"left":       {"LeftLeft", "LeftStickLeft"},
		"right":      {"LeftRight", "LeftStickRight"},
		"fire":       {"RightBottom"},
		"force":      {"RightLeft", "FrontTopRight"},
		"pause":      {"CenterRight"},
		"chat":       {"CenterLeft"},
		"menu_up":    {"LeftTop", "LeftStickUp"},
		"menu_down":  {"LeftBottom", "LeftStickDown"},
		"menu_left":  {"LeftLeft", "LeftStickLeft"},
		"menu_right": {"LeftRight", "LeftStickRight"},
		"confirm":    {"RightBottom", "CenterRight"},
		"back":       {"RightRight"},
	}
}

// Controls returns the controls bound to a.
func (p Padmap) Controls(a Action) []PadControl {
	var out []PadControl
	for _, name := range p[a.String()] {
		if c, ok := PadControlByName(name); ok {
			out = append(out, c)
		}
	}
	return out
}

// Sanitized returns a copy with every action bound: unknown controls
// dropped, names spelled as PadControl.String, a control bound to one
// action only of the play and one of the menus, at most MaxBindings
// controls, and the defaults for an action left without a control.
func (p Padmap) Sanitized() Padmap {
	valid := func(_ Action, name string) (string, bool) {
		c, ok := PadControlByName(name)
		return c.String(), ok
	}
	return Padmap(sanitized(p, DefaultPadmap(), valid, func(Action) int { return MaxBindings }))
}

// sanitized is the rule of Keymap.Sanitized and Padmap.Sanitized: valid
// gives a binding's canonical name or rejects it for an action.
func sanitized(m, def map[string][]string, valid func(Action, string) (string, bool), limit func(Action) int) map[string][]string {
	out := map[string][]string{}
	var used [2]map[string]bool // of the play, of the menus
	for i := range used {
		used[i] = map[string]bool{}
	}
	side := func(a Action) map[string]bool {
		if a.inMenus() {
			return used[1]
		}
		return used[0]
	}
	for a := range NumActions {
		u := side(a)
		var names []string
		take := func(name string) {
			if name, ok := valid(a, name); ok && !u[strings.ToLower(name)] && len(names) < limit(a) {
				u[strings.ToLower(name)] = true
				names = append(names, name)
			}
		}
		for _, name := range m[a.String()] {
			take(name)
		}
		if len(names) == 0 {
			for _, name := range def[a.String()] {
				take(name)
			}
		}
		out[a.String()] = names
	}
	return out
}
