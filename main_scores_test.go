package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/lobby"
	"rtype/net/wire"
)

// logWatch collects a game's log and tells when a line has a text.
type logWatch struct {
	mu   sync.Mutex
	logs strings.Builder
	seen chan string // every line, for waiting
}

func watchLog(r io.Reader) *logWatch {
	w := &logWatch{seen: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			w.mu.Lock()
			w.logs.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			select {
			case w.seen <- sc.Text():
			default:
			}
		}
	}()
	return w
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.logs.String()
}

// wait waits for a line with want in it.
func (w *logWatch) wait(t *testing.T, want string, d time.Duration) string {
	t.Helper()
	end := time.After(d)
	for {
		select {
		case line := <-w.seen:
			if strings.Contains(line, want) {
				return line
			}
		case <-end:
			t.Fatalf("no %q in the game's log within %v:\n%s", want, d, w)
		}
	}
}

// TestHostedScoresLast: the real game hosts a Classic game (-host), its
// data directory the test's; its only pilot idles until the game over;
// then the game is killed (SIGKILL). Started again on the same data
// directory, its server answers a lobby's ScoresRequest (PROTOCOL.md 7.16)
// with the score: a hosted game's leaderboard is a file under the user's
// data directory (rtype/scores.db) that outlives the process.
func TestHostedScoresLast(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()                            // the game's config and data homes
	bin := buildGame(t, t.TempDir(), raceEnabled) // not in dir: its name is rtype, as the data's directory
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"-host", "-mode", "classic", "-port", strconv.Itoa(port), "-name", "Ripley",
		"-replays", "none", "-discovery", ""}

	game, stderr := startGame(t, ctx, bin, dir, args...)
	logs := watchLog(stderr)
	logs.wait(t, "msg=joined", 60*time.Second)
	// 3 lives, idle: about 12 s. The GameOver goes out once the scores
	// are committed; the game shows it.
	over := logs.wait(t, `msg="scores recorded"`, 90*time.Second)
	logs.wait(t, `msg="game over" scores=`, 10*time.Second)
	game.Process.Kill()
	game.Wait()
	if _, err := os.Stat(filepath.Join(dir, "rtype", "scores.db")); err != nil {
		t.Fatalf("no leaderboard in the data directory: %v\n%s", err, logs)
	}

	game, stderr = startGame(t, ctx, bin, dir, args...)
	defer func() { game.Process.Kill(); game.Wait() }()
	logs = watchLog(stderr)
	logs.wait(t, "msg=hosting", 60*time.Second)
	var l *lobby.Lobby
	var err error
	for end := time.Now().Add(30 * time.Second); ; {
		l, err = lobby.Dial(ctx, lobby.Config{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Name: "Hicks",
			Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
		if err == nil || time.Now().After(end) {
			break
		}
	}
	if err != nil {
		t.Fatalf("no lobby login on the restarted host: %v\n%s", err, logs)
	}
	defer l.Close()
	if err := l.AskScores(wire.ModeClassic, wire.PeriodAllTime, 0, ""); err != nil {
		t.Fatal(err)
	}
	var sc wire.Scores
	for deadline := time.After(testutil.Wait); ; {
		var ok bool
		if sc, ok = l.Scores(); ok {
			break
		}
		select {
		case <-l.Changed():
		case <-deadline:
			t.Fatal("no answer to ScoresRequest")
		}
	}
	if sc.Status != wire.ScoresOK || sc.Count != 1 || sc.Rows[0].Name != "Ripley" || sc.Rows[0].Players != 1 {
		t.Fatalf("the restarted host's leaderboard: %+v; the game over was %s", sc, over)
	}
	t.Logf("after the restart: %s %d (%s)", sc.Rows[0].Name, sc.Rows[0].Score, over)
}
