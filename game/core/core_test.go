package core

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"rtype/net/wire"
)

func TestNormalizeAddr(t *testing.T) {
	ok := map[string]string{
		"host":              "host:4242",
		"  host ":           "host:4242",
		"host:5000":         "host:5000",
		"192.168.1.20":      "192.168.1.20:4242",
		"192.168.1.20:4243": "192.168.1.20:4243",
		"[::1]:4242":        "[::1]:4242",
		"[::1]":             "[::1]:4242",
		"::1":               "[::1]:4242",
		"fe80::1:2":         "[fe80::1:2]:4242",
		"example.org:0042":  "example.org:42",
	}
	for in, want := range ok {
		got, err := NormalizeAddr(in)
		if err != nil || got != want {
			t.Errorf("NormalizeAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "  ", "host:", "host:abc", "host:70000", "host:0", ":4242", "http://host", "a b", "[::1", "zz::qq::1"} {
		if got, err := NormalizeAddr(in); err == nil {
			t.Errorf("NormalizeAddr(%q) = %q, want an error", in, got)
		}
	}
}

func TestJoinAddrs(t *testing.T) {
	addrs := JoinAddrs(4243)
	if len(addrs) == 0 || addrs[len(addrs)-1] != "127.0.0.1:4243" {
		t.Fatalf("JoinAddrs = %v, want 127.0.0.1:4243 last", addrs)
	}
	for _, a := range addrs[:len(addrs)-1] {
		if strings.HasPrefix(a, "127.") || !strings.HasSuffix(a, ":4243") {
			t.Errorf("unexpected address %q", a)
		}
	}
}

func TestRank(t *testing.T) {
	names := map[uint8]string{0: "Ripley", 1: "Hicks", 2: "Bishop"}
	got := Rank([]wire.Score{{Player: 0, Score: 300}, {Player: 1, Score: 1200}, {Player: 2, Score: 300}, {Player: 3, Score: 0}}, func(p uint8) string { return names[p] })
	want := []Ranked{
		{1, 1, "Hicks", 1200},
		{2, 0, "Ripley", 300},
		{2, 2, "Bishop", 300},
		{4, 3, "Player 4", 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if Rank(nil, nil) == nil || len(Rank(nil, nil)) != 0 {
		t.Fatalf("empty ranking")
	}
	if p, ok := Leader([4]bool{true, true, true}, [4]uint32{100, 500, 200, 900}); !ok || p != 1 {
		t.Errorf("leader = %d %v, want 1 (player 3 absent)", p, ok)
	}
	if _, ok := Leader([4]bool{true, true}, [4]uint32{500, 500}); ok {
		t.Errorf("a tie has no leader")
	}
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 22: "22nd"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q", n, got)
		}
	}
}

func TestEffectTiming(t *testing.T) {
	var fx Effects
	fx.Add(Effect{Kind: FxExplosion, Start: 10})
	fx.Add(Effect{Kind: FxShipExplosion, Start: 10})
	fx.Add(Effect{Kind: FxMuzzle, Start: 10.2})
	e := fx.List[0]
	if e.Active(9.99) || !e.Active(10) || !e.Active(10.49) || e.Active(10.5) {
		t.Errorf("explosion must show for 0.5 s from its start")
	}
	if e.Frame(10, 8) != 0 || e.Frame(10.25, 8) != 4 || e.Frame(10.499, 8) != 7 || e.Frame(11, 8) != 7 || e.Frame(9, 8) != 0 {
		t.Errorf("explosion frames wrong")
	}
	if d := FxShipExplosion.Duration(); d <= FxExplosion.Duration() {
		t.Errorf("ship explosion (%v s) must last longer than an explosion", d)
	}
	fx.Update(10.25) // the muzzle flash has not started: kept
	if len(fx.List) != 3 {
		t.Fatalf("%d effects at 10.25", len(fx.List))
	}
	fx.Update(10.5)
	if len(fx.List) != 1 || fx.List[0].Kind != FxShipExplosion {
		t.Fatalf("at 10.5: %+v", fx.List)
	}
	fx.Update(10.8)
	if len(fx.List) != 0 {
		t.Fatalf("at 10.8: %+v", fx.List)
	}
	for range MaxEffects + 10 {
		fx.Add(Effect{Kind: FxMuzzle})
	}
	if len(fx.List) != MaxEffects {
		t.Fatalf("effects not bounded: %d", len(fx.List))
	}
}

func TestNoticeFade(t *testing.T) {
	var ns Notices
	ns.Add(Notice{Text: "Ripley joined", Start: 1})
	n := ns.List[0]
	if n.Alpha(1.5) != 1 || n.Alpha(3) != 1 {
		t.Errorf("a notice is fully visible at first")
	}
	if a := n.Alpha(3.8); a <= 0 || a >= 1 {
		t.Errorf("fading at 2.8 s: alpha %v", a)
	}
	if n.Alpha(4) != 0 {
		t.Errorf("gone after 3 s")
	}
	ns.Update(3.9)
	if len(ns.List) != 1 {
		t.Errorf("removed too early")
	}
	ns.Update(4)
	if len(ns.List) != 0 {
		t.Errorf("not removed after 3 s")
	}
	for i := range MaxNotices + 3 {
		ns.Add(Notice{Text: string(rune('a' + i))})
	}
	if len(ns.List) != MaxNotices || ns.List[0].Text != "d" {
		t.Errorf("notices not bounded: %+v", ns.List)
	}
}

func TestStarfieldDeterministicAndScrolling(t *testing.T) {
	a, b := Starfield(1280, 720), Starfield(1280, 720)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the starfield differs between two runs")
	}
	for i := 1; i < 3; i++ {
		if a[i].Speed <= a[i-1].Speed {
			t.Errorf("layer %d is not faster than layer %d", i, i-1)
		}
	}
	l := &a[2]
	s := &l.Stars[0]
	x0, y0 := l.Pos(s, 0, 1280)
	x1, y1 := l.Pos(s, 0.1, 1280)
	if y0 != y1 {
		t.Errorf("stars move vertically")
	}
	if d := x0 - x1; math.Abs(d-l.Speed*0.1) > 1e-9 && x1 < x0 {
		t.Errorf("moved %v px in 0.1 s, want %v", d, l.Speed*0.1)
	}
	for _, tt := range []float64{0, 1, 100, 12345.6} {
		for i := range l.Stars {
			x, _ := l.Pos(&l.Stars[i], tt, 1280)
			if x < -8 || x >= 1288 {
				t.Fatalf("star at x=%v out of the wrapped span", x)
			}
		}
	}
}

func TestInputScript(t *testing.T) {
	steps, err := ParseInputScript("right+fire")
	if err != nil {
		t.Fatal(err)
	}
	if got := ScriptActions(steps, time.Second); got != wire.ActionRight|wire.ActionFire {
		t.Errorf("at 1 s: %#x", got)
	}
	if got := ScriptActions(steps, 3*time.Second); got != 0 {
		t.Errorf("after 3 s: %#x", got)
	}
	steps, err = ParseInputScript("up:500ms, none:1s ,fire+LEFT:forever")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Duration
		want uint8
	}{{0, wire.ActionUp}, {600 * time.Millisecond, 0}, {2 * time.Second, wire.ActionFire | wire.ActionLeft}, {time.Hour, wire.ActionFire | wire.ActionLeft}} {
		if got := ScriptActions(steps, c.at); got != c.want {
			t.Errorf("at %v: %#x want %#x", c.at, got, c.want)
		}
	}
	for _, bad := range []string{"", "jump", "up:soon", "up:-1s"} {
		if _, err := ParseInputScript(bad); err == nil {
			t.Errorf("ParseInputScript(%q) accepted", bad)
		}
	}
}

func TestSuggestedName(t *testing.T) {
	t.Setenv("USER", "ellen")
	if got := SuggestedName(); got != "Ellen" {
		t.Errorf("SuggestedName = %q", got)
	}
	t.Setenv("USER", "x")
	t.Setenv("USERNAME", "")
	t.Setenv("LOGNAME", "")
	if got := SuggestedName(); got != "Pilot" {
		t.Errorf("SuggestedName = %q, want Pilot for a too short login", got)
	}
}
