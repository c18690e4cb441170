package client

import (
	"fmt"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Tap is told what a Client accepted, in the order it applied it, with
// the time each datagram arrived: enough to play the session again
// (net/replay records it). Its methods are called from the client's
// goroutines with the client's lock held: they must be quick, must not
// call the Client's methods, and must copy the bytes they keep (they are
// only valid during the call).
type Tap interface {
	// Login is called once, before any other call, with the session's
	// LoginAccepted.
	Login(l Login)
	// Snapshot is a Snapshot payload (after the datagram's header) that
	// was decoded, rebuilt and applied to the world, and when its
	// datagram arrived. In v2 it is the packed part only,
	// without the event tail (7.8), whose events come to Event first.
	Snapshot(payload []byte, at time.Time)
	// Event is the data of an event delivered for the first time and
	// valid (5.3, 6.4), and when its datagram arrived (an Event datagram,
	// or a v2 Snapshot whose tail carried it, 7.8).
	Event(data []byte, at time.Time)
	// Step is an input step sent (v2, 7.4); in v1, the actions sent from
	// now on, when they change, numbered from 0 as steps.
	Step(st Step)
	// RTT is a new value of the smoothed round-trip time (5.4), measured
	// when a datagram that arrived at at was accepted.
	RTT(rtt time.Duration, at time.Time)
}

// Login is what a LoginAccepted told a client (3.3, 7.1, 7.12).
type Login struct {
	// Version is the session's protocol version, 1 or 2; Revision its v2
	// revision, LoginAccepted's (0 in v1).
	Version, Revision uint8
	// Mode is the game's mode (wire.ModeClassic or ModeStage).
	Mode uint8
	// Player is the local player's number, 0 to 3.
	Player uint8
	// Session and Tick are those of LoginAccepted.
	Session, Tick uint32
	// Ext are the rules of a v2 LoginAccepted (zero in v1).
	Ext wire.LoginExt
	// Name is the name the player logged in with.
	Name string
	// At is when the login was accepted.
	At time.Time
}

// ParseEvent decodes one event's data of a session of protocol version (1
// or 2), as a Client or a Feed does: a replay reads its events with it.
func ParseEvent(version uint8, data []byte, ev *wire.Event) error {
	cd := codecOf(version)
	if cd == nil {
		return fmt.Errorf("client: protocol version %d unknown", version)
	}
	return parseEvent(cd, data, ev)
}

// parseEvent decodes one event's data by codec cd, and cleans a
// PlayerJoined name (safe to draw).
func parseEvent(cd codec, data []byte, ev *wire.Event) error {
	err := cd.parseEvent(data, ev)
	if err == nil && ev.Type == wire.EventPlayerJoined {
		ev.Name = wire.CleanName(ev.Name)
	}
	return err
}

// Feed rebuilds a World from what a Tap was told, as the Client that
// told it did: snapshot payloads are rebuilt against their baselines and
// applied, event data decoded and applied, with the times they arrived.
// A recording played through a Feed gives the frames, events and player
// table the live client gave. It is not safe for concurrent use.
type Feed struct {
	codec   codec
	world   *World
	rb      link.Rebuilder
	rb2     link2.Rebuilder
	snap    wire.Snapshot
	snap2   wire2.Snapshot
	pending []wire.Event
	steps   steps
	rtt     time.Duration
	hasRTT  bool
}

// NewFeed returns the Feed of a session of protocol version (1 or 2).
func NewFeed(version uint8) *Feed {
	cd := codecOf(version)
	if cd == nil {
		cd, version = codec1{}, wire.Version
	}
	return &Feed{codec: cd, world: NewWorld(wire.NewFeatures(version, wire.Revision))}
}

// World returns the world the Feed keeps.
func (f *Feed) World() *World { return f.world }

// Snapshot applies a Snapshot payload that arrived at at; an error says
// why it could not be (a payload a Client would have dropped).
func (f *Feed) Snapshot(p []byte, at time.Time) error { return f.codec.feedSnapshot(f, p, at) }

// Event applies an event's data that arrived at at, keeping it for
// DrainEvents when the world applied it; an error says why it could not
// be decoded.
func (f *Feed) Event(data []byte, at time.Time) error {
	var ev wire.Event
	if err := parseEvent(f.codec, data, &ev); err != nil {
		return err
	}
	if f.world.ApplyEventAt(&ev, at) {
		if len(f.pending) >= maxPending {
			f.pending = append(f.pending[:0], f.pending[maxPending/2:]...)
		}
		f.pending = append(f.pending, ev)
	}
	return nil
}

// DrainEvents appends the events applied since the last call, oldest
// first, as Client.DrainEvents does.
func (f *Feed) DrainEvents(dst []wire.Event) []wire.Event {
	dst = append(dst, f.pending...)
	clear(f.pending)
	f.pending = f.pending[:0]
	return dst
}

// Step records an input step sent (7.4), for Steps.
func (f *Feed) Step(st Step) {
	f.steps.ring[st.Step%StepsKept] = st
	f.steps.n = st.Step + 1
}

// Steps appends the steps recorded after step after, as Client.Steps
// does.
func (f *Feed) Steps(after uint32, dst []Step) []Step { return f.steps.appendAfter(after, dst) }

// SetRTT records the round-trip time the client measured (5.4).
func (f *Feed) SetRTT(rtt time.Duration) { f.rtt, f.hasRTT = rtt, true }

// RTT returns the last round-trip time recorded, and false before one.
func (f *Feed) RTT() (time.Duration, bool) { return f.rtt, f.hasRTT }
