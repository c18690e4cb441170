package core

import "rtype/game/settings"

// Action is settings.Action.
//
// Deprecated: the actions moved to rtype/game/settings. These names stay
// only until game/scene_play.go, rewritten on another branch, names the
// settings package; delete this file then.
type Action = settings.Action

// The ship actions, as settings names them.
//
// Deprecated: use the settings package's names.
const (
	ActUp    = settings.ActUp
	ActDown  = settings.ActDown
	ActLeft  = settings.ActLeft
	ActRight = settings.ActRight
	ActFire  = settings.ActFire
)
