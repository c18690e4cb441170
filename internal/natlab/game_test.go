//go:build linux

package natlab

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// The game itself hosting from home (issue 29): the real rtype, under an
// Xvfb of its own inside its home's namespace, hosts with -rendezvous (it
// plays at once, alone, and friends join in progress);
// rtype-bot -rendezvous -room CODE joins from another home and prints
// its path. The host's home maps ports (miniupnpd) where the lab has
// it, else is a cone NAT.

// gameBin is the game's executable, built once per test process into
// bins.dir's sibling (TestMain removes bins.dir; this one too).
var gameBin struct {
	once sync.Once
	path string
	err  error
}

// buildGameBinary builds rtype.
func buildGameBinary(t *testing.T) string {
	t.Helper()
	gameBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "natlab-game")
		if err != nil {
			gameBin.err = err
			return
		}
		gameBins = dir
		p := filepath.Join(dir, "rtype")
		if out, err := exec.Command("go", "build", "-o", p, "rtype").CombinedOutput(); err != nil {
			gameBin.err = fmt.Errorf("go build rtype: %v\n%s", err, out)
			return
		}
		gameBin.path = p
	})
	if gameBin.err != nil {
		t.Fatal(gameBin.err)
	}
	return gameBin.path
}

// gameBins is the directory of the game's executable, removed at the end
// (removeGameBins, from TestMain's cleanup through t.Cleanup of the
// test that built it would remove it too early for a second test).
var gameBins string

// xvfb starts an X server in ns (the abstract X socket belongs to the
// network namespace), on a display it chooses, and returns it (":N").
func xvfb(t *testing.T, ns NS) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := Cmd(context.Background(), ns, "Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "1280x720x24")
	cmd.ExtraFiles = []*os.File{w}
	var errOut testutil.SyncBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatal(err)
	}
	w.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatalf("Xvfb gave no display:\n%s", errOut.String())
		}
		return ":" + n
	case <-time.After(testutil.Wait):
		t.Fatalf("Xvfb gave no display within %v:\n%s", testutil.Wait, errOut.String())
	}
	return ""
}

// TestGameHostsFromHome: the game hosts with -rendezvous in one home; its
// log says the code friends anywhere join by, and how (the lobby's
// line); a bot in another home joins by the code alone through the
// rendezvous, by the path the NATs allow, and plays; a browser's steps
// join by the lobby's link where it says it works from anywhere. When
// the game quits its port mappings are removed.
func TestGameHostsFromHome(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NAT lab here: %v", err)
	}
	if testing.Short() {
		t.Skip("-short: the lab runs the real binaries")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("no Xvfb: the game needs an X display")
	}
	hk, path, how := Cone, "punched", `\(hole punching, or through the relay\)`
	if _, err := exec.LookPath("miniupnpd"); err == nil {
		hk, path, how = UPnP, "mapped", `\(port mapped by NAT-PMP\)`
	} else {
		t.Log("no miniupnpd (package miniupnpd-nftables): the host's home is a cone NAT")
	}
	l, err := New(Config{Prefix: "rtg", Internet: mustPrefix("11.0.0.0/24"), Homes: []NAT{hk, Cone}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
		if gameBins != "" {
			os.RemoveAll(gameBins)
		}
	})
	server, bot := buildBinaries(t)
	game := buildGameBinary(t)
	rvAddr := l.Public.Addr.String() + ":4250"
	rv := start(t, l.Public, server, "-listen", "", "-rendezvous-listen", rvAddr)
	rv.wait(t, false, regexp.MustCompile(`msg="rendezvous listening"`))

	home, friendHome := l.Homes[0], l.Homes[1]
	display := xvfb(t, home.Host)
	dir := t.TempDir()
	host := start(t, home.Host, "env", "DISPLAY="+display, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir,
		game, "-host", "-rendezvous", rvAddr, "-name", "Ripley", "-mode", "classic", "-mute", "-web", ":4280",
		"-config", filepath.Join(dir, "settings.json"), "-db", "none", "-replays", "none")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the game's log:\n%s\n%s", host.out.String(), host.err.String())
		}
	})
	// The lobby's line, as the game logs it once the rendezvous confirmed
	// the room's code.
	m := host.wait(t, false, regexp.MustCompile(`msg="room created" .*room=(\w{6})`))
	code := m[1]
	if hk == UPnP {
		host.wait(t, false, regexp.MustCompile(`msg="port mapped" .*method=NAT-PMP`))
	}
	host.wait(t, false, regexp.MustCompile(`msg="hosted lobby" friends="Friends anywhere: code `+code+` `+how+`"`))

	friend := start(t, friendHome.Host, bot, "-name", "friend", "-rendezvous", rvAddr, "-room", code,
		"-duration", testutil.Wait.String())
	got := friend.wait(t, true, rePath)[1]
	friend.wait(t, true, reFirst)
	if got != path {
		t.Errorf("the friend came %s, want %s:\n%s", got, path, friend.out.String())
	}
	host.wait(t, false, regexp.MustCompile(`msg="player joined" .*name=friend`))
	friend.stop()

	// A browser: behind a router that mapped the page's port and the
	// WebTransport port, the lobby's link works from anywhere. Its steps
	// here: the page's config.json, then a session of the binding with
	// the certificate hashes it gives (rtype-bot -webtransport, as a
	// browser does). Else the link is the LAN's.
	if hk != UPnP {
		host.wait(t, false, regexp.MustCompile(`browser="In a browser, on this network only: https://192\.168\.\d+\.\d+:4280/\?room=`+code+`"`))
	} else {
		browserJoins(t, host, bot, home, friendHome, code)
	}

	if hk == UPnP {
		if rules := miniupnpdRulesOf(t, home); !strings.Contains(rules, "0x6 th dport 4280 dnat") || !strings.Contains(rules, "0x11 th dport") { // TCP 4280, and UDP (protocols 6, 17)
			t.Errorf("the router maps no UDP port or not the page's TCP port:\n%s", rules)
		}
	}
	host.stop()
	if hk == UPnP {
		if rules := miniupnpdRulesOf(t, home); strings.Contains(rules, "dnat") {
			t.Errorf("a mapping left after the game quit:\n%s", rules)
		}
	}
	if !strings.Contains(host.err.String(), "msg=bye") {
		t.Errorf("the game did not quit cleanly:\n%s", host.err.String())
	}
}

// browserJoins takes a browser's steps from home friend toward the game
// hosted by host in home h, behind a router that maps ports: the lobby
// gives the link on the router's address; the page's config.json there
// names the WebTransport binding and its certificate hashes; a session
// of the binding with them (rtype-bot -webtransport, as a browser does)
// joins the room.
func browserJoins(t *testing.T, host *proc, bot string, h, friend Home, code string) {
	t.Helper()
	page := "https://" + h.Public().String() + ":4280/?room=" + code
	host.wait(t, false, regexp.MustCompile(`browser="In a browser, anywhere: `+regexp.QuoteMeta(page)+`"`))
	var cfg struct {
		Addr       string   `json:"addr"`
		CertHashes []string `json:"certHashes"`
	}
	// The connection is dialed on Do's thread, in the friend's namespace
	// (an http.Client would dial on another thread, outside the lab).
	err := Do(friend.Host, func() error {
		c, err := net.DialTimeout("tcp4", h.Public().String()+":4280", 10*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true}) // the page's certificate is the game's own: a browser warns once
		req, _ := http.NewRequest("GET", "https://"+h.Public().String()+":4280/config.json", nil)
		req.Close = true
		if err := req.Write(tc); err != nil {
			return err
		}
		rsp, err := http.ReadResponse(bufio.NewReader(tc), req)
		if err != nil {
			return err
		}
		defer rsp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(rsp.Body, 1<<16))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return fmt.Errorf("%s: %q: %w", rsp.Status, b, err)
		}
		return nil
	})
	if err != nil || cfg.Addr == "" || len(cfg.CertHashes) == 0 {
		t.Fatalf("the page's config.json from the friend's home: %+v, %v", cfg, err)
	}
	browser := start(t, friend.Host, bot, "-name", "browser", "-webtransport", cfg.Addr,
		"-cert-hash", strings.Join(cfg.CertHashes, ","), "-room", code, "-duration", testutil.Wait.String())
	host.wait(t, false, regexp.MustCompile(`msg="player joined" .*name=browser`))
	browser.stop()
}
