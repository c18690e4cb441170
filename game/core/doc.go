// Package core is the game client's pure logic: settings and their file,
// key bindings as data, server addresses, the recent servers list, score
// ranking and the test input scripts. It never imports Ebitengine, so its
// tests run without a display.
package core
