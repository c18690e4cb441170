package settings

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rtype/net/wire"
	"rtype/render/model"
)

// normAddr stands in for core.NormalizeAddr: "host" gets port 4242.
func normAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " /") {
		return "", errors.New("not an address")
	}
	if !strings.Contains(s, ":") {
		s += ":4242"
	}
	return s, nil
}

func TestMissingFileGivesDefaults(t *testing.T) {
	s, err := Load(filepath.Join(t.TempDir(), "nope", "settings.json"), Checks{})
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	if !reflect.DeepEqual(s, Default()) {
		t.Fatalf("got %+v, want the defaults", s)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "settings.json") // dirs created
	want := Default()
	want.Name = "Ripley"
	want.MusicVolume = 0.25
	want.EffectsVolume = 1
	want.Mute = true
	want.Fullscreen = true
	want.Keys = want.Keys.Rebind(ActFire, "K")
	want.Pad["fire"] = []string{"RightTop", "FrontBottomRight"}
	want.Pad["menu_up"] = []string{"RightStickUp"}
	want.Recent = []string{"example.org:4242", "10.0.0.2:5000"}
	want.Palette = "tritanopia"
	want.ScreenShake = false
	want.Flashes = false
	want.UIScale = 150
	want.SpriteScale = 125
	want.Rendezvous = "rv.example.org:4250"
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, Checks{})
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

func TestCorruptFileFallsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{\"name\": \"Rip"), 0o644)
	s, err := Load(path, Checks{})
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("err = %v, want a corrupt-file error", err)
	}
	if !reflect.DeepEqual(s, Default()) {
		t.Fatalf("got %+v, want the defaults", s)
	}
}

func TestSanitize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"name":"Dallas","music_volume":7,"effects_volume":-1,
		"keys":{"fire":["Bogus","Space","Space","K","L"],"up":[],"down":["F3","Escape"],"back":["Q","Escape"]},
		"pad":{"fire":["rightright","Nope","RightRight"],"pause":[],"confirm":["A"]},
		"recent_servers":["a","A:4242","b:1","bad host","c","d","e","f","g","h","i","j"]}`), 0o644)
	valid := func(k string) bool { return k != "Bogus" }
	s, err := Load(path, Checks{Key: valid, Addr: normAddr})
	if err != nil {
		t.Fatal(err)
	}
	if s.MusicVolume != 1 || s.EffectsVolume != 0 {
		t.Errorf("volumes %v %v, want 1 0", s.MusicVolume, s.EffectsVolume)
	}
	for _, c := range []struct {
		a    Action
		want []string
	}{
		{ActFire, []string{"Space", "K"}},        // unknown, repeated and extra keys dropped
		{ActUp, []string{"ArrowUp", "W"}},        // left without a key: the defaults
		{ActDown, []string{"ArrowDown", "S"}},    // reserved keys, Escape: not for moving
		{ActBack, []string{"Q", "Escape"}},       // Escape is fine to go back
		{ActConfirm, DefaultKeymap()["confirm"]}, // absent: the defaults
		{ActMenuUp, DefaultKeymap()["menu_up"]},  // the menus' keys are apart from the play's
		{ActPause, DefaultKeymap()["pause"]},     // absent: the defaults
		{ActRight, DefaultKeymap()["right"]},     // absent: the defaults
		{ActMenuRight, DefaultKeymap()["menu_right"]},
	} {
		if got := s.Keys.Keys(c.a); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v keys %v, want %v", c.a, got, c.want)
		}
	}
	for _, c := range []struct {
		a    Action
		want []string
	}{
		{ActFire, []string{"RightRight"}}, // spelled right, once, unknown dropped
		{ActPause, []string{"CenterRight"}},
		{ActConfirm, []string{"RightBottom", "CenterRight"}},
		{ActBack, []string{"RightRight"}}, // the same control in the menus is fine
	} {
		if got := s.Pad[c.a.String()]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v pad %v, want %v", c.a, got, c.want)
		}
	}
	want := []string{"a:4242", "b:1", "c:4242", "d:4242", "e:4242", "f:4242", "g:4242", "h:4242"}
	if !reflect.DeepEqual(s.Recent, want) {
		t.Errorf("recent %v, want %v", s.Recent, want)
	}
}

// A file written before the gamepad and menu bindings existed keeps its
// keys and gets the defaults for the rest.
func TestOldFileGetsNewDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{
  "name": "Hicks",
  "music_volume": 0.5,
  "effects_volume": 0.8,
  "mute": false,
  "fullscreen": false,
  "keys": {
    "down": ["ArrowDown", "S"],
    "fire": ["K", "Space"],
    "left": ["ArrowLeft", "A"],
    "right": ["ArrowRight", "D"],
    "up": ["ArrowUp", "W"]
  },
  "recent_servers": ["example.org:4242"]
}
`), 0o644)
	s, err := Load(path, Checks{Addr: normAddr})
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Name = "Hicks"
	want.MusicVolume = 0.5
	want.Keys["fire"] = []string{"K", "Space"}
	want.Recent = []string{"example.org:4242"}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got  %+v\nwant %+v", s, want)
	}
}

func TestDefaultsAreSane(t *testing.T) {
	d := Default()
	d.Sanitize(Checks{})
	if !reflect.DeepEqual(d, Default()) {
		t.Fatalf("the defaults change when sanitized:\n got %+v\nwant %+v", d, Default())
	}
	for a := range NumActions {
		if len(d.Keys.Keys(a)) == 0 || len(d.Pad.Controls(a)) == 0 {
			t.Errorf("%v has no default key or gamepad control", a)
		}
		if a.String() == "" || a.Label() == "" {
			t.Errorf("action %d has no name", a)
		}
		if (a < NumShipActions) != (a.Bit() != 0) {
			t.Errorf("%v: bit %#x", a, a.Bit())
		}
	}
}

func TestRebind(t *testing.T) {
	km := DefaultKeymap().Rebind(ActFire, "K")
	if got := km.Keys(ActFire); !reflect.DeepEqual(got, []string{"K", "Space"}) {
		t.Fatalf("fire %v", got)
	}
	// Taking a key from another action removes it there, not from the menus.
	km = km.Rebind(ActFire, "W")
	if got := km.Keys(ActFire); !reflect.DeepEqual(got, []string{"W", "K"}) {
		t.Fatalf("fire %v", got)
	}
	if got := km.Keys(ActUp); !reflect.DeepEqual(got, []string{"ArrowUp"}) {
		t.Fatalf("up %v", got)
	}
	if got := km.Keys(ActMenuUp); !reflect.DeepEqual(got, []string{"ArrowUp", "W"}) {
		t.Fatalf("menu up %v", got)
	}
	// Taking the only key of an action gives it its free default back.
	km = DefaultKeymap().Rebind(ActLeft, "ArrowUp").Rebind(ActLeft, "W")
	if got := km.Keys(ActUp); len(got) == 0 {
		t.Fatalf("up left without keys")
	}
	// Reserved keys are refused.
	km = DefaultKeymap().Rebind(ActFire, "F11")
	if got := km.Keys(ActFire); !reflect.DeepEqual(got, []string{"Space", "J"}) {
		t.Fatalf("fire %v after binding F11", got)
	}
}

func TestCanBind(t *testing.T) {
	for _, c := range []struct {
		a    Action
		key  string
		want bool
	}{
		{ActFire, "K", true}, {ActFire, "Escape", false}, {ActFire, "f3", false}, {ActFire, "F11", false}, {ActFire, "", false},
		{ActPause, "Escape", true}, {ActBack, "escape", true}, {ActConfirm, "Escape", false}, {ActBack, "F3", false},
	} {
		if got := c.a.CanBind(c.key); got != c.want {
			t.Errorf("%v.CanBind(%q) = %v", c.a, c.key, got)
		}
	}
}

func TestPadControls(t *testing.T) {
	for c := range NumPadControls {
		got, ok := PadControlByName(strings.ToLower(c.String()))
		if !ok || got != c {
			t.Errorf("PadControlByName(%q) = %v, %v", c, got, ok)
		}
		_, isButton := c.Button()
		_, _, isAxis := c.Axis()
		if isButton == isAxis {
			t.Errorf("%v: button %v, axis %v", c, isButton, isAxis)
		}
	}
	if _, ok := PadControlByName("Turbo"); ok {
		t.Error("unknown control accepted")
	}
	for _, c := range []struct {
		c    PadControl
		axis int
		sign float64
	}{
		{PadLeftStickLeft, 0, -1}, {PadLeftStickRight, 0, 1}, {PadLeftStickUp, 1, -1}, {PadLeftStickDown, 1, 1},
		{PadRightStickLeft, 2, -1}, {PadRightStickDown, 3, 1},
	} {
		if axis, sign, _ := c.c.Axis(); axis != c.axis || sign != c.sign {
			t.Errorf("%v: axis %d sign %v", c.c, axis, sign)
		}
	}
}

// shipActions is how the client reads a gamepad in the play.
func shipActions(p Padmap, s *PadState) uint8 {
	var bits uint8
	for a := range NumShipActions {
		if s.Any(p.Controls(a), StickDeadzone) {
			bits |= a.Bit()
		}
	}
	return bits
}

func TestPadDefaults(t *testing.T) {
	p := DefaultPadmap()
	var s PadState
	s.Axes[0], s.Axes[1] = 0.2, -0.2
	if got := shipActions(p, &s); got != 0 {
		t.Errorf("inside deadzone: %#x", got)
	}
	s.Axes[0], s.Axes[1] = 0.9, -0.7
	s.Buttons[PadRightBottom] = true
	if got := shipActions(p, &s); got != wire.ActionRight|wire.ActionUp|wire.ActionFire {
		t.Errorf("stick: %#x", got)
	}
	s = PadState{}
	s.Buttons[PadLeftBottom], s.Buttons[PadLeftLeft] = true, true
	if got := shipActions(p, &s); got != wire.ActionDown|wire.ActionLeft {
		t.Errorf("dpad: %#x", got)
	}
	s = PadState{}
	s.Axes[1] = 0.4 // moves the ship, not the menu
	if !s.Any(p.Controls(ActDown), StickDeadzone) || s.Any(p.Controls(ActMenuDown), MenuStickThreshold) {
		t.Errorf("stick at 0.4: play and menu thresholds")
	}
	s = PadState{}
	s.Buttons[PadCenterRight] = true
	if !s.Any(p.Controls(ActPause), 0) || !s.Any(p.Controls(ActConfirm), 0) {
		t.Errorf("Start pauses and confirms")
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

func TestForceBinding(t *testing.T) {
	if ActForce.Bit() != wire.ActionForce || ActForce >= NumShipActions || ActForce.String() != "force" {
		t.Fatalf("ActForce: bit %#x, name %q", ActForce.Bit(), ActForce)
	}
	d := Default()
	if got := d.Keys.Keys(ActForce); !reflect.DeepEqual(got, []string{"X", "ShiftLeft"}) {
		t.Errorf("default Force keys %v", got)
	}
	var s PadState
	s.Buttons[PadRightLeft] = true
	if got := shipActions(d.Pad, &s); got != wire.ActionForce {
		t.Errorf("the gamepad's X: actions %#x", got)
	}
	// Rebound, saved and loaded back; the key leaves the other action.
	path := filepath.Join(t.TempDir(), "settings.json")
	want := Default()
	want.Keys = want.Keys.Rebind(ActForce, "J")
	if got := want.Keys.Keys(ActForce); !reflect.DeepEqual(got, []string{"J", "X"}) {
		t.Fatalf("rebound Force keys %v", got)
	}
	if got := want.Keys.Keys(ActFire); !reflect.DeepEqual(got, []string{"Space"}) {
		t.Fatalf("J stays on Fire: %v", got)
	}
	want.Pad["force"] = []string{"FrontBottomRight"}
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, Checks{})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, want)
	}
	// A file written before the Force existed gets its defaults.
	os.WriteFile(path, []byte(`{"name":"Ripley","keys":{"fire":["X"]}}`), 0o644)
	got, err = Load(path, Checks{})
	if err != nil {
		t.Fatal(err)
	}
	if k := got.Keys.Keys(ActForce); !reflect.DeepEqual(k, []string{"ShiftLeft"}) {
		t.Errorf("Force keys of an old file whose Fire took X: %v", k)
	}
	if len(got.Pad.Controls(ActForce)) == 0 {
		t.Error("no gamepad control for the Force")
	}
}

func TestJoinMode(t *testing.T) {
	if Default().JoinMode != ModeStage || WireMode(ModeStage) != wire.ModeStage || WireMode(ModeClassic) != wire.ModeClassic ||
		WireMode(ModeServer) != wire.ModeAny || WireMode("bogus") != wire.ModeStage {
		t.Fatal("join modes")
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	for _, m := range JoinModes {
		s := Default()
		s.JoinMode = m
		if err := Save(path, s); err != nil {
			t.Fatal(err)
		}
		if got, err := Load(path, Checks{}); err != nil || got.JoinMode != m {
			t.Errorf("%q: loaded %q, %v", m, got.JoinMode, err)
		}
		if ModeLabel(m) == "" {
			t.Errorf("%q has no label", m)
		}
	}
	for _, file := range []string{`{"join_mode":"deathmatch"}`, `{"name":"Ripley"}`} {
		os.WriteFile(path, []byte(file), 0o644)
		if got, _ := Load(path, Checks{}); got.JoinMode != ModeStage {
			t.Errorf("%s: join mode %q, want stage", file, got.JoinMode)
		}
	}
}

// The display settings out of range come back to the nearest offered; an
// unknown palette to the normal one.
func TestSanitizeDisplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"palette":"sepia","ui_scale":1000,"sprite_scale":-5,"flashes":false}`), 0o644)
	s, err := Load(path, Checks{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Palette != "normal" || s.UIScale != 150 || s.SpriteScale != 100 || s.Flashes || !s.ScreenShake {
		t.Errorf("got palette %q, ui %d, sprites %d, flashes %v, shake %v", s.Palette, s.UIScale, s.SpriteScale, s.Flashes, s.ScreenShake)
	}
	s.UIScale = 130
	s.Sanitize(Checks{})
	if s.UIScale != 125 {
		t.Errorf("ui scale 130 became %d, want 125", s.UIScale)
	}
}

// The palettes offered are render's, in its order.
func TestPalettesAreRenders(t *testing.T) {
	if !reflect.DeepEqual(Palettes, model.PaletteNames[:]) {
		t.Errorf("palettes %v, render's %v", Palettes, model.PaletteNames)
	}
	if got := Next(Palettes, "tritanopia", 1); got != "normal" {
		t.Errorf("after tritanopia: %q", got)
	}
	if got := Next(UIScales, 100, -1); got != 150 {
		t.Errorf("before 100%%: %d", got)
	}
}
