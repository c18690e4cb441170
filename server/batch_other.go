//go:build !linux

package server

import (
	"net"
	"net/netip"

	"rtype/net/wire"
)

// Elsewhere than on Linux, the datagrams go one syscall each, through
// package net: a batch of one received, a loop of writes.

// udpSocket is the server's UDP socket: here, package net's.
type udpSocket struct{ c *net.UDPConn }

func newUDPSocket(c *net.UDPConn) (*udpSocket, error) {
	c.SetReadBuffer(readBuffer) // best effort: the system may cap it
	return &udpSocket{c: c}, nil
}

// close stops the socket's reads and writes.
func (u *udpSocket) close() { u.c.Close() }

// receiveBuffer returns 0: the portable socket does not tell its
// receive buffer, so the read loop queues by default (Config.WaitForTick).
func (u *udpSocket) receiveBuffer() int { return 0 }

// release is close: package net's socket stays valid for its users.
func (u *udpSocket) release() { u.c.Close() }

// batchReader receives one datagram at a time.
type batchReader struct {
	c     *net.UDPConn
	buf   [wire.MaxDatagram + 1]byte
	msgs  [1]datagram
	stats rxStats
}

func newBatchReader(u *udpSocket) (*batchReader, error) { return &batchReader{c: u.c}, nil }

// read waits for a datagram and returns it, valid until the next read,
// its address unmapped.
func (r *batchReader) read() ([]datagram, error) {
	n, from, err := r.c.ReadFromUDPAddrPort(r.buf[:])
	if err != nil {
		return nil, err
	}
	r.stats.calls.Add(1)
	r.stats.datagrams.Add(1)
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	r.msgs[0] = datagram{b: r.buf[:n], addr: from}
	return r.msgs[:], nil
}

// batchWriter sends datagrams one at a time.
type batchWriter struct {
	c     *net.UDPConn
	stats txStats
}

func newBatchWriter(u *udpSocket) (*batchWriter, error) { return &batchWriter{c: u.c}, nil }

// write sends ds, in order; a datagram refused is dropped.
func (w *batchWriter) write(ds []datagram) {
	for i := range ds {
		w.stats.calls.Add(1)
		if _, err := w.c.WriteToUDPAddrPort(ds[i].b, ds[i].addr); err != nil {
			w.stats.refused.Add(1)
			continue
		}
		w.stats.datagrams.Add(1)
	}
}
