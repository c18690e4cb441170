package game

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/net/client"
	"rtype/net/wire"
)

// joinHint is what the join screen says of its field: in the browser, a
// server is reached on its WebTransport port.
const joinHint = "A room code, or a server's WebTransport address (host:port)"

// browserTip is errorTip's advice in the browser, where the game reaches
// servers over WebTransport (no TCP, no UDP of its own).
func browserTip(err error) (string, bool) {
	switch {
	case errors.As(err, new(*client.ReachError)):
		return "Check the link. The server must serve browsers (-webtransport) and let UDP through on that port.", true
	case errors.Is(err, client.ErrBindTimeout):
		return "The server's WebTransport port must let UDP through.", true
	}
	return "", false
}

// soundOnGesture: in the browser the sound starts on the first key,
// click or touch. Browsers start no audio before one, and making the
// sound (synthesising the music) holds the page's one thread for seconds,
// which would delay the title screen.
const soundOnGesture = true

// gestured tells that the player pressed something: the sound was
// started (the page has one game).
var gestured bool

// gestureSound starts the sound at the first key, click or touch, as
// unmuting does (applySound).
func (g *Game) gestureSound() {
	if gestured {
		return
	}
	var keys [1]ebiten.Key
	if len(inpututil.AppendJustPressedKeys(keys[:0])) == 0 && !inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft) &&
		len(inpututil.AppendJustPressedTouchIDs(nil)) == 0 {
		return
	}
	gestured = true
	g.applySound()
}

// pageFrames is publish's buffer for the client's frames (the page has
// one game, drawn on one goroutine).
var pageFrames []client.Frame

// pageWorld is the world of the game joined as publish tells it: the last
// snapshot the client applied, its tick, the local player and the names
// in the player table, and the entities that snapshot updated as [id,
// kind, x, y] (logical pixels).
type pageWorld struct {
	Tick     uint32       `json:"tick"`
	Player   uint8        `json:"player"`
	Names    []string     `json:"names"`
	Entities [][4]float64 `json:"entities"`
	// KbitIn and KbitOut are the client's bandwidth (client.Stats), RTT
	// its round-trip time in ms.
	KbitIn  float64 `json:"kbitIn"`
	KbitOut float64 `json:"kbitOut"`
	RTT     float64 `json:"rtt"`
}

// publish tells the page about the frame drawn, in globalThis.rtype:
// frames (how many were drawn), scene (the scene's type, e.g.
// "*game.TitleScene"), the page's time (performance.now(), from the
// page's load) of the first frame of each scene type in first, e.g.
// first["*game.TitleScene"], fps (ebiten.ActualFPS), and every 4 frames
// of a game joined world,
// a pageWorld in JSON. The page's tests read them; the game keeps no
// state of it.
func (g *Game) publish() {
	st := js.Global().Get("rtype")
	if st.Type() != js.TypeObject {
		st = js.Global().Get("Object").New()
		st.Set("first", js.Global().Get("Object").New())
		st.Set("frames", 0)
		js.Global().Set("rtype", st)
	}
	scene := fmt.Sprintf("%T", g.scene)
	frames := st.Get("frames").Int() + 1
	st.Set("frames", frames)
	st.Set("scene", scene)
	st.Set("fps", ebiten.ActualFPS())
	pageFrameGaps(st)
	if first := st.Get("first"); first.Get(scene).IsUndefined() {
		first.Set(scene, js.Global().Get("performance").Call("now"))
	}
	if ps, ok := g.scene.(*PlayScene); ok && g.session != nil && st.Get("record").Truthy() {
		recordDrawn(st, ps, g.session.C)
	}
	if g.session == nil || frames%4 != 0 {
		return
	}
	c := g.session.C
	pageFrames = c.Frames(pageFrames)
	if len(pageFrames) == 0 {
		return
	}
	f := &pageFrames[len(pageFrames)-1]
	stats := c.Stats()
	w := pageWorld{Tick: f.Tick, Player: c.Player(), KbitIn: stats.KbitIn, KbitOut: stats.KbitOut, RTT: float64(stats.RTT.Microseconds()) / 1000}
	for _, p := range f.Players {
		if p.Present {
			w.Names = append(w.Names, p.Name)
		}
	}
	for _, e := range f.Entities {
		if e.Tick == f.Tick {
			w.Entities = append(w.Entities, [4]float64{float64(e.ID), float64(e.Kind), float64(e.X), float64(e.Y)})
		}
	}
	if b, err := json.Marshal(w); err == nil {
		st.Set("world", string(b))
	}
}

// pageRec is recordDrawn's buffer.
var pageRec []byte

// maxRecorded bounds rtype.drawn when nobody takes the records.
const maxRecorded = 4096

// recordDrawn appends to rtype.drawn, for rtype-bench's browser section,
// the frame the play scene just drew, as the bytes of a Float64Array
// (little-endian) in a Uint8Array: the time it was drawn (ms since 1970,
// performance.timeOrigin + performance.now()), the frame's render tick, the client's payload bytes and datagrams
// received and sent so far (link.Stats), then the id, x and y of each
// Bydos drawn. The page records only while rtype.record is true: three
// calls into JavaScript per frame, and one buffer reused.
func recordDrawn(st js.Value, ps *PlayScene, c *client.Client) {
	drawn := st.Get("drawn")
	if drawn.Type() != js.TypeObject {
		drawn = js.Global().Get("Array").New()
		st.Set("drawn", drawn)
	}
	if drawn.Length() >= maxRecorded {
		return
	}
	f := &ps.frame
	ls := c.Stats().Link
	pageRec = pageRec[:0]
	put := func(v float64) { pageRec = binary.LittleEndian.AppendUint64(pageRec, math.Float64bits(v)) }
	perf := js.Global().Get("performance")
	put(perf.Get("timeOrigin").Float() + perf.Call("now").Float())
	put(f.RenderTick)
	put(float64(ls.RecvBytes))
	put(float64(ls.SentBytes))
	put(float64(ls.RecvDatagrams))
	put(float64(ls.SentDatagrams))
	for i := range f.Sprites {
		if sp := &f.Sprites[i]; sp.Kind == wire.KindBydosSlave {
			put(float64(sp.ID))
			put(sp.X)
			put(sp.Y)
		}
	}
	a := js.Global().Get("Uint8Array").New(len(pageRec))
	js.CopyBytesToJS(a, pageRec)
	drawn.Call("push", a)
}

// lastFrameAt is the page's time (performance.now(), ms) of the last
// frame drawn, for pageFrameGaps.
var lastFrameAt float64

// pageFrameGaps tells the page how smoothly the game draws once the first
// key, click or touch has started the sound: in globalThis.rtype,
// gestureFrames is how many frames were drawn since (that frame
// included), maxFrameGap the longest time in ms between two frames of
// those (the first one's from the frame before it) and maxFrameGapAt
// which of them it came before (1: the key's own frame). The page's tests
// catch stalls with them, such as the sound's synthesis holding the
// page's one thread.
func pageFrameGaps(st js.Value) {
	now := js.Global().Get("performance").Call("now").Float()
	last := lastFrameAt
	lastFrameAt = now
	if !gestured || last == 0 {
		return
	}
	n := 1
	if v := st.Get("gestureFrames"); v.Type() == js.TypeNumber {
		n += v.Int()
	}
	st.Set("gestureFrames", n)
	if v := st.Get("maxFrameGap"); v.Type() != js.TypeNumber || now-last > v.Float() {
		st.Set("maxFrameGap", now-last)
		st.Set("maxFrameGapAt", n)
	}
}
