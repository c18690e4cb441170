package game

import (
	"errors"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/game/view"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
	"rtype/render/model"
)

// chatBox is the play's chat (PROTOCOL.md 7.13): the history of the
// lines received (view.ChatLog), and the box the Chat key (T) opens: the
// typed characters go to it, not to the ship; Enter sends, Esc cancels.
type chatBox struct {
	// src is where lines come from and go: the room's lobby (7.14), or
	// nil for the play's client.
	src   chatPeer
	log   view.ChatLog
	field TextField
	open  bool
	recv  []client.Chat    // DrainChat's scratch
	lines []model.ChatLine // Draw's scratch
}

// chatPeer is a session with chat: the play's client, or a lobby.
type chatPeer interface {
	DrainChat(dst []client.Chat) []client.Chat
	CanChat() bool
	SendChat(text string) error
}

// peer returns the session of the chat.
func (c *chatBox) peer(g *Game) chatPeer {
	if c.src != nil {
		return c.src
	}
	return g.session.C
}

// drain takes what the client received into the history.
func (c *chatBox) drain(g *Game) {
	c.recv = c.peer(g).DrainChat(c.recv[:0])
	for i := range c.recv {
		c.log.Add(&c.recv[i], g.T())
	}
	clear(c.recv) // drop the strings
}

// update handles the keys of the chat: the Chat key opens the box; while
// it is open, typing, Enter and Esc. It reports whether the chat took
// this tick's keys (the ship then gets no actions, and Esc does not
// pause).
func (c *chatBox) update(g *Game) bool {
	cl := c.peer(g)
	if !c.open {
		if !g.in.Chat {
			return false
		}
		if !cl.CanChat() {
			c.log.Notice("No chat on this server: it speaks an older protocol", g.T())
			return false
		}
		c.open = true
		c.field = TextField{Max: wire.MaxChatLen}
		g.in.TextMode = true
		return true // the key's own character is not typed
	}
	g.in.TextMode = true
	switch {
	case g.in.Back:
		c.close(g)
	case g.in.Confirm:
		if strings.TrimSpace(c.field.Text) != "" {
			if err := cl.SendChat(c.field.Text); err != nil {
				c.log.Notice(chatError(err), g.T())
				g.log.Info("chat not sent", "err", err)
			}
		}
		c.close(g)
	default:
		c.field.Update(&g.in)
	}
	return true
}

func (c *chatBox) close(g *Game) {
	c.open = false
	c.field = TextField{}
	g.in.TextMode = false
}

// chatError is a line SendChat refused, for the player.
func chatError(err error) string {
	var ce *client.ChatError
	if errors.As(err, &ce) {
		return "Not sent: " + wire.ChatReason(ce.Reason)
	}
	return "Not sent: " + err.Error()
}

// draw draws the history and the open box in the bottom-left corner, to
// the right of the network overlay when it shows.
func (c *chatBox) draw(screen *ebiten.Image, g *Game) {
	c.lines = c.log.Lines(c.lines[:0], g.T(), c.open)
	if len(c.lines) == 0 && !c.open {
		return
	}
	x := render.ChatX
	if g.settings.ShowNetStats {
		x += render.NetOverlayW + 12
	}
	box := render.ChatBox{Open: c.open, Text: c.field.Text, Count: len([]rune(c.field.Text)), Max: wire.MaxChatLen}
	g.atlas.DrawChat(screen, g.fonts, c.lines, box, x, render.Height-60, g.T())
}

// chatKey is the label of the Chat key, for the hints.
func (g *Game) chatKey() string {
	if ks := g.settings.Keys.Keys(settings.ActChat); len(ks) > 0 {
		return KeyLabel(ks[0])
	}
	return "?"
}

// muteItems are the pause menu's rows that mute or unmute each other
// player's chat, by name.
func (c *chatBox) muteItems(g *Game, v *view.View) []MenuItem {
	if !g.session.C.CanChat() {
		return nil
	}
	var items []MenuItem
	names := v.Names()
	for p, pl := range v.Players() {
		name := names[p]
		if !pl.Present || uint8(p) == v.Me() || name == "" {
			continue
		}
		items = append(items, MenuItem{
			Label: "Chat of " + render.Fit(name, g.fonts.Small, 200),
			Value: func() string {
				if c.log.Muted(name) {
					return "Muted"
				}
				return "Shown"
			},
			Activate: func() {
				c.log.SetMuted(name, !c.log.Muted(name))
				g.log.Info("chat mute", "name", name, "muted", c.log.Muted(name))
			},
		})
	}
	return items
}
