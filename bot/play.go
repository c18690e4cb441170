package bot

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

// Play drives c with a Brain of the game's mode (c.Mode) until the
// session ends or ctx is done: 60 times a second it decides from the
// newest frame (brought to the present, Present) and holds the result.
// It returns nil when the game ended normally (Logout GameOver),
// ctx.Err() when ctx ended first, and the session's error otherwise.
func Play(ctx context.Context, c *client.Client, rng *rand.Rand) error {
	b := NewMode(c.Player(), c.Mode(), rng)
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	var frames []client.Frame
	var events []wire.Event
	last := uint8(0xFF)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Done():
			var lo *client.LogoutError
			if errors.As(c.Err(), &lo) && lo.Reason == wire.LogoutGameOver {
				return nil
			}
			return c.Err()
		case <-tick.C:
			events = c.DrainEvents(events[:0]) // a bot shows no effects, but takes them like a game
			b.Events(events)                   // the terrain's scroll
			frames = c.Frames(frames)
			if len(frames) == 0 {
				continue
			}
			f := &frames[len(frames)-1]
			Present(f, time.Now())
			if act := b.Decide(f); act != last {
				c.SetInput(act)
				last = act
			}
		}
	}
}
