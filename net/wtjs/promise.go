//go:build js && wasm

package wtjs

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"
)

// settled is what a promise gave: its value, or why it was rejected.
type settled struct {
	v   js.Value
	err error
}

// then subscribes to p; the channel (capacity 1) receives its outcome.
// The callbacks are released once it settles.
func then(p js.Value) <-chan settled {
	ch := make(chan settled, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: arg(args)}
		ok.Release()
		fail.Release()
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: jsError(arg(args))}
		ok.Release()
		fail.Release()
		return nil
	})
	p.Call("then", ok, fail)
	return ch
}

// await waits for p, or for ctx.
func await(ctx context.Context, p js.Value) (js.Value, error) {
	select {
	case r := <-then(p):
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}

func arg(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// jsError turns a rejection's reason or a thrown value into an error
// with the browser's words.
func jsError(v js.Value) error {
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString && m.String() != "" {
			return errors.New(m.String())
		}
	}
	if v.IsUndefined() || v.IsNull() {
		return errors.New("no reason given")
	}
	return errors.New(v.Call("toString").String())
}

// try runs f, turning a JavaScript exception into an error.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(js.Error); ok {
				err = jsError(e.Value)
				return
			}
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}
