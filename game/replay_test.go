package game

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/internal/testutil"
	"rtype/net/replay"
	"rtype/net/wire"
	"rtype/render"
)

// TestGameIsRecordedAndReplayed: a hosted game is recorded in the replay
// directory; the title's Replays menu lists it, and choosing it shows the
// game again: the ship flies and fires, at 2x, following the player;
// Escape goes back to the list.
func TestGameIsRecordedAndReplayed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replays")
	script, _ := core.ParseInputScript("right+fire:forever")
	// Classic: Fire held shoots all along (in Stage mode it charges).
	g := newTestGame(t, Options{Host: true, Port: 0, Name: "Tester", Mode: wire.ModeClassic, InputScript: script, ReplayDir: dir})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	play := waitScene[*PlayScene](t, g, screen, testutil.Wait, "no play")
	if !run(t, g, screen, testutil.Wait, func() bool {
		for _, s := range play.frame.Sprites {
			if s.Kind == wire.KindPlayerMissile {
				return true
			}
		}
		return false
	}) {
		t.Fatal("no missile in the play")
	}
	// A second of the game more (60 of the server's ticks), recorded.
	c := g.session.C
	tick := c.Stats().SnapshotTick
	if !run(t, g, screen, testutil.Wait, func() bool { return c.Stats().SnapshotTick >= tick+60 }) {
		t.Fatal("the game did not go on")
	}
	g.toMenu() // ends the session: the recording is written

	list, err := replay.List(dir)
	if err != nil || len(list) != 1 || list[0].Size < 1000 {
		t.Fatalf("recordings %+v, %v", list, err)
	}
	g.setScene(NewReplaysScene(g))
	rs := g.scene.(*ReplaysScene)
	if len(rs.menu.Items) != 2 { // the recording and Back
		t.Fatalf("the list: %+v", rs.menu.Items)
	}
	rs.menu.Items[0].Activate()
	sc, ok := g.scene.(*ReplayScene)
	if !ok {
		t.Fatalf("scene %T after choosing the recording", g.scene)
	}
	sc.r.SetSpeed(2)
	missile := false
	if !run(t, g, screen, testutil.Wait, func() bool {
		for _, s := range sc.frame.Sprites {
			missile = missile || s.Kind == wire.KindPlayerMissile
		}
		return missile && sc.frame.HUD[sc.r.Following()].Local && sc.frame.HUD[sc.r.Following()].Name == "Tester"
	}) {
		t.Fatalf("the replay shows no missile or no marked panel: %+v", sc.frame.HUD)
	}
	// At 2x, each update plays two ticks of the game: 15 updates, half a
	// second (or up to the recording's end).
	from, n := sc.r.Pos(), 0
	run(t, g, screen, testutil.Wait, func() bool { n++; return n == 15 || sc.r.Pos() >= sc.r.Length() })
	if want := min(from+time.Duration(n)*2*time.Second/60, sc.r.Length()); sc.r.Pos() < want-time.Millisecond {
		t.Fatalf("the replay went from %v to %v in %d updates at 2x, want %v", from, sc.r.Pos(), n, want)
	}
	g.in = Input{Back: true}
	sc.Update(g)
	if _, ok := g.scene.(*ReplaysScene); !ok {
		t.Fatalf("Escape went to %T", g.scene)
	}
}
