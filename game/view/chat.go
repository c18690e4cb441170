package view

import (
	"fmt"
	"strings"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render/model"
)

// ChatLog is the chat history of the play (PROTOCOL.md 7.13): the lines
// received, the server's announcements and the client's notices, with
// the players muted. Times are in seconds on any clock the caller keeps.
type ChatLog struct {
	lines []chatEntry     // oldest first, at most chatKept
	muted map[string]bool // by name folded to lower case
}

type chatEntry struct {
	line model.ChatLine
	at   float64
}

// chatKept is how many lines the log keeps: enough to show ChatShown
// after many muted ones.
const chatKept = 64

// Add adds what the client received: a line, or a notice for a refusal
// of ours.
func (l *ChatLog) Add(c *client.Chat, now float64) {
	switch {
	case c.Refused != 0:
		text := "Not sent: " + wire.ChatReason(c.Refused)
		if c.Refused == wire.ChatRateLimited && c.Wait > 0 {
			text += fmt.Sprintf(" (wait %.0f s)", max(1, c.Wait.Round(time.Second).Seconds()))
		}
		l.Notice(text, now)
	case c.Player == wire.ServerPlayer:
		l.add(model.ChatLine{Kind: model.ChatServer, Player: c.Player, Name: "Server", Text: c.Text}, now)
	default:
		l.add(model.ChatLine{Kind: model.ChatPlayer, Player: c.Player, Name: c.Name, Text: c.Text}, now)
	}
}

// Notice adds a notice of the client itself.
func (l *ChatLog) Notice(text string, now float64) {
	l.add(model.ChatLine{Kind: model.ChatNotice, Player: wire.NoPlayer, Text: text}, now)
}

// add keeps a line; when the log is full, the oldest line of a muted
// player goes first, else the oldest: a muted flood pushes nobody out.
func (l *ChatLog) add(line model.ChatLine, now float64) {
	if len(l.lines) == chatKept {
		drop := 0
		for i := range l.lines {
			if e := &l.lines[i]; e.line.Kind == model.ChatPlayer && l.Muted(e.line.Name) {
				drop = i
				break
			}
		}
		l.lines = append(l.lines[:drop], l.lines[drop+1:]...)
	}
	l.lines = append(l.lines, chatEntry{line: line, at: now})
}

// SetMuted mutes or unmutes a player by name (ignoring case): its lines,
// past and to come, are not shown while it is muted.
func (l *ChatLog) SetMuted(name string, muted bool) {
	if l.muted == nil {
		l.muted = map[string]bool{}
	}
	if muted {
		l.muted[strings.ToLower(name)] = true
	} else {
		delete(l.muted, strings.ToLower(name))
	}
}

// Muted reports whether a player's lines are hidden.
func (l *ChatLog) Muted(name string) bool { return l.muted[strings.ToLower(name)] }

// Lines appends to dst the lines to show at now, oldest first, at most
// model.ChatShown, and returns it. With open (the chat box is open) the
// last lines show whatever their age; else each shows for model.ChatLife
// seconds, fading out.
func (l *ChatLog) Lines(dst []model.ChatLine, now float64, open bool) []model.ChatLine {
	start := len(dst)
	for i := len(l.lines) - 1; i >= 0 && len(dst)-start < model.ChatShown; i-- {
		e := &l.lines[i]
		if e.line.Kind == model.ChatPlayer && l.Muted(e.line.Name) {
			continue
		}
		line := e.line
		line.Alpha = 1
		if age := now - e.at; !open {
			if age >= model.ChatLife {
				break // the older ones are older still
			}
			if age > model.ChatLife-model.ChatFade {
				line.Alpha = (model.ChatLife - age) / model.ChatFade
			}
		}
		dst = append(dst, line)
	}
	shown := dst[start:]
	for i, j := 0, len(shown)-1; i < j; i, j = i+1, j-1 {
		shown[i], shown[j] = shown[j], shown[i]
	}
	return dst
}
