package core

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"rtype/net/wire"
)

func TestSettingsMissingFileGivesDefaults(t *testing.T) {
	s, err := LoadSettings(filepath.Join(t.TempDir(), "nope", "settings.json"), nil)
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	if !reflect.DeepEqual(s, DefaultSettings()) {
		t.Fatalf("got %+v, want the defaults", s)
	}
}

func TestSettingsSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "settings.json") // dirs created
	want := DefaultSettings()
	want.Name = "Ripley"
	want.MusicVolume = 0.25
	want.EffectsVolume = 1
	want.Mute = true
	want.Fullscreen = true
	want.Keys = want.Keys.Rebind(ActFire, "K")
	want.Recent = []string{"example.org:4242", "10.0.0.2:5000"}
	if err := SaveSettings(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSettings(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// No temporary file left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d files, want 1", len(entries))
	}
}

func TestSettingsCorruptFileFallsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{\"name\": \"Rip"), 0o644)
	s, err := LoadSettings(path, nil)
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("err = %v, want a corrupt-file error", err)
	}
	if !reflect.DeepEqual(s, DefaultSettings()) {
		t.Fatalf("got %+v, want the defaults", s)
	}
}

func TestSettingsSanitize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"name":"Dallas","music_volume":7,"effects_volume":-1,
		"keys":{"fire":["Bogus","Space","Space","K","L"],"up":[]},
		"recent_servers":["a","A:4242","b:1","bad host","c","d","e","f","g","h","i","j"]}`), 0o644)
	valid := func(k string) bool { return k != "Bogus" }
	s, err := LoadSettings(path, valid)
	if err != nil {
		t.Fatal(err)
	}
	if s.MusicVolume != 1 || s.EffectsVolume != 0 {
		t.Errorf("volumes %v %v, want 1 0", s.MusicVolume, s.EffectsVolume)
	}
	if got := s.Keys.Keys(ActFire); !reflect.DeepEqual(got, []string{"Space", "K"}) {
		t.Errorf("fire keys %v", got)
	}
	if got := s.Keys.Keys(ActUp); !reflect.DeepEqual(got, []string{"ArrowUp", "W"}) {
		t.Errorf("up keys %v, want the defaults", got)
	}
	want := []string{"a:4242", "b:1", "c:4242", "d:4242", "e:4242", "f:4242", "g:4242", "h:4242"}
	if !reflect.DeepEqual(s.Recent, want) {
		t.Errorf("recent %v, want %v", s.Recent, want)
	}
}

func TestKeymapActions(t *testing.T) {
	km := DefaultKeymap()
	held := func(keys ...string) func(string) bool {
		return func(k string) bool {
			for _, h := range keys {
				if h == k {
					return true
				}
			}
			return false
		}
	}
	cases := []struct {
		keys []string
		want uint8
	}{
		{nil, 0},
		{[]string{"ArrowUp"}, wire.ActionUp},
		{[]string{"W", "D"}, wire.ActionUp | wire.ActionRight},
		{[]string{"S", "ArrowLeft", "Space"}, wire.ActionDown | wire.ActionLeft | wire.ActionFire},
		{[]string{"J"}, wire.ActionFire},
		{[]string{"K"}, 0},
	}
	for _, c := range cases {
		if got := km.Actions(held(c.keys...)); got != c.want {
			t.Errorf("keys %v: actions %#x, want %#x", c.keys, got, c.want)
		}
	}
}

func TestKeymapRebind(t *testing.T) {
	km := DefaultKeymap().Rebind(ActFire, "K")
	if got := km.Keys(ActFire); !reflect.DeepEqual(got, []string{"K", "Space"}) {
		t.Fatalf("fire %v", got)
	}
	// Taking a key from another action removes it there.
	km = km.Rebind(ActFire, "W")
	if got := km.Keys(ActFire); !reflect.DeepEqual(got, []string{"W", "K"}) {
		t.Fatalf("fire %v", got)
	}
	if got := km.Keys(ActUp); !reflect.DeepEqual(got, []string{"ArrowUp"}) {
		t.Fatalf("up %v", got)
	}
	// Taking the only key of an action gives it its free default back.
	km = DefaultKeymap().Rebind(ActLeft, "ArrowUp").Rebind(ActLeft, "W")
	if got := km.Keys(ActUp); len(got) == 0 {
		t.Fatalf("up left without keys")
	}
}

func TestPadActions(t *testing.T) {
	if got := (PadState{StickX: 0.2, StickY: -0.2}).Actions(); got != 0 {
		t.Errorf("inside deadzone: %#x", got)
	}
	if got := (PadState{StickX: 0.9, StickY: -0.7, Fire: true}).Actions(); got != wire.ActionRight|wire.ActionUp|wire.ActionFire {
		t.Errorf("stick: %#x", got)
	}
	if got := (PadState{Down: true, Left: true}).Actions(); got != wire.ActionDown|wire.ActionLeft {
		t.Errorf("dpad: %#x", got)
	}
}

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

func TestAddRecent(t *testing.T) {
	var l []string
	for _, a := range []string{"a:1", "b:1", "c:1"} {
		l = AddRecent(l, a)
	}
	if want := []string{"c:1", "b:1", "a:1"}; !reflect.DeepEqual(l, want) {
		t.Fatalf("got %v want %v", l, want)
	}
	before := append([]string(nil), l...)
	l2 := AddRecent(l, "A:1") // dedupe ignoring case, moved to the front
	if want := []string{"A:1", "c:1", "b:1"}; !reflect.DeepEqual(l2, want) {
		t.Fatalf("got %v want %v", l2, want)
	}
	if !reflect.DeepEqual(l, before) {
		t.Fatalf("AddRecent modified its input")
	}
	for i := range 20 {
		l = AddRecent(l, string(rune('d'+i))+":1")
	}
	if len(l) != MaxRecent || l[0] != "w:1" {
		t.Fatalf("got %v, want %d entries, newest first", l, MaxRecent)
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
