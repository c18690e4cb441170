package client

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/wire"
)

func spawnEv(id uint32, kind uint8, tick uint32, x, y float32, owner uint8) *wire.Event {
	return &wire.Event{Type: wire.EventSpawn, Tick: tick, ID: id, Kind: kind, X: x, Y: y, VX: -100, Owner: owner}
}

func destroyEv(id, tick uint32) *wire.Event {
	return &wire.Event{Type: wire.EventDestroy, Tick: tick, ID: id, Reason: wire.DestroyKilled}
}

// snapAt builds a rebuilt snapshot of tick with entities at (x, y).
func snapAt(tick uint32, ents ...wire.Entity) *link.Rebuilt {
	return &link.Rebuilt{Tick: tick, Entities: ents}
}

func rec(id uint32, kind uint8, x, y float32) wire.Entity {
	return wire.MakeEntity(id, kind, x, y, -120, 0, 2)
}

func mustEntity(t *testing.T, w *World, id uint32) Entity {
	t.Helper()
	e, ok := w.Entity(id)
	if !ok {
		t.Fatalf("entity %#x missing", id)
	}
	return e
}

func mustNoEntity(t *testing.T, w *World, id uint32) {
	t.Helper()
	if e, ok := w.Entity(id); ok {
		t.Fatalf("entity %#x present: %+v", id, e)
	}
}

func TestSpawnCreatesAndDestroyRemoves(t *testing.T) {
	w := NewWorld(wire.Features{})
	if !w.ApplyEvent(spawnEv(7, wire.KindBydosSlave, 10, 1300, 200, wire.NoPlayer)) {
		t.Fatal("spawn not applied")
	}
	e := mustEntity(t, w, 7)
	want := Entity{ID: 7, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer, X: 1300, Y: 200, VX: -100, Tick: 10, Spawned: 10}
	if e != want {
		t.Fatalf("got %+v, want %+v", e, want)
	}
	if !w.ApplyEvent(destroyEv(7, 20)) {
		t.Fatal("destroy not applied")
	}
	mustNoEntity(t, w, 7)
	if tick, ok := w.Destroyed(7); !ok || tick != 20 {
		t.Fatalf("Destroyed = %d, %v; want 20, true", tick, ok)
	}
}

func TestLateSpawnAfterDestroyIgnored(t *testing.T) {
	w := NewWorld(wire.Features{})
	if !w.ApplyEvent(destroyEv(9, 30)) {
		t.Fatal("early destroy not applied (remembered)")
	}
	if w.ApplyEvent(spawnEv(9, wire.KindPlayerMissile, 25, 100, 100, 0)) {
		t.Fatal("late spawn applied")
	}
	mustNoEntity(t, w, 9)
	// Same tick: the Spawn came first within the tick, so it is late too.
	w.ApplyEvent(destroyEv(10, 40))
	if w.ApplyEvent(spawnEv(10, wire.KindPlayerMissile, 40, 100, 100, 0)) {
		t.Fatal("late spawn of the same tick applied")
	}
	mustNoEntity(t, w, 10)
	// A newer Spawn is a reuse of the id.
	if !w.ApplyEvent(spawnEv(9, wire.KindBydosSlave, 31, 1, 2, wire.NoPlayer)) {
		t.Fatal("spawn of a reused id ignored")
	}
	mustEntity(t, w, 9)
}

func TestOlderDestroyIgnored(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(spawnEv(3, wire.KindBydosSlave, 50, 10, 10, wire.NoPlayer))
	if w.ApplyEvent(destroyEv(3, 40)) {
		t.Fatal("destroy older than the spawn applied")
	}
	mustEntity(t, w, 3)
	w.ApplyEvent(destroyEv(3, 60))
	if w.ApplyEvent(destroyEv(3, 55)) {
		t.Fatal("older destroy of a destroyed id applied")
	}
	if w.ApplyEvent(spawnEv(3, wire.KindBydosSlave, 45, 10, 10, wire.NoPlayer)) {
		t.Fatal("old spawn applied after destroy")
	}
	mustNoEntity(t, w, 3)
}

func TestSnapshotUpdatesKnownEntities(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(spawnEv(1, wire.KindBydosSlave, 10, 1300, 200, wire.NoPlayer))
	w.ApplySnapshot(snapAt(12, rec(1, wire.KindBydosSlave, 1290.5, 201.125), rec(2, wire.KindBydosSlave, 5, 5)))
	e := mustEntity(t, w, 1)
	if e.X != 1290.5 || e.Y != 201.125 || e.VX != -120 || e.VY != 0 || e.Frame != 2 || e.Tick != 12 {
		t.Fatalf("not updated: %+v", e)
	}
	mustNoEntity(t, w, 2) // unknown id: never created by a snapshot
}

func TestOlderRecordIgnored(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(spawnEv(1, wire.KindBydosSlave, 10, 1300, 200, wire.NoPlayer))
	w.ApplySnapshot(snapAt(30, rec(1, wire.KindBydosSlave, 500, 200)))
	w.ApplySnapshot(snapAt(27, rec(1, wire.KindBydosSlave, 600, 200)))
	if e := mustEntity(t, w, 1); e.X != 500 || e.Tick != 30 {
		t.Fatalf("older record applied: %+v", e)
	}
	// Another datagram of the same tick is applied.
	w.ApplySnapshot(snapAt(30, rec(1, wire.KindBydosSlave, 501, 200)))
	if e := mustEntity(t, w, 1); e.X != 501 {
		t.Fatalf("record of the same tick not applied: %+v", e)
	}
}

func TestRecordBeforeSpawnIgnored(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(spawnEv(1, wire.KindBydosSlave, 30, 1300, 200, wire.NoPlayer))
	w.ApplySnapshot(snapAt(27, rec(1, wire.KindBydosSlave, 5, 5)))
	if e := mustEntity(t, w, 1); e.X != 1300 || e.Tick != 30 {
		t.Fatalf("record older than the spawn applied: %+v", e)
	}
}

func TestRecordOfDestroyedIgnored(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(spawnEv(4, wire.KindEnemyMissile, 10, 100, 100, wire.NoPlayer))
	w.ApplyEvent(destroyEv(4, 20))
	for _, tick := range []uint32{15, 20, 21} {
		w.ApplySnapshot(snapAt(tick, rec(4, wire.KindEnemyMissile, 50, 50)))
		mustNoEntity(t, w, 4)
	}
	// Destroy before Spawn, then a snapshot: still nothing.
	w.ApplyEvent(destroyEv(5, 40))
	w.ApplySnapshot(snapAt(39, rec(5, wire.KindEnemyMissile, 50, 50)))
	mustNoEntity(t, w, 5)
}

func TestUnknownKindIgnored(t *testing.T) {
	w := NewWorld(wire.Features{})
	if w.ApplyEvent(spawnEv(8, 6, 10, 1, 1, wire.NoPlayer)) {
		t.Fatal("spawn of kind 6 reported as applied")
	}
	if w.ApplyEvent(spawnEv(11, 0, 10, 1, 1, wire.NoPlayer)) {
		t.Fatal("spawn of kind 0 reported as applied")
	}
	mustNoEntity(t, w, 8)
	w.ApplySnapshot(snapAt(12, rec(8, 6, 5, 5)))
	mustNoEntity(t, w, 8)
	if n := len(w.Entities(nil)); n != 0 {
		t.Fatalf("%d entities shown", n)
	}
	if w.ApplyEvent(destroyEv(8, 20)) {
		t.Fatal("destroy of an unknown-kind entity reported")
	}
	// A record whose kind differs from the entity's is ignored.
	w.ApplyEvent(spawnEv(12, wire.KindBydosSlave, 30, 1, 1, wire.NoPlayer))
	w.ApplySnapshot(snapAt(33, rec(12, wire.KindEnemyMissile, 7, 7)))
	if e := mustEntity(t, w, 12); e.X != 1 {
		t.Fatalf("record of another kind applied: %+v", e)
	}
	// Unknown event types are not applied.
	if w.ApplyEvent(&wire.Event{Type: 9, Tick: 40}) {
		t.Fatal("unknown event type applied")
	}
}

func TestForgetDestroyedAfter600Ticks(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(destroyEv(20, 100))
	w.ApplySnapshot(snapAt(699))
	if _, ok := w.Destroyed(20); !ok {
		t.Fatal("forgotten before 600 ticks")
	}
	if w.ApplyEvent(spawnEv(20, wire.KindBydosSlave, 90, 1, 1, wire.NoPlayer)) {
		t.Fatal("late spawn applied while remembered")
	}
	for tick := uint32(700); tick < 800; tick += 3 {
		w.ApplySnapshot(snapAt(tick))
	}
	if _, ok := w.Destroyed(20); ok {
		t.Fatal("still remembered 700 ticks after")
	}
	// Forgotten: a (very) late Spawn is applied again, as 4.5 allows.
	if !w.ApplyEvent(spawnEv(20, wire.KindBydosSlave, 90, 1, 1, wire.NoPlayer)) {
		t.Fatal("spawn of a forgotten id ignored")
	}
}

func TestDeathTeleport(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(spawnEv(2, wire.KindPlayerShip, 5, 100, 360, 1))
	w.ApplyEvent(spawnEv(3, wire.KindPlayerShip, 5, 100, 200, 0))
	w.ApplySnapshot(&link.Rebuilt{Tick: 9, NumPlayers: 2, Players: [4]wire.PlayerState{
		{Player: 0, HasShip: true, Ship: 3, Lives: 3},
		{Player: 1, HasShip: true, Ship: 2, Lives: 3},
	}, Entities: []wire.Entity{rec(2, wire.KindPlayerShip, 400, 300), rec(3, wire.KindPlayerShip, 100, 200)}})
	if !w.ApplyEvent(&wire.Event{Type: wire.EventDeath, Tick: 50, Player: 1, Lives: 2, X: 400, Y: 300}) {
		t.Fatal("death not applied")
	}
	if e := mustEntity(t, w, 2); e.Respawned != 50 {
		t.Fatalf("Respawned = %d, want 50", e.Respawned)
	}
	if e := mustEntity(t, w, 3); e.Respawned != 0 {
		t.Fatalf("other ship marked: %+v", e)
	}
	if p := w.Players()[1]; p.Lives != 2 {
		t.Fatalf("lives = %d, want 2", p.Lives)
	}
	w.ApplySnapshot(&link.Rebuilt{Tick: 51, NumPlayers: 2, Players: [4]wire.PlayerState{
		{Player: 0, HasShip: true, Ship: 3, Lives: 3},
		{Player: 1, HasShip: true, Ship: 2, Lives: 2},
	}, Entities: []wire.Entity{rec(2, wire.KindPlayerShip, 100, 360)}})
	frames := w.Frames(nil)
	last := frames[len(frames)-1]
	if last.Tick != 51 || last.Entities[0].ID != 2 || last.Entities[0].Respawned != 50 || last.Entities[0].X != 100 {
		t.Fatalf("frame after the death: %+v", last)
	}
	if frames[0].Entities[0].Respawned != 0 {
		t.Fatalf("frame before the death changed: %+v", frames[0])
	}
}

func TestPlayersFromSnapshotsAndDeaths(t *testing.T) {
	w := NewWorld(wire.Features{})
	ps := func(tick uint32, lives uint8, score uint32, ship bool) *link.Rebuilt {
		r := &link.Rebuilt{Tick: tick, NumPlayers: 1}
		r.Players[0] = wire.PlayerState{Player: 2, HasShip: ship, Ship: wire.NoEntity, Lives: lives, Score: score}
		if ship {
			r.Players[0].Ship = 77
		}
		return r
	}
	w.ApplySnapshot(ps(30, 3, 100, true))
	if p := w.Players()[2]; !p.HasShip || p.Ship != 77 || p.Lives != 3 || p.Score != 100 {
		t.Fatalf("player 2: %+v", p)
	}
	if !w.HasShip(2) || w.HasShip(0) {
		t.Fatal("HasShip wrong")
	}
	w.ApplySnapshot(ps(27, 1, 50, false)) // late
	if p := w.Players()[2]; p.Lives != 3 || p.Score != 100 || !p.HasShip {
		t.Fatalf("older player record applied: %+v", p)
	}
	w.ApplyEvent(&wire.Event{Type: wire.EventDeath, Tick: 28, Player: 2, Lives: 2})
	if p := w.Players()[2]; p.Lives != 3 {
		t.Fatalf("death older than the snapshot set lives: %+v", p)
	}
	w.ApplyEvent(&wire.Event{Type: wire.EventDeath, Tick: 31, Player: 2, Lives: 2})
	if p := w.Players()[2]; p.Lives != 2 {
		t.Fatalf("newer death ignored: %+v", p)
	}
	w.ApplySnapshot(ps(33, 2, 150, false))
	if p := w.Players()[2]; p.HasShip || p.Ship != wire.NoEntity || p.Score != 150 {
		t.Fatalf("newer record not applied: %+v", p)
	}
	// A player missing from a snapshot has no ship.
	w.ApplySnapshot(ps(36, 2, 150, true))
	w.ApplySnapshot(&link.Rebuilt{Tick: 39})
	if p := w.Players()[2]; p.HasShip {
		t.Fatalf("player absent from the snapshot keeps a ship: %+v", p)
	}
}

func TestPlayerJoinedLeft(t *testing.T) {
	w := NewWorld(wire.Features{})
	if !w.ApplyEvent(&wire.Event{Type: wire.EventPlayerJoined, Tick: 10, Player: 1, Name: "Alice"}) {
		t.Fatal("join not applied")
	}
	if p := w.Players()[1]; !p.Present || p.Name != "Alice" {
		t.Fatalf("after join: %+v", p)
	}
	if !w.ApplyEvent(&wire.Event{Type: wire.EventPlayerLeft, Tick: 20, Player: 1, Reason: wire.LeftTimedOut}) {
		t.Fatal("leave not applied")
	}
	if p := w.Players()[1]; p.Present {
		t.Fatalf("after leave: %+v", p)
	}
	// A late PlayerJoined (older than the PlayerLeft) is ignored.
	if w.ApplyEvent(&wire.Event{Type: wire.EventPlayerJoined, Tick: 15, Player: 1, Name: "Alice"}) {
		t.Fatal("late join applied")
	}
	// Another player takes the number.
	w.ApplyEvent(&wire.Event{Type: wire.EventPlayerJoined, Tick: 25, Player: 1, Name: "Bob"})
	if p := w.Players()[1]; !p.Present || p.Name != "Bob" {
		t.Fatalf("after rejoin: %+v", p)
	}
	if w.ApplyEvent(&wire.Event{Type: wire.EventPlayerLeft, Tick: 21, Player: 1}) {
		t.Fatal("late leave applied")
	}
}

func TestGameOver(t *testing.T) {
	w := NewWorld(wire.Features{})
	if _, over := w.GameOver(); over {
		t.Fatal("over at start")
	}
	ev := &wire.Event{Type: wire.EventGameOver, Tick: 900, NumScores: 2}
	ev.Scores[0] = wire.Score{Player: 0, Score: 1200}
	ev.Scores[1] = wire.Score{Player: 3, Score: 40}
	if !w.ApplyEvent(ev) {
		t.Fatal("game over not applied")
	}
	scores, over := w.GameOver()
	if !over || len(scores) != 2 || scores[0] != (wire.Score{Player: 0, Score: 1200}) || scores[1] != (wire.Score{Player: 3, Score: 40}) {
		t.Fatalf("GameOver = %v, %v", scores, over)
	}
	scores[0].Score = 1 // a copy
	if s, _ := w.GameOver(); s[0].Score != 1200 {
		t.Fatal("GameOver returned the world's slice")
	}
}

func TestFrameHistoryRing(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(spawnEv(1, wire.KindBydosSlave, 0, 1300, 200, wire.NoPlayer))
	for i := uint32(1); i <= 25; i++ {
		w.ApplySnapshot(snapAt(i*3, rec(1, wire.KindBydosSlave, float32(1300-i), 200)))
	}
	frames := w.Frames(nil)
	if len(frames) != HistoryLen {
		t.Fatalf("%d frames, want %d", len(frames), HistoryLen)
	}
	for k, f := range frames {
		i := uint32(k + 6)
		if f.Tick != i*3 || len(f.Entities) != 1 || f.Entities[0].X != float32(1300-i) {
			t.Fatalf("frame %d: %+v", k, f)
		}
	}
	// A late snapshot adds no frame; the same tick replaces the newest.
	w.ApplySnapshot(snapAt(70, rec(1, wire.KindBydosSlave, 0, 0)))
	w.ApplySnapshot(snapAt(75, rec(1, wire.KindBydosSlave, 7, 7)))
	frames = w.Frames(frames)
	if len(frames) != HistoryLen || frames[0].Tick != 18 || frames[HistoryLen-1].Tick != 75 || frames[HistoryLen-1].Entities[0].X != 7 {
		t.Fatalf("after late and same-tick snapshots: first %d, last %+v", frames[0].Tick, frames[HistoryLen-1])
	}
	// The caller owns the copy.
	frames[HistoryLen-1].Entities[0].X = -1
	if again := w.Frames(nil); again[HistoryLen-1].Entities[0].X != 7 {
		t.Fatal("Frames did not copy the entities")
	}
	// Entities are sorted by ID.
	w.ApplyEvent(spawnEv(0x01000000, wire.KindBydosSlave, 80, 1, 1, wire.NoPlayer))
	w.ApplyEvent(spawnEv(5, wire.KindBydosSlave, 80, 1, 1, wire.NoPlayer))
	w.ApplySnapshot(snapAt(81))
	frames = w.Frames(frames)
	ents := frames[len(frames)-1].Entities
	if len(ents) != 3 || ents[0].ID != 1 || ents[1].ID != 5 || ents[2].ID != 0x01000000 {
		t.Fatalf("entities not sorted by ID: %+v", ents)
	}
}

func TestFrameHistoryNoAllocation(t *testing.T) {
	w := NewWorld(wire.Features{})
	ents := make([]wire.Entity, 0, 100)
	for id := uint32(1); id <= 100; id++ {
		w.ApplyEvent(spawnEv(id, wire.KindBydosSlave, 0, 1300, float32(id), wire.NoPlayer))
		ents = append(ents, rec(id, wire.KindBydosSlave, 1300, float32(id)))
	}
	r := &link.Rebuilt{NumPlayers: 1}
	r.Players[0] = wire.PlayerState{Player: 0, Lives: 3, Ship: wire.NoEntity}
	r.Entities = ents
	var dst []Frame
	tick := uint32(0)
	step := func() {
		tick += 3
		r.Tick = tick
		for i := range ents {
			ents[i].F[wire.FieldX] -= 8
		}
		w.ApplySnapshot(r)
		dst = w.Frames(dst)
	}
	for range 2 * HistoryLen { // fill the ring and dst
		step()
	}
	testutil.NoAllocs(t, 200, "a snapshot and Frames in steady state", step)
	if len(dst) != HistoryLen || len(dst[HistoryLen-1].Entities) != 100 {
		t.Fatalf("got %d frames", len(dst))
	}
}

func TestDeathsOutOfOrder(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(&wire.Event{Type: wire.EventDeath, Tick: 40, Player: 0, Lives: 1})
	w.ApplyEvent(&wire.Event{Type: wire.EventDeath, Tick: 20, Player: 0, Lives: 2}) // late
	if p := w.Players()[0]; p.Lives != 1 {
		t.Fatalf("lives %d after a late Death, want 1", p.Lives)
	}
	if w.ApplyEvent(&wire.Event{Type: wire.EventDeath, Tick: 41, Player: 4}) {
		t.Fatal("Death of player 4 applied")
	}
}

// The world holds at most wire.MaxLiveEntities: the Spawn beyond is
// refused and reported; Spawns in reverse order of id cost no more than
// in order.
func TestLiveEntityLimit(t *testing.T) {
	w := NewWorld(wire.Features{})
	for i := 0; i < wire.MaxLiveEntities; i++ {
		if !w.ApplyEvent(spawnEv(uint32(wire.MaxLiveEntities-i), wire.KindBydosSlave, 10, 1, 2, wire.NoPlayer)) {
			t.Fatalf("spawn %d refused", i)
		}
	}
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	// Replacing a live id is no growth.
	if !w.ApplyEvent(spawnEv(5, wire.KindBydosSlave, 11, 1, 2, wire.NoPlayer)) {
		t.Fatal("respawn of a live id refused")
	}
	if w.ApplyEvent(spawnEv(1<<20, wire.KindBydosSlave, 11, 1, 2, wire.NoPlayer)) {
		t.Fatal("a spawn beyond the limit was applied")
	}
	var le *LimitError
	if err := w.Err(); !errors.As(err, &le) || !errors.Is(err, ErrTooMuch) || !errors.Is(err, ErrProtocol) {
		t.Fatalf("Err = %v, want a *LimitError", err)
	}
	if w.Len() != wire.MaxLiveEntities {
		t.Fatalf("%d live entities", w.Len())
	}
	es := w.Entities(nil)
	for i := 1; i < len(es); i++ {
		if es[i-1].ID >= es[i].ID {
			t.Fatalf("entities not sorted at %d", i)
		}
	}
}

// The destroyed ids remembered are bounded: the oldest go first.
func TestDestroyedLimit(t *testing.T) {
	w := NewWorld(wire.Features{})
	n := uint32(wire.MaxDestroyed + 1000)
	for id := uint32(1); id <= n; id++ {
		w.ApplyEvent(destroyEv(id, 10))
	}
	if len(w.dead) > wire.MaxDestroyed {
		t.Fatalf("%d destroyed ids remembered", len(w.dead))
	}
	if _, ok := w.Destroyed(1); ok {
		t.Fatal("the oldest destroyed id is still remembered")
	}
	if _, ok := w.Destroyed(n); !ok {
		t.Fatal("the newest destroyed id is forgotten")
	}
}

// Ids destroyed at the last tick of the u32 range are forgotten 10 s
// later on the local clock, though the ticks cannot pass them.
func TestForgetDestroyedAtLastTick(t *testing.T) {
	w := NewWorld(wire.Features{})
	t0 := time.Now()
	w.ApplyEventAt(destroyEv(9, math.MaxUint32), t0)
	w.ApplyEventAt(spawnEv(10, wire.KindBydosSlave, math.MaxUint32, 1, 2, wire.NoPlayer), t0.Add(5*time.Second))
	if _, ok := w.Destroyed(9); !ok {
		t.Fatal("forgotten after 5 s")
	}
	w.ApplySnapshotAt(snapAt(math.MaxUint32), t0.Add(11*time.Second))
	if _, ok := w.Destroyed(9); ok {
		t.Fatal("still remembered 11 s after its Destroy")
	}
}

// Frames copies only the frames that dst does not hold already; what it
// returns is the same as a fresh copy.
func TestFramesCopiesOnlyNew(t *testing.T) {
	w := NewWorld(wire.Features{})
	for id := uint32(1); id <= 50; id++ {
		w.ApplyEvent(spawnEv(id, wire.KindBydosSlave, 0, 1300, float32(id), wire.NoPlayer))
	}
	var dst []Frame
	for tick := uint32(3); tick <= 90; tick += 3 {
		w.ApplySnapshot(snapAt(tick, rec(tick%50+1, wire.KindBydosSlave, float32(tick), 1)))
		if tick%9 == 0 {
			// A second datagram of the same tick changes the newest frame.
			w.ApplySnapshot(snapAt(tick, rec(tick%50+2, wire.KindBydosSlave, float32(tick), 2)))
		}
		if tick%6 == 0 {
			w.ApplyEvent(destroyEv(tick/6, tick))
		}
		dst = w.Frames(dst)
		fresh := w.Frames(nil)
		if len(dst) != len(fresh) {
			t.Fatalf("tick %d: %d frames, want %d", tick, len(dst), len(fresh))
		}
		for i := range fresh {
			if dst[i].Tick != fresh[i].Tick || !slices.Equal(dst[i].Entities, fresh[i].Entities) || dst[i].Players != fresh[i].Players {
				t.Fatalf("tick %d: frame %d (tick %d) differs from a fresh copy", tick, i, fresh[i].Tick)
			}
		}
	}
	// Unchanged frames are not copied again: the entity slices move.
	before := &dst[1].Entities[0]
	dst = w.Frames(dst)
	if &dst[1].Entities[0] != before {
		t.Fatal("an unchanged frame was copied again")
	}
	w.ApplySnapshot(snapAt(93))
	dst = w.Frames(dst)
	if &dst[0].Entities[0] != before {
		t.Fatal("the frames that stayed were copied again")
	}
}

// A name from the server is cleaned before the world keeps it.
func TestPlayerNameCleaned(t *testing.T) {
	w := NewWorld(wire.Features{})
	w.ApplyEvent(&wire.Event{Type: wire.EventPlayerJoined, Tick: 1, Player: 1, Name: "A\u202Eb\nc" + strings.Repeat("d", 100)})
	if got := w.Players()[1].Name; got != "Ab c"+strings.Repeat("d", wire.MaxNameLen-4) {
		t.Fatalf("name %q", got)
	}
}

// Spawns in reverse order of id are as cheap as in order.
func BenchmarkSpawnReverse(b *testing.B) {
	for range b.N {
		w := NewWorld(wire.Features{})
		for i := range wire.MaxLiveEntities {
			w.ApplyEvent(spawnEv(uint32(wire.MaxLiveEntities-i), wire.KindBydosSlave, 10, 1, 2, wire.NoPlayer))
		}
	}
}

// A game loop reading the frames of a full world: one frame copied per
// snapshot, not twenty per call.
func BenchmarkFramesFullWorld(b *testing.B) {
	w := NewWorld(wire.Features{})
	var ents []wire.Entity
	for id := uint32(1); id <= 4096; id++ {
		w.ApplyEvent(spawnEv(id, wire.KindBydosSlave, 0, 1300, float32(id%700), wire.NoPlayer))
		ents = append(ents, rec(id, wire.KindBydosSlave, 1300, float32(id%700)))
	}
	var dst []Frame
	tick := uint32(0)
	for range HistoryLen {
		tick += 3
		w.ApplySnapshot(snapAt(tick, ents...))
		dst = w.Frames(dst)
	}
	b.ResetTimer()
	for i := range b.N {
		if i%3 == 0 { // 20 snapshots a second, 60 frames
			tick += 3
			w.ApplySnapshot(snapAt(tick, ents...))
		}
		dst = w.Frames(dst)
	}
}
