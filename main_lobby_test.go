package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// TestTwoWindowsToTheLeaderboard is issue 14's "Done when" with two real
// game windows (two processes of the real binary, under the display),
// driven by -autotest-lobby, no address typed: one hosts (its scores in
// its data directory); the other finds it on the LAN (a loopback
// broadcast address), lists its rooms on the join screen and joins its
// room; they chat in the lobby; the host adds two bots; both get ready and
// play to the game over (-autotest-quick-death); Play again brings both
// back to the lobby. Then the host is killed and started again on the
// same data directory: its Leaderboard shows both scores (its log, and a
// screenshot), and so does the friend's, from the title menu (the last
// server joined). Nothing leaves 127.0.0.0/8.
func TestTwoWindowsToTheLeaderboard(t *testing.T) {
	needDisplay(t)
	bin := buildGame(t, t.TempDir(), raceEnabled)
	hostDir, friendDir := t.TempDir(), t.TempDir()
	if keep := os.Getenv("RTYPE_E2E_DIR"); keep != "" {
		hostDir = filepath.Join(keep, "two-windows")
		os.RemoveAll(hostDir)
		os.MkdirAll(hostDir, 0o755)
	}
	port, dport := freePort(t), freePort(t)
	disco := "127.255.255.255:" + strconv.Itoa(dport)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	common := []string{"-mode", "classic", "-discovery", disco, "-replays", "none"}
	hostArgs := append([]string{"-port", strconv.Itoa(port), "-name", "Ripley", "-autotest-quick-death"}, common...)

	host, stderr := startGame(t, ctx, bin, hostDir, append(hostArgs,
		"-autotest-lobby", "host,members:2,hear:hello Ripley,bots:2,members:4,ready,again,lobby")...)
	defer func() { host.Process.Kill(); host.Wait() }()
	hostLog := watchLog(stderr)
	hostLog.wait(t, "step=host", 60*time.Second) // hosting: its server runs

	friend, stderr := startGame(t, ctx, bin, friendDir, append([]string{"-name", "Hicks",
		"-autotest-lobby", "join,say:hello Ripley,members:4,ready,again,lobby,menu,leaderboard"}, common...)...)
	defer func() { friend.Process.Kill(); friend.Wait() }()
	friendLog := watchLog(stderr)
	friendLog.wait(t, "step=join", 60*time.Second)
	for _, step := range []string{"step=members", "step=ready", "step=again", "step=lobby"} {
		hostLog.wait(t, step, 90*time.Second)
	}
	friendLog.wait(t, "step=lobby", testutil.Wait)
	recorded := hostLog.String()
	if !strings.Contains(recorded, `msg="scores recorded"`) || !strings.Contains(recorded, "Name:Hicks") ||
		!strings.Contains(recorded, "Name:Ripley") {
		t.Fatalf("the host recorded no scores of both:\n%s", recorded)
	}

	// The host's server restarts on the same data directory and port.
	host.Process.Kill()
	host.Wait()
	shot := filepath.Join(hostDir, "leaderboard.png")
	host, stderr = startGame(t, ctx, bin, hostDir, append(hostArgs, "-autotest-lobby", "host,leaderboard",
		"-autotest-screenshot", shot)...)
	hostLog = watchLog(stderr)
	line := hostLog.wait(t, "msg=leaderboard", 60*time.Second)
	if !strings.Contains(line, "rows=2") {
		t.Fatalf("the restarted host's leaderboard: %s", line)
	}
	hostLog.wait(t, "screenshot saved", testutil.Wait)
	img := loadPNG(t, shot)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
		t.Fatalf("screenshot of %v", b)
	}
	line = friendLog.wait(t, "msg=leaderboard", 60*time.Second)
	if !strings.Contains(line, "rows=2") || !strings.Contains(line, "127.0.0.1:"+strconv.Itoa(port)) {
		t.Fatalf("the friend's leaderboard: %s", line)
	}
}
