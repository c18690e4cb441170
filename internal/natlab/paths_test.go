//go:build linux

package natlab

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// The paths of issue 29 through the lab, with the real binaries: a
// rendezvous (rtype-server -rendezvous-listen, alone) in the public
// namespace; per home a host (rtype-server -webtransport -rendezvous) and
// a bot that creates a room in it (rtype-bot -create, over loopback), and
// in another home the friend, rtype-bot -rendezvous -room CODE, which
// prints the path it took and the time from its start to the first
// snapshot.
//
// NATLAB_FIGURES=FILE writes the figures (README of issue 29's table) to
// FILE, in Markdown, adding for the pairs that joined without the relay a
// run forced through it (the relay's extra round trip) and the
// rendezvous' CPU and bytes per relayed player.

// The binaries the lab's tests run: rtype-server and rtype-bot, built
// once per test process (by the first test that asks) into a directory
// TestMain removes.
var bins struct {
	once        sync.Once
	dir         string
	server, bot string
	err         error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

// buildBinaries returns rtype-server and rtype-bot, built by one go build
// (its links run at once) the first time a test asks. They are built as
// the release builds them (static, -trimpath, internal/release's
// TestRelease): whichever of the two tests builds first compiles their
// packages into Go's build cache for both.
func buildBinaries(t *testing.T) (server, bot string) {
	t.Helper()
	bins.once.Do(func() {
		if bins.dir, bins.err = os.MkdirTemp("", "natlab-bin"); bins.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", bins.dir+string(filepath.Separator),
			"rtype/cmd/rtype-server", "rtype/cmd/rtype-bot")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			bins.err = fmt.Errorf("go build rtype-server rtype-bot: %v\n%s", err, out)
			return
		}
		bins.server, bins.bot = filepath.Join(bins.dir, "rtype-server"), filepath.Join(bins.dir, "rtype-bot")
	})
	if bins.err != nil {
		t.Fatal(bins.err)
	}
	return bins.server, bins.bot
}

// proc is a program running in a namespace of the lab.
type proc struct {
	cmd      *exec.Cmd
	out, err testutil.SyncBuffer
	done     chan struct{}
}

// start runs bin args in ns until the test ends (or stop).
func start(t *testing.T, ns NS, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{done: make(chan struct{})}
	p.cmd = Cmd(context.Background(), ns, bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.stop() })
	return p
}

// stop ends p (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// wait waits for re in p's stdout (out) or stderr and returns its
// submatches.
func (p *proc) wait(t *testing.T, stdout bool, re *regexp.Regexp) []string {
	t.Helper()
	var m []string
	testutil.WaitFor(t, testutil.Wait, re.String(), func() bool {
		b := &p.err
		if stdout {
			b = &p.out
		}
		m = re.FindStringSubmatch(b.String())
		return m != nil
	})
	return m
}

// cpu returns the CPU time p used so far.
func (p *proc) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ
}

// friendRun is what a friend printed.
type friendRun struct {
	joined bool
	path   string
	first  time.Duration // from the start to the first snapshot
	rtt    time.Duration
	out    string
}

var (
	rePath  = regexp.MustCompile(`(?m)^path: (\w+)$`)
	reFirst = regexp.MustCompile(`(?m)^first snapshot: (\S+)$`)
	reRTT   = regexp.MustCompile(`(?m)^rtt: (\S+)$`)
	reRoom  = regexp.MustCompile(`(?m)^room (\w{6})$`)
)

// pairRun runs one friend of home f joining a room of host h's server.
// With play 0 the friend is stopped as soon as it printed its path and
// its first snapshot (what TestPaths asserts); else it plays that long
// (its round trip is printed after 3 s of play).
func pairRun(t *testing.T, bot, rv string, hp *proc, h, f Home, paths string, play time.Duration) friendRun {
	t.Helper()
	creator := start(t, h.Host, bot, "-addr", "127.0.0.1:4242", "-create", "-name", "owner", "-duration", "60s")
	code := creator.wait(t, true, reRoom)[1]
	defer creator.stop()
	hp.wait(t, false, regexp.MustCompile(`msg="rendezvous: rooms registered" codes=\S*`+code))
	// The friend's -duration is a guard against a hang when play is 0.
	args := []string{"-name", "friend", "-rendezvous", rv, "-room", code, "-duration", cmp.Or(play, testutil.Wait).String(), "-log-level", "debug"}
	if paths != "" {
		args = append(args, "-path", paths)
	}
	fp := start(t, f.Host, bot, args...)
	testutil.Eventually(testutil.Wait+5*time.Second, func() bool {
		select {
		case <-fp.done:
			return true
		default:
		}
		return play == 0 && reFirst.MatchString(fp.out.String())
	})
	fp.stop()
	r := friendRun{out: fp.out.String() + fp.err.String()}
	if m := rePath.FindStringSubmatch(r.out); m != nil {
		r.path = m[1]
	}
	if m := reFirst.FindStringSubmatch(r.out); m != nil {
		r.first, _ = time.ParseDuration(m[1])
		r.joined = true
	}
	if m := reRTT.FindStringSubmatch(r.out); m != nil {
		r.rtt, _ = time.ParseDuration(m[1])
	}
	return r
}

// TestPaths joins a room of every kind of home from every kind of home
// and checks that the friend got in, by the path the NATs allow: direct
// to a host on the internet, mapped to a host whose router maps its port,
// punched where the host's NAT keeps ports (cone: against a symmetric
// friend by the spray's birthday paradox, which misses once in about 10⁷)
// or the friend is on the internet (a symmetric host's Punch shows its
// port), relayed otherwise.
func TestPaths(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NAT lab here: %v", err)
	}
	if testing.Short() {
		t.Skip("-short: the lab runs the real binaries")
	}
	// The hosts' homes, then the friends': a friend behind a UPnP router
	// is a friend behind a cone NAT (it maps nothing). miniupnpd maps no
	// documentation range: the internet is 11.0.0.0/24.
	kinds := []NAT{Direct, Cone, Symmetric, UPnP}
	fkinds := []NAT{Direct, Cone, Symmetric}
	if _, err := exec.LookPath("miniupnpd"); err != nil {
		t.Log("no miniupnpd (package miniupnpd-nftables): no UPnP home")
		kinds = kinds[:3]
	}
	l, err := New(Config{Internet: mustPrefix("11.0.0.0/24"), Homes: append(append([]NAT{}, kinds...), fkinds...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	server, bot := buildBinaries(t)
	rvAddr := l.Public.Addr.String() + ":4250"
	rv := start(t, l.Public, server, "-listen", "", "-rendezvous-listen", rvAddr)
	rv.wait(t, false, regexp.MustCompile(`msg="rendezvous listening"`))
	var hosts []*proc
	for i := range kinds {
		h := start(t, l.Homes[i].Host, server, "-listen", "0.0.0.0:4242", "-webtransport", "0.0.0.0:4243",
			"-rendezvous", rvAddr, "-login-limit", "1000")
		if kinds[i] == UPnP {
			h.wait(t, false, regexp.MustCompile(`msg="port mapped"`))
		}
		h.wait(t, false, regexp.MustCompile(`msg="rendezvous: registered"`))
		hosts = append(hosts, h)
	}
	want := map[[2]NAT]string{
		{Direct, Direct}: "direct", {Direct, Cone}: "direct", {Direct, Symmetric}: "direct",
		{Cone, Direct}: "punched", {Cone, Cone}: "punched", {Cone, Symmetric}: "punched",
		{Symmetric, Direct}: "punched", {Symmetric, Cone}: "punched", {Symmetric, Symmetric}: "relayed",
		{UPnP, Direct}: "mapped", {UPnP, Cone}: "mapped", {UPnP, Symmetric}: "mapped",
	}
	type row struct {
		host, friend NAT
		r, relayed   friendRun
	}
	figures := os.Getenv("NATLAB_FIGURES")
	rows := make([]row, len(kinds)*len(fkinds))
	// The hosts' pairs run at once (their subtests are not t.Parallel,
	// which -parallel, GOMAXPROCS, would hold to two at a time: they
	// wait on the lab, not on a CPU), a host's friends one after another;
	// the figures are taken one pair at a time, each friend playing 6 s.
	play := time.Duration(0)
	if figures != "" {
		play = 6 * time.Second
	}
	t.Run("pairs", func(t *testing.T) {
		var wg sync.WaitGroup
		for i, hk := range kinds {
			host := func() {
				t.Run("host="+hk.String(), func(t *testing.T) {
					for j, fk := range fkinds {
						r := pairRun(t, bot, rvAddr, hosts[i], l.Homes[i], l.Homes[len(kinds)+j], "", play)
						w := want[[2]NAT{hk, fk}]
						if !r.joined || r.path != w {
							t.Errorf("host %v, friend %v: joined %v by %q, want joined by %s\n%s", hk, fk, r.joined, r.path, w, r.out)
						}
						rw := row{host: hk, friend: fk, r: r}
						if figures != "" && r.path != "relayed" {
							rw.relayed = pairRun(t, bot, rvAddr, hosts[i], l.Homes[i], l.Homes[len(kinds)+j], "relayed", play)
						}
						rows[i*len(fkinds)+j] = rw
					}
				})
			}
			if figures != "" {
				host()
				continue
			}
			wg.Go(host)
		}
		wg.Wait()
	})
	if figures == "" {
		return
	}
	// The rendezvous' cost of one relayed player: 20 s of play, relayed,
	// from the counters it logs every 5 s when they change.
	play = 20 * time.Second
	reStats := regexp.MustCompile(`msg="rendezvous stats".* relayed_bytes=(\d+) bytes_in=(\d+) bytes_out=(\d+)`)
	counters := func() (n [3]int64) {
		all := reStats.FindAllStringSubmatch(rv.err.String(), -1)
		if len(all) == 0 {
			return n
		}
		for i := range n {
			n[i], _ = strconv.ParseInt(all[len(all)-1][i+1], 10, 64)
		}
		return n
	}
	time.Sleep(6 * time.Second) // the counters of the runs above logged
	c0, cpu0 := counters(), rv.cpu()
	pr := pairRun(t, bot, rvAddr, hosts[1], l.Homes[1], l.Homes[len(kinds)+2], "relayed", play)
	cpu := rv.cpu() - cpu0
	time.Sleep(6 * time.Second)
	c1 := counters()
	var b strings.Builder
	fmt.Fprintf(&b, "| host \\ friend | joined | path | code → first snapshot | RTT | RTT relayed | relay's extra RTT |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|\n")
	for _, rw := range rows {
		extra, rr := "—", "—"
		if rw.relayed.joined {
			rr = rw.relayed.rtt.String()
			extra = (rw.relayed.rtt - rw.r.rtt).String()
		}
		fmt.Fprintf(&b, "| %v → %v | %v | %s | %v | %v | %s | %s |\n", rw.host, rw.friend, rw.r.joined, rw.r.path,
			rw.r.first, rw.r.rtt, rr, extra)
	}
	if pr.joined {
		fmt.Fprintf(&b, "\nRendezvous, one relayed player (cone host, symmetric friend) for %v: CPU %v (%.2f%% of a core); "+
			"relayed payload %d bytes (%.1f kB/s), %d bytes in and %d out of its socket.\n",
			play, cpu, 100*cpu.Seconds()/play.Seconds(), c1[0]-c0[0], float64(c1[0]-c0[0])/play.Seconds()/1000,
			c1[1]-c0[1], c1[2]-c0[2])
	}
	if err := os.WriteFile(figures, []byte(b.String()), 0o644); err != nil {
		t.Error(err)
	}
	t.Log("\n" + b.String())
}

// TestMappedPath hosts behind a router running miniupnpd, on the lab
// internet 11.0.0.0/24 (miniupnpd maps no documentation range): the host
// maps its port by NAT-PMP, then by UPnP IGD; a friend behind a symmetric
// NAT, which neither punching nor a direct path lets in, joins by the
// mapping; and the mapping is gone once the host stopped.
func TestMappedPath(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NAT lab here: %v", err)
	}
	if _, err := exec.LookPath("miniupnpd"); err != nil {
		t.Skip("no miniupnpd (package miniupnpd-nftables)")
	}
	if testing.Short() {
		t.Skip("-short: the lab runs the real binaries")
	}
	l, err := New(Config{Internet: mustPrefix("11.0.0.0/24"), Homes: []NAT{UPnP, Symmetric}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("miniupnpd:\n" + l.UPnPLog())
		}
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	server, bot := buildBinaries(t)
	rvAddr := l.Public.Addr.String() + ":4250"
	rv := start(t, l.Public, server, "-listen", "", "-rendezvous-listen", rvAddr)
	rv.wait(t, false, regexp.MustCompile(`msg="rendezvous listening"`))
	home, friend := l.Homes[0], l.Homes[1]
	for _, method := range []string{"natpmp", "upnp"} {
		h := start(t, home.Host, server, "-listen", "0.0.0.0:4242", "-webtransport", "0.0.0.0:4243",
			"-rendezvous", rvAddr, "-portmap", method)
		h.wait(t, false, regexp.MustCompile(`msg="port mapped"`))
		h.wait(t, false, regexp.MustCompile(`msg="rendezvous: registered"`))
		if rules := miniupnpdRulesOf(t, home); !strings.Contains(rules, "dnat") {
			t.Errorf("%s: the host says mapped, but miniupnpd has no rule:\n%s", method, rules)
		}
		r := pairRun(t, bot, rvAddr, h, home, friend, "", 0)
		if !r.joined || r.path != "mapped" {
			t.Errorf("%s: joined %v by %q, want by mapped\n%s\nhost:\n%s", method, r.joined, r.path, r.out, h.err.String())
		}
		t.Logf("%s: path %s, first snapshot %v", method, r.path, r.first)
		h.stop()
		if rules := miniupnpdRulesOf(t, home); strings.Contains(rules, "dnat") {
			t.Errorf("%s: a mapping left after the host stopped:\n%s", method, rules)
		}
	}
}

// miniupnpdRulesOf returns the rules of miniupnpd's table in h's router.
func miniupnpdRulesOf(t *testing.T, h Home) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", h.Router.Name, "nft", "list", "table", "inet", "miniupnpd").CombinedOutput()
	if err != nil {
		t.Fatalf("nft: %v: %s", err, out)
	}
	return string(out)
}
