//go:build js && wasm

package wtjs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"syscall/js"
	"time"

	"rtype/net/client"
)

// Path is the path of the session's URL: https://HOST:PORT/rtype.
const Path = "/rtype"

// Transport opens WebTransport sessions from the browser. Its zero value
// trusts the certificates the browser trusts.
type Transport struct {
	// CertHashes are SHA-256 hashes of the server's certificates, for
	// serverCertificateHashes (a short-lived self-signed certificate);
	// empty: the browser checks the certificate the usual way.
	CertHashes [][32]byte

	mu   sync.Mutex
	last *session // the session DialStream opened last
}

// session is one WebTransport session.
type session struct {
	wt     js.Value
	url    string
	closed chan struct{} // closed when the session ends
	once   sync.Once
	err    error // why it ended, once closed
}

func (s *session) end(err error) {
	s.once.Do(func() {
		s.err = err
		close(s.closed)
		try(func() { s.wt.Call("close") })
	})
}

// Redirected returns a Transport that trusts the certificates of hashes
// (none: those the browser trusts), for a lobby following a RoomRedirect
// to another server's binding (7.18, net/lobby).
func (t *Transport) Redirected(hashes [][32]byte) client.Transport {
	return &Transport{CertHashes: slices.Clone(hashes)}
}

// DialStream opens a session to https://addr/rtype and its one
// bidirectional stream. Closing the stream ends the session.
func (t *Transport) DialStream(ctx context.Context, addr string) (net.Conn, error) {
	url := "https://" + addr + Path
	opts := js.Global().Get("Object").New()
	if len(t.CertHashes) > 0 {
		hashes := js.Global().Get("Array").New()
		for _, h := range t.CertHashes {
			v := js.Global().Get("Uint8Array").New(len(h))
			js.CopyBytesToJS(v, h[:])
			o := js.Global().Get("Object").New()
			o.Set("algorithm", "sha-256")
			o.Set("value", v)
			hashes.Call("push", o)
		}
		opts.Set("serverCertificateHashes", hashes)
	}
	ctor := js.Global().Get("WebTransport")
	if ctor.IsUndefined() {
		if sc := js.Global().Get("isSecureContext"); sc.Type() == js.TypeBoolean && !sc.Bool() {
			return nil, errors.New("browsers give WebTransport to secure pages only: open the game's https:// link rather than http://")
		}
		return nil, errors.New("this browser has no WebTransport: play in a recent Chrome, Edge or Firefox")
	}
	var wt js.Value
	if err := try(func() { wt = ctor.New(url, opts) }); err != nil {
		return nil, fmt.Errorf("WebTransport to %s: %w", url, err)
	}
	s := &session{wt: wt, url: url, closed: make(chan struct{})}
	go func() {
		r := <-then(wt.Get("closed"))
		err := r.err
		if err == nil {
			err = errors.New("the server closed the session")
		}
		s.end(err)
	}()
	if _, err := await(ctx, wt.Get("ready")); err != nil {
		s.end(err)
		return nil, fmt.Errorf("WebTransport to %s: %w", url, err)
	}
	bidi, err := await(ctx, wt.Call("createBidirectionalStream"))
	if err != nil {
		s.end(err)
		return nil, fmt.Errorf("WebTransport to %s: opening the stream: %w", url, err)
	}
	c := &Stream{s: s, addr: addr, r: newChunkReader(bidi.Get("readable"), s, false), w: bidi.Get("writable").Call("getWriter"),
		rd: newDeadline(), wd: newDeadline()}
	t.mu.Lock()
	t.last = s
	t.mu.Unlock()
	return c, nil
}

// DialDatagrams opens the datagram channel of the session of stream: a
// stream DialStream returned, or a conn whose NetConn method returns one
// (a lobby's view of its stream); any other conn means the session
// DialStream opened last.
func (t *Transport) DialDatagrams(ctx context.Context, stream net.Conn) (net.Conn, error) {
	var s *session
	var addr string
	for range 4 {
		u, ok := stream.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		stream = u.NetConn()
	}
	if st, ok := stream.(*Stream); ok {
		s, addr = st.s, st.addr
	} else {
		t.mu.Lock()
		s = t.last
		t.mu.Unlock()
		if stream != nil && stream.RemoteAddr() != nil {
			addr = stream.RemoteAddr().String()
		}
	}
	if s == nil {
		return nil, errors.New("WebTransport: no session to send datagrams on")
	}
	select {
	case <-s.closed:
		return nil, fmt.Errorf("WebTransport to %s: %w", s.url, s.err)
	default:
	}
	dg := s.wt.Get("datagrams")
	var w js.Value
	if err := try(func() { w = dg.Get("writable").Call("getWriter") }); err != nil {
		return nil, fmt.Errorf("WebTransport to %s: datagrams: %w", s.url, err)
	}
	r := newChunkReader(dg.Get("readable"), s, true)
	return &Datagrams{s: s, addr: addr, r: r, w: w, rd: newDeadline(), closed: make(chan struct{})}, nil
}

// addr is a net.Addr of a WebTransport session.
type addr string

func (a addr) Network() string { return "webtransport" }
func (a addr) String() string  { return string(a) }

// chunkReader reads a ReadableStream of Uint8Arrays one chunk at a time.
type chunkReader struct {
	reader   js.Value
	s        *session
	datagram bool // each chunk is a datagram: what a Read leaves is dropped

	mu      sync.Mutex     // one Read at a time
	pending js.Value       // the chunk being read, or undefined
	off     int            // how much of it was read
	res     <-chan settled // the read() in flight, or nil
	done    bool           // the stream ended
}

func newChunkReader(readable js.Value, s *session, datagram bool) *chunkReader {
	return &chunkReader{reader: readable.Call("getReader"), s: s, datagram: datagram, pending: js.Undefined()}
}

// read copies the next bytes into p, waiting until cancel is closed.
func (r *chunkReader) read(p []byte, cancel <-chan struct{}) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if !r.pending.IsUndefined() {
			n := r.pending.Length() - r.off
			if n > len(p) {
				n = len(p)
			}
			js.CopyBytesToGo(p[:n], r.pending.Call("subarray", r.off, r.off+n))
			r.off += n
			if r.datagram || r.off >= r.pending.Length() {
				r.pending, r.off = js.Undefined(), 0
			}
			return n, nil
		}
		if r.done {
			return 0, errEOF(r)
		}
		if r.res == nil {
			r.res = then(r.reader.Call("read"))
		}
		select {
		case v := <-r.res:
			r.res = nil
			if v.err != nil {
				r.done = true
				return 0, fmt.Errorf("WebTransport to %s: %w", r.s.url, v.err)
			}
			if v.v.Get("done").Bool() {
				r.done = true
				continue
			}
			if c := v.v.Get("value"); c.Length() > 0 {
				r.pending, r.off = c, 0
			}
		case <-cancel:
			return 0, os.ErrDeadlineExceeded
		case <-r.s.closed:
			r.done = true
			return 0, errEOF(r)
		}
	}
}

func errEOF(r *chunkReader) error {
	select {
	case <-r.s.closed:
		return fmt.Errorf("WebTransport to %s: %w", r.s.url, r.s.err)
	default:
		return net.ErrClosed
	}
}

// Stream is the session's bidirectional stream as a net.Conn.
type Stream struct {
	s      *session
	addr   string
	r      *chunkReader
	w      js.Value // its WritableStreamDefaultWriter
	wmu    sync.Mutex
	rd, wd *deadline
}

// Read reads what the server sent on the stream.
func (c *Stream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return c.r.read(p, c.rd.wait())
}

// Write sends p on the stream, waiting until the browser took it.
func (c *Stream) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.s.closed:
		return 0, fmt.Errorf("WebTransport to %s: %w", c.s.url, c.s.err)
	case <-c.wd.wait():
		return 0, os.ErrDeadlineExceeded
	default:
	}
	v := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(v, p)
	var pr js.Value
	if err := try(func() { pr = c.w.Call("write", v) }); err != nil {
		return 0, fmt.Errorf("WebTransport to %s: %w", c.s.url, err)
	}
	select {
	case r := <-then(pr):
		if r.err != nil {
			return 0, fmt.Errorf("WebTransport to %s: %w", c.s.url, r.err)
		}
		return len(p), nil
	case <-c.wd.wait():
		return 0, os.ErrDeadlineExceeded
	case <-c.s.closed:
		return 0, fmt.Errorf("WebTransport to %s: %w", c.s.url, c.s.err)
	}
}

// Close ends the session.
func (c *Stream) Close() error {
	c.s.end(net.ErrClosed)
	return nil
}

// LocalAddr is the page.
func (c *Stream) LocalAddr() net.Addr { return addr("browser") }

// RemoteAddr is the server's host:port.
func (c *Stream) RemoteAddr() net.Addr { return addr(c.addr) }

// SetDeadline sets both deadlines.
func (c *Stream) SetDeadline(t time.Time) error {
	c.rd.set(t)
	c.wd.set(t)
	return nil
}

// SetReadDeadline sets the read deadline.
func (c *Stream) SetReadDeadline(t time.Time) error { c.rd.set(t); return nil }

// SetWriteDeadline sets the write deadline.
func (c *Stream) SetWriteDeadline(t time.Time) error { c.wd.set(t); return nil }

// Datagrams is the session's datagrams as a net.Conn: a Write sends one
// datagram, a Read returns one (cut to len(p), as UDP does).
type Datagrams struct {
	s      *session
	addr   string
	r      *chunkReader
	w      js.Value
	rd     *deadline
	closed chan struct{}
	once   sync.Once
}

func (c *Datagrams) isClosed() bool { return isClosed(c.closed) }

// catch swallows the rejections of datagram writes, which are not
// waited for (a lost datagram is a lost datagram).
var catch = js.FuncOf(func(js.Value, []js.Value) any { return nil })

// Read returns the next datagram.
func (c *Datagrams) Read(p []byte) (int, error) {
	if c.isClosed() {
		return 0, net.ErrClosed
	}
	n, err := c.r.read(p, c.rd.wait())
	if err != nil && c.isClosed() {
		return 0, net.ErrClosed
	}
	return n, err
}

// Write sends p as one datagram without waiting for it; when the
// browser's queue is full it is dropped, as a full socket buffer drops
// UDP.
func (c *Datagrams) Write(p []byte) (int, error) {
	select {
	case <-c.s.closed:
		return 0, fmt.Errorf("WebTransport to %s: %w", c.s.url, c.s.err)
	default:
	}
	if ds := c.w.Get("desiredSize"); ds.Type() == js.TypeNumber && ds.Float() <= 0 {
		return len(p), nil
	}
	v := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(v, p)
	if err := try(func() { c.w.Call("write", v).Call("catch", catch) }); err != nil {
		return 0, fmt.Errorf("WebTransport to %s: %w", c.s.url, err)
	}
	return len(p), nil
}

// Close stops reading datagrams; the session goes on until its stream
// is closed.
func (c *Datagrams) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.rd.set(time.Unix(1, 0)) // wakes a Read
		try(func() { c.r.reader.Call("cancel").Call("catch", catch) })
	})
	return nil
}

// LocalAddr is the page.
func (c *Datagrams) LocalAddr() net.Addr { return addr("browser") }

// RemoteAddr is the server's host:port.
func (c *Datagrams) RemoteAddr() net.Addr { return addr(c.addr) }

// SetDeadline sets the read deadline (writes never wait).
func (c *Datagrams) SetDeadline(t time.Time) error { c.rd.set(t); return nil }

// SetReadDeadline sets the read deadline.
func (c *Datagrams) SetReadDeadline(t time.Time) error { c.rd.set(t); return nil }

// SetWriteDeadline does nothing: writes never wait.
func (c *Datagrams) SetWriteDeadline(t time.Time) error { return nil }
