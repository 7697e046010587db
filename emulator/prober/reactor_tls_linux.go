package prober

import (
	"container/heap"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// TLS probes on the reactor (see reactor.go): a goroutine connects,
// handshakes and sends the request, then adopt hands the probe to Poll,
// which waits for the answer like any other and reads it through the
// tls.Conn.

// startTLS runs p's connect and handshake on a goroutine of its own.
func (r *Reactor) startTLS(p *liveProbe, spec Spec, t Target) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.handshakes.Go(func() { r.handshake(p, spec, t) })
	return true
}

// handshake is the blocking half of a TLS probe: connect, handshake and
// send, all bounded by p's deadline, then hand p to Poll. Failures end p
// here.
func (r *Reactor) handshake(p *liveProbe, spec Spec, t Target) {
	ctx, cancel := context.WithDeadline(r.ctx, p.deadline)
	defer cancel()
	raw, stop, err := dial(ctx, t, p.proxy)
	if err != nil {
		r.endEarly(p, err, ctx.Err())
		return
	}
	p.conn = &tlsConn{TCPConn: raw.(*net.TCPConn), fd: -1}
	if p.tc, err = handshake(p.conn, spec.http().Host, nil); err == nil {
		err = p.send()
	}
	stop() // from here on Poll keeps time
	switch {
	case err != nil || p.verdict == nil:
		r.endEarly(p, err, ctx.Err())
	case !r.adopt(p):
		p.conn.Close() // the reactor closed meanwhile
	}
}

// send writes the request through TLS. As in exchange, a failed write
// fails the probe only when an answer is due.
func (p *liveProbe) send() error {
	if len(p.out) == 0 {
		return nil
	}
	_, err := p.tc.Write(p.out)
	p.out = nil
	if p.verdict == nil {
		return nil
	}
	return err
}

// endEarly ends p from its handshake goroutine, unless the reactor has
// closed: Close promises that no done runs after it.
func (r *Reactor) endEarly(p *liveProbe, err, ended error) {
	if r.isClosed() {
		if p.conn != nil {
			p.conn.Close()
		}
		return
	}
	p.end(err, ended)
}

// adopt hands p over to Poll: it waits with its deadline in the heap, its
// socket on the reactor's epoll, whose first event says whether the
// answer came before. False when the reactor has closed.
func (r *Reactor) adopt(p *liveProbe) bool {
	fd, err := p.conn.sysfd()
	if err == nil {
		var ok bool
		if ok, err = r.watchTLS(p, fd); !ok {
			return false
		}
	}
	if err != nil {
		p.end(err, nil) // kernel memory exhausted, or a bug
	}
	return true
}

// watchTLS registers p, and its socket fd with epoll, all under the lock:
// expire cannot end p, and close its socket, before it is registered.
func (r *Reactor) watchTLS(p *liveProbe, fd int) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false, nil
	}
	r.serial++
	p.serial = r.serial
	ev := syscall.EpollEvent{Events: p.events(), Fd: int32(fd), Pad: p.serial}
	if err := rawEpollCtl(r.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return true, os.NewSyscallError("epoll_ctl", err)
	}
	p.fd, p.conn.fd = fd, fd
	r.probes[int32(fd)] = p
	heap.Push(&r.byTime, p)
	if r.blocked && (r.wakeAt.IsZero() || p.deadline.Before(r.wakeAt)) {
		r.Interrupt() // Poll sleeps past p's deadline
	}
	return true, nil
}

// readTLS feeds the verdict what the tls.Conn can decrypt of what the
// socket holds, until the verdict is known or the socket is drained.
func (p *liveProbe) readTLS(buf []byte) (bool, error) {
	for {
		n, err := p.tc.Read(buf)
		if n > 0 {
			if done, verr := p.verdict.feed(buf[:n]); done {
				return true, verr
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, errWouldBlock):
			return false, nil
		case err == io.EOF:
			return true, p.verdict.eof()
		default:
			return true, p.verdict.abort(err)
		}
	}
}

// tlsConn is the connection under the tls.Conn of a TLS probe: the TCP
// connection itself while the goroutine handshakes, and once Poll owns the
// probe (fd set), reads that never wait. A read with nothing to read
// fails with errWouldBlock, which crypto/tls treats as temporary (a
// net.Error whose Temporary is true does not end the connection): the
// bytes of a partial record stay buffered in the tls.Conn, and Poll reads
// again on the next event.
type tlsConn struct {
	*net.TCPConn
	fd int // -1 until Poll owns the probe
}

func (c *tlsConn) Read(b []byte) (int, error) {
	if c.fd < 0 {
		return c.TCPConn.Read(b)
	}
	for {
		n, err := rawRead(c.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, errWouldBlock
		case err != nil:
			return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(),
				Err: os.NewSyscallError("read", err)}
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// sysfd is the socket's descriptor. The TCPConn keeps it and closes it:
// Poll only reads it and watches it.
func (c *tlsConn) sysfd() (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := rc.Control(func(s uintptr) { fd = int(s) }); err != nil {
		return -1, err
	}
	return fd, nil
}

// errWouldBlock is the read of a tlsConn with nothing to read.
var errWouldBlock error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "read would block" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true }

// compile-time check: crypto/tls recognises the error as a net.Error.
var _ net.Error = wouldBlock{}
