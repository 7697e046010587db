package dataplane

import (
	"bytes"
	"container/heap"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"
)

// eventLoop serves the plain-HTTP listeners of a plane from one goroutine
// on epoll, as HAProxy serves its own: it reads only what epoll says is
// ready, and keeps connections to backends in the same loop. It forwards
// the requests it can carry alone (loopable); at the first one it cannot,
// the client's connection goes to the listener's fasthttp server for
// good, with what was read of it. While busy it waits in epoll_wait
// without leaving its P (epollWait).
type eventLoop struct {
	p *Plane
	// carried and handoffs count into the plane's metrics.
	carried, handoffs prometheus.Counter
	ep                int
	wake              int // an eventfd: tasks are waiting

	mu    sync.Mutex
	tasks []func()

	// The loop's own state, touched by its goroutine alone.
	listeners map[int]*listener
	conns     map[int]*loopConn
	stopped   bool
	idle      map[*backend][]*loopConn // connections to a backend without a request
	addrs     map[*backend]unix.Sockaddr
	timers    timerHeap
	buf       []byte
}

// loopConn is a client's connection or a backend's.
type loopConn struct {
	fd        int
	l         *listener // a client's: the listener it came through
	ip        string    // a client's address
	b         *backend  // a backend's
	in, out   []byte    // read and not yet used; to be written
	wantWrite bool
	closed    bool
	timer     *loopTimer // the pending deadline: idle, answer, drain

	// A client's request in flight, and the backend connection it is on.
	req  *loopRequest
	peer *loopConn
	// closeAfter: close once out is written (the client asked, or the
	// answer ends with the connection).
	closeAfter bool

	// paused: not read for now. A backend's, until its client takes what
	// waits; a client's, as readOn says.
	paused bool

	// A backend's answer being relayed.
	answering bool    // the head was sent on
	body      framing // what is left of the body
	reused    bool    // it was idle before this request
}

// loopRequest is a client's request the loop forwards.
type loopRequest struct {
	rule, service string
	bs            *backendService
	c             choice
	head          []byte // as the backend gets it, body included
	method        string
	closing       bool // the client closes after the answer
	retried       bool
	timeout       time.Duration
}

// loopBufferSize is what one read takes in; heads are at most
// maxHeaderBytes.
const loopBufferSize = 64 << 10

// newEventLoop starts the loop.
func newEventLoop(p *Plane) (*eventLoop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake)}); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, err
	}
	lp := &eventLoop{p: p, ep: ep, wake: wake,
		carried: p.metrics.loop.WithLabelValues("requests"), handoffs: p.metrics.loop.WithLabelValues("handoffs"), listeners: map[int]*listener{}, conns: map[int]*loopConn{},
		idle: map[*backend][]*loopConn{}, addrs: map[*backend]unix.Sockaddr{}, buf: make([]byte, loopBufferSize)}
	go lp.run()
	return lp, nil
}

// do runs f on the loop's goroutine and waits for it.
func (lp *eventLoop) do(f func()) {
	done := make(chan struct{})
	lp.post(func() { f(); close(done) })
	<-done
}

// post has f run on the loop's goroutine.
func (lp *eventLoop) post(f func()) {
	lp.mu.Lock()
	lp.tasks = append(lp.tasks, f)
	lp.mu.Unlock()
	var one [8]byte
	one[0] = 1 // the eventfd's counter is a native-endian uint64; little-endian here (linux on amd64, arm64)
	unix.Write(lp.wake, one[:])
}

// add serves l's connections in the loop.
func (lp *eventLoop) add(l *listener) error {
	fd, err := listenerFD(l.ln)
	if err != nil {
		return err
	}
	var addErr error
	lp.do(func() {
		if addErr = lp.watch(fd, unix.EPOLLIN, unix.EPOLL_CTL_ADD); addErr == nil {
			lp.listeners[fd] = l
		}
	})
	return addErr
}

// remove stops serving l and closes the connections it brought, before
// its socket is closed (a later socket may get the same number).
func (lp *eventLoop) remove(l *listener) {
	fd, err := listenerFD(l.ln)
	if err != nil {
		return
	}
	lp.do(func() {
		unix.EpollCtl(lp.ep, unix.EPOLL_CTL_DEL, fd, nil)
		delete(lp.listeners, fd)
		for _, c := range lp.conns {
			if c.l == l {
				lp.close(c)
			}
		}
	})
}

// drain closes the loop's connections to b, which gets no new requests:
// the idle ones at once, those with a request in flight after timeout.
func (lp *eventLoop) drain(b *backend, timeout time.Duration) {
	lp.post(func() {
		idle := lp.idle[b]
		delete(lp.idle, b) // before closing: close takes each out of lp.idle[b]
		for _, c := range idle {
			lp.close(c)
		}
		for _, c := range lp.conns {
			if c.b == b && !c.closed {
				lp.setTimer(c, time.Now().Add(timeout), timerDrain)
			}
		}
	})
}

func listenerFD(ln net.Listener) (int, error) {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return 0, errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	fd := -1
	if err := rc.Control(func(s uintptr) { fd = int(s) }); err != nil {
		return 0, err
	}
	return fd, nil
}

// events are what epoll watches of c.
func (lp *eventLoop) events(c *loopConn) uint32 {
	var e uint32
	if !c.paused {
		e = loopReadable
	}
	if c.wantWrite {
		e |= unix.EPOLLOUT
	}
	return e
}

func (lp *eventLoop) watch(fd int, events uint32, op int) error {
	return unix.EpollCtl(lp.ep, op, fd, &unix.EpollEvent{Events: events, Fd: int32(fd)})
}

const loopReadable = unix.EPOLLIN | unix.EPOLLRDHUP

// loopBusy is how long after its last event the loop counts as busy.
const loopBusy = 50 * time.Millisecond

// epollWait waits for events on ep for at most msec, without telling Go's
// runtime that it enters a system call: the loop's thread keeps its P
// while it waits, as an event loop should. Through unix.EpollWait the
// runtime hands the P to another thread when the wait is long, and the
// loop must get one back at each wake-up: that costs a third of the
// requests per CPU-second (make bench). So the loop waits so while it is
// busy (events within loopBusy), a few milliseconds at a time, and
// through unix.EpollWait once idle, when the P is better used by others.
// A stop of the world waits for this thread no longer than a wait: its
// signal ends the wait anyway (EINTR).
func epollWait(ep int, events []unix.EpollEvent, msec int) (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(msec), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// stop ends the loop once its listeners are gone (Plane.Close).
func (lp *eventLoop) stop() {
	lp.do(func() { lp.stopped = true })
}

func (lp *eventLoop) run() {
	runtime.LockOSThread()
	defer func() {
		for _, c := range lp.conns {
			lp.close(c)
		}
		unix.Close(lp.ep)
		unix.Close(lp.wake)
	}()
	events := make([]unix.EpollEvent, 256)
	lastEvent := time.Now()
	for !lp.stopped {
		wait := 1000
		if len(lp.timers) > 0 {
			wait = min(wait, max(int(time.Until(lp.timers[0].at)/time.Millisecond)+1, 0))
		}
		var n int
		var err error
		if time.Since(lastEvent) < loopBusy {
			n, err = epollWait(lp.ep, events, min(wait, 10))
		} else {
			n, err = unix.EpollWait(lp.ep, events, wait) // idle: the P is free for others
		}
		if err != nil {
			// unix.EpollWait gives -1 with its error. A signal (the Go
			// runtime's own, to preempt or to stop the world) ends a wait
			// with EINTR: the loop waits again.
			n = 0
			if err != unix.EINTR {
				lp.p.log.Error("data plane: the event loop cannot wait", "err", err)
				time.Sleep(10 * time.Millisecond)
				continue
			}
		}
		if n > 0 {
			lastEvent = time.Now()
		}
		for _, e := range events[:n] {
			fd := int(e.Fd)
			switch {
			case fd == lp.wake:
				lp.runTasks()
			case lp.listeners[fd] != nil:
				lp.accept(fd, lp.listeners[fd])
			default:
				if c := lp.conns[fd]; c != nil {
					lp.ready(c, e.Events)
				}
			}
		}
		lp.expire()
	}
}

func (lp *eventLoop) runTasks() {
	var counter [8]byte
	unix.Read(lp.wake, counter[:])
	lp.mu.Lock()
	tasks := lp.tasks
	lp.tasks = nil
	lp.mu.Unlock()
	for _, f := range tasks {
		f()
	}
}

func (lp *eventLoop) accept(lfd int, l *listener) {
	for range 64 {
		fd, _, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		c := &loopConn{fd: fd, l: l, ip: peerIP(fd)}
		lp.conns[fd] = c
		lp.watch(fd, loopReadable, unix.EPOLL_CTL_ADD)
		lp.setTimer(c, time.Now().Add(loopIdleTimeout), timerIdle)
	}
}

// loopIdleTimeout is how long a client's connection may wait between
// requests, as the fasthttp server's IdleTimeout.
const loopIdleTimeout = 2 * time.Minute

// loopBackendIdleTimeout is how long a connection to a backend is kept
// without a request, as the fasthttp front end's MaxIdleConnDuration.
const loopBackendIdleTimeout = 90 * time.Second

// loopMaxPending is how much of an answer may wait for a slow client:
// past it the loop stops reading the backend until the client takes it.
const loopMaxPending = 256 << 10

// ready handles what epoll says of c. It reads once (level-triggered: what
// is left is read at the next wait).
func (lp *eventLoop) ready(c *loopConn, events uint32) {
	if events&unix.EPOLLOUT != 0 {
		lp.flush(c)
		if c.closed {
			return
		}
	}
	if events&(loopReadable|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
		return
	}
	n, err := unix.Read(c.fd, lp.buf)
	if n <= 0 {
		if err == unix.EAGAIN {
			return
		}
		lp.broken(c, err)
		return
	}
	c.in = append(c.in, lp.buf[:n]...)
	if c.b != nil {
		lp.relay(c)
		return
	}
	lp.serve(c)
}

// readOn pauses reading c, a client's connection, while it waits behind a
// request in flight or an answer not yet written and already holds what
// one request may be (head and body): a client that sends without
// reading costs the loop at most twice that. Otherwise c is read on.
func (lp *eventLoop) readOn(c *loopConn) {
	if !c.closed {
		waiting := c.req != nil || c.closeAfter || len(c.out) > 0
		lp.pause(c, waiting && len(c.in) >= maxHeaderBytes)
	}
}

// serve forwards c's next request, when it has one whole, or hands c to
// fasthttp when the loop cannot carry it.
func (lp *eventLoop) serve(c *loopConn) {
	defer lp.readOn(c) // whatever came of it: whether c is read meanwhile
	// One request at a time, once the last answer is written: a
	// connection handed over must have nothing of the loop's left to
	// write (flush calls again).
	if c.closed || c.closeAfter || c.req != nil || len(c.in) == 0 || len(c.out) > 0 {
		return
	}
	h, ok := parseHead(c.in)
	if !ok {
		if h.err != nil || len(c.in) > maxHeaderBytes {
			lp.handOff(c) // fasthttp answers what is wrong with it
		}
		return
	}
	if !h.loopable {
		lp.handOff(c)
		return
	}
	if len(c.in) < h.size+h.contentLength {
		return // the rest of its body (at most maxHeaderBytes) is coming
	}
	b := c.l.binding.Load()
	r := &loopReq{h: &h, addr: c.ip}
	d := b.router.route(r)
	bs := lp.p.cfg.service(d.service)
	if !loopable(&d, bs) {
		lp.handOff(c)
		return
	}
	req := &loopRequest{rule: b.rule, service: d.service, bs: bs, method: h.method, closing: h.closing}
	req.c = lp.p.pools.get(lp.p.cfg, poolKey{d.service, modeProxy}).choose(r)
	_, req.timeout = d.timeouts(bs)
	req.head = h.forBackend(c.in[:h.size], r.addr)
	req.head = append(req.head, c.in[h.size:h.size+h.contentLength]...)
	c.in = c.in[:copy(c.in, c.in[h.size+h.contentLength:])]
	c.req = req
	lp.carried.Inc()
	if req.c.b == nil {
		// As the cloud's proxies answer when no backend is healthy.
		lp.p.metrics.request(req.rule, req.service, "", 503)
		lp.answerError(c, 503, "no healthy upstream")
		return
	}
	req.c.b.inFlight.Add(1)
	lp.send(c, false)
}

// send puts c's request on a connection to its backend: an idle one, or
// a new one (fresh: after a kept connection failed).
func (lp *eventLoop) send(c *loopConn, fresh bool) {
	b := c.req.c.b
	var be *loopConn
	if idle := lp.idle[b]; len(idle) > 0 && !fresh {
		be = idle[len(idle)-1]
		lp.idle[b] = idle[:len(idle)-1]
		be.reused = true
	} else {
		var err error
		if be, err = lp.connect(b); err != nil {
			lp.failed(c, 502, "upstream "+b.addr+": "+err.Error())
			return
		}
	}
	be.peer, c.peer = c, be
	be.out = append(be.out, c.req.head...)
	lp.setTimer(be, time.Now().Add(c.req.timeout), timerAnswer)
	lp.clearTimer(c)
	lp.flush(be)
}

func (lp *eventLoop) connect(b *backend) (*loopConn, error) {
	sa, ok := lp.addrs[b]
	if !ok {
		ap, err := netip.ParseAddrPort(b.addr)
		if err != nil {
			return nil, err
		}
		if ap.Addr().Is4() {
			sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
		} else {
			sa = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
		}
		lp.addrs[b] = sa
	}
	family := unix.AF_INET
	if _, v6 := sa.(*unix.SockaddrInet6); v6 {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	if err := unix.Connect(fd, sa); err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		return nil, err
	}
	be := &loopConn{fd: fd, b: b, wantWrite: true}
	lp.conns[fd] = be
	b.loopConns.Add(1)
	b.loop.Store(lp)
	lp.watch(fd, loopReadable|unix.EPOLLOUT, unix.EPOLL_CTL_ADD) // writable once connected
	return be, nil
}

// relay sends on what a backend answered: the head once it is whole
// (with the proxy's edits), then the body as it comes.
func (lp *eventLoop) relay(be *loopConn) {
	c := be.peer
	if c == nil {
		lp.close(be) // an answer nobody asked for
		return
	}
	for !be.answering {
		a, ok, err := parseAnswer(be.in, c.req.method)
		if err != nil {
			lp.failed(c, 502, "upstream "+be.b.addr+": "+err.Error())
			return
		}
		if !ok {
			if len(be.in) > maxHeaderBytes {
				lp.failed(c, 502, "upstream "+be.b.addr+": answer headers too large")
			}
			return
		}
		if a.informational { // as it is; the answer's head follows
			c.out = append(c.out, be.in[:a.size]...)
			be.in = be.in[:copy(be.in, be.in[a.size:])]
			continue
		}
		be.answering = true
		be.body = a.body
		lp.clearTimer(be)
		req := c.req
		lp.p.count(req.rule, req.service, req.bs, req.c.b, a.status)
		extra := lp.extraHeaders(req)
		if req.closing && !a.body.untilClose {
			extra = append(extra, "Connection: close\r\n"...)
		}
		c.out = a.forClient(c.out, extra)
		if req.closing || a.body.untilClose {
			c.closeAfter = true
		}
		be.in = be.in[:copy(be.in, be.in[a.size:])]
	}
	n, done, err := be.body.consume(be.in)
	if err != nil {
		lp.broken(be, err) // and its client's connection: the body is cut short
		return
	}
	c.out = append(c.out, be.in[:n]...)
	be.in = be.in[:copy(be.in, be.in[n:])]
	lp.flush(c)
	if c.closed {
		return
	}
	if len(c.out) > loopMaxPending {
		lp.pause(be, true) // errors and hang-ups only
	}
	if done {
		lp.finish(c, be, be.body.reusable && len(be.in) == 0)
	}
}

// extraHeaders are the lines the data plane adds to a backend's answer.
func (lp *eventLoop) extraHeaders(req *loopRequest) []byte {
	var out []byte
	if !lp.p.opts.NoBackendHeader {
		out = append(append(append(out, BackendHeader+": "...), req.c.b.addr...), "\r\n"...)
	}
	if req.c.cookie != nil {
		out = append(append(append(out, "Set-Cookie: "...), req.c.cookie.String()...), "\r\n"...)
	}
	return out
}

// finish ends c's request, whose answer be has relayed whole.
func (lp *eventLoop) finish(c, be *loopConn, keep bool) {
	c.req.c.b.inFlight.Add(-1)
	c.req, c.peer, be.peer = nil, nil, nil
	be.answering = false
	lp.pause(be, false)
	if keep && !be.closed {
		be.reused = false
		lp.idle[be.b] = append(lp.idle[be.b], be)
		lp.setTimer(be, time.Now().Add(loopBackendIdleTimeout), timerIdle)
		if be.b.retired.Load() {
			lp.close(be) // drained while this request was in flight
		}
	} else {
		lp.close(be)
	}
	lp.next(c)
}

// next makes c, whose request was answered, ready for its next one, or
// closes it when it ends with that answer.
func (lp *eventLoop) next(c *loopConn) {
	if c.closed {
		return
	}
	if c.closeAfter {
		if len(c.out) == 0 {
			lp.close(c)
		}
		return
	}
	lp.setTimer(c, time.Now().Add(loopIdleTimeout), timerIdle)
	lp.serve(c) // a request that came while this one was in flight
}

// pause stops reading c, or reads it again.
func (lp *eventLoop) pause(c *loopConn, paused bool) {
	if c.paused != paused && !c.closed { // a closed one's number may be another's now
		c.paused = paused
		lp.watch(c.fd, lp.events(c), unix.EPOLL_CTL_MOD)
	}
}

// broken handles c, whose read or write failed or found its end.
func (lp *eventLoop) broken(c *loopConn, err error) {
	if c.b != nil {
		lp.backendEnded(c, err)
	} else {
		lp.close(c)
	}
}

// backendEnded handles a backend's connection that closed or failed.
func (lp *eventLoop) backendEnded(be *loopConn, err error) {
	c := be.peer
	if c == nil {
		lp.close(be)
		return
	}
	if be.answering && be.body.untilClose {
		// The end of the connection is the end of the body.
		lp.finish(c, be, false)
		return
	}
	lp.close(be) // clears c.peer
	if be.answering {
		lp.close(c) // a body cut short: the client must not take it whole
		return
	}
	// A kept connection the backend had closed before the request reached
	// it: once again on a new one, for requests that are safe to repeat,
	// as net/http's transport and fasthttp's client do.
	if be.reused && len(be.in) == 0 && !c.req.retried && (c.req.method == "GET" || c.req.method == "HEAD" || c.req.method == "OPTIONS") {
		c.req.retried = true
		lp.send(c, true)
		return
	}
	msg := "the server closed connection before returning the first response byte"
	if err != nil {
		msg = err.Error()
	}
	lp.failed(c, 502, "upstream "+be.b.addr+": "+msg)
}

// failed answers c's request, which its backend did not answer, with
// code, and counts it against the backend.
func (lp *eventLoop) failed(c *loopConn, code int, msg string) {
	req := c.req
	if p := c.peer; p != nil {
		lp.close(p)
	}
	req.c.b.inFlight.Add(-1)
	lp.p.count(req.rule, req.service, req.bs, req.c.b, code)
	lp.answerError(c, code, msg)
}

// answerError answers c's request with code and msg, as fastNoBackend
// does, and makes c ready for its next request.
func (lp *eventLoop) answerError(c *loopConn, code int, msg string) {
	req := c.req
	body := msg + "\n"
	c.out = append(c.out, "HTTP/1.1 "...)
	c.out = strconv.AppendInt(c.out, int64(code), 10)
	c.out = append(c.out, ' ')
	c.out = append(c.out, fasthttp.StatusMessage(code)...)
	c.out = append(c.out, "\r\nDate: "...)
	c.out = append(c.out, time.Now().UTC().Format(http.TimeFormat)...)
	c.out = append(c.out, "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "...)
	c.out = strconv.AppendInt(c.out, int64(len(body)), 10)
	c.out = append(c.out, "\r\n"...)
	if req.c.b != nil {
		c.out = append(c.out, lp.extraHeaders(req)...)
	}
	if req.closing {
		c.out = append(c.out, "Connection: close\r\n"...)
	}
	c.out = append(c.out, "\r\n"...)
	if req.method != "HEAD" {
		c.out = append(c.out, body...)
	}
	c.req, c.peer = nil, nil
	c.closeAfter = c.closeAfter || req.closing
	lp.flush(c)
	lp.next(c)
}

// flush writes what c has to write, and asks epoll to say when c can take
// the rest.
func (lp *eventLoop) flush(c *loopConn) {
	for len(c.out) > 0 {
		n, err := unix.Write(c.fd, c.out)
		if n > 0 {
			c.out = c.out[:copy(c.out, c.out[n:])]
			continue
		}
		if err == unix.EAGAIN || err == unix.ENOTCONN { // ENOTCONN: still connecting
			if !c.wantWrite {
				c.wantWrite = true
				lp.watch(c.fd, lp.events(c), unix.EPOLL_CTL_MOD)
			}
			return
		}
		lp.broken(c, err)
		return
	}
	if c.wantWrite {
		c.wantWrite = false
		lp.watch(c.fd, lp.events(c), unix.EPOLL_CTL_MOD)
	}
	if be := c.peer; c.b == nil && be != nil {
		lp.pause(be, false) // the client took what waited: read on
	}
	if c.b == nil && c.req == nil {
		if c.closeAfter {
			lp.close(c)
		} else {
			lp.serve(c) // a request that waited for the last answer to be written
		}
	}
}

// close closes c, and the other end of its request in flight: a client
// gone ends its backend connection (its answer has nowhere to go), a
// backend gone leaves its client to be answered by the caller.
func (lp *eventLoop) close(c *loopConn) {
	if c.closed {
		return
	}
	c.closed = true
	lp.clearTimer(c)
	delete(lp.conns, c.fd)
	unix.Close(c.fd)
	if c.b != nil {
		c.b.loopConns.Add(-1)
		if idle := lp.idle[c.b]; len(idle) > 0 {
			for i, x := range idle {
				if x == c {
					lp.idle[c.b] = append(idle[:i], idle[i+1:]...)
					break
				}
			}
		}
		if p := c.peer; p != nil {
			p.peer = nil
		}
		return
	}
	if p := c.peer; p != nil {
		p.peer = nil
		lp.close(p)
	}
	if c.req != nil && c.req.c.b != nil {
		c.req.c.b.inFlight.Add(-1)
		c.req = nil
	}
}

// handOff gives c to the listener's fasthttp server, with what the loop
// read of it and has not used.
func (lp *eventLoop) handOff(c *loopConn) {
	lp.clearTimer(c)
	unix.EpollCtl(lp.ep, unix.EPOLL_CTL_DEL, c.fd, nil)
	delete(lp.conns, c.fd)
	c.closed = true
	f := os.NewFile(uintptr(c.fd), "")
	nc, err := net.FileConn(f) // a copy of the descriptor, in Go's poller
	f.Close()
	if err != nil {
		return
	}
	lp.handoffs.Inc()
	conn := &replayConn{Conn: nc, pending: bytes.Clone(c.in)}
	l := c.l
	l.open.track(conn, fasthttp.StateNew)
	go l.fast.ServeConn(conn)
}

// replayConn reads what was read of it before, then the connection.
type replayConn struct {
	net.Conn
	pending []byte
}

func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	return r.Conn.Read(p)
}

func peerIP(fd int) string {
	sa, err := unix.Getpeername(fd)
	if err != nil {
		return ""
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrFrom4(a.Addr).String()
	case *unix.SockaddrInet6:
		return netip.AddrFrom16(a.Addr).Unmap().String()
	}
	return ""
}

// Timers: one per connection at most, in a heap by time.

const (
	timerIdle   = iota // a client between requests: closed
	timerAnswer        // a backend's answer: 504 when its head is late
	timerDrain         // a backend out of traffic: closed
)

type loopTimer struct {
	at   time.Time
	kind int
	c    *loopConn
	i    int
}

type timerHeap []*loopTimer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i]; h[i].i = i; h[j].i = j }
func (h *timerHeap) Push(x any)        { t := x.(*loopTimer); t.i = len(*h); *h = append(*h, t) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	t.i = -1
	return t
}

func (lp *eventLoop) setTimer(c *loopConn, at time.Time, kind int) {
	if t := c.timer; t != nil {
		if t.kind == timerDrain && kind != timerDrain {
			return // a drain's deadline stands
		}
		t.at, t.kind = at, kind
		heap.Fix(&lp.timers, t.i)
		return
	}
	c.timer = &loopTimer{at: at, kind: kind, c: c}
	heap.Push(&lp.timers, c.timer)
}

func (lp *eventLoop) clearTimer(c *loopConn) {
	if t := c.timer; t != nil && t.kind != timerDrain {
		heap.Remove(&lp.timers, t.i)
		c.timer = nil
	}
}

// expire acts on the timers that are due.
func (lp *eventLoop) expire() {
	now := time.Now()
	for len(lp.timers) > 0 && !lp.timers[0].at.After(now) {
		t := heap.Pop(&lp.timers).(*loopTimer)
		c := t.c
		c.timer = nil
		if c.closed {
			continue
		}
		switch t.kind {
		case timerIdle:
			if c.req == nil {
				lp.close(c)
			}
		case timerAnswer:
			if client := c.peer; client != nil && !c.answering {
				lp.failed(client, 504, "upstream "+c.b.addr+": timeout")
			}
		case timerDrain:
			if client := c.peer; client != nil {
				lp.backendEnded(c, errors.New("connection drained"))
			} else {
				lp.close(c)
			}
		}
	}
}
