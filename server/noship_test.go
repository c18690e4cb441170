package server

import (
	"testing"
	"time"

	"rtype/net/wire"
)

// 4.2, 5.5: an Input from a player without a ship is accepted like any
// other: it is acknowledged and keeps the session alive, and its actions
// have no effect. Here the only player loses its one life (so it has no
// ship and the game is over) and, not acknowledging the GameOver event,
// stays in its linger; it holds Fire and Right for two session timeouts.
func TestInputWithoutShip(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = quickDeath()
	cfg.GameOverLinger = time.Minute
	cfg.SessionTimeout = 1500 * time.Millisecond
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	c.ackOthers = false // the events, GameOver included, stay unacknowledged
	over := c.waitEvent("GameOver", func(ev *wire.Event) bool { return ev.Type == wire.EventGameOver })
	c.actions = wire.ActionFire | wire.ActionRight
	nsnaps := len(c.snaps)
	before := c.link.Stats()
	c.pump(2 * cfg.SessionTimeout)
	st := c.link.Stats()
	sent, acked := st.SentDatagrams-before.SentDatagrams, st.Acked-before.Acked
	if sent < 20 || acked+3 < sent {
		t.Fatalf("%d Inputs sent without a ship, %d acknowledged", sent, acked)
	}
	for _, ev := range c.events[over:] {
		if ev.Type == wire.EventSpawn && ev.Owner == c.acc.Player {
			t.Fatalf("a Spawn for a player without a ship: %v", c.eventList())
		}
	}
	if len(c.snaps) < nsnaps+10 {
		t.Fatalf("%d snapshots while the player had no ship", len(c.snaps)-nsnaps)
	}
	for _, sn := range c.snaps[nsnaps:] {
		if ps, ok := sn.player(c.acc.Player); !ok || ps.HasShip {
			t.Fatalf("snapshot of tick %d: player record %+v", sn.tick, sn.players)
		}
	}
	// Still in session: no Logout(TimedOut) came.
	if m, err := readMsg(c.tcp, 10*time.Millisecond); !isTimeout(err) {
		t.Fatalf("the session ended: %+v, %v", m, err)
	}
}
