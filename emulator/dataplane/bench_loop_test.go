//go:build linux

package dataplane_test

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// serveLoop is the process of the bench's second reference proxy: one
// goroutine on epoll, as HAProxy runs, forwarding each request to the two
// backends in turn over keep-alive connections of its own, with
// X-Forwarded-For added. It is no proxy for anything else: it reads only
// what the bench sends and gets (heads and bodies framed by
// Content-Length, one request at a time per connection), and it routes,
// checks and counts nothing. It shows what an event loop costs per
// request in Go, against the goroutine per connection of fasthttp alone.
// It prints its loopback address and exits when stdin closes.
func serveLoop(addrs []string) {
	if err := runLoop(addrs); err != nil {
		fmt.Fprintln(os.Stderr, "event loop:", err)
		os.Exit(1)
	}
}

func runLoop(addrs []string) error {
	l := &loop{conns: map[int]*loopConn{}}
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			return err
		}
		l.backends = append(l.backends, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
	}
	l.idle = make([][]*loopConn, len(l.backends))
	runtime.LockOSThread()
	lfd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	if err := unix.Bind(lfd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return err
	}
	if err := unix.Listen(lfd, 1024); err != nil {
		return err
	}
	sa, err := unix.Getsockname(lfd)
	if err != nil {
		return err
	}
	fmt.Printf("127.0.0.1:%d\n", sa.(*unix.SockaddrInet4).Port)
	if l.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return err
	}
	if err := l.watch(lfd, unix.EPOLLIN, unix.EPOLL_CTL_ADD); err != nil {
		return err
	}
	go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	events := make([]unix.EpollEvent, 256)
	buf := make([]byte, 64<<10)
	for {
		n, err := epollWait(l.ep, events)
		if err == unix.EINTR {
			continue
		} else if err != nil {
			return err
		}
		for _, e := range events[:n] {
			if fd := int(e.Fd); fd == lfd {
				l.accept(lfd)
			} else if c := l.conns[fd]; c != nil {
				l.ready(c, e.Events, buf)
			}
		}
	}
}

// epollWait waits for events on ep, at most 100 ms, without telling Go's
// runtime that it enters a system call: the loop's thread keeps its P
// while it waits, as an event loop should. Through unix.EpollWait the
// runtime hands the P to another thread when the wait is long, and the
// loop must get one back at each wake-up: that costs a third of the
// throughput per CPU-second (make bench on a CPU of its own: 23,343
// against 36,098). The timeout bounds how long a stop of the world waits
// for this thread, whose signal ends the wait anyway (EINTR).
func epollWait(ep int, events []unix.EpollEvent) (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 100, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

type loop struct {
	ep       int
	conns    map[int]*loopConn
	backends []*unix.SockaddrInet4
	idle     [][]*loopConn // per backend, its connections without a request
	turn     int
}

// loopConn is a client's connection or a backend's: what was read of the
// message it is in, what waits to be written, and the connection at the
// other end of the request in flight.
type loopConn struct {
	fd        int
	backend   int // -1 for a client
	in, out   []byte
	peer      *loopConn
	wantWrite bool
}

const loopReadable = unix.EPOLLIN | unix.EPOLLRDHUP

func (l *loop) watch(fd int, events uint32, op int) error {
	return unix.EpollCtl(l.ep, op, fd, &unix.EpollEvent{Events: events, Fd: int32(fd)})
}

func (l *loop) accept(lfd int) {
	for {
		fd, _, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		l.conns[fd] = &loopConn{fd: fd, backend: -1}
		l.watch(fd, loopReadable, unix.EPOLL_CTL_ADD)
	}
}

// ready reads once from c, which epoll says is ready (level-triggered: what
// is left is read at the next wait), and moves complete messages on.
func (l *loop) ready(c *loopConn, events uint32, buf []byte) {
	if events&unix.EPOLLOUT != 0 {
		l.flush(c)
	}
	if events&(loopReadable|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
		return
	}
	n, err := unix.Read(c.fd, buf)
	if n <= 0 {
		if err != unix.EAGAIN {
			l.close(c)
		}
		return
	}
	c.in = append(c.in, buf[:n]...)
	if c.backend < 0 {
		l.request(c)
	} else {
		l.answer(c)
	}
}

// message is the length of the head and the body of the message at the
// start of b, or ok false while it is incomplete.
func message(b []byte) (head, body int, ok bool) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return 0, 0, false
	}
	head = end + 4
	for line := range bytes.Lines(b[:end]) {
		if name, value, found := bytes.Cut(line, []byte(":")); found && bytes.EqualFold(name, []byte("Content-Length")) {
			body, _ = strconv.Atoi(string(bytes.TrimSpace(value)))
		}
	}
	return head, body, len(b) >= head+body
}

// request sends c's next complete request to a backend, if c has none in
// flight.
func (l *loop) request(c *loopConn) {
	head, body, ok := message(c.in)
	if c.peer != nil || !ok {
		return
	}
	be := l.backend()
	if be == nil {
		l.close(c)
		return
	}
	be.out = append(be.out, c.in[:head-2]...)
	be.out = append(be.out, "X-Forwarded-For: 127.0.0.1\r\n"...)
	be.out = append(be.out, c.in[head-2:head+body]...)
	c.in = c.in[:copy(c.in, c.in[head+body:])]
	be.peer, c.peer = c, be
	l.flush(be)
}

// answer sends be's complete answer to its client and makes be idle.
func (l *loop) answer(be *loopConn) {
	head, body, ok := message(be.in)
	if !ok || be.peer == nil {
		return
	}
	c := be.peer
	c.out = append(c.out, be.in[:head+body]...)
	be.in = be.in[:0]
	be.peer, c.peer = nil, nil
	l.idle[be.backend] = append(l.idle[be.backend], be)
	l.flush(c)
	l.request(c) // a request that came while this one was in flight
}

// backend is an idle connection to the next backend in turn, or a new one.
func (l *loop) backend() *loopConn {
	i := l.turn % len(l.backends)
	l.turn++
	if n := len(l.idle[i]); n > 0 {
		be := l.idle[i][n-1]
		l.idle[i] = l.idle[i][:n-1]
		return be
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if err := unix.Connect(fd, l.backends[i]); err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		return nil
	}
	be := &loopConn{fd: fd, backend: i, wantWrite: true}
	l.conns[fd] = be
	l.watch(fd, loopReadable|unix.EPOLLOUT, unix.EPOLL_CTL_ADD) // writable once connected
	return be
}

// flush writes what c has to write, and asks epoll to say when c can take
// the rest.
func (l *loop) flush(c *loopConn) {
	for len(c.out) > 0 {
		n, err := unix.Write(c.fd, c.out)
		if n > 0 {
			c.out = c.out[:copy(c.out, c.out[n:])]
			continue
		}
		if err == unix.EAGAIN || err == unix.ENOTCONN { // ENOTCONN: still connecting
			if !c.wantWrite {
				c.wantWrite = true
				l.watch(c.fd, loopReadable|unix.EPOLLOUT, unix.EPOLL_CTL_MOD)
			}
			return
		}
		l.close(c)
		return
	}
	if c.wantWrite {
		c.wantWrite = false
		l.watch(c.fd, loopReadable, unix.EPOLL_CTL_MOD)
	}
}

// close closes c and the other end of its request in flight.
func (l *loop) close(c *loopConn) {
	if l.conns[c.fd] != c {
		return
	}
	delete(l.conns, c.fd)
	unix.Close(c.fd)
	if c.backend >= 0 {
		l.idle[c.backend] = slices.DeleteFunc(l.idle[c.backend], func(x *loopConn) bool { return x == c })
	}
	if p := c.peer; p != nil {
		p.peer = nil
		l.close(p)
	}
}
