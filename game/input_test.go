package game

import (
	"reflect"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/render"
)

// The gamepad controls of the settings are read as Ebitengine's standard
// layout numbers them.
func TestPadControlsAreEbitengines(t *testing.T) {
	buttons := map[string]ebiten.StandardGamepadButton{
		"RightBottom": ebiten.StandardGamepadButtonRightBottom, "RightRight": ebiten.StandardGamepadButtonRightRight,
		"RightLeft": ebiten.StandardGamepadButtonRightLeft, "RightTop": ebiten.StandardGamepadButtonRightTop,
		"FrontTopLeft": ebiten.StandardGamepadButtonFrontTopLeft, "FrontTopRight": ebiten.StandardGamepadButtonFrontTopRight,
		"FrontBottomLeft": ebiten.StandardGamepadButtonFrontBottomLeft, "FrontBottomRight": ebiten.StandardGamepadButtonFrontBottomRight,
		"CenterLeft": ebiten.StandardGamepadButtonCenterLeft, "CenterRight": ebiten.StandardGamepadButtonCenterRight,
		"LeftStick": ebiten.StandardGamepadButtonLeftStick, "RightStick": ebiten.StandardGamepadButtonRightStick,
		"LeftTop": ebiten.StandardGamepadButtonLeftTop, "LeftBottom": ebiten.StandardGamepadButtonLeftBottom,
		"LeftLeft": ebiten.StandardGamepadButtonLeftLeft, "LeftRight": ebiten.StandardGamepadButtonLeftRight,
		"CenterCenter": ebiten.StandardGamepadButtonCenterCenter,
	}
	if len(buttons) != settings.NumPadButtons || settings.NumPadButtons != int(ebiten.StandardGamepadButtonMax)+1 {
		t.Fatalf("%d buttons named, settings has %d", len(buttons), settings.NumPadButtons)
	}
	for name, want := range buttons {
		c, ok := settings.PadControlByName(name)
		if b, isButton := c.Button(); !ok || !isButton || ebiten.StandardGamepadButton(b) != want {
			t.Errorf("%s is button %d, Ebitengine's is %d", name, b, want)
		}
	}
	axes := map[string]ebiten.StandardGamepadAxis{
		"LeftStickLeft": ebiten.StandardGamepadAxisLeftStickHorizontal, "LeftStickDown": ebiten.StandardGamepadAxisLeftStickVertical,
		"RightStickRight": ebiten.StandardGamepadAxisRightStickHorizontal, "RightStickUp": ebiten.StandardGamepadAxisRightStickVertical,
	}
	if settings.NumPadAxes != int(ebiten.StandardGamepadAxisMax)+1 {
		t.Fatalf("settings has %d axes", settings.NumPadAxes)
	}
	for name, want := range axes {
		c, _ := settings.PadControlByName(name)
		if axis, _, ok := c.Axis(); !ok || ebiten.StandardGamepadAxis(axis) != want {
			t.Errorf("%s is axis %d, Ebitengine's is %d", name, axis, want)
		}
	}
}

// The settings screen rebinds a key, applies it to the input at once and
// saves it; Reset brings every binding back, the gamepad's too.
func TestSettingsSceneRebinds(t *testing.T) {
	g := newTestGame(t, Options{Name: "Tester"})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	s := NewSettingsScene(g)
	g.setScene(s)
	item := func(label string) *MenuItem {
		for i := range s.menu.Items {
			if s.menu.Items[i].Label == label {
				return &s.menu.Items[i]
			}
		}
		t.Fatalf("no %q row", label)
		return nil
	}
	fire := item(settings.ActFire.Label())
	if v := fire.Value(); v != "Space  or  J" {
		t.Errorf("fire row shows %q", v)
	}
	fire.Activate()
	if s.binding != int(settings.ActFire) || fire.Value() != "press a key…" {
		t.Fatalf("binding %d, row %q", s.binding, fire.Value())
	}
	s.Draw(screen, g)
	s.bind(g, settings.ActFire, "K")
	if s.binding != -1 || fire.Value() != "K  or  Space" {
		t.Errorf("after binding K: binding %d, row %q", s.binding, fire.Value())
	}
	if len(g.in.keys[settings.ActFire]) == 0 || g.in.keys[settings.ActFire][0] != ebiten.KeyK {
		t.Errorf("the input fires with %v", g.in.keys[settings.ActFire])
	}
	saved, err := settings.Load(g.settingsPath, settingsChecks)
	if err != nil || !reflect.DeepEqual(saved.Keys.Keys(settings.ActFire), []string{"K", "Space"}) {
		t.Errorf("saved fire keys %v, %v", saved.Keys.Keys(settings.ActFire), err)
	}

	g.settings.Pad["fire"] = []string{"RightTop"}
	item("Reset to defaults").Activate()
	if !reflect.DeepEqual(g.settings.Keys, settings.DefaultKeymap()) || !reflect.DeepEqual(g.settings.Pad, settings.DefaultPadmap()) {
		t.Errorf("reset: keys %v pad %v", g.settings.Keys, g.settings.Pad)
	}
	if g.in.keys[settings.ActFire][0] != ebiten.KeySpace || g.in.controls[settings.ActFire][0] != settings.PadRightBottom {
		t.Errorf("reset not applied to the input")
	}
	s.Draw(screen, g)
}
