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
	mu    sync.Mutex
	lines []string
	next  int           // the first line the next wait looks at
	more  chan struct{} // closed at a new line or the log's end, then replaced
	ended bool          // the game closed its log (it exited)
}

// watchLog reads the log r (a game's stderr) to its end.
func watchLog(r io.Reader) *logWatch {
	w := &logWatch{more: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			w.add(sc.Text(), false)
		}
		w.add("", true)
	}()
	return w
}

func (w *logWatch) add(line string, end bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if end {
		w.ended = true
	} else {
		w.lines = append(w.lines, line)
	}
	close(w.more)
	w.more = make(chan struct{})
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n") + "\n"
}

// wait waits for a line with want in it, after the line the last wait
// returned (none is missed: the log is kept whole), and returns it; it
// fails the test if the log ends first, or after d (a deadlock guard).
func (w *logWatch) wait(t *testing.T, want string, d time.Duration) string {
	t.Helper()
	end := time.After(d)
	for {
		w.mu.Lock()
		for ; w.next < len(w.lines); w.next++ {
			if l := w.lines[w.next]; strings.Contains(l, want) {
				w.next++
				w.mu.Unlock()
				return l
			}
		}
		ended, more := w.ended, w.more
		w.mu.Unlock()
		if ended {
			t.Fatalf("no %q in the game's log, which ended:\n%s", want, w)
		}
		select {
		case <-more:
		case <-end:
			t.Fatalf("no %q in the game's log within %v:\n%s", want, d, w)
		}
	}
}

// end waits for the end of the log: the game exited (or closed its
// stderr), within d.
func (w *logWatch) end(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		w.mu.Lock()
		ended, more := w.ended, w.more
		w.mu.Unlock()
		if ended {
			return
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("the game did not exit within %v:\n%s", d, w)
		}
	}
}

// TestHostedScoresLast: the real game hosts a Classic game (-host), its
// data directory the test's; its only pilot idles until the game over
// (-autotest-quick-death: its one life lost within a second);
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

	game, stderr := startGame(t, ctx, bin, dir, append(args, "-autotest-quick-death")...)
	logs := watchLog(stderr)
	logs.wait(t, "msg=joined", 60*time.Second)
	// The GameOver goes out once the scores are committed; the game shows
	// it.
	over := logs.wait(t, `msg="scores recorded"`, 90*time.Second)
	logs.wait(t, `msg="game over" scores=`, testutil.Wait)
	game.Process.Kill()
	logs.end(t, testutil.Wait)
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
	// The server listens once the game logged hosting; a refused dial is
	// tried again (polled, with the deadlock guard).
	testutil.Eventually(testutil.Wait, func() bool {
		l, err = lobby.Dial(ctx, lobby.Config{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Name: "Hicks",
			Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
		return err == nil
	})
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
