//go:build !js

package game

// publish does nothing outside the browser (see page_js.go).
func (g *Game) publish() {}
