//go:build !linux

package load

import (
	"errors"
	"net"

	"rtype/net/wire"
)

// batchConn reads and writes one connected UDP socket a datagram at a
// time, where recvmmsg and sendmmsg do not exist.
type batchConn struct {
	c    *net.UDPConn
	buf  [wire.MaxDatagram + 1]byte
	msgs [1][]byte
}

func newBatchConn(c *net.UDPConn) (*batchConn, error) { return &batchConn{c: c}, nil }

// canPoll says that polled sockets exist here: not without recvmmsg.
const canPoll = false

func newPolledConn(*net.UDPAddr) (*batchConn, error) {
	return nil, errors.New("load: no polled sockets on this system")
}

// poll is never called: there are no polled sockets here.
func (b *batchConn) poll() [][]byte { return nil }

// close does nothing: the socket is a net.UDPConn, closed as such.
func (b *batchConn) close() {}

// read waits for a datagram and returns it, valid until the next read.
func (b *batchConn) read() ([][]byte, error) {
	n, err := b.c.Read(b.buf[:])
	if errors.Is(err, net.ErrClosed) {
		return nil, err
	}
	if err != nil {
		return nil, nil
	}
	b.msgs[0] = b.buf[:n]
	return b.msgs[:], nil
}

// write sends ds, in order.
func (b *batchConn) write(ds [][]byte) {
	for _, d := range ds {
		b.c.Write(d)
	}
}
