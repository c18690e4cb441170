//go:build linux

package server

import (
	"net"
	"net/netip"
	"strconv"
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

// mmsghdr is struct mmsghdr of <sys/socket.h>.
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
}

// batchReader receives datagrams in batches with recvmmsg.
type batchReader struct {
	rc    syscall.RawConn
	hdrs  [batchSize]mmsghdr
	iovs  [batchSize]unix.Iovec
	names [batchSize]unix.RawSockaddrInet6 // large enough for either family
	bufs  [batchSize][wire.MaxDatagram + 1]byte
	msgs  [batchSize]datagram
	fn    func(fd uintptr) bool // the read, made once
	n     int
	errno syscall.Errno
	stats rxStats
}

func newBatchReader(c *net.UDPConn) (*batchReader, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	c.SetReadBuffer(readBuffer) // best effort: the system may cap it
	r := &batchReader{rc: rc}
	for i := range r.hdrs {
		r.iovs[i].Base = &r.bufs[i][0]
		r.iovs[i].SetLen(len(r.bufs[i]))
	}
	r.fn = func(fd uintptr) bool {
		for i := range r.hdrs {
			h := &r.hdrs[i].hdr
			h.Name = (*byte)(unsafe.Pointer(&r.names[i]))
			h.Namelen = unix.SizeofSockaddrInet6
			h.Iov = &r.iovs[i]
			h.SetIovlen(1)
			h.Flags = 0
		}
		n, _, e := unix.RawSyscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&r.hdrs[0])), batchSize, unix.MSG_DONTWAIT, 0, 0)
		if e == unix.EAGAIN || e == unix.EINTR {
			r.stats.waits.Add(1)
			return false // wait until readable
		}
		r.n, r.errno = int(n), e
		if e == 0 {
			r.stats.calls.Add(1)
			r.stats.datagrams.Add(uint64(n))
		}
		return true
	}
	return r, nil
}

// read waits for datagrams and returns a batch of them, valid until the
// next read. Their addresses are unmapped (an IPv4 peer of an IPv6 socket
// is its IPv4 address).
func (r *batchReader) read() ([]datagram, error) {
	if err := r.rc.Read(r.fn); err != nil {
		return nil, err
	}
	if r.errno != 0 {
		return nil, r.errno
	}
	k := 0
	for i := 0; i < r.n; i++ {
		a, ok := sockaddrToAddrPort(&r.names[i], r.hdrs[i].hdr.Namelen)
		if !ok {
			continue
		}
		r.msgs[k] = datagram{b: r.bufs[i][:r.hdrs[i].len], addr: a}
		k++
	}
	return r.msgs[:k], nil
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
	rc    syscall.RawConn
	inet6 bool // the socket is AF_INET6: IPv4 peers get mapped addresses
	hdrs  [batchSize]mmsghdr
	iovs  [batchSize]unix.Iovec
	names [batchSize]unix.RawSockaddrInet6
	fn    func(fd uintptr) bool // the write, made once
	todo  []mmsghdr             // what fn sends
	sent  int
	errno syscall.Errno
	stats txStats
}

func newBatchWriter(c *net.UDPConn) (*batchWriter, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	w := &batchWriter{rc: rc}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		var sa unix.Sockaddr
		sa, serr = unix.Getsockname(int(fd))
		_, w.inet6 = sa.(*unix.SockaddrInet6)
	}); err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	w.fn = func(fd uintptr) bool {
		n, _, e := unix.RawSyscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&w.todo[0])), uintptr(len(w.todo)), unix.MSG_DONTWAIT, 0, 0)
		if e == unix.EAGAIN || e == unix.EINTR {
			w.stats.waits.Add(1)
			return false // wait until writable
		}
		w.sent, w.errno = int(n), e
		w.stats.calls.Add(1)
		switch {
		case e != 0:
			w.stats.refused.Add(1)
		case int(n) < len(w.todo):
			w.stats.short.Add(1)
			fallthrough
		default:
			w.stats.datagrams.Add(uint64(n))
		}
		return true
	}
	return w, nil
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
	for off := 0; off < k; {
		w.todo = w.hdrs[off:k]
		if err := w.rc.Write(w.fn); err != nil {
			return // closed
		}
		switch {
		case w.errno != 0:
			off++ // this datagram was refused: drop it
		default:
			off += max(w.sent, 1)
		}
	}
	w.todo = nil
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
