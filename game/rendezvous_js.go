package game

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"syscall/js"
	"time"

	"rtype/net/client"
	"rtype/net/wtjs"
)

// The browser cannot send UDP of its own, so it speaks no rendezvous
// message: it joins a hosted game by its code through the lookup of the
// page's server (PROTOCOL.md 10.8), when that server runs a rendezvous
// (config.json's join, which main_js.go makes the game's rendezvous):
// the lookup names the host's WebTransport binding when a browser can
// reach it (direct, mapped), and the rendezvous' relay, which the game
// tries when the host's binding does not answer or there is none.

// defaultRendezvous is the lookup of the page's server, or "".
func defaultRendezvous() string {
	if cfg := js.Global().Get("rtypeConfig"); cfg.Type() == js.TypeObject {
		if j := cfg.Get("join"); j.Type() == js.TypeString {
			return j.String()
		}
	}
	return ""
}

// codeTransport returns the transport that joins a room by its code
// through the lookup at url.
// A code no host registered may be a room of the page's own game
// server (config.json's addr), which the lookup does not know: the
// transport joins it there.
func codeTransport(url string, log *slog.Logger) client.Transport {
	j := &pageJoin{url: url, log: log}
	if cfg := js.Global().Get("rtypeConfig"); cfg.Type() == js.TypeObject {
		if a := cfg.Get("addr"); a.Type() == js.TypeString {
			j.own = a.String()
		}
		j.ownHashes = jsHashes(cfg.Get("certHashes"))
	}
	return j
}

// jsHashes reads an array of SHA-256 hashes in hex (at most 4).
func jsHashes(v js.Value) [][32]byte {
	var out [][32]byte
	if v.Type() == js.TypeObject {
		for i := range min(v.Length(), 4) {
			if b, err := hex.DecodeString(v.Index(i).String()); err == nil && len(b) == 32 {
				out = append(out, [32]byte(b))
			}
		}
	}
	return out
}

// transportPath returns the path of the last session tr opened by a
// code: "direct", "mapped" or "relayed"; else "".
func transportPath(tr client.Transport) string {
	if j, ok := tr.(*pageJoin); ok {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.path
	}
	return ""
}

// codeError explains err, the failure of a join by code, to the player.
func codeError(err error, code string) error {
	var le *lookupError
	if errors.As(err, &le) {
		return fmt.Errorf("room %s: %s", code, le.msg)
	}
	return err
}

// lookupError is the lookup's refusal, in the server's words.
type lookupError struct {
	status int
	msg    string
}

func (e *lookupError) Error() string {
	return fmt.Sprintf("the lookup answered %d: %s", e.status, e.msg)
}

// directWait is how long a session to the host's own binding may take
// before the relay is tried instead.
const directWait = 5 * time.Second

// pageJoin is a client.Transport whose DialStream address is a room
// code: it looks the code up, then opens its session to the host's
// binding or to the relay.
type pageJoin struct {
	url string
	log *slog.Logger
	// own and ownHashes are the page's own game server's binding, or "".
	own       string
	ownHashes [][32]byte

	mu   sync.Mutex
	path string
	tr   *wtjs.Transport // the one that opened the last session
}

// joinAnswer is the lookup's JSON.
type joinAnswer struct {
	Path            string
	Addr            string
	CertHashes      [][32]byte
	Relay           string
	RelayCertHashes [][32]byte
	Error           string
}

// lookup fetches the lookup of code.
func (j *pageJoin) lookup(ctx context.Context, code string) (joinAnswer, error) {
	var a joinAnswer
	fetch := js.Global().Get("fetch")
	if fetch.Type() != js.TypeFunction {
		return a, errors.New("this browser cannot fetch")
	}
	rsp, err := awaitJS(ctx, fetch.Invoke(j.url+"?code="+js.Global().Call("encodeURIComponent", code).String(),
		map[string]any{"cache": "no-store"}))
	if err != nil {
		return a, fmt.Errorf("the page's server did not answer the lookup: %w", err)
	}
	status := rsp.Get("status").Int()
	body, err := awaitJS(ctx, rsp.Call("json"))
	if err != nil || body.Type() != js.TypeObject {
		return a, fmt.Errorf("the page's server answered %d, not a lookup: is it a rendezvous?", status)
	}
	str := func(k string) string {
		if v := body.Get(k); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	hashes := func(k string) [][32]byte { return jsHashes(body.Get(k)) }
	if status != 200 {
		msg := str("error")
		if msg == "" {
			msg = "the lookup failed"
		}
		return a, &lookupError{status: status, msg: msg}
	}
	a = joinAnswer{Path: str("path"), Addr: str("addr"), CertHashes: hashes("certHashes"), Relay: str("relay"),
		RelayCertHashes: hashes("relayCertHashes")}
	return a, nil
}

// DialStream looks room code up and opens its session: to the host's
// binding first when the lookup gives it, then to the relay.
func (j *pageJoin) DialStream(ctx context.Context, code string) (net.Conn, error) {
	a, err := j.lookup(ctx, code)
	var le *lookupError
	if errors.As(err, &le) && le.status == 404 && j.own != "" {
		tr := &wtjs.Transport{CertHashes: j.ownHashes}
		if c, oerr := tr.DialStream(ctx, j.own); oerr == nil {
			j.opened("", tr) // the room may be there; if not, its lobby says so
			return c, nil
		}
	}
	if err != nil {
		return nil, err
	}
	var errs []error
	if a.Addr != "" {
		tr := &wtjs.Transport{CertHashes: a.CertHashes}
		dctx, cancel := ctx, context.CancelFunc(func() {})
		if a.Relay != "" {
			dctx, cancel = context.WithTimeout(ctx, directWait)
		}
		c, err := tr.DialStream(dctx, a.Addr)
		cancel()
		if err == nil {
			j.opened(a.Path, tr)
			return c, nil
		}
		j.log.Info("the host's own address did not answer: through the relay", "addr", a.Addr, "err", err)
		errs = append(errs, fmt.Errorf("%s %s: %w", a.Path, a.Addr, err))
	}
	if a.Relay != "" {
		tr := &wtjs.Transport{CertHashes: a.RelayCertHashes}
		c, err := tr.DialStream(ctx, a.Relay+"/room/"+code)
		if err == nil {
			j.opened("relayed", tr)
			return c, nil
		}
		errs = append(errs, fmt.Errorf("relayed %s: %w", a.Relay, err))
	}
	if len(errs) == 0 {
		return nil, errors.New("the lookup named no way to the host")
	}
	return nil, fmt.Errorf("your friend's game did not answer: %w", errors.Join(errs...))
}

func (j *pageJoin) opened(path string, tr *wtjs.Transport) {
	j.mu.Lock()
	j.path, j.tr = path, tr
	j.mu.Unlock()
	j.log.Info("session open", "path", path)
}

// DialDatagrams opens the datagram channel of the session of stream.
func (j *pageJoin) DialDatagrams(ctx context.Context, stream net.Conn) (net.Conn, error) {
	j.mu.Lock()
	tr := j.tr
	j.mu.Unlock()
	if tr == nil {
		tr = &wtjs.Transport{}
	}
	return tr.DialDatagrams(ctx, stream)
}

// awaitJS waits for promise p, or for ctx.
func awaitJS(ctx context.Context, p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		v := js.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ch <- settled{v: v}
		ok.Release()
		fail.Release()
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		err := errors.New("failed")
		if len(args) > 0 && args[0].Type() == js.TypeObject {
			if m := args[0].Get("message"); m.Type() == js.TypeString {
				err = errors.New(m.String())
			}
		}
		ch <- settled{err: err}
		ok.Release()
		fail.Release()
		return nil
	})
	p.Call("then", ok, fail)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}
