package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/evilserver"
)

// TestEndToEndEvilServer joins a hostile server (internal/evilserver) with
// the real rtype binary, on the current display, and attacks it: a flood
// of Spawns (100,000 distinct ids at 5,000 per second, the issue's
// attack), and a jump of the snapshot tick to 0xFFFFFFF0 then back. The
// game must keep its frame rate (read from its autotest log) and stay
// under 300 MB of RSS, show the error screen with the message, take its
// screenshot and quit cleanly when told.
func TestEndToEndEvilServer(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	// The game as players get it, without the race detector: its memory
	// and frame rate are what the attack is judged by, and the detector
	// multiplies the one and divides the other.
	bin := buildGame(t, dir, false)
	for _, tc := range []struct {
		name   string
		attack func(ctx context.Context, s *evilserver.Server)
		want   string
	}{
		{"spawn flood", func(ctx context.Context, s *evilserver.Server) { s.SpawnFlood(ctx, 100_000, 5_000) },
			"The server sent more than the protocol allows: a Spawn beyond 8192 live entities"},
		{"tick jump", func(ctx context.Context, s *evilserver.Server) {
			s.Jump(0xFFFFFFF0)
			select {
			case <-time.After(300 * time.Millisecond):
				s.Jump(900) // and back to normal ticks
			case <-ctx.Done():
			}
		}, "The server broke the protocol: its tick jumped from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runEvil(t, bin, filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")), tc.attack, tc.want)
		})
	}
}

func runEvil(t *testing.T, bin, dir string, attack func(context.Context, *evilserver.Server), want string) {
	os.MkdirAll(dir, 0o755)
	s, err := evilserver.Start(evilserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	game, stderr := startGame(t, ctx, bin, dir,
		"-join", s.Addr(), "-name", "Tester",
		"-autotest-screenshot", shot, "-autotest-screenshot-after", "4s",
		"-autotest-quit-after", "12s")
	var mu sync.Mutex
	var logs strings.Builder
	var attackAt time.Time
	var fps, before []float64 // the rates logged once the attack started, and before
	joined := make(chan struct{})
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		fpsRe := regexp.MustCompile(`msg=autotest fps=(\d+)`)
		once := sync.Once{}
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			logs.WriteString(line + "\n")
			if m := fpsRe.FindStringSubmatch(line); m != nil {
				f, _ := strconv.ParseFloat(m[1], 64)
				if attackAt.IsZero() {
					before = append(before, f)
				} else {
					fps = append(fps, f)
				}
			}
			mu.Unlock()
			if strings.Contains(line, "msg=joined") {
				once.Do(func() { close(joined) })
			}
		}
	}()
	gameLogs := func() string {
		mu.Lock()
		defer mu.Unlock()
		return logs.String()
	}
	select {
	case <-joined:
	case <-time.After(40 * time.Second):
		t.Fatalf("the game did not join within 40 s; its log:\n%s", gameLogs())
	}
	// Let it play a moment: the frame rate without an attack.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(before)
		mu.Unlock()
		if n >= 3 || time.Now().After(deadline) {
			break
		}
	}
	mu.Lock()
	attackAt = time.Now()
	mu.Unlock()
	actx, acancel := context.WithCancel(ctx)
	attacked := make(chan struct{})
	go func() { defer close(attacked); attack(actx, s) }()

	// The game's memory while it runs.
	var peakRSS float64
	exited := make(chan error, 1)
	go func() { exited <- game.Wait() }()
	var werr error
poll:
	for {
		peakRSS = max(peakRSS, procRSS(game.Process.Pid))
		select {
		case werr = <-exited:
			break poll
		case <-time.After(100 * time.Millisecond):
		}
	}
	acancel()
	<-attacked
	<-logDone
	log := gameLogs()
	if werr != nil {
		t.Fatalf("the game failed: %v\n%s", werr, log)
	}
	t.Logf("peak RSS %.0f MB; frame rate before the attack %v, during and after it %v", peakRSS, before, fps)
	if peakRSS > 300 {
		t.Errorf("the game's RSS peaked at %.0f MB, want under 300 MB", peakRSS)
	}
	if !strings.Contains(log, `msg="error shown" title="The server broke the rules" text="`+want) {
		t.Errorf("the game's log lacks the error screen with %q:\n%s", want, log)
	}
	for _, w := range []string{"screenshot saved", "bye"} {
		if !strings.Contains(log, w) {
			t.Errorf("the game's log lacks %q:\n%s", w, log)
		}
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("no screenshot: %v", err)
	}
	if len(fps) < 3 {
		t.Errorf("%d frame rates logged during the attack, want one a second", len(fps))
	}
	// At least 50 fps, or 70% of the slowest second this display drew
	// without an attack if that is less: under Xvfb, with software GL on
	// a shared machine, the game's own rate swings between 35 and 67 fps
	// with no attack at all (seen in CI: 67 then 61 before an attack, 45
	// to 49 for seconds after it), while the floods this test sends took
	// it to 2-7 fps before the client's limits. The headless tests of
	// net/client hold the 50 fps bound against a reference ticker.
	base := 60.0
	if len(before) > 1 {
		base = slices.Min(before[1:]) // the first second includes the start
	} else {
		t.Errorf("%d frame rates logged before the attack", len(before))
	}
	floor := min(50, 0.7*base)
	if floor < 50 {
		t.Logf("the game drew %.0f fps before the attack: checking %.0f fps rather than 50", base, floor)
	}
	if len(fps) > 0 {
		if m := median(fps); m < floor {
			t.Errorf("the game drew %.0f fps (median) during and after the attack, want at least %.0f", m, floor)
		}
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// procRSS returns the resident set size of process pid in MB, 0 when it
// cannot be read.
func procRSS(pid int) float64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
