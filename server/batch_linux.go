//go:build linux

package server

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"rtype/net/wire"
)

// On Linux, the datagrams go through recvmmsg and sendmmsg: one syscall
// for up to batchSize datagrams each way. (golang.org/x/net's
// ipv4.PacketConn.ReadBatch does the same but allocates a net.UDPAddr
// per datagram received; these calls allocate nothing.) Both are raw
// syscalls: with MSG_DONTWAIT they never block, and a plain Syscall lets
// the runtime's sysmon hand the goroutine's P to another thread while a
// batch of 64 is in the kernel (a few hundred µs), a thread wake-up and a
// park each time: 17-19% of the server's CPU at 400 players (BENCHMARKS.md,
// players per core).
//
// The socket is not in the runtime's poller. The poller watches its
// descriptors edge-triggered, and an edge is every datagram that comes:
// with 60,000 Inputs a second and an idle thread parked in epoll_wait,
// that thread was woken for each datagram that came while the read loop
// was busy or paused, found nobody waiting for it, and parked again:
// 37,000 epoll_wait calls and 20,000 context switches a second at 1,000
// players, 28% of the server's CPU in the scheduler (BENCHMARKS.md,
// players per core, ninth pass). Here the socket is watched by an epoll
// instance of its own, one-shot: armed only when the read loop found the
// socket empty and is about to wait, so that one datagram wakes it and
// the others do not; that instance is in the runtime's poller, so the
// read loop waits as any goroutine does, without holding a thread.

// udpSocket is the server's UDP socket, taken out of the runtime's poller.
type udpSocket struct {
	fd     int                // the socket, non-blocking (a duplicate of the net.UDPConn's)
	ep     *os.File           // an epoll instance watching fd one-shot, in the runtime's poller
	epc    syscall.RawConn    // ep's, to wait for it
	closed atomic.Bool        // close was called: reads and writes stop
	wait   func(uintptr) bool // the wait's poll of ep, made once
	arm    func(uintptr)      // arms the watch of fd on ep again (armErr), made once
	armErr error
}

// newUDPSocket takes c's socket: c is closed (out of the runtime's poller),
// the socket goes on in the udpSocket.
func newUDPSocket(c *net.UDPConn) (*udpSocket, error) {
	defer c.Close()             // the duplicate holds the socket; this takes it out of the runtime's poller
	c.SetReadBuffer(readBuffer) // best effort: the system may cap it
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("duplicating the UDP socket: %w", derr)
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	watch := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(fd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &watch); err != nil { // armed: a datagram before the first wait is one spurious wake-up at most
		unix.Close(epfd)
		unix.Close(fd)
		return nil, fmt.Errorf("epoll_ctl on the UDP socket: %w", err)
	}
	unix.SetNonblock(epfd, true) // so that os.NewFile puts it in the runtime's poller
	u := &udpSocket{fd: fd, ep: os.NewFile(uintptr(epfd), "udp-epoll")}
	if u.epc, err = u.ep.SyscallConn(); err != nil {
		u.ep.Close()
		unix.Close(fd)
		return nil, err
	}
	u.arm = func(epfd uintptr) { u.armErr = unix.EpollCtl(int(epfd), unix.EPOLL_CTL_MOD, u.fd, &watch) }
	var ev [1]unix.EpollEvent
	u.wait = func(epfd uintptr) bool {
		n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, epfd, uintptr(unsafe.Pointer(&ev[0])), 1, 0, 0, 0)
		return n > 0 || e != 0 && e != unix.EINTR
	}
	return u, nil
}

// waitReadable waits until the socket may have a datagram: it arms the
// one-shot watch (the kernel checks the socket as it arms it, so that a
// datagram that came just before is not missed) and waits for ep in the
// runtime's poller. Only the read loop calls it.
func (u *udpSocket) waitReadable() error {
	err := u.epc.Control(u.arm) // ep held open meanwhile
	if err == nil {
		err = u.armErr
	}
	if err != nil {
		if u.closed.Load() {
			return net.ErrClosed
		}
		return fmt.Errorf("epoll_ctl on the UDP socket: %w", err)
	}
	if err := u.epc.Read(u.wait); err != nil {
		if u.closed.Load() {
			return net.ErrClosed
		}
		return fmt.Errorf("waiting for the UDP socket: %w", err)
	}
	return nil
}

// receiveBuffer returns the socket's receive buffer as the kernel
// reports it (SO_RCVBUF: twice the bytes of data it grants), or 0.
func (u *udpSocket) receiveBuffer() int {
	n, err := unix.GetsockoptInt(u.fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		return 0
	}
	return n
}

// waitWritable waits, at most a tenth of a second, until the socket's
// send buffer has room (a NIC's queue was full: rare; never on loopback).
func (u *udpSocket) waitWritable() {
	p := []unix.PollFd{{Fd: int32(u.fd), Events: unix.POLLOUT}}
	unix.Poll(p, 100)
}

// close stops the socket's reads (the read loop's returns net.ErrClosed)
// and writes (they drop their datagrams). The descriptor stays open until
// release, so that no goroutine still sending writes to a reused number.
func (u *udpSocket) close() {
	if u.closed.CompareAndSwap(false, true) {
		u.ep.Close()
	}
}

// release closes the descriptor, once nothing uses the socket.
func (u *udpSocket) release() {
	u.close()
	if u.fd >= 0 {
		unix.Close(u.fd)
		u.fd = -1
	}
}

// mmsghdr is struct mmsghdr of <sys/socket.h>.
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
}

// batchReader receives datagrams in batches with recvmmsg.
type batchReader struct {
	u     *udpSocket
	hdrs  [batchSize]mmsghdr
	iovs  [batchSize]unix.Iovec
	names [batchSize]unix.RawSockaddrInet6 // large enough for either family
	bufs  [batchSize][wire.MaxDatagram + 1]byte
	msgs  [batchSize]datagram
	stats rxStats
}

func newBatchReader(u *udpSocket) (*batchReader, error) {
	r := &batchReader{u: u}
	for i := range r.hdrs {
		r.iovs[i].Base = &r.bufs[i][0]
		r.iovs[i].SetLen(len(r.bufs[i]))
	}
	return r, nil
}

// read waits for datagrams and returns a batch of them, valid until the
// next read. Their addresses are unmapped (an IPv4 peer of an IPv6 socket
// is its IPv4 address). After the socket's close it returns net.ErrClosed.
func (r *batchReader) read() ([]datagram, error) {
	for {
		if r.u.closed.Load() {
			return nil, net.ErrClosed
		}
		n, e := r.recv()
		switch {
		case e == 0:
			r.stats.calls.Add(1)
			r.stats.datagrams.Add(uint64(n))
			return r.batch(n), nil
		case e == unix.EAGAIN || e == unix.EINTR:
			r.stats.waits.Add(1)
			if err := r.u.waitReadable(); err != nil {
				return nil, err
			}
		default:
			return nil, e
		}
	}
}

// recv is one recvmmsg that does not wait.
func (r *batchReader) recv() (int, syscall.Errno) {
	for i := range r.hdrs {
		h := &r.hdrs[i].hdr
		h.Name = (*byte)(unsafe.Pointer(&r.names[i]))
		h.Namelen = unix.SizeofSockaddrInet6
		h.Iov = &r.iovs[i]
		h.SetIovlen(1)
		h.Flags = 0
	}
	n, _, e := unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(r.u.fd), uintptr(unsafe.Pointer(&r.hdrs[0])), batchSize, unix.MSG_DONTWAIT, 0, 0)
	return int(n), e
}

// batch returns the first n datagrams received, those of a known family.
func (r *batchReader) batch(n int) []datagram {
	k := 0
	for i := range n {
		a, ok := sockaddrToAddrPort(&r.names[i], r.hdrs[i].hdr.Namelen)
		if !ok {
			continue
		}
		r.msgs[k] = datagram{b: r.bufs[i][:r.hdrs[i].len], addr: a}
		k++
	}
	return r.msgs[:k]
}

// sockaddrToAddrPort reads an IPv4 or IPv6 socket address.
func sockaddrToAddrPort(sa *unix.RawSockaddrInet6, n uint32) (netip.AddrPort, bool) {
	switch sa.Family {
	case unix.AF_INET:
		if n < unix.SizeofSockaddrInet4 {
			return netip.AddrPort{}, false
		}
		s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(s4.Addr), ntohs(s4.Port)), true
	case unix.AF_INET6:
		if n < unix.SizeofSockaddrInet6 {
			return netip.AddrPort{}, false
		}
		ip := netip.AddrFrom16(sa.Addr).Unmap()
		if sa.Scope_id != 0 && ip.Is6() {
			ip = ip.WithZone(strconv.FormatUint(uint64(sa.Scope_id), 10)) // a link-local peer: rare
		}
		return netip.AddrPortFrom(ip, ntohs(sa.Port)), true
	}
	return netip.AddrPort{}, false
}

// ntohs turns a port in network order, as read in memory, into a number.
func ntohs(p uint16) uint16 {
	b := (*[2]byte)(unsafe.Pointer(&p))
	return uint16(b[0])<<8 | uint16(b[1])
}

// batchWriter sends datagrams in batches with sendmmsg.
type batchWriter struct {
	u     *udpSocket
	inet6 bool // the socket is AF_INET6: IPv4 peers get mapped addresses
	hdrs  [batchSize]mmsghdr
	iovs  [batchSize]unix.Iovec
	names [batchSize]unix.RawSockaddrInet6
	stats txStats
}

func newBatchWriter(u *udpSocket) (*batchWriter, error) {
	sa, err := unix.Getsockname(u.fd)
	if err != nil {
		return nil, fmt.Errorf("getsockname of the UDP socket: %w", err)
	}
	_, inet6 := sa.(*unix.SockaddrInet6)
	return &batchWriter{u: u, inet6: inet6}, nil
}

// write sends ds, in order. A datagram the kernel refuses (a peer that
// cannot be reached) is skipped; a closed socket ends the call.
func (w *batchWriter) write(ds []datagram) {
	k := 0
	for i := range ds {
		h := &w.hdrs[k]
		n, ok := w.sockaddr(&w.names[k], ds[i].addr)
		if !ok || len(ds[i].b) == 0 {
			continue
		}
		w.iovs[k].Base = &ds[i].b[0]
		w.iovs[k].SetLen(len(ds[i].b))
		h.hdr = unix.Msghdr{Name: (*byte)(unsafe.Pointer(&w.names[k])), Namelen: n, Iov: &w.iovs[k]}
		h.hdr.SetIovlen(1)
		k++
	}
	for off := 0; off < k && !w.u.closed.Load(); {
		todo := w.hdrs[off:k]
		n, _, e := unix.RawSyscall6(unix.SYS_SENDMMSG, uintptr(w.u.fd), uintptr(unsafe.Pointer(&todo[0])), uintptr(len(todo)), unix.MSG_DONTWAIT, 0, 0)
		switch {
		case e == unix.EAGAIN || e == unix.EINTR:
			w.stats.waits.Add(1)
			w.u.waitWritable()
			continue
		}
		w.stats.calls.Add(1)
		switch {
		case e != 0:
			w.stats.refused.Add(1)
			off++ // this datagram was refused: drop it
			continue
		case int(n) < len(todo):
			w.stats.short.Add(1)
		}
		w.stats.datagrams.Add(uint64(n))
		off += max(int(n), 1)
	}
}

// sockaddr writes the socket address of a in the socket's family.
func (w *batchWriter) sockaddr(sa *unix.RawSockaddrInet6, a netip.AddrPort) (uint32, bool) {
	ip := a.Addr()
	if !ip.IsValid() {
		return 0, false
	}
	var port [2]byte
	port[0], port[1] = byte(a.Port()>>8), byte(a.Port())
	if !w.inet6 {
		if !ip.Is4() && !ip.Is4In6() {
			return 0, false
		}
		s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		*s4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ip.Unmap().As4()}
		s4.Port = *(*uint16)(unsafe.Pointer(&port))
		return unix.SizeofSockaddrInet4, true
	}
	*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: ip.As16()}
	sa.Port = *(*uint16)(unsafe.Pointer(&port))
	if z := ip.Zone(); z != "" {
		if id, err := strconv.ParseUint(z, 10, 32); err == nil {
			sa.Scope_id = uint32(id)
		} else if ifi, err := net.InterfaceByName(z); err == nil {
			sa.Scope_id = uint32(ifi.Index)
		}
	}
	return unix.SizeofSockaddrInet6, true
}
