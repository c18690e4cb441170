package game

import (
	"fmt"
	"syscall/js"
)

// publish tells the page about the frame drawn, in globalThis.rtype:
// frames (how many were drawn), scene (the scene's type, e.g.
// "*game.TitleScene"), and the page's time (performance.now(), from the
// page's load) of the first frame of each scene type in first, e.g.
// first["*game.TitleScene"]. The page's tests read them; the game keeps
// no state of it.
func (g *Game) publish() {
	st := js.Global().Get("rtype")
	if st.Type() != js.TypeObject {
		st = js.Global().Get("Object").New()
		st.Set("first", js.Global().Get("Object").New())
		st.Set("frames", 0)
		js.Global().Set("rtype", st)
	}
	scene := fmt.Sprintf("%T", g.scene)
	st.Set("frames", st.Get("frames").Int()+1)
	st.Set("scene", scene)
	if first := st.Get("first"); first.Get(scene).IsUndefined() {
		first.Set(scene, js.Global().Get("performance").Call("now"))
	}
}
