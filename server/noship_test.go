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
// stays in its linger; it holds Fire and Right for one and a half
// session timeouts (a lower bound: the timeout never ends a session
// early), and at least 20 Inputs and 10 snapshots.
func TestInputWithoutShip(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = quickDeath()
	cfg.GameOverLinger = time.Minute
	cfg.SessionTimeout = time.Second
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	c.ackOthers = false // the events, GameOver included, stay unacknowledged
	over := c.waitEvent("GameOver", func(ev *wire.Event) bool { return ev.Type == wire.EventGameOver })
	c.actions = wire.ActionFire | wire.ActionRight
	nsnaps := len(c.snaps)
	before := c.link.Stats()
	start := time.Now()
	sentSince := func() int { return int(c.link.Stats().SentDatagrams - before.SentDatagrams) }
	if !c.pumpUntil(wait, func() bool {
		return time.Since(start) >= cfg.SessionTimeout*3/2 && sentSince() >= 20 && len(c.snaps) >= nsnaps+10
	}) {
		t.Fatalf("within %v: %d Inputs sent, %d snapshots", wait, sentSince(), len(c.snaps)-nsnaps)
	}
	// The Inputs sent are all acknowledged (but for the last few) once
	// the server's next datagrams came: wait for them, sending no more.
	c.keepAlive = false
	sent := sentSince()
	acked := func() int { return int(c.link.Stats().Acked - before.Acked) }
	if !c.pumpUntil(wait, func() bool { return acked()+3 >= sent }) {
		t.Fatalf("%d Inputs sent without a ship, %d acknowledged", sent, acked())
	}
	for _, ev := range c.events[over:] {
		if ev.Type == wire.EventSpawn && ev.Owner == c.acc.Player {
			t.Fatalf("a Spawn for a player without a ship: %v", c.eventList())
		}
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
