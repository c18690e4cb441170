package view

import "rtype/net/wire"

// A spectator's View (PROTOCOL.md 7.17): its source's player is
// wire.NoPlayer, so it has no ship to predict and sends nothing. It
// follows a player, as the replays do (Replayer.Follow): the HUD marks
// that player's panel, the Stage HUD shows its Arms and the Force's
// place; or it shows the free view, every panel alike. Nothing is said
// to the spectator as if it played ("You fly…", "YOU", the hit flash).

// own reports whether p is the local player's: never in a spectator's
// View.
func (v *View) own(p uint8) bool { return !v.watch && p == v.me }

// Watching reports whether the View is a spectator's.
func (v *View) Watching() bool { return v.watch }

// Follow makes a spectator's View follow player p, or the free view for
// wire.NoPlayer (or any number above 3). A player's View ignores it.
func (v *View) Follow(p uint8) {
	if !v.watch {
		return
	}
	if p >= wire.MaxPlayers {
		p = wire.NoPlayer
	}
	v.me = p
}

// NextFollow returns what a spectator follows after the present choice:
// the next player present (by number), then the free view, then the
// first player again.
func (v *View) NextFollow() uint8 {
	start := 0
	if v.me < wire.MaxPlayers {
		start = int(v.me) + 1
	}
	for p := start; p < wire.MaxPlayers; p++ {
		if v.players[p].Present {
			return uint8(p)
		}
	}
	if v.me < wire.MaxPlayers {
		return wire.NoPlayer
	}
	for p := range wire.MaxPlayers {
		if v.players[p].Present {
			return uint8(p)
		}
	}
	return wire.NoPlayer
}
