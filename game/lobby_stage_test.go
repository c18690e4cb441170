package game

import (
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/render"
)

// menuValue returns the value of the lobby's menu row labelled label, and
// whether there is one.
func menuValue(s *LobbyScene, label string) (string, bool) {
	for _, it := range s.menu.Items {
		if it.Label == label {
			if it.Value == nil {
				return "", true
			}
			return it.Value(), true
		}
	}
	return "", false
}

// TestLobbyStartStage: the owner of a Stage room picks the stage its game
// starts at, shown with its title; a member sees it and has no such
// control; the room list shows it; the mode's change to Classic and back
// brings it back to the server's stage; the game starts at the stage
// picked: its intro is the warship's. Two real game windows under Xvfb,
// on 127.0.0.1.
func TestLobbyStartStage(t *testing.T) {
	host := newTestGame(t, Options{Port: 0, Name: "Ripley"})
	defer host.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	host.hostCfg.Mode = wire.ModeStage
	hl := hostRoom(t, host, screen, "host")
	if v, ok := menuValue(hl, "Stage"); !ok || v != "1 THE BYDO FRONT" || hl.st.Settings.Stage != 1 {
		t.Fatalf("the host's new room: Stage row %q (%v), settings %+v", v, ok, hl.st.Settings)
	}
	stageIs := func(s *LobbyScene, n uint8) func() bool {
		return func() bool { return s.in && s.st.Settings.Stage == n }
	}
	choose(t, host, hl, "Stage")
	if !run(t, host, screen, testutil.Wait, stageIs(hl, 2)) {
		t.Fatalf("the room's stage after choosing: %+v", hl.st.Settings)
	}
	if v, _ := menuValue(hl, "Stage"); v != "2 THE WARSHIP" || roomModeTitle(hl.st.Settings) != "Stage: 2 THE WARSHIP" {
		t.Fatalf("Stage row %q, status %q", v, roomModeTitle(hl.st.Settings))
	}

	// A friend joins by the code: it sees the stage, and cannot change it.
	friend := newTestGame(t, Options{Name: "Hicks", Mode: wire.ModeStage})
	defer friend.shutdown()
	both := func(done func() bool) func() bool {
		return func() bool {
			if err := host.Update(); err != nil {
				t.Fatalf("host Update: %v", err)
			}
			host.Draw(screen)
			return done()
		}
	}
	addr := host.host.LocalAddr()
	friend.setScene(NewLobbyConnectScene(friend, addr, false, roomAction{code: hl.st.Code}))
	var fl *LobbyScene
	if !run(t, friend, screen, testutil.Wait, both(func() bool {
		fl, _ = friend.scene.(*LobbyScene)
		return fl != nil && fl.in
	})) {
		t.Fatalf("the friend is not in the room: scene %T", friend.scene)
	}
	if _, ok := menuValue(fl, "Stage"); ok || roomModeTitle(fl.st.Settings) != "Stage: 2 THE WARSHIP" {
		t.Fatalf("the friend's room %+v: a Stage row %v", fl.st.Settings, ok)
	}

	// It leaves: the room list shows the room's stage.
	choose(t, friend, fl, "Leave room")
	code := hl.st.Code.String()
	if !run(t, friend, screen, testutil.Wait, both(func() bool { _, ok := menuValue(fl, code); return fl.browse && ok })) {
		t.Fatalf("the friend's room list: %+v", fl.listing)
	}
	if v, _ := menuValue(fl, code); !strings.HasPrefix(v, "Stage 2 · 1/4") {
		t.Fatalf("the room listed as %q", v)
	}

	// Classic has no stage; back to Stage, the server's own: 1.
	choose(t, host, hl, "Mode")
	if !run(t, host, screen, testutil.Wait, func() bool { return hl.st.Settings.Mode == wire.ModeClassic }) {
		t.Fatalf("Classic: %+v", hl.st.Settings)
	}
	if _, ok := menuValue(hl, "Stage"); ok || hl.st.Settings.Stage != 0 {
		t.Fatalf("a Classic room: %+v, a Stage row %v", hl.st.Settings, ok)
	}
	choose(t, host, hl, "Mode")
	if !run(t, host, screen, testutil.Wait, func() bool { return hl.st.Settings.Mode == wire.ModeStage && hl.st.Settings.Stage == 1 }) {
		t.Fatalf("Stage again: %+v", hl.st.Settings)
	}

	// Right on the Stage row: 2; the game starts there.
	for i, it := range hl.menu.Items {
		if it.Label == "Stage" {
			hl.menu.Sel = i
		}
	}
	host.in = Input{Right: true}
	hl.menu.Update(&host.in)
	host.in = Input{}
	if !run(t, host, screen, testutil.Wait, stageIs(hl, 2)) {
		t.Fatalf("the room's stage after Right: %+v", hl.st.Settings)
	}
	choose(t, host, hl, "Start now")
	play := waitScene[*PlayScene](t, host, screen, testutil.Wait, "the host does not play")
	if !run(t, host, screen, testutil.Wait, func() bool { return play.frame.Stage.Banner != "" }) {
		t.Fatalf("no intro banner: %+v", play.frame.Stage)
	}
	if b := play.frame.Stage; b.Banner != "STAGE 2" || b.BannerSub != "THE WARSHIP" {
		t.Fatalf("the game's intro %q / %q, want the warship's", b.Banner, b.BannerSub)
	}
}
