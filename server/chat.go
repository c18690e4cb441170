package server

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// Chat (PROTOCOL.md 7.13): the lines of sessions with chat
// (Features.Chat), normalized and rate-limited, go to every such session
// of the sender's game; Announce sends the operator's lines to every such
// session of every game. Each has an outbox of fixed size and a writer goroutine, so that
// no session's slow reading holds anyone else, and a flood of lines grows
// no memory: what does not fit in a session's outbox is dropped for it.

// Chat limits of the reference server (7.13).
const (
	// chatLimit lines per chatWindow per player; the next is refused.
	chatLimit  = 5
	chatWindow = 5 * time.Second
	// chatOutbox is the most bytes of messages waiting for one session.
	chatOutbox = 4096
	// chatWriteTimeout bounds one write of a session's outbox; a session
	// that reads nothing for that long loses its connection.
	chatWriteTimeout = 10 * time.Second
	// chatMaxInput is the most bytes of a Chat text the server reads: a
	// longer one is refused TooLong without being normalized, so that a
	// line's work is bounded whatever it holds (zero-width characters,
	// removed, would not count toward MaxChatLen).
	chatMaxInput = wire.MaxChatBytes
)

// chatHub is the server's chat (7.13): its clock and its encoding
// buffer, guarded by Server.mu, and the handling of the sessions' lines.
type chatHub struct {
	srv *Server
	now func() time.Time // time.Now; tests drive it
	buf []byte
}

// clock returns the chat's time.
func (h *chatHub) clock() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now()
}

// chatState is a session's chat: the rate limit and buffers, used
// by the session's reader goroutine only, and its outbox.
type chatState struct {
	sent [chatLimit]time.Time // the last lines sent on, oldest at next
	next int
	norm wire.ChatNormalizer
	// scanned counts the bytes of lines given to the normalizer: its
	// work, which the tests bound.
	scanned atomic.Int64
	text    []byte
	reply   []byte
	out     chatOut
	// heard is when the session last sent a frame of chat, rooms or
	// scores, or came back from a game, in Unix ns: LobbyIdle counts from
	// it.
	heard atomic.Int64
	// The bucket of RoomList (roomListBurst), used under s.mu.
	listTokens int
	listAt     time.Time
}

// chatOut is a session's outbox: bytes of whole messages, written by the
// session's chat writer.
type chatOut struct {
	mu      sync.Mutex
	pending []byte // cap chatOutbox
	writing []byte // cap chatOutbox, the writer's
	dropped int
	wake    chan struct{} // cap 1
	quit    chan struct{}
}

// push queues a message (a whole frame). When the outbox has no room for
// it, it drops it and returns the number of messages dropped so far.
func (o *chatOut) push(frame []byte) (dropped int) {
	o.mu.Lock()
	if len(o.pending)+len(frame) <= cap(o.pending) {
		o.pending = append(o.pending, frame...)
	} else {
		o.dropped++
		dropped = o.dropped
	}
	o.mu.Unlock()
	if dropped == 0 {
		select {
		case o.wake <- struct{}{}:
		default:
		}
	}
	return dropped
}

// pushTo queues a message to ss, and logs the first message it drops for
// it.
func (h *chatHub) pushTo(ss *session, frame []byte) {
	s := h.srv
	if ss.chat.out.push(frame) == 1 {
		s.log.Info("chat: outbox full, lines dropped for a player that reads slowly", "session", ss.id, "name", ss.name)
	}
}

// attachLocked gives a session with Features.Chat its chat, before its
// LoginAccepted is sent: from then on the session can be in a game or a
// room, and every line and Spectators message sent to it is queued, even
// before its writer runs. s.mu is held.
func (h *chatHub) attachLocked(ss *session) {
	if !ss.features.Chat {
		return
	}
	ss.chat = &chatState{
		text:  make([]byte, 0, wire.MaxChatBytes+8),
		reply: make([]byte, 0, 8),
		out: chatOut{
			pending: make([]byte, 0, chatOutbox),
			writing: make([]byte, 0, chatOutbox),
			wake:    make(chan struct{}, 1),
			quit:    make(chan struct{}),
		},
	}
}

// start starts the writer of a session's chat (what attachLocked queued
// is written first); the function it returns stops the writer (when the
// session's reader ends). A session without chat has nothing to start.
func (h *chatHub) start(ss *session) (stop func()) {
	s := h.srv
	c := ss.chat
	if c == nil {
		return func() {}
	}
	s.wg.Add(1)
	go func() { defer s.wg.Done(); chatWriter(ss.conn, &c.out) }()
	return func() { close(c.out.quit) }
}

// chatWriter writes a session's outbox to its connection until quit. A
// write that fails (the peer reads nothing for chatWriteTimeout, or the
// connection closed) closes the connection: the session's reader then
// ends it.
func chatWriter(conn net.Conn, o *chatOut) {
	for {
		select {
		case <-o.quit:
			return
		case <-o.wake:
		}
		o.mu.Lock()
		o.pending, o.writing = o.writing[:0], o.pending
		o.mu.Unlock()
		if len(o.writing) == 0 {
			continue
		}
		conn.SetWriteDeadline(time.Now().Add(chatWriteTimeout))
		if _, err := conn.Write(o.writing); err != nil {
			conn.Close()
			return
		}
	}
}

// line handles a Chat frame of ss (7.13): in a session without chat it
// is ignored; a malformed one is an error (the session is kicked).
// Otherwise the line is refused (ChatRefused to the sender) or sent to
// every session of the game with chat.
func (h *chatHub) line(ss *session, frame []byte) error {
	s := h.srv
	c := ss.chat
	if c == nil || ss.spectator {
		return nil // a session without chat, or a spectator's line (7.17)
	}
	raw, err := wire.ChatText(frame)
	if err != nil {
		return err
	}
	now := h.clock()
	if oldest := c.sent[c.next]; !oldest.IsZero() && now.Sub(oldest) < chatWindow {
		wait := (chatWindow - now.Sub(oldest) + time.Millisecond - 1) / time.Millisecond
		h.refuse(ss, wire.ChatRateLimited, uint16(wait))
		return nil
	}
	// Every line past the rate limit counts toward it, refused or not.
	c.sent[c.next] = now
	c.next = (c.next + 1) % chatLimit
	if len(raw) > chatMaxInput {
		h.refuse(ss, wire.ChatTooLong, 0)
		return nil
	}
	c.scanned.Add(int64(len(raw)))
	text, why := c.norm.Normalize(c.text[:0], raw)
	if why != 0 {
		h.refuse(ss, why, 0)
		return nil
	}
	s.mu.Lock()
	if ss.gone {
		s.mu.Unlock()
		return nil
	}
	g, gid := ss.game, -1
	switch {
	case ss.room != nil: // 7.14: to the room, with its game's tick while it plays
		tick := uint32(0)
		if g != nil {
			tick, gid = g.world.Tick(), g.id
		}
		h.buf = wire.AppendChatMessage(h.buf[:0], tick, ss.player, ss.name, text)
		h.sendRoomLocked(ss.room, h.buf)
	case g != nil:
		gid = g.id
		h.buf = wire.AppendChatMessage(h.buf[:0], g.world.Tick(), ss.player, ss.name, text)
		h.sendLocked(g, h.buf)
	default: // a lobby session in no room: nobody to hear it (7.14)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	s.stats.chatMessages.Add(1)
	if s.log.Enabled(context.Background(), slog.LevelInfo) { // its arguments allocate
		s.log.Info("chat", "game", gid, "player", ss.player, "name", ss.name, "text", string(text))
	}
	return nil
}

// refuse tells ss its last Chat was refused.
func (h *chatHub) refuse(ss *session, reason uint8, wait uint16) {
	c := ss.chat
	c.reply = wire2.AppendMessage(c.reply[:0], &wire.Message{Type: wire.MsgChatRefused, Reason: reason, Wait: wait})
	h.pushTo(ss, c.reply)
}

// sendLocked queues a ChatMessage frame to every session of g with chat;
// s.mu is held.
func (h *chatHub) sendLocked(g *game, frame []byte) {
	s := h.srv
	for _, o := range g.sessions {
		if o == nil || o.chat == nil || o.gone {
			continue
		}
		h.pushTo(o, frame)
	}
	s.spect.chatLocked(g, frame)
}

// sendRoomLocked queues a ChatMessage frame to every member of rm;
// s.mu is held.
func (h *chatHub) sendRoomLocked(rm *room, frame []byte) {
	s := h.srv
	for _, m := range rm.members {
		if m != nil && m.ss != nil && m.ss.chat != nil && !m.ss.gone {
			h.pushTo(m.ss, frame)
		}
	}
	if rm.game != nil {
		s.spect.chatLocked(rm.game, frame)
	}
}

// Announce sends text to every player of every game, as a line of the
// server (player 255, 7.13): every session with chat gets it, with its game's
// tick. The text is normalized as players' lines are, and cut to 120
// characters; an empty one is not sent.
func (s *Server) Announce(text string) {
	t := wire.CleanChat(text)
	if t == "" {
		s.log.Warn("announcement not sent: empty after normalization", "text", text)
		return
	}
	s.mu.Lock()
	games := 0
	for _, g := range s.games {
		s.chatHub.buf = wire.AppendChatMessage(s.chatHub.buf[:0], g.world.Tick(), wire.ServerPlayer, "", []byte(t))
		s.chatHub.sendLocked(g, s.chatHub.buf)
		games++
	}
	for _, rm := range s.rooms.byCode { // rooms waiting: no game yet (7.14)
		if rm.game == nil {
			s.chatHub.buf = wire.AppendChatMessage(s.chatHub.buf[:0], 0, wire.ServerPlayer, "", []byte(t))
			s.chatHub.sendRoomLocked(rm, s.chatHub.buf)
		}
	}
	s.mu.Unlock()
	s.log.Info("announcement", "text", t, "games", games)
}
