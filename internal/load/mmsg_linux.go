//go:build linux

package load

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"rtype/net/wire"
)

// On Linux a socket's datagrams go through recvmmsg and sendmmsg: one
// syscall for up to batch datagrams each way. The sockets are connected
// to the server, so no addresses are read or written. As the server's,
// the calls are raw (they never block, with MSG_DONTWAIT): no hand-off
// of the P to another thread while a batch is in the kernel.

// mmsghdr is struct mmsghdr of <sys/socket.h>.
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
}

// batchConn reads and writes one connected UDP socket in batches. read
// (or poll) is called by one goroutine, write by one at a time (under its
// group's lock).
type batchConn struct {
	rc syscall.RawConn // nil: a polled socket, fd
	fd int

	rhdrs [batch]mmsghdr
	riovs [batch]unix.Iovec
	bufs  [batch][wire.MaxDatagram + 1]byte
	rmsgs [batch][]byte
	rfn   func(fd uintptr) bool
	rn    int
	rerr  syscall.Errno

	whdrs [batch]mmsghdr
	wiovs [batch]unix.Iovec
	wfn   func(fd uintptr) bool
	todo  []mmsghdr
	sent  int
	werr  syscall.Errno
}

func newBatchConn(c *net.UDPConn) (*batchConn, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	b := &batchConn{rc: rc}
	b.init()
	return b, nil
}

// init makes the headers and the calls of b.
func (b *batchConn) init() {
	for i := range b.rhdrs {
		b.riovs[i].Base = &b.bufs[i][0]
		b.riovs[i].SetLen(len(b.bufs[i]))
		b.rhdrs[i].hdr.Iov = &b.riovs[i]
		b.rhdrs[i].hdr.SetIovlen(1)
	}
	b.rfn = func(fd uintptr) bool {
		n, _, e := unix.RawSyscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&b.rhdrs[0])), batch, unix.MSG_DONTWAIT, 0, 0)
		if e == unix.EAGAIN || e == unix.EINTR {
			return false
		}
		b.rn, b.rerr = int(n), e
		return true
	}
	b.wfn = func(fd uintptr) bool {
		n, _, e := unix.RawSyscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&b.todo[0])), uintptr(len(b.todo)), unix.MSG_DONTWAIT, 0, 0)
		if e == unix.EAGAIN || e == unix.EINTR {
			return false
		}
		b.sent, b.werr = int(n), e
		return true
	}
}

// canPoll says that polled sockets (newPolledConn) exist here.
const canPoll = true

// polledReadBuffer is the receive buffer a polled socket asks for: what
// comes in between two polls (16 sessions' snapshots and events of a
// tick, ~40 kB of the kernel's memory) with room for a poll late by tens
// of milliseconds on a busy machine. The kernel caps it at
// net.core.rmem_max.
const polledReadBuffer = 1 << 20

// newPolledConn opens a UDP socket connected to to that the runtime's
// poller does not know: nothing waits for it to be readable, it is read
// by poll, without waiting, at each tick. So a datagram coming to it
// wakes no thread (the kernel finds no waiter on the socket), where a
// socket of package net, registered with epoll, wakes the thread parked
// in epoll_wait at each datagram, in the sender's syscall on loopback.
func newPolledConn(to *net.UDPAddr) (*batchConn, error) {
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip4 := to.IP.To4(); ip4 != nil {
		sa = &unix.SockaddrInet4{Port: to.Port, Addr: [4]byte(ip4)}
	} else if ip6 := to.IP.To16(); ip6 != nil {
		family = unix.AF_INET6
		s6 := &unix.SockaddrInet6{Port: to.Port, Addr: [16]byte(ip6)}
		if to.Zone != "" {
			ifi, err := net.InterfaceByName(to.Zone)
			if err != nil {
				return nil, err
			}
			s6.ZoneId = uint32(ifi.Index)
		}
		sa = s6
	} else {
		return nil, &net.AddrError{Err: "not an IP address", Addr: to.String()}
	}
	fd, err := unix.Socket(family, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return nil, err
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, polledReadBuffer) // best effort
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		return nil, err
	}
	b := &batchConn{fd: fd}
	b.init()
	return b, nil
}

// poll returns the datagrams the socket holds, a batch at most, without
// waiting: none when it is empty. A polled socket only.
func (b *batchConn) poll() [][]byte {
	for i := range b.rhdrs {
		b.rhdrs[i].hdr.Flags = 0
	}
	if !b.rfn(uintptr(b.fd)) || b.rerr != 0 {
		return nil // EAGAIN: empty; an ICMP error: nothing read
	}
	return b.received()
}

// received returns the datagrams of the last read, valid until the next.
func (b *batchConn) received() [][]byte {
	for i := 0; i < b.rn; i++ {
		b.rmsgs[i] = b.bufs[i][:b.rhdrs[i].len]
	}
	return b.rmsgs[:b.rn]
}

// close closes a polled socket. Nothing may use it after.
func (b *batchConn) close() {
	if b.rc == nil {
		unix.Close(b.fd)
	}
}

// read waits for datagrams and returns a batch of them, valid until the
// next read. An error from the socket (an ICMP unreachable) is returned
// as a batch of none; a closed socket as an error.
func (b *batchConn) read() ([][]byte, error) {
	for i := range b.rhdrs {
		b.rhdrs[i].hdr.Flags = 0
	}
	if err := b.rc.Read(b.rfn); err != nil {
		return nil, err
	}
	if b.rerr != 0 {
		return nil, nil
	}
	return b.received(), nil
}

// write sends ds (at most batch), in order; a datagram the kernel refuses
// is dropped, as a lost one would be.
func (b *batchConn) write(ds [][]byte) {
	for i, d := range ds {
		b.wiovs[i].Base = &d[0]
		b.wiovs[i].SetLen(len(d))
		b.whdrs[i].hdr = unix.Msghdr{Iov: &b.wiovs[i]}
		b.whdrs[i].hdr.SetIovlen(1)
	}
	for off := 0; off < len(ds); {
		b.todo = b.whdrs[off:len(ds)]
		if b.rc == nil {
			if !b.wfn(uintptr(b.fd)) {
				break // a full socket buffer: the rest is lost, as on a network
			}
		} else if err := b.rc.Write(b.wfn); err != nil {
			break // closed
		}
		if b.werr != 0 {
			off++
		} else {
			off += max(b.sent, 1)
		}
	}
	b.todo = nil
}
