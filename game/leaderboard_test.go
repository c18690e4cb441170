package game

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/internal/testrules"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/render"
	"rtype/server"
	"rtype/server/store"
	"rtype/sim/stage"
)

// chooseIn activates the row labelled label of a menu.
func chooseIn(t *testing.T, g *Game, m *Menu, label string) {
	t.Helper()
	for i, it := range m.Items {
		if it.Label == label && !it.Disabled {
			m.Sel = i
			g.in = Input{Confirm: true}
			m.Update(&g.in)
			g.in = Input{}
			return
		}
	}
	var labels []string
	for _, it := range m.Items {
		labels = append(labels, it.Label)
	}
	t.Fatalf("no row %q to choose in %q", label, labels)
}

// shoot reads the screen's pixels (as the game's screenshot does) and
// saves them as a PNG in RTYPE_E2E_DIR, when set, to look at: encoding
// 1280 x 720 pixels takes seconds under -race on a busy machine, and
// nothing checks the file.
func shoot(t *testing.T, screen *ebiten.Image, name string) {
	t.Helper()
	b := screen.Bounds()
	pix := make([]byte, 4*b.Dx()*b.Dy())
	screen.ReadPixels(pix)
	dir := os.Getenv("RTYPE_E2E_DIR")
	if dir == "" {
		return
	}
	os.MkdirAll(dir, 0o755)
	var buf bytes.Buffer
	if err := png.Encode(&buf, &image.RGBA{Pix: pix, Stride: 4 * b.Dx(), Rect: b}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)

}

// settle runs g for 30 frames: past the scene's fade-in, for a
// screenshot.
func settle(t *testing.T, g *Game, screen *ebiten.Image) {
	t.Helper()
	frames(t, g, screen, 30)
}

// TestLobbyPlayToTheLeaderboard is issue 14's "Done when": two game
// windows on one machine, no address typed. One hosts (its scores in a
// file of its data directory); the other finds it on the LAN (loopback
// broadcast), sees its room in the join screen's room list and joins it
// from there; they chat in the lobby, the host adds two bots, both get
// ready and play to the game over; Play again brings them back to the
// lobby. Then the host restarts its server on the same data directory,
// and both see their scores in the Leaderboard view: the host from its
// new lobby, the friend from the title menu (the last server joined).
// Nothing leaves 127.0.0.0/8.
func TestLobbyPlayToTheLeaderboard(t *testing.T) {
	data := t.TempDir()
	host := newTestGame(t, Options{Port: 0, Name: "Ripley", DiscoveryListen: "127.255.255.255:0",
		ScoresDB: filepath.Join(data, "rtype", "scores.db")})
	defer host.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	host.hostCfg.Mode = wire.ModeClassic
	host.hostCfg.Rules = testrules.QuickDeath() // idle ships die at once: a short game
	hl := hostRoom(t, host, screen, "host")
	port := host.host.Port
	da, err := netip.ParseAddrPort(host.host.srv.DiscoveryAddr())
	if err != nil {
		t.Fatal(err)
	}

	// The friend fires all game long (and may score); the host idles.
	script, err := core.ParseInputScript("fire:forever")
	if err != nil {
		t.Fatal(err)
	}
	friend := newTestGame(t, Options{Name: "Hicks", Discovery: da.String(), Mode: wire.ModeClassic, InputScript: script})
	defer friend.shutdown()
	hostToo := func(done func() bool) func() bool {
		return func() bool {
			if err := host.Update(); err != nil {
				t.Fatalf("host Update: %v", err)
			}
			host.Draw(screen)
			return done()
		}
	}
	// The join screen: the LAN finds the host; with the focus on it, its
	// rooms are listed; Right, Enter joins the host's room.
	j := NewJoinScene(friend)
	friend.setScene(j)
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool { return len(j.rows) == 1 })) {
		t.Fatalf("the join screen lists %+v", j.rows)
	}
	j.focus = 0
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool { return len(j.roomRows()) == 1 })) {
		t.Fatalf("the join screen lists no room of the host: %+v", j.rooms)
	}
	if r := j.roomRows()[0]; r.Code != hl.st.Code || r.Players != 1 || r.State != wire.RoomLobby {
		t.Fatalf("room listed %+v, the host's is %s", r, hl.st.Code)
	}
	settle(t, friend, screen)
	shoot(t, screen, "join-rooms.png")
	for _, in := range []Input{{Right: true}, {Confirm: true}} {
		friend.in = in
		j.Update(friend)
	}
	friend.in = Input{}
	var fl *LobbyScene
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool {
		fl, _ = friend.scene.(*LobbyScene)
		return fl != nil && fl.in && fl.st.Count == 2 && hl.st.Count == 2
	})) {
		t.Fatalf("the friend is not in the host's room: scene %T", friend.scene)
	}
	if fl.st.Code != hl.st.Code {
		t.Fatalf("friend's room %s, host's %s", fl.st.Code, hl.st.Code)
	}

	// Chat in the lobby.
	for _, in := range []Input{{Chat: true}, {Chars: []rune("hello Ripley")}, {Confirm: true}} {
		friend.in = in
		fl.chat.update(friend)
	}
	friend.in = Input{}
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool {
		for _, l := range hl.chat.log.Lines(nil, host.T(), true) {
			if l.Text == "hello Ripley" && l.Name == "Hicks" {
				return true
			}
		}
		return false
	})) {
		t.Fatal("the host did not see the line")
	}

	// Two bots, ready, play to the game over.
	choose(t, host, hl, "Add a bot")
	choose(t, host, hl, "Add a bot")
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool { return fl.st.Count == 4 })) {
		t.Fatalf("friend sees %d members", fl.st.Count)
	}
	choose(t, friend, fl, "Ready")
	choose(t, host, hl, "Ready")
	var hover, fover *GameOverScene
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool {
		hover, _ = host.scene.(*GameOverScene)
		fover, _ = friend.scene.(*GameOverScene)
		return hover != nil && fover != nil
	})) {
		t.Fatalf("no game over for both: host %T, friend %T", host.scene, friend.scene)
	}
	want := map[string]uint32{}
	for _, r := range hover.ranked {
		if r.Name == "Ripley" || r.Name == "Hicks" {
			want[r.Name] = r.Score
		}
	}
	if len(want) != 2 {
		t.Fatalf("final scores %+v", hover.ranked)
	}
	// Play again: the room is Over once GameOver is acknowledged, and
	// both are back in its lobby, bots included.
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool {
		hs, _ := host.lobby.State()
		fs, _ := friend.lobby.State()
		return hs.State == wire.RoomOver && fs.State == wire.RoomOver
	})) {
		t.Fatal("the room is not Over")
	}
	chooseIn(t, friend, &fover.menu, "Play again")
	chooseIn(t, host, &hover.menu, "Play again")
	if !run(t, friend, screen, testutil.Wait, hostToo(func() bool {
		hl, _ = host.scene.(*LobbyScene)
		fl, _ = friend.scene.(*LobbyScene)
		return hl != nil && fl != nil && hl.in && fl.in && hl.st.State == wire.RoomLobby &&
			fl.st.State == wire.RoomLobby && fl.st.Count == 4 && fl.st.Code == hl.st.Code
	})) {
		t.Fatalf("not both back in the lobby: host %T, friend %T", host.scene, friend.scene)
	}

	// The host's server restarts on the same data directory (and port).
	host.toMenu()
	host.opt.Port = port
	hl = hostRoom(t, host, screen, "restarted host")
	if host.host.Port != port {
		t.Logf("the restarted host has port %d, not %d", host.host.Port, port)
	}
	shows := func(s *LeaderboardScene) func() bool {
		return func() bool {
			if !s.have || s.sc.Mode != wire.ModeClassic || s.sc.Period != wire.PeriodAllTime {
				return false
			}
			got := map[string]uint32{}
			for _, r := range s.sc.Rows[:s.sc.Count] {
				got[r.Name] = r.Score
			}
			return len(got) == 2 && got["Ripley"] == want["Ripley"] && got["Hicks"] == want["Hicks"]
		}
	}
	choose(t, host, hl, "Leaderboard")
	hb, ok := host.scene.(*LeaderboardScene)
	if !ok {
		t.Fatalf("Leaderboard opened %T", host.scene)
	}
	if !run(t, host, screen, testutil.Wait, shows(hb)) {
		t.Fatalf("the host's leaderboard shows %+v (err %q), want %v", hb.sc, hb.err, want)
	}
	settle(t, host, screen)
	shoot(t, screen, "leaderboard-host.png")
	// This week's has them too; Esc goes back to the lobby.
	host.in = Input{Right: true}
	hb.menu.Sel = 1
	hb.menu.Update(&host.in)
	host.in = Input{}
	if !run(t, host, screen, testutil.Wait, func() bool { return hb.have && hb.sc.Period == wire.PeriodWeek && hb.sc.Count == 2 }) {
		t.Fatalf("this week's leaderboard %+v", hb.sc)
	}
	chooseIn(t, host, &hb.menu, "Back")
	if host.scene != hl {
		t.Fatalf("Back from the leaderboard went to %T", host.scene)
	}

	// The friend's lobby ended with the old server; from the title menu,
	// the leaderboard of the last server joined.
	friend.setScene(NewTitleScene(friend))
	chooseIn(t, friend, &friend.scene.(*TitleScene).menu, "Leaderboard")
	fb, ok := friend.scene.(*LeaderboardScene)
	if !ok {
		t.Fatalf("Leaderboard opened %T", friend.scene)
	}
	if !run(t, friend, screen, testutil.Wait, hostToo(shows(fb))) {
		t.Fatalf("the friend's leaderboard shows %+v (err %q), want %v", fb.sc, fb.err, want)
	}
	settle(t, friend, screen)
	shoot(t, screen, "leaderboard-friend.png")
	chooseIn(t, friend, &fb.menu, "Back")
	if _, ok := friend.scene.(*TitleScene); !ok {
		t.Fatalf("Back went to %T", friend.scene)
	}
}

// The Leaderboard of the title menu: without a server joined it says so;
// a server without scores says so; when the server goes away, the view
// says why instead of waiting.
func TestLeaderboardFromTheTitle(t *testing.T) {
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	g := newTestGame(t, Options{Name: "Newt"})
	defer g.shutdown()
	if s := NewLeaderboardScene(g, nil); s.err == "" || s.l != nil || s.dial != nil {
		t.Fatalf("no server joined yet: %+v", s)
	}
	srv := testserver.Start(t, server.Config{MaxSessionsPerIP: 8})
	g.settings.Recent = []string{srv.Addr()}
	s := NewLeaderboardScene(g, nil)
	g.setScene(s)
	if !run(t, g, screen, testutil.Wait, func() bool { return s.err != "" }) {
		t.Fatal("no word from a server without scores")
	}
	if s.err != capitalize(wire.ScoresStatus(wire.ScoresNoLeaderboard)) {
		t.Fatalf("a server without scores: %q", s.err)
	}
	s.err = ""
	srv.Close()
	if !run(t, g, screen, testutil.Wait, func() bool { return s.err != "" && s.l == nil }) {
		t.Fatal("the view did not see its server go")
	}
	g.in = Input{Back: true}
	s.Update(g)
	g.in = Input{}
	if _, ok := g.scene.(*TitleScene); !ok {
		t.Fatalf("Esc went to %T", g.scene)
	}
}

func TestParseLobbyScript(t *testing.T) {
	steps, err := parseLobbyScript("host,members:2,say:hello, Ripley,bots:2,ready,again,leaderboard")
	if err == nil {
		t.Fatalf("a step with no name (\" Ripley\") parsed: %+v", steps)
	}
	steps, err = parseLobbyScript("host,members:2,hear:hello Ripley,bots:2,ready,again,lobby,menu,leaderboard,quit")
	if err != nil || len(steps) != 10 || steps[1].n != 2 || steps[2].arg != "hello Ripley" {
		t.Fatalf("%+v %v", steps, err)
	}
	for _, bad := range []string{"", "dance", "members", "members:5", "bots:x", "ready:now", "say"} {
		if _, err := parseLobbyScript(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The scores screen pages through the boards (PROTOCOL.md 7.16): Classic,
// the campaign, each stage of the campaign, their second loops, and round
// to Classic; each shows its own rows, asked for by its name (the rate
// limit only makes it ask again a moment later).
func TestLeaderboardBoards(t *testing.T) {
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	db, err := store.Open(filepath.Join(t.TempDir(), "scores.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	var scores []store.Score
	want := map[string]string{} // board's title: the one row's name
	for i, b := range core.Boards(stage.Names()) {
		name := fmt.Sprintf("Pilot%d", i)
		sc := store.Score{Name: name, Mode: store.ModeStage, Stage: b.Stage, Score: uint32(1000 + i), Players: 1, FinishedAt: now}
		if b.Mode == wire.ModeClassic {
			sc.Mode = store.ModeClassic
		}
		scores = append(scores, sc)
		want[b.Title()] = name
	}
	if err := db.Record(context.Background(), scores); err != nil {
		t.Fatal(err)
	}
	srv := testserver.Start(t, server.Config{MaxSessionsPerIP: 8, Leaderboard: db})
	g := newTestGame(t, Options{Name: "Newt", Mode: wire.ModeStage})
	defer g.shutdown()
	g.settings.Recent = []string{srv.Addr()}
	s := NewLeaderboardScene(g, nil)
	g.setScene(s)
	var seen []string
	for range len(want) + 1 {
		title := s.boards[s.board].Title()
		if !run(t, g, screen, testutil.Wait, func() bool { return s.have || s.err != "" }) || s.err != "" {
			t.Fatalf("board %s: no answer (err %q)", title, s.err)
		}
		if s.sc.Count != 1 || s.sc.Rows[0].Name != want[title] {
			t.Errorf("board %s shows %+v, want %s's row", title, s.sc.Rows[:s.sc.Count], want[title])
		}
		seen = append(seen, title)
		s.menu.Sel = 0 // Board: Right shows the next
		g.in = Input{Right: true}
		s.menu.Update(&g.in)
		g.in = Input{}
	}
	if wantSeen := []string{"Campaign", "Stage 1", "Stage 2", "Stage 1, loop 2", "Stage 2, loop 2", "Classic", "Campaign"}; !slices.Equal(seen, wantSeen) {
		t.Errorf("boards shown %q, want %q", seen, wantSeen)
	}
}
