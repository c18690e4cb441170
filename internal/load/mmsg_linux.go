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
// is called by one goroutine, write by one at a time (under its group's
// lock).
type batchConn struct {
	rc syscall.RawConn

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
	return b, nil
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
	for i := 0; i < b.rn; i++ {
		b.rmsgs[i] = b.bufs[i][:b.rhdrs[i].len]
	}
	return b.rmsgs[:b.rn], nil
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
		if err := b.rc.Write(b.wfn); err != nil {
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
