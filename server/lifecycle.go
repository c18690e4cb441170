package server

// LifeKind names a moment of a server's life that an orchestrator (an
// Agones sidecar, a fleet's bookkeeping) cares about.
type LifeKind uint8

// The moments a watcher learns of (Server.Watch).
const (
	// Listening: Run started and the sockets serve.
	Listening LifeKind = iota + 1
	// PlayerJoined: a login was accepted (the player is in a game).
	PlayerJoined
	// PlayerLeft: a logged-in session ended, for any reason.
	PlayerLeft
	// GameStarted: a game was created for a login.
	GameStarted
	// GameEnded: a game with no player left was dropped.
	GameEnded
)

// String returns the moment's name, for logs.
func (k LifeKind) String() string {
	switch k {
	case Listening:
		return "listening"
	case PlayerJoined:
		return "player joined"
	case PlayerLeft:
		return "player left"
	case GameStarted:
		return "game started"
	case GameEnded:
		return "game ended"
	}
	return "unknown"
}

// LifeEvent is one moment of the server's life with the counts just
// after it.
type LifeEvent struct {
	Kind    LifeKind
	Addr    string // the bound address, "host:port"
	Games   int    // games running (an empty one counts until it is dropped)
	Players int    // sessions logged in
	Ended   int    // games ended since the server started
}

// lifecycle holds the watchers of a server; guarded by the server's mutex.
type lifecycle struct {
	watchers []func(LifeEvent)
	ended    int
}

// Watch makes f learn of every moment of the server's life from now on:
// Listening once Run serves, then the players and games that come and go,
// with the counts after each. f is called in order, with the server's
// lock held: it must return at once (hand the event to a goroutine of its
// own) and must not call the Server's methods. Call it before Run to
// learn of Listening.
func (s *Server) Watch(f func(LifeEvent)) {
	s.mu.Lock()
	s.life.watchers = append(s.life.watchers, f)
	s.mu.Unlock()
}

// lifeLocked tells the watchers of k; s.mu is held.
func (s *Server) lifeLocked(k LifeKind) {
	if k == GameEnded {
		s.life.ended++
	}
	if len(s.life.watchers) == 0 {
		return
	}
	ev := LifeEvent{Kind: k, Addr: s.Addr(), Games: len(s.games), Players: len(s.sessions), Ended: s.life.ended}
	for _, f := range s.life.watchers {
		f(ev)
	}
}
