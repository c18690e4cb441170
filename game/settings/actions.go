package settings

import (
	"strings"

	"rtype/net/wire"
)

// Action is something a player does with a key or a gamepad control: a
// ship action sent to the server (Up to Fire), pausing the play, or
// moving through the menus.
type Action int

// The actions. The ship actions come first, in the order the settings
// screen lists them.
const (
	ActUp Action = iota
	ActDown
	ActLeft
	ActRight
	ActFire
	// ActForce launches or recalls the Force (Stage mode, v2 sessions).
	ActForce
	// ActPause opens the pause menu of the play.
	ActPause
	// ActChat opens the chat box of the play (v2 sessions, PROTOCOL.md
	// 7.13).
	ActChat
	// ActMenuUp to ActBack move through the menus.
	ActMenuUp
	ActMenuDown
	ActMenuLeft
	ActMenuRight
	ActConfirm
	ActBack
	NumActions

	// NumShipActions are the actions sent to the server, ActUp to
	// ActForce; the settings screen rebinds their keys.
	NumShipActions = ActForce + 1
)

var actionNames = [NumActions]string{
	"up", "down", "left", "right", "fire", "force", "pause", "chat",
	"menu_up", "menu_down", "menu_left", "menu_right", "confirm", "back",
}

var actionLabels = [NumActions]string{
	"Move up", "Move down", "Move left", "Move right", "Fire", "Force", "Pause", "Chat",
	"Menu up", "Menu down", "Menu left", "Menu right", "Confirm", "Back",
}

var actionBits = [NumShipActions]uint8{wire.ActionUp, wire.ActionDown, wire.ActionLeft, wire.ActionRight, wire.ActionFire, wire.ActionForce}

// String returns the action's name in the settings file.
func (a Action) String() string { return actionNames[a] }

// Label returns the action's name for people.
func (a Action) Label() string { return actionLabels[a] }

// Bit returns the action's bit of an Input (4.2), 0 for an action that
// is not a ship action.
func (a Action) Bit() uint8 {
	if a < NumShipActions {
		return actionBits[a]
	}
	return 0
}

// inMenus reports whether a is read in the menus rather than in the play.
// A key or control is bound to one action at most of the same side.
func (a Action) inMenus() bool { return a >= ActMenuUp }

// MaxKeysPerAction is how many keys a ship action can have (the settings
// screen shows them all).
const MaxKeysPerAction = 2

// MaxBindings is how many keys, and how many gamepad controls, any
// action can have.
const MaxBindings = 4

// maxKeys is how many keys a can have.
func (a Action) maxKeys() int {
	if a < NumShipActions {
		return MaxKeysPerAction
	}
	return MaxBindings
}

// reservedKeys are the keys the game keeps whatever the bindings: F3
// shows the network overlay, F11 toggles fullscreen.
var reservedKeys = []string{"F3", "F11"}

// CanBind reports whether key may be bound to a: never a reserved key,
// and Escape only to Pause and Back (it is the way out of every screen).
func (a Action) CanBind(key string) bool {
	for _, r := range reservedKeys {
		if strings.EqualFold(key, r) {
			return false
		}
	}
	if strings.EqualFold(key, "Escape") {
		return a == ActPause || a == ActBack
	}
	return key != ""
}
