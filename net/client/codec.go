package client

import (
	"errors"
	"fmt"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// codec is what the session's protocol version changes in the client's
// work: how it reads datagram headers, snapshots, events and TCP
// messages, and writes Inputs and Binds (PROTOCOL.md Part I for version
// 1, Part II for version 2). The login picks it once (codecOf) with the
// session's features (wire.Features); the rest of the client asks them,
// and never compares versions.
type codec interface {
	// parseHeader checks a datagram's header by the version's rules
	// (6.1, 7.10); a v1 header has the v2 fields zero.
	parseHeader(b []byte) (wire.Header, []byte, error)
	// snapshot applies a Snapshot payload: its tick, the age of its
	// baseline, and false when the datagram is dropped.
	snapshot(c *Client, p []byte, now time.Time) (tick, baseAge uint32, ok bool)
	// input returns the payload of the Input due now (4.2, 7.4); c.mu
	// is held.
	input(c *Client) []byte
	// cookies reports whether a Bind echoes the Challenge's cookie (7.3).
	cookies() bool
	// newLink returns the session's link (5, 7.2).
	newLink(session uint32, now time.Time) *link.Link
	// parseEvent decodes one event's data (4.4, 7.6).
	parseEvent(data []byte, ev *wire.Event) error
	// feedSnapshot applies a Snapshot payload to a Feed (Feed.Snapshot).
	feedSnapshot(f *Feed, p []byte, at time.Time) error
	// readMessage reads one TCP message (3.1, 7.1); side, when not nil,
	// is offered each frame first: it reports whether it took it (then
	// skipped here), and the error of a malformed one.
	readMessage(fr *wire.FrameReader, side func(b []byte) (bool, error)) (wire.Message, error)
	// loginRequest returns the LoginRequest frame of cfg (3.1, 7.1).
	loginRequest(cfg *Config) []byte
	// mismatch says in words what LoginRejected(VersionMismatch) means
	// to a client of the version.
	mismatch() string
	// minSnapshots is the fewest snapshots a second the server sends.
	minSnapshots() float64
}

// codecOf returns the codec of protocol version 1 or 2 (nil for another).
func codecOf(version uint8) codec {
	switch version {
	case wire.Version:
		return codec1{}
	case wire.Version2:
		return codec2{}
	}
	return nil
}

// codec1 is the codec of version 1 sessions (Part I, the seed's section
// 4).
type codec1 struct{}

func (codec1) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire.ParseHeader(b, wire.ToClient)
}

func (codec1) snapshot(c *Client, p []byte, now time.Time) (uint32, uint32, bool) {
	return c.snapshot1(p, now)
}

// input is the actions held: v1 Inputs have no step (4.2), so a
// recording is told the actions when they change, numbered as steps, so
// that a replay predicts the own ship as live play did.
func (codec1) input(c *Client) []byte {
	if c.cfg.Tap != nil && (c.steps.n == 0 || c.steps.ring[(c.steps.n-1)%StepsKept].Actions != c.actions) {
		c.cfg.Tap.Step(c.steps.add(c.actions, time.Now()))
	}
	c.input[0] = c.actions
	return c.input[:]
}

func (codec1) cookies() bool { return false }

func (codec1) newLink(session uint32, now time.Time) *link.Link { return link.New(session, now) }

func (codec1) parseEvent(data []byte, ev *wire.Event) error { return wire.ParseEvent(data, ev) }

func (codec1) feedSnapshot(f *Feed, p []byte, at time.Time) error {
	if err := f.snap.Decode(p); err != nil {
		return err
	}
	r, err := f.rb.Rebuild(&f.snap)
	if err != nil {
		return fmt.Errorf("snapshot of tick %d: %w", f.snap.Tick, err)
	}
	f.world.ApplySnapshotAt(r, at)
	return nil
}

// readMessage reads a v1 message: every type is one of Part I's.
func (codec1) readMessage(fr *wire.FrameReader, _ func(b []byte) (bool, error)) (wire.Message, error) {
	return fr.ReadMessage()
}

func (codec1) loginRequest(cfg *Config) []byte {
	return wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version, Name: cfg.Name})
}

// minSnapshots: a snapshot every SnapshotTicks ticks (4.3).
func (codec1) minSnapshots() float64 { return wire.TickRate / wire.SnapshotTicks }

func (codec1) mismatch() string { return "the server speaks another version of the protocol" }

// codec2 is the codec of version 2 sessions (Part II).
type codec2 struct{}

func (codec2) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire2.ParseHeader(b, wire.ToClient)
}

func (codec2) snapshot(c *Client, p []byte, now time.Time) (uint32, uint32, bool) {
	return c.snapshot2(p, now)
}

// input is the next step (7.4). Its time is read with the lock held: a
// reader of Steps (or of a recording, net/replay) sees the steps sent by
// its own time, and no later one.
func (codec2) input(c *Client) []byte { return c.nextStep(time.Now()) }

func (codec2) cookies() bool { return true }

func (codec2) newLink(session uint32, now time.Time) *link.Link { return link.NewV2(session, now) }

func (codec2) parseEvent(data []byte, ev *wire.Event) error { return wire2.ParseEvent(data, ev) }

func (codec2) feedSnapshot(f *Feed, p []byte, at time.Time) error {
	if err := f.snap2.Decode(p); err != nil {
		return err
	}
	r, err := f.rb2.Rebuild(&f.snap2)
	if err != nil {
		return fmt.Errorf("snapshot of tick %d: %w", f.snap2.Tick, err)
	}
	f.world.ApplyFrame(r, at)
	return nil
}

// readMessage reads a v2 message: a message of a type it does not know
// is skipped (7.1), at most maxSkipped in a row.
func (codec2) readMessage(fr *wire.FrameReader, side func(b []byte) (bool, error)) (wire.Message, error) {
	for skipped := 0; ; skipped++ {
		b, err := fr.ReadFrame()
		if err != nil {
			return wire.Message{}, err
		}
		if side != nil {
			if took, err := side(b); err != nil || took {
				if err != nil {
					return wire.Message{Type: wire.MsgType(b[0])}, err
				}
				skipped--
				continue
			}
		}
		m, err := wire2.ParseMessage(b)
		if errors.Is(err, wire.ErrUnknownMessage) && skipped < maxSkipped {
			continue
		}
		if errors.Is(err, wire.ErrUnknownMessage) {
			return m, fmt.Errorf("%w: %d unknown messages in a row", wire.ErrMessageType, maxSkipped)
		}
		return m, err
	}
}

// loginRequest asks for cfg's mode, of this revision, and for a
// spectator's place (7.17).
func (codec2) loginRequest(cfg *Config) []byte {
	lr := wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: cfg.Name,
		Revision: wire.Revision, Mode: cfg.Mode}
	if cfg.Spectate {
		lr.Flags, lr.Code = wire.LoginSpectate, cfg.Room
	}
	return wire2.AppendMessage(nil, &lr)
}

func (codec2) mismatch() string {
	return "the server does not speak protocol version 2 (try protocol 1, or auto)"
}

// minSnapshots: 5 a second while nothing changes (7.9).
func (codec2) minSnapshots() float64 { return wire.TickRate / link2.KeepAliveTicks }
