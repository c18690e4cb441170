package core

import (
	"slices"
	"strings"

	"rtype/net/wire"
)

// Action is a player action that keys are bound to.
type Action int

// The actions, in the order Settings lists them.
const (
	ActUp Action = iota
	ActDown
	ActLeft
	ActRight
	ActFire
	NumActions
)

var actionNames = [NumActions]string{"up", "down", "left", "right", "fire"}
var actionLabels = [NumActions]string{"Move up", "Move down", "Move left", "Move right", "Fire"}
var actionBits = [NumActions]uint8{wire.ActionUp, wire.ActionDown, wire.ActionLeft, wire.ActionRight, wire.ActionFire}

// String returns the action's name in the settings file.
func (a Action) String() string { return actionNames[a] }

// Label returns the action's name for people.
func (a Action) Label() string { return actionLabels[a] }

// Bit returns the action's bit of an Input (4.2).
func (a Action) Bit() uint8 { return actionBits[a] }

// MaxKeysPerAction is how many keys one action can have.
const MaxKeysPerAction = 2

// Keymap binds each action (by name) to key names (Ebitengine's key names:
// "ArrowUp", "W", "Space").
type Keymap map[string][]string

// DefaultKeymap is arrows and WASD to move, Space or J to fire.
func DefaultKeymap() Keymap {
	return Keymap{
		"up":    {"ArrowUp", "W"},
		"down":  {"ArrowDown", "S"},
		"left":  {"ArrowLeft", "A"},
		"right": {"ArrowRight", "D"},
		"fire":  {"Space", "J"},
	}
}

// Keys returns the keys bound to a.
func (k Keymap) Keys(a Action) []string { return k[a.String()] }

// Sanitized returns a copy with every action bound: unknown keys dropped,
// duplicates removed, at most MaxKeysPerAction keys, and the defaults for
// an action left without a key.
func (k Keymap) Sanitized(validKey func(string) bool) Keymap {
	def := DefaultKeymap()
	out := Keymap{}
	used := map[string]bool{}
	for a := range NumActions {
		var keys []string
		for _, key := range k[a.String()] {
			if key == "" || (validKey != nil && !validKey(key)) || used[strings.ToLower(key)] || len(keys) >= MaxKeysPerAction {
				continue
			}
			used[strings.ToLower(key)] = true
			keys = append(keys, key)
		}
		if len(keys) == 0 {
			for _, key := range def[a.String()] {
				if !used[strings.ToLower(key)] {
					used[strings.ToLower(key)] = true
					keys = append(keys, key)
				}
			}
		}
		out[a.String()] = keys
	}
	return out
}

// Rebind returns a copy of k where key becomes a's first key, its previous
// first key becomes the second, and key is removed from the other actions
// (an action left without a key gets its default back, when free).
func (k Keymap) Rebind(a Action, key string) Keymap {
	out := Keymap{}
	for b := range NumActions {
		keys := slices.Clone(k[b.String()])
		keys = slices.DeleteFunc(keys, func(s string) bool { return strings.EqualFold(s, key) })
		if b == a {
			keys = append([]string{key}, keys...)
			if len(keys) > MaxKeysPerAction {
				keys = keys[:MaxKeysPerAction]
			}
		}
		out[b.String()] = keys
	}
	return out.Sanitized(nil)
}

// Actions returns the Input bits (4.2) of the actions whose keys pressed
// reports as held.
func (k Keymap) Actions(pressed func(key string) bool) uint8 {
	var bits uint8
	for a := range NumActions {
		for _, key := range k[a.String()] {
			if pressed(key) {
				bits |= a.Bit()
				break
			}
		}
	}
	return bits
}

// PadState is a gamepad's state for the actions: its d-pad, its left stick
// (-1 to 1, y down) and its fire button.
type PadState struct {
	Up, Down, Left, Right bool
	StickX, StickY        float64
	Fire                  bool
}

// StickDeadzone is the part of the stick's travel that does nothing.
const StickDeadzone = 0.35

// Actions returns the Input bits of a gamepad state.
func (p PadState) Actions() uint8 {
	var bits uint8
	if p.Up || p.StickY < -StickDeadzone {
		bits |= wire.ActionUp
	}
	if p.Down || p.StickY > StickDeadzone {
		bits |= wire.ActionDown
	}
	if p.Left || p.StickX < -StickDeadzone {
		bits |= wire.ActionLeft
	}
	if p.Right || p.StickX > StickDeadzone {
		bits |= wire.ActionRight
	}
	if p.Fire {
		bits |= wire.ActionFire
	}
	return bits
}
