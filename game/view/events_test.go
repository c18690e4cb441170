package view

import (
	"slices"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render/model"
)

// script is a Source whose frames, events and player table the test
// writes: a snapshot every wire.SnapshotTicks ticks of a server whose tick
// 0 was at t0, received 20 ms after its tick, with the own ship (id 1)
// standing at (100, 180).
type script struct {
	clk     *clock
	frames  []client.Frame
	events  []wire.Event
	players [wire.MaxPlayers]client.Player
	extra   []client.Entity // more entities in the next snapshots
	tick    uint32          // of the newest snapshot made
	base    time.Time       // when tick 0 was
}

func newScript(clk *clock) *script {
	s := &script{clk: clk, base: t0}
	s.players[0] = client.Player{Present: true, Name: "Ripley", HasShip: true, Ship: 1, Lives: 3}
	return s
}

// advance makes the snapshots received by the clock's present.
func (s *script) advance() {
	for {
		next := s.tick + wire.SnapshotTicks
		received := s.base.Add(time.Duration(next)*tickDur + 20*time.Millisecond)
		if received.After(s.clk.now) {
			return
		}
		s.tick = next
		f := client.Frame{Tick: next, Players: s.players, Received: received}
		f.Entities = append(f.Entities, client.Entity{ID: 1, Kind: wire.KindPlayerShip, Owner: 0, X: 100, Y: 180, Tick: next, Spawned: 1})
		f.Entities = append(f.Entities, s.extra...)
		s.frames = append(s.frames, f)
		if len(s.frames) > 20 {
			s.frames = s.frames[1:]
		}
	}
}

func (s *script) Player() uint8  { return 0 }
func (s *script) SetInput(uint8) {}
func (s *script) Frames(dst []client.Frame) []client.Frame {
	return append(dst[:0], s.frames...)
}
func (s *script) DrainEvents(dst []wire.Event) []wire.Event {
	dst = append(dst, s.events...)
	s.events = s.events[:0]
	return dst
}
func (s *script) Players() [wire.MaxPlayers]client.Player { return s.players }
func (s *script) Stats() client.Stats {
	return client.Stats{RTT: 40 * time.Millisecond, HasRTT: true}
}

// step runs one Update 1/60 s after the previous one.
func (s *script) step(v *View) Result {
	s.clk.now = s.clk.now.Add(time.Second / 60)
	s.advance()
	return v.Update(0)
}

// settle starts a View on s, our PlayerJoined at tick 3, and runs it 2 s.
func settle(t *testing.T) (*script, *View) {
	clk := &clock{now: t0}
	s := newScript(clk)
	v := newView(s, clk)
	s.events = append(s.events, wire.Event{Type: wire.EventPlayerJoined, Tick: 3, Player: 0, Name: "Ripley"})
	for range 120 {
		s.step(v)
	}
	return s, v
}

func hasSound(res Result, c Cue) bool { return slices.Contains(res.Sounds, c) }

// TestExplosionWaitsForTheRenderClock: an enemy killed at a tick the
// drawn world has not reached yet explodes, and sounds, at the first
// Update whose render tick reaches it, where it is drawn, and shows for
// half a second; one whose tick never comes explodes after fxMaxWait.
func TestExplosionWaitsForTheRenderClock(t *testing.T) {
	s, v := settle(t)
	tick := s.tick + 1 // just received: the world is drawn ~100 ms behind it
	s.events = append(s.events, wire.Event{Type: wire.EventDestroy, Tick: tick, ID: 77, Reason: wire.DestroyKilled, X: 600, Y: 300})
	var f Frame
	for k := 0; ; k++ {
		if k > 60 {
			t.Fatal("no explosion after 1 s")
		}
		before := v.ip.RenderTick()
		res := s.step(v)
		boom := hasSound(res, Cue{SoundExplosion, 0.7})
		if len(v.fx.List) == 0 {
			if boom {
				t.Fatal("the explosion sounds before it shows")
			}
			continue
		}
		e := v.fx.List[0]
		now := v.t(s.clk.now)
		if e.Kind != model.FxExplosion || e.X != 600 || e.Y != 300 || e.Start != now || !boom {
			t.Fatalf("effect %+v (sound %v) at %v", e, boom, now)
		}
		if r := v.ip.RenderTick(); r < float64(tick) || before >= float64(tick) {
			t.Fatalf("the explosion of tick %d started with the render clock going from %.2f to %.2f", tick, before, r)
		}
		t.Logf("the explosion of tick %d started %d Updates later, render tick %.2f", tick, k+1, v.ip.RenderTick())
		if k < 3 {
			t.Errorf("the explosion did not wait for the drawn world (%d Updates)", k+1)
		}
		if v.Frame(&f, s.clk.now.Add(250*time.Millisecond)); len(f.Effects) != 1 || !f.Effects[0].Active(f.T) {
			t.Errorf("the explosion does not show 0.25 s later: %+v", f.Effects)
		}
		if v.Frame(&f, s.clk.now.Add(500*time.Millisecond)); f.Effects[0].Active(f.T) {
			t.Error("the explosion still shows 0.5 s later")
		}
		break
	}
	for range 31 {
		s.step(v)
	}
	if len(v.fx.List) != 0 {
		t.Fatalf("effects over still held: %+v", v.fx.List)
	}

	// A tick the render clock will not reach for long: at most fxMaxWait.
	s.events = append(s.events, wire.Event{Type: wire.EventDestroy, Tick: s.tick + 600, ID: 78, Reason: wire.DestroyKilled, X: 10, Y: 10})
	queued := s.clk.now.Add(time.Second / 60)
	for len(v.fx.List) == 0 {
		s.step(v)
	}
	if waited := s.clk.now.Sub(queued).Seconds(); waited < fxMaxWait || waited > fxMaxWait+0.02 {
		t.Errorf("an effect of a far tick waited %.3f s, want %v", waited, fxMaxWait)
	}
}

// TestNoticesAndSounds: the players' comings and goings as notices, in
// their colours, with a sound for a newcomer and none for those already
// there when we joined; a ship lost; "you are out".
func TestNoticesAndSounds(t *testing.T) {
	clk := &clock{now: t0}
	s := newScript(clk)
	v := newView(s, clk)
	// The world as it was when we joined: Hicks is here, firing.
	s.events = append(s.events,
		wire.Event{Type: wire.EventPlayerJoined, Tick: 3, Player: 1, Name: "Hicks"},
		wire.Event{Type: wire.EventSpawn, Tick: 3, ID: 40, Kind: wire.KindPlayerMissile, Owner: 1, X: 300, Y: 300},
		wire.Event{Type: wire.EventPlayerJoined, Tick: 3, Player: 0, Name: "Ripley"},
	)
	s.advance()
	res := v.Update(0)
	if len(res.Sounds) != 0 {
		t.Errorf("the world as we joined made sounds: %+v", res.Sounds)
	}
	texts := func() []string {
		var f Frame
		var out []string
		for _, n := range v.Frame(&f, clk.now).Notices {
			out = append(out, n.Text)
		}
		return out
	}
	if got := texts(); !slices.Equal(got, []string{"Hicks is here", "You fly the cyan ship, Ripley"}) {
		t.Errorf("notices %q", got)
	}
	for range 60 {
		s.step(v)
	}
	s.events = append(s.events, wire.Event{Type: wire.EventPlayerJoined, Tick: s.tick, Player: 2, Name: "Vasquez"})
	if res := s.step(v); !hasSound(res, Cue{SoundJoin, 0.8}) {
		t.Errorf("no sound for a newcomer: %+v", res.Sounds)
	}
	s.events = append(s.events,
		wire.Event{Type: wire.EventPlayerLeft, Tick: s.tick, Player: 1, Reason: wire.LeftTimedOut},
		wire.Event{Type: wire.EventDeath, Tick: s.tick, Player: 2, Lives: 0, X: 500, Y: 200},
	)
	s.step(v)
	if got := texts(); !slices.Contains(got, "Vasquez joined") || !slices.Contains(got, "Hicks left (timed out)") || !slices.Contains(got, "Vasquez is out of lives") {
		t.Errorf("notices %q", got)
	}
	var f Frame
	if v.Frame(&f, clk.now); f.Notices[len(f.Notices)-1].Player != 2 {
		t.Errorf("the notice is not in the player's colour: %+v", f.Notices)
	}
	// The notices go after NoticeLife.
	for range int(model.NoticeLife*60) + 1 {
		s.step(v)
	}
	if got := texts(); len(got) != 0 {
		t.Errorf("notices %q after %v s", got, model.NoticeLife)
	}

	// Our ship is lost: it explodes when the drawn world reaches it, the
	// screen flashes for hitFlash, then we are out.
	s.events = append(s.events, wire.Event{Type: wire.EventDeath, Tick: s.tick, Player: 0, Lives: 0, X: 100, Y: 180})
	s.players[0].HasShip, s.players[0].Lives = false, 0
	for len(v.fx.List) == 0 {
		s.step(v)
	}
	if e := v.fx.List[0]; e.Kind != model.FxShipExplosion || e.Owner != 0 {
		t.Fatalf("effect %+v", e)
	}
	hit := clk.now
	if v.Frame(&f, hit.Add(100*time.Millisecond)); f.HitFlash <= 0 || f.HitFlash >= 1 {
		t.Errorf("hit flash %v 0.1 s after", f.HitFlash)
	}
	if v.Frame(&f, hit.Add(time.Duration((hitFlash+0.01)*float64(time.Second)))); f.HitFlash != 0 {
		t.Errorf("hit flash %v after %v s", f.HitFlash, hitFlash)
	}
	if f.Out <= 0 {
		t.Errorf("out of lives, not out: %v", f.Out)
	}
	for range 60 {
		s.step(v)
	}
	if v.Frame(&f, clk.now); f.Out != 1 {
		t.Errorf("out at %v after 1 s", f.Out)
	}
	for _, sp := range f.Sprites {
		if sp.Owner == 0 && sp.Kind == wire.KindPlayerShip && f.Own.Predicted {
			t.Error("a ship without a player drawn at a prediction")
		}
	}
}

// TestKindsAreBounded: the kinds remembered of the entities go with their
// Destroy, are bounded by the live entities when Destroys are lost, and
// are forgotten when a new game starts (its ticks start over).
func TestKindsAreBounded(t *testing.T) {
	s, v := settle(t)
	for id := uint32(100); id < 110; id++ {
		s.events = append(s.events, wire.Event{Type: wire.EventSpawn, Tick: s.tick, ID: id, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer})
	}
	s.step(v)
	if len(v.kinds) != 10 {
		t.Fatalf("%d kinds after 10 Spawns", len(v.kinds))
	}
	for id := uint32(100); id < 110; id++ {
		s.events = append(s.events, wire.Event{Type: wire.EventDestroy, Tick: s.tick, ID: id, Reason: wire.DestroyDespawned})
	}
	s.step(v)
	if len(v.kinds) != 0 {
		t.Fatalf("%d kinds after their Destroys", len(v.kinds))
	}
	// Spawns whose Destroys never come, of entities gone from the frames.
	live := []client.Entity{{ID: 5000, Kind: wire.KindBydosSlave, X: 900, Y: 400, Spawned: 1}}
	s.extra = live
	for k := range 1000 {
		s.events = append(s.events, wire.Event{Type: wire.EventSpawn, Tick: s.tick, ID: uint32(200 + k), Kind: wire.KindEnemyMissile, Owner: wire.NoPlayer})
		if k%10 == 0 {
			s.step(v)
		}
		if limit := len(s.frames[len(s.frames)-1].Entities) + keepSpare + 10; len(v.kinds) > limit {
			t.Fatalf("%d kinds with %d live entities", len(v.kinds), limit-keepSpare-10)
		}
	}
	// A new game: its ticks start over.
	s.events = append(s.events, wire.Event{Type: wire.EventDestroy, Tick: s.tick + 600, ID: 5000, Reason: wire.DestroyKilled})
	s.step(v)
	s.frames = s.frames[:0]
	s.tick, s.base = 0, s.clk.now.Add(-time.Second)
	s.step(v)
	if len(v.kinds) != 0 || len(v.pending) != 0 {
		t.Fatalf("%d kinds and %d effects pending from the game before", len(v.kinds), len(v.pending))
	}
}
