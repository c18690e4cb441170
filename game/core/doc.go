// Package core is the game client's pure logic: server addresses, score
// ranking, player names and the test input scripts. It never imports
// Ebitengine, so its tests run without a display. The settings and the
// bindings are in rtype/game/settings; the effect, notice and starfield
// models in rtype/render/model.
package core
