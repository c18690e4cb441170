package server

import (
	"sync"
	"testing"

	"rtype/internal/testutil"
)

// lifeLog records what a watcher learns.
type lifeLog struct {
	mu  sync.Mutex
	evs []LifeEvent
}

func (l *lifeLog) watch(ev LifeEvent) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

func (l *lifeLog) events() []LifeEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LifeEvent(nil), l.evs...)
}

func (l *lifeLog) last() (LifeEvent, bool) {
	evs := l.events()
	if len(evs) == 0 {
		return LifeEvent{}, false
	}
	return evs[len(evs)-1], true
}

// A watcher learns, in order and with the counts after each: Listening,
// the game and the players of a login, and the game's end once its last
// player left.
func TestWatchLifecycle(t *testing.T) {
	cfg := testConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Logger = testutil.Logger(t)
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var l lifeLog
	s.Watch(l.watch)
	testutil.Run(t, s)
	testutil.WaitFor(t, wait, "Listening", func() bool { _, ok := l.last(); return ok })
	if ev, _ := l.last(); ev.Kind != Listening || ev.Addr != s.Addr() || ev.Games != 0 || ev.Players != 0 {
		t.Fatalf("first event %+v, want Listening on %s with no game", ev, s.Addr())
	}

	a := join(t, s, "alice")
	b := join(t, s, "bob")
	testutil.WaitFor(t, wait, "two players", func() bool { ev, _ := l.last(); return ev.Players == 2 })
	a.logout()
	b.logout()
	testutil.WaitFor(t, wait, "the game's end", func() bool { ev, _ := l.last(); return ev.Kind == GameEnded })

	want := []struct {
		kind                  LifeKind
		games, players, ended int
	}{
		{Listening, 0, 0, 0},
		{GameStarted, 1, 0, 0},
		{PlayerJoined, 1, 1, 0},
		{PlayerJoined, 1, 2, 0},
		{PlayerLeft, 1, 1, 0},
		{PlayerLeft, 1, 0, 0},
		{GameEnded, 0, 0, 1},
	}
	evs := l.events()
	if len(evs) != len(want) {
		t.Fatalf("events %+v, want %d", evs, len(want))
	}
	for i, w := range want {
		ev := evs[i]
		if ev.Kind != w.kind || ev.Games != w.games || ev.Players != w.players || ev.Ended != w.ended {
			t.Errorf("event %d: %s games %d players %d ended %d, want %s %d %d %d",
				i, ev.Kind, ev.Games, ev.Players, ev.Ended, w.kind, w.games, w.players, w.ended)
		}
	}
}
