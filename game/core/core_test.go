package core

import (
	"fmt"
	"reflect"
	"slices"
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
	if steps, err := ParseInputScript("fire+force:1s"); err != nil || ScriptActions(steps, 0) != wire.ActionFire|wire.ActionForce {
		t.Errorf("fire+force: %v, %v", steps, err)
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

// The scores screen's boards: Classic, the campaign, each stage, each
// stage's second loop, with their titles and the names the server knows
// them by (PROTOCOL.md 7.16).
func TestBoards(t *testing.T) {
	var got []string
	for _, b := range Boards([]string{"1", "2"}) {
		got = append(got, fmt.Sprintf("%d %q %s", b.Mode, b.Stage, b.Title()))
	}
	want := []string{`1 "" Classic`, `2 "(campaign)" Campaign`, `2 "1" Stage 1`, `2 "2" Stage 2`,
		`2 "1 loop 2" Stage 1, loop 2`, `2 "2 loop 2" Stage 2, loop 2`}
	if !slices.Equal(got, want) {
		t.Errorf("boards\n got %q\nwant %q", got, want)
	}
}
