// Package core is the game client's pure logic: server addresses, score
// ranking, effect and notice timing, the starfield's layout, player names
// and the test input scripts. It never imports Ebitengine, so its tests
// run without a display. The settings and the bindings are in
// rtype/game/settings.
package core
