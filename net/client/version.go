package client

import (
	"fmt"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// sessionMode returns the mode of the game a LoginAccepted of a session
// of features f joined (7.12): LoginAccepted's with Features.Modes, else
// Classic (v1).
func sessionMode(f wire.Features, acc *wire.Message) uint8 {
	if f.Modes {
		return acc.Mode
	}
	return wire.ModeClassic
}

// cookie is the cookie of the last Challenge a socket received (7.3), and
// whether a Bind carrying it is to go out at once.
type cookie struct {
	c      wire2.Cookie
	has    bool
	answer bool
}

func (k *cookie) set(c wire2.Cookie) { k.c, k.has, k.answer = c, true, true }

// StepsKept is how many input steps a client keeps (v2, 7.4): 2 s at 60 a
// second, more than a snapshot's last_step lags behind the newest step.
const StepsKept = 128

// Step is an input step of a v2 session (7.4): the actions of one Input's
// newest step, and when the Input went out.
type Step struct {
	Step    uint32
	Actions uint8
	Sent    time.Time
}

// steps is the ring of the last StepsKept steps sent.
type steps struct {
	ring [StepsKept]Step
	n    uint32 // steps sent; the next step is n
}

// add records the next step and returns it.
func (s *steps) add(actions uint8, now time.Time) Step {
	st := Step{Step: s.n, Actions: actions, Sent: now}
	s.ring[s.n%StepsKept] = st
	s.n++
	return st
}

// appendAfter appends the steps kept after step after, oldest first.
func (s *steps) appendAfter(after uint32, dst []Step) []Step {
	first := uint32(0)
	if s.n > StepsKept {
		first = s.n - StepsKept
	}
	if after != ^uint32(0) && after+1 > first {
		first = after + 1
	}
	for k := first; k < s.n; k++ {
		dst = append(dst, s.ring[k%StepsKept])
	}
	return dst
}

// nextStep takes the next input step with the actions held and returns
// the payload of its Input (7.4): the step, then the actions of it and of
// the 7 steps before it (fewer at the start), newest first, so that an
// Input lost alone costs nothing. c.mu must be held.
func (c *Client) nextStep(now time.Time) []byte {
	st := c.steps.add(c.actions, now)
	if c.cfg.Tap != nil {
		c.cfg.Tap.Step(st)
	}
	in := wire2.Input{Step: st.Step, Count: int(min(st.Step+1, wire2.MaxInputActions))}
	for i := 0; i < in.Count; i++ {
		in.Actions[i] = c.steps.ring[(st.Step-uint32(i))%StepsKept].Actions
	}
	c.input2 = wire2.AppendInput(c.input2[:0], &in)
	return c.input2
}

// ParseVersion reads a protocol version as the command lines give it
// (-protocol): "auto" (or "0") for Config.Version 0, "1" or "2".
func ParseVersion(s string) (uint8, error) {
	switch s {
	case "auto", "0", "":
		return 0, nil
	case "1":
		return wire.Version, nil
	case "2":
		return wire.Version2, nil
	}
	return 0, fmt.Errorf("protocol %q: auto, 1 or 2", s)
}
