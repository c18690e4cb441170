package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/rendezvous"
	"rtype/net/wire"
)

// TestRendezvousFlags: -rendezvous without -webtransport, or with an
// unknown -portmap, is a usage error; -rendezvous-listen with -listen ""
// runs the rendezvous alone, which logs its address and, at SIGTERM, its
// counters.
func TestRendezvousFlags(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-rendezvous", "127.0.0.1:1"}, "-rendezvous needs -webtransport"},
		{[]string{"-webtransport", "127.0.0.1:0", "-rendezvous", "127.0.0.1:1", "-portmap", "always"}, "-portmap"},
		{[]string{"-rendezvous-listen", "127.0.0.1:no"}, "-rendezvous-listen"},
	} {
		cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0", "-db", "", "-discovery-listen", ""}, c.args...)...)
		if c.args[0] == "-rendezvous-listen" {
			cmd.Args[2] = "" // alone
		}
		out, err := cmd.CombinedOutput()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code == 0 || code == -1 || !strings.Contains(string(out), c.want) {
			t.Errorf("rtype-server %v: %v, want an error about %q; output:\n%s", c.args, err, c.want, out)
		}
	}
	p := startProcess(t, "-listen", "", "-rendezvous-listen", "127.0.0.1:0")
	p.wait(regexp.MustCompile(`msg="rendezvous listening" addr=127\.0\.0\.1:\d+`))
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(regexp.MustCompile(`msg="rendezvous stopped" hosts=0 pairs=0`))
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// TestRendezvousPage: a rendezvous alone with -web serves the game's
// page, whose config.json names the lookup, and the lookup at /join: a
// code nobody hosts is 404 with the reason in JSON, a malformed one 400.
func TestRendezvousPage(t *testing.T) {
	p := startProcess(t, "-listen", "", "-rendezvous-listen", "127.0.0.1:0", "-web", "127.0.0.1:0")
	m := p.wait(regexp.MustCompile(`msg="serving the game's page" addr=(127\.0\.0\.1:\d+)`))
	rv := p.wait(regexp.MustCompile(`msg="rendezvous listening" addr=(127\.0\.0\.1:\d+)`))
	if got, want := registeredPage(t, rv[1]), m[1][strings.LastIndexByte(m[1], ':')+1:]; fmt.Sprint(got) != want {
		t.Errorf("Registered's page port %d, want -web's %s (PROTOCOL.md 10.3)", got, want)
	}
	base := "http://" + m[1]
	get := func(path string) (int, map[string]any) {
		t.Helper()
		rsp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer rsp.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(rsp.Body).Decode(&v); err != nil {
			t.Fatalf("%s: %s, not JSON: %v", path, rsp.Status, err)
		}
		return rsp.StatusCode, v
	}
	if st, c := get("/config.json"); st != 200 || c["join"] != "join" || c["noServer"] != nil {
		t.Errorf("config.json: %d %v, want join and no noServer", st, c)
	}
	if st, a := get("/join?code=ZZZZZZ"); st != 404 || !strings.Contains(fmt.Sprint(a["error"]), "no game has this room code") {
		t.Errorf("an unknown code: %d %v, want 404 and why", st, a)
	}
	if st, a := get("/join?code=no"); st != 400 || a["error"] == nil {
		t.Errorf("a malformed code: %d %v, want 400 and why", st, a)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(regexp.MustCompile(`msg="rendezvous stopped" hosts=1 pairs=0 .*web_lookups=0`)) // registeredPage's host
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// TestWebJoinFlag: -web-join names another server's lookup in the page's
// config.json; without a rendezvous here, /join is not served.
func TestWebJoinFlag(t *testing.T) {
	p := startProcess(t, "-listen", "127.0.0.1:0", "-web", "127.0.0.1:0", "-web-join", "https://rv.example.org/join",
		"-discovery-listen", "", "-db", "")
	m := p.wait(regexp.MustCompile(`msg="serving the game's page" addr=(127\.0\.0\.1:\d+)`))
	rsp, err := http.Get("http://" + m[1] + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Join string }
	err = json.NewDecoder(rsp.Body).Decode(&c)
	rsp.Body.Close()
	if err != nil || c.Join != "https://rv.example.org/join" {
		t.Errorf("config.json: %+v %v, want the -web-join URL", c, err)
	}
	if rsp, err := http.Get("http://" + m[1] + "/join?code=ABC234"); err != nil || rsp.StatusCode != 404 {
		t.Errorf("/join: %v %v, want 404", rsp, err)
	}
}

// registeredPage registers a host with one room at the rendezvous at
// addr, over UDP on loopback (answering its Retry), and returns the page
// port of its Registered.
func registeredPage(t *testing.T, addr string) uint16 {
	t.Helper()
	c, err := net.Dial("udp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local := netip.MustParseAddrPort(c.LocalAddr().String())
	reg := rendezvous.Register{Nonce: 1, Local: local, Codes: []wire.RoomCode{{'A', 'B', 'C', '2', '3', '4'}}}
	buf := make([]byte, 2048)
	for try := 0; try < 2; try++ {
		if _, err := c.Write(rendezvous.AppendRegister(nil, &reg)); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(testutil.Wait))
		n, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		switch rendezvous.Type(buf[:n]) {
		case rendezvous.TRetry:
			r, err := rendezvous.ParseRetry(buf[:n])
			if err != nil {
				t.Fatal(err)
			}
			reg.Cookie = r.Cookie
		case rendezvous.TRegistered:
			m, err := rendezvous.ParseRegistered(buf[:n])
			if err != nil {
				t.Fatal(err)
			}
			return m.Page
		default:
			t.Fatalf("answer % x", buf[:n])
		}
	}
	t.Fatal("no Registered after a Retry")
	return 0
}
