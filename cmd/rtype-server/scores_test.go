package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/pgtest"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server/store"
)

// runServer starts the binary with args on 127.0.0.1:0 and returns it,
// once it logged its address, with that address and its log so far.
func runServer(t *testing.T, bin string, args ...string) (*exec.Cmd, string, func() string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0", "-log-level", "info"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var mu sync.Mutex
	var logs []string
	addrs := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`msg="server listening" addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			logs = append(logs, sc.Text())
			mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addrs <- m[1]
			}
		}
	}()
	log := func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(logs, "\n") }
	select {
	case a := <-addrs:
		return cmd, a, log
	case <-time.After(testutil.Wait):
		t.Fatalf("the server did not log its address within %v; its log:\n%s", testutil.Wait, log())
	}
	return nil, "", nil
}

var pg pgtest.Shared // the PostgreSQL server of the package's tests

func TestMain(m *testing.M) {
	code := pg.Run(m)
	binaries.remove()
	os.Exit(code)
}

// A score is never lost once GameOver was sent (issue 14), in either
// backend: the real binary, built without cgo, plays a game to its
// GameOver over real sockets with -db an SQLite file in a temporary
// directory, or a PostgreSQL database of a throwaway server; the moment
// the client has the GameOver the process is killed with SIGKILL (no
// clean stop, no checkpoint); restarted with the same -db and
// -leaderboard, it prints the score, all time and this week. The
// PostgreSQL URL carries a password (which the throwaway server's trust
// authentication does not ask for): neither the log nor -leaderboard
// shows it.
func TestScoreSurvivesSIGKILL(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is Unix's")
	}
	// Without cgo: the SQLite driver and pgx are pure Go, and this is the
	// binary that must work.
	bin := buildStaticBinary(t)
	t.Run("sqlite", func(t *testing.T) {
		// The directory is made.
		scoreSurvivesSIGKILL(t, bin, filepath.Join(t.TempDir(), "data", "scores.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		db := strings.Replace(pg.Get(t).NewSchema(t), pgtest.User+"@", pgtest.User+":hunter2@", 1)
		scoreSurvivesSIGKILL(t, bin, db)
	})
}

func scoreSurvivesSIGKILL(t *testing.T, bin, db string) {
	srv, addr, logs := runServer(t, bin, "-db", db, "-test-quick-death", "-seed", "7")

	type over struct {
		ev     wire.Event
		killed error
	}
	got := make(chan over, 1)
	var once sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Ripley", Mode: wire.ModeClassic,
		Logger: testutil.Logger(t),
		OnEvent: func(ev *wire.Event) {
			if ev.Type == wire.EventGameOver {
				once.Do(func() { got <- over{*ev, srv.Process.Signal(syscall.SIGKILL)} })
			}
		}})
	if err != nil {
		t.Fatalf("dial the server: %v; its log:\n%s", err, logs())
	}
	defer c.Close()
	var o over
	select {
	case o = <-got:
	case <-time.After(testutil.Wait):
		t.Fatalf("no GameOver within %v; the server's log:\n%s", testutil.Wait, logs())
	}
	if o.killed != nil {
		t.Fatalf("SIGKILL: %v", o.killed)
	}
	err = srv.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the server ended with %v, want killed by SIGKILL", err)
	}
	if o.ev.NumScores != 1 || o.ev.Scores[0].Player != c.Player() {
		t.Fatalf("GameOver lists %+v, want only player %d", o.ev.Scores[:o.ev.NumScores], c.Player())
	}
	score := o.ev.Scores[0].Score
	if m := regexp.MustCompile(`msg="scores recorded".*took=(\S+)`).FindStringSubmatch(logs()); m != nil {
		t.Logf("the commit the GameOver waited for took %s", m[1])
	}

	out, err := exec.Command(bin, "-db", db, "-leaderboard").CombinedOutput()
	if err != nil {
		t.Fatalf("-leaderboard: %v\n%s", err, out)
	}
	for _, board := range []string{"classic, all time", "classic, this week"} {
		re := regexp.MustCompile(regexp.QuoteMeta(board) + `.*\n\s+1\. Ripley\s+(\d+)\s+1 player`)
		m := re.FindSubmatch(out)
		if m == nil || string(m[1]) != fmt.Sprint(score) {
			t.Errorf("%s: want Ripley first with %d points; -leaderboard printed:\n%s", board, score, out)
		}
	}

	// The restarted server serves on with the same database.
	_, _, logs2 := runServer(t, bin, "-db", db)
	for what, text := range map[string]string{"-leaderboard": string(out), "the log": logs(), "the restarted server's log": logs2()} {
		if strings.Contains(text, "hunter2") {
			t.Errorf("%s shows the database's password:\n%s", what, text)
		}
	}
	if !strings.Contains(logs(), `msg=leaderboard db=`) {
		t.Errorf("the log does not say which leaderboard:\n%s", logs())
	}
}

// -leaderboard without a database, with an empty one, and of a database
// with a stage's scores.
func TestPrintLeaderboard(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) // a Wednesday
	var out, errs bytes.Buffer
	if code := printLeaderboard(&out, &errs, "", now); code != 2 || !strings.Contains(errs.String(), "-db") {
		t.Errorf("no -db: status %d, %q", code, errs.String())
	}
	missing := filepath.Join(dir, "missing.db")
	errs.Reset()
	if code := printLeaderboard(&out, &errs, missing, now); code != 1 || !strings.Contains(errs.String(), missing) {
		t.Errorf("a missing file: status %d, %q", code, errs.String())
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("-leaderboard made a database")
	}
	path := filepath.Join(dir, "scores.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := printLeaderboard(&out, &errs, path, now); code != 0 || !strings.Contains(out.String(), "no scores yet") {
		t.Errorf("an empty database: status %d:\n%s", code, out.String())
	}
	err = st.Record(context.Background(), []store.Score{
		{Name: "Dallas", Mode: store.ModeStage, Stage: "1", Score: 4200, Players: 2, FinishedAt: now.Add(-time.Hour)},
		{Name: "Kane", Mode: store.ModeStage, Stage: "1", Score: 900, Players: 2, FinishedAt: now.Add(-7 * 24 * time.Hour)},
		{Name: "Kane", Mode: store.ModeStage, Stage: wire.CampaignBoard, Score: 7700, Players: 2, FinishedAt: now.Add(-time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := printLeaderboard(&out, &errs, path, now); code != 0 {
		t.Fatalf("status %d: %s", code, errs.String())
	}
	want := `
stage 1, all time
    1. Dallas                     4200  2 player(s)  2026-12-02 11:00 UTC
    2. Kane                        900  2 player(s)  2026-11-25 12:00 UTC

stage 1, this week, since Mon 2026-11-30 UTC
    1. Dallas                     4200  2 player(s)  2026-12-02 11:00 UTC
`
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("-leaderboard printed:\n%s\nwant it to end with:%s", out.String(), want)
	}
	if !strings.Contains(out.String(), "\ncampaign, all time\n") {
		t.Errorf("-leaderboard printed no campaign board:\n%s", out.String())
	}
	st.Close()
}
