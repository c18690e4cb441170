package client

import (
	"errors"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// Chat (PROTOCOL.md 7.13): a v2 session sends lines with SendChat and
// receives the game's lines, the server's announcements and the refusals
// of its own lines with DrainChat.

// Chat is a line received, or a refusal of one of the client's lines.
type Chat struct {
	// Tick is the game's tick when the server took the line.
	Tick uint32
	// Player is the sender, 0 to 3, or wire.ServerPlayer (255) for an
	// announcement of the server.
	Player uint8
	// Name is the sender's name, cleaned (wire.CleanName); empty for the
	// server.
	Name string
	// Text is the line, cleaned (wire.CleanChat): 1 to 120 characters.
	Text string
	// Refused is the reason of a ChatRefused (wire.ChatEmpty...), 0 for a
	// line; a refusal has no Tick, Player, Name nor Text.
	Refused uint8
	// Wait is how long until the server takes a line again (a refusal
	// for the rate limit).
	Wait time.Duration
}

// Errors of SendChat.
var (
	// ErrNoChat: the session has no chat (Features.Chat: v1).
	ErrNoChat = errors.New("this server has no chat")
	// ErrChatBusy: lines are waiting to be sent already.
	ErrChatBusy = errors.New("chat: too many lines waiting to be sent")
)

// ChatError is a line SendChat refuses before sending it, for the reason
// the server would give (wire.ChatEmpty or wire.ChatTooLong).
type ChatError struct{ Reason uint8 }

// Error says why, for people.
func (e *ChatError) Error() string { return "chat: " + wire.ChatReason(e.Reason) }

// Chat limits of the client.
const (
	// maxChats is how many received lines wait for DrainChat; beyond it
	// the oldest are dropped.
	maxChats = 64
	// chatQueue is how many lines wait to be written.
	chatQueue = 8
	// chatWriteTimeout bounds the writing of one line.
	chatWriteTimeout = 5 * time.Second
)

// CanChat reports whether the session has chat (Features.Chat, 7.13).
func (c *Client) CanChat() bool { return c.chatOut != nil }

// SendChat sends a line to the players of the game (7.13). It refuses a
// line that would be empty or longer than 120 characters once normalized
// (*ChatError), and does not wait for the network: the line is written by
// the client's goroutine. The server's answer, the line itself (its echo)
// or a refusal, comes through DrainChat.
func (c *Client) SendChat(text string) error {
	if c.chatOut == nil {
		return ErrNoChat
	}
	if _, why := wire.NormalizeChatString(nil, text); why != 0 {
		return &ChatError{Reason: why}
	}
	if c.ended() {
		return c.Err()
	}
	frame := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: text})
	select {
	case c.chatOut <- frame:
		return nil
	default:
		return ErrChatBusy
	}
}

// DrainChat appends to dst the lines and refusals received since the
// last call, oldest first, and returns it.
func (c *Client) DrainChat(dst []Chat) []Chat {
	c.mu.Lock()
	defer c.mu.Unlock()
	dst = append(dst, c.chats...)
	clear(c.chats)
	c.chats = c.chats[:0]
	return dst
}

// receiveChat keeps a ChatMessage or ChatRefused for DrainChat, cleaned.
func (c *Client) receiveChat(m *wire.Message) {
	ch := Chat{Refused: m.Reason, Wait: time.Duration(m.Wait) * time.Millisecond}
	if m.Type == wire.MsgChatMessage {
		ch = Chat{Tick: m.Tick, Player: m.Player, Name: wire.CleanName(m.Name), Text: wire.CleanChat(m.Text)}
		if ch.Text == "" {
			return
		}
		if ch.Player == wire.ServerPlayer {
			ch.Name = ""
		}
	} else if ch.Refused == 0 {
		ch.Refused = 255 // unknown: a generic refusal
	}
	c.mu.Lock()
	if len(c.chats) == maxChats {
		n := copy(c.chats, c.chats[maxChats/2:])
		clear(c.chats[n:])
		c.chats = c.chats[:n]
	}
	c.chats = append(c.chats, ch)
	c.mu.Unlock()
}

// writeChat writes the lines of SendChat until the session ends; a write
// that fails ends the session.
func (c *Client) writeChat() {
	for {
		select {
		case <-c.done:
			return
		case f := <-c.chatOut:
			c.tcp.SetWriteDeadline(time.Now().Add(chatWriteTimeout))
			if _, err := c.tcp.Write(f); err != nil {
				c.log.Debug("chat not sent", "err", err)
				c.end(errHungUp, false)
				return
			}
		}
	}
}
