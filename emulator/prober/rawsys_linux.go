package prober

import (
	"net/netip"
	"syscall"
	"unsafe"
)

// The reactor's socket calls go straight to the kernel with RawSyscall.
// Every one of them returns at once (non-blocking sockets, epoll_wait with
// a zero timeout, close with SO_LINGER 0), so the runtime's bookkeeping of
// blocking syscalls buys nothing, and it costs: a syscall.Syscall entered
// while the runtime's monitor thread sleeps wakes that thread. The
// reactor's one blocking call, epoll_wait in park, stays syscall.Syscall.

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func rawSocket(family int) (int, error) {
	fd, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, uintptr(family),
		syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	return int(fd), errnoErr(e)
}

// rawConnect starts connecting fd to a.
func rawConnect(fd int, a netip.AddrPort) error {
	var e syscall.Errno
	if a.Addr().Is4() || a.Addr().Is4In6() {
		sa := syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: a.Addr().Unmap().As4()}
		putPort(&sa.Port, a.Port())
		_, _, e = syscall.RawSyscall(syscall.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa))
	} else {
		sa := syscall.RawSockaddrInet6{Family: syscall.AF_INET6, Addr: a.Addr().As16()}
		putPort(&sa.Port, a.Port())
		_, _, e = syscall.RawSyscall(syscall.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa))
	}
	return errnoErr(e)
}

// putPort stores port in network byte order, whatever the host's.
func putPort(dst *uint16, port uint16) {
	b := (*[2]byte)(unsafe.Pointer(dst))
	b[0], b[1] = byte(port>>8), byte(port)
}

// rawLingerZero makes close(fd) send RST and free the socket at once.
func rawLingerZero(fd int) error {
	l := syscall.Linger{Onoff: 1}
	_, _, e := syscall.RawSyscall6(syscall.SYS_SETSOCKOPT, uintptr(fd), syscall.SOL_SOCKET, syscall.SO_LINGER,
		uintptr(unsafe.Pointer(&l)), unsafe.Sizeof(l), 0)
	return errnoErr(e)
}

// rawSocketError reads (and clears) fd's pending error: how a
// non-blocking connect ended.
func rawSocketError(fd int) (syscall.Errno, error) {
	var v int32
	size := uint32(unsafe.Sizeof(v))
	_, _, e := syscall.RawSyscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), syscall.SOL_SOCKET, syscall.SO_ERROR,
		uintptr(unsafe.Pointer(&v)), uintptr(unsafe.Pointer(&size)), 0)
	return syscall.Errno(v), errnoErr(e)
}

func rawWrite(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawRead(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawClose(fd int) {
	_, _, _ = syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
}

func rawEpollCtl(epfd, op, fd int, ev *syscall.EpollEvent) error {
	_, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_CTL, uintptr(epfd), uintptr(op), uintptr(fd),
		uintptr(unsafe.Pointer(ev)), 0, 0)
	return errnoErr(e)
}

// rawEpollPoll collects ready events without waiting.
func rawEpollPoll(epfd int, events []syscall.EpollEvent) (int, error) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
