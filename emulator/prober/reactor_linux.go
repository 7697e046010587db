package prober

import (
	"container/heap"
	"context"
	"crypto/tls"
	"net"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Reactor runs probes on one epoll instance (see reactor.go). Its loop
// has no goroutine of its own: its owner calls Poll in a loop, which
// lets a scheduler start probes and collect their answers on one thread,
// the way an event-driven checker does; only TLS handshakes run on
// goroutines, which end with the handshake. Start and Interrupt are safe
// from any goroutine; Poll runs on one goroutine at a time. A nil
// *Reactor starts nothing.
type Reactor struct {
	epfd   int
	ep     *os.File // epfd, for waits in the runtime's poller (park)
	epConn syscall.RawConn
	wake   [2]int // a pipe: writing to wake[1] interrupts epoll_wait
	events []syscall.EpollEvent
	buf    []byte

	mu     sync.Mutex
	probes map[int32]*liveProbe // by socket
	// fresh are the probes started since Poll last looked: Poll reads
	// them first and registers with epoll only those with no answer yet.
	// On loopback most have theirs by then, and never cost an epoll_ctl
	// (checkers like HAProxy read first and subscribe on EAGAIN too).
	fresh, spare []*liveProbe
	byTime       deadlines
	serial       int32
	closed       bool
	blocked      bool      // Poll sleeps (it sweeps fresh probes only when awake)
	wakeAt       time.Time // when a sleeping Poll wakes at the latest; zero: no limit
	started      time.Time // when the latest probe was handed to Poll
	// ctx ends at Close, and with it the handshakes in flight.
	ctx        context.Context
	cancel     context.CancelFunc
	handshakes sync.WaitGroup
}

// liveProbe is one probe in flight. Once Start has handed it over, only
// Poll touches it.
type liveProbe struct {
	probePlan
	fd         int
	serial     int32 // tells a reused descriptor's old events from its own
	raddr      netip.AddrPort
	deadline   time.Time
	index      int  // in the deadline heap
	connecting bool // connect not yet known to have succeeded
	ended      bool // finished: Poll must not touch it again
	done       Done
	// TLS probes: the connection (which owns fd) and TLS over it.
	conn *tlsConn
	tc   *tls.Conn
}

// NewReactor returns a reactor; Close frees it.
func NewReactor() (*Reactor, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	r := &Reactor{epfd: epfd, probes: map[int32]*liveProbe{},
		events: make([]syscall.EpollEvent, 256), buf: make([]byte, readBufSize)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if err := syscall.Pipe2(r.wake[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(epfd)
		return nil, os.NewSyscallError("pipe2", err)
	}
	// Non-blocking, the epoll descriptor joins the runtime's poller (an
	// epoll set is readable while it holds events); epoll_wait itself
	// ignores the flag.
	if err := syscall.SetNonblock(epfd, true); err != nil {
		r.closeFds()
		return nil, os.NewSyscallError("fcntl", err)
	}
	r.ep = os.NewFile(uintptr(epfd), "epoll")
	if r.epConn, err = r.ep.SyscallConn(); err != nil {
		r.closeFds()
		return nil, err
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(r.wake[0]), Pad: -1}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, r.wake[0], &ev); err != nil {
		r.closeFds()
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return r, nil
}

// Start begins probing t as spec says, and reports false without doing
// anything when spec needs a blocking prober (HTTP2, gRPC) or the reactor
// is nil or closed. done gets the result exactly once, from Poll, from the
// goroutine of a TLS handshake, or before Start returns; never after Close.
func (r *Reactor) Start(spec Spec, t Target, deadline time.Time, done Done) bool {
	if r == nil || r.isClosed() {
		return false
	}
	plan, ok, err := planProbe(spec, t)
	if !ok {
		return false
	}
	var raddr netip.AddrPort
	if err == nil {
		raddr, err = addrPort(t)
	}
	if err != nil {
		done(resultOf(err, nil))
		return true
	}
	p := &liveProbe{probePlan: plan, fd: -1, raddr: raddr, deadline: deadline, done: done}
	if p.tls {
		return r.startTLS(p, spec, t)
	}
	if err := p.open(); err != nil {
		p.end(err, nil)
		return true
	}
	if p.verdict == nil && !p.connecting && len(p.out) == 0 {
		p.end(nil, nil) // connected and sent all, with no answer to judge
		return true
	}
	return r.watch(p)
}

// open creates the socket, starts connecting and sends what it can at
// once: on loopback the handshake is usually done before connect returns,
// which spares the loop a wake-up for writability.
func (p *liveProbe) open() error {
	raddr := p.raddr
	family := syscall.AF_INET6
	if raddr.Addr().Is4() || raddr.Addr().Is4In6() {
		family = syscall.AF_INET
	}
	fd, err := rawSocket(family)
	if err != nil {
		return p.opError("dial", "socket", err)
	}
	p.fd = fd
	// Close sends RST and frees the socket at once: no TIME_WAIT.
	if err := rawLingerZero(fd); err != nil {
		return p.opError("dial", "setsockopt", err)
	}
	switch err := rawConnect(fd, raddr); err {
	case nil:
	case syscall.EINPROGRESS:
		p.connecting = true
	default:
		return p.opError("dial", "connect", err)
	}
	if len(p.out) > 0 {
		return p.write()
	}
	return nil
}

// write sends as much of out as the socket takes. EAGAIN before the
// connection is up, or on a full buffer, leaves the rest for the loop.
func (p *liveProbe) write() error {
	for len(p.out) > 0 {
		n, err := rawWrite(p.fd, p.out)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return nil
		case err != nil && connectFailed(err):
			return p.opError("dial", "connect", err)
		case err != nil && (p.proxy || p.verdict != nil):
			return p.opError("write", "write", err)
		case err != nil:
			// Request only: a peer that closes after accepting the
			// connection is still a peer that accepted it (exchange).
			p.out, p.connecting = nil, false
			return nil
		}
		p.out, p.connecting = p.out[n:], false
	}
	return nil
}

// connectFailed tells the errors a write reports when the connection
// itself failed (the socket's pending error), which are dial errors.
func connectFailed(err error) bool {
	switch err {
	case syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ETIMEDOUT, syscall.EADDRNOTAVAIL:
		return true
	}
	return false
}

// opError words a socket error the way the net package does, so that a
// probe's Detail reads the same whichever way it ran.
func (p *liveProbe) opError(op, call string, err error) error {
	addr := net.TCPAddrFromAddrPort(p.raddr)
	if err == os.ErrDeadlineExceeded {
		return &net.OpError{Op: op, Net: "tcp", Addr: addr, Err: err}
	}
	return &net.OpError{Op: op, Net: "tcp", Addr: addr, Err: os.NewSyscallError(call, err)}
}

// watch hands p to Poll: it is kept with its deadline in the heap, and
// among the fresh probes Poll reads first.
func (r *Reactor) watch(p *liveProbe) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		rawClose(p.fd)
		return false
	}
	r.serial++
	p.serial = r.serial
	r.probes[int32(p.fd)] = p
	heap.Push(&r.byTime, p)
	r.fresh = append(r.fresh, p)
	r.started = time.Now()
	if r.blocked {
		// Poll sleeps without knowing p (Start from another goroutine):
		// wake it to look.
		r.Interrupt()
	}
	return true
}

// sweep reads the fresh probes, finishing those answered, and registers
// the others with epoll for the events they wait for.
func (r *Reactor) sweep() {
	r.mu.Lock()
	fresh := r.fresh
	r.fresh, r.spare = r.spare[:0], nil
	r.mu.Unlock()
	for i, p := range fresh {
		fresh[i] = nil
		if p.ended {
			continue
		}
		if !p.connecting && len(p.out) == 0 {
			if done, err := p.read(r.buf); done {
				r.finish(p, err)
				continue
			}
		}
		ev := syscall.EpollEvent{Events: p.events(), Fd: int32(p.fd), Pad: p.serial}
		if err := rawEpollCtl(r.epfd, syscall.EPOLL_CTL_ADD, p.fd, &ev); err != nil {
			r.finish(p, os.NewSyscallError("epoll_ctl", err)) // kernel memory exhausted, or a bug
		}
	}
	r.mu.Lock()
	r.spare = fresh[:0]
	r.mu.Unlock()
}

// events is what p waits for: writability while connecting or sending,
// readability (or the peer closing) once an answer is due.
func (p *liveProbe) events() uint32 {
	if p.connecting || len(p.out) > 0 {
		return syscall.EPOLLOUT | epollET
	}
	return syscall.EPOLLIN | syscall.EPOLLRDHUP | epollET
}

// epollET is EPOLLET as the uint32 epoll_event holds it (the syscall
// package declares it as a negative int).
const epollET = 1 << 31

func (r *Reactor) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Interrupt makes a Poll in progress (or the next one) return at once.
func (r *Reactor) Interrupt() {
	if r != nil {
		_, _ = rawWrite(r.wake[1], []byte{0})
	}
}

// Close closes every socket in flight, whose done functions are then
// never called, waits for the TLS handshakes in flight to give up, and
// frees the reactor. Poll must not run.
func (r *Reactor) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		r.cancel()
		r.closeFds()
	}
	r.mu.Unlock()
	r.handshakes.Wait()
}

// Poll waits for events of the probes in flight, at most until until
// (zero: no limit) and at most until the earliest probe deadline, and
// advances those probes; the done functions of the probes that end run
// here. It returns after one wait, or at once after Interrupt.
func (r *Reactor) Poll(until time.Time) {
	wakeAt, busy, ok := r.sleepUntil(until)
	if !ok {
		return
	}
	n := 0
	if busy {
		n = r.gather(wakeAt)
	} else {
		r.sweep()
		n = r.park(wakeAt)
	}
	r.mu.Lock()
	r.blocked = false
	r.mu.Unlock()
	for _, ev := range r.events[:n] {
		if ev.Pad == -1 {
			r.drainWake()
		} else if p := r.lookup(ev); p != nil {
			r.handle(p, r.buf)
		}
	}
	r.expire(time.Now())
}

// gatherFor is how long Poll lets answers gather after probes started.
// Loopback answers come a few dozen microseconds apart: waking for each
// costs a context switch, while one wake-up a millisecond reads a whole
// burst (a result is then read up to a millisecond late; timeouts count
// in seconds). Probes still out after a few rounds are slow ones: Poll
// then sleeps until they answer or time out, so a hung backend does not
// keep an idle emulator polling.
const gatherFor = time.Millisecond

// gather sleeps for gatherFor (or until wakeAt) and collects the events.
func (r *Reactor) gather(wakeAt time.Time) int {
	d := gatherFor
	if !wakeAt.IsZero() {
		d = min(d, time.Until(wakeAt))
	}
	if d > 0 {
		yield()
		ts := syscall.NsecToTimespec(int64(d))
		_ = syscall.Nanosleep(&ts, nil) // EINTR: gather less, no harm
	}
	r.sweep()
	return r.check(rawEpollPoll(r.epfd, r.events))
}

// park waits for an event or wakeAt. A wait of up to maxPark blocks the
// thread in epoll_wait: a scheduler that sleeps there between slots costs
// the Go runtime no timer and no other thread woken. A longer one, or one
// with no end, parks the goroutine in the runtime's poller, which watches
// the epoll descriptor: the P is then idle, as the runtime expects of a
// sleeper.
func (r *Reactor) park(wakeAt time.Time) int {
	if !wakeAt.IsZero() && time.Until(wakeAt) <= maxPark {
		yield()
		// epoll counts milliseconds: round up, never wake early.
		timeout := int(max(0, (time.Until(wakeAt)+time.Millisecond-1)/time.Millisecond))
		return r.check(syscall.EpollWait(r.epfd, r.events, timeout))
	}
	n := 0
	_ = r.ep.SetReadDeadline(wakeAt) // zero: none
	// Read calls the function until it reports done, waiting for the
	// descriptor to be readable in between; past the deadline it gives up
	// (os.ErrDeadlineExceeded) with n = 0.
	_ = r.epConn.Read(func(uintptr) bool {
		n = r.check(rawEpollPoll(r.epfd, r.events))
		return n > 0
	})
	return n
}

// yield passes through the Go scheduler before a wait that blocks the
// thread. A goroutine that only waits in system calls never does; after
// 10 ms the runtime's monitor thread takes it for a runaway, preempts it
// with a signal, takes its P, and then watches every 20 µs. A wait in the
// runtime's poller passes through the scheduler anyway.
func yield() { runtime.Gosched() }

// maxPark is the longest wait park spends blocked in epoll_wait: under
// the 10 ms after which the runtime's monitor thread takes the P of a
// goroutine that has not passed through the scheduler (yield), even in a
// system call. A sleeping scheduler whose slots are tens of milliseconds
// apart set that off at every slot, which cost more than its probes at
// 200 a second (docs/guides/benchmarks.md).
const maxPark = 9 * time.Millisecond

func (r *Reactor) check(n int, err error) int {
	if err != nil && err != syscall.EINTR {
		panic(os.NewSyscallError("epoll_wait", err)) // EBADF/EFAULT/EINVAL: a bug
	}
	return max(n, 0)
}

// sleepUntil is when Poll must wake at the latest: until or the earliest
// deadline; zero when neither is set. busy tells whether answers are due
// soon (probes started in the last few gathering rounds); false once the
// reactor is closed.
func (r *Reactor) sleepUntil(until time.Time) (wakeAt time.Time, busy, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return time.Time{}, false, false
	}
	if len(r.byTime) > 0 && (until.IsZero() || r.byTime[0].deadline.Before(until)) {
		until = r.byTime[0].deadline
	}
	r.blocked = true
	busy = len(r.probes) > 0 && time.Since(r.started) < 3*gatherFor
	r.wakeAt = until
	if busy {
		r.wakeAt = time.Now().Add(gatherFor) // at the latest
	}
	return until, busy, true
}

// drainWake empties the wake pipe.
func (r *Reactor) drainWake() {
	var b [64]byte
	for {
		if n, err := rawRead(r.wake[0], b[:]); n <= 0 || err != nil {
			return
		}
	}
}

func (r *Reactor) lookup(ev syscall.EpollEvent) *liveProbe {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.probes[ev.Fd]
	if p == nil || p.serial != ev.Pad {
		return nil // an event of a socket already finished
	}
	return p
}

// handle advances p on events: finish connecting, send, then read until
// the verdict is known or the socket has nothing more for now.
func (r *Reactor) handle(p *liveProbe, buf []byte) {
	if p.connecting || len(p.out) > 0 {
		if err := p.connected(); err != nil {
			r.finish(p, err)
			return
		}
		if err := p.write(); err != nil || (p.verdict == nil && len(p.out) == 0) {
			r.finish(p, err)
			return
		}
		if len(p.out) > 0 {
			return // the socket buffer is full: wait for writability again
		}
		ev := syscall.EpollEvent{Events: p.events(), Fd: int32(p.fd), Pad: p.serial}
		if err := rawEpollCtl(r.epfd, syscall.EPOLL_CTL_MOD, p.fd, &ev); err != nil {
			r.finish(p, os.NewSyscallError("epoll_ctl", err))
			return
		}
	}
	if done, err := p.read(buf); done {
		r.finish(p, err)
	}
}

// connected checks the outcome of a pending connect.
func (p *liveProbe) connected() error {
	if !p.connecting {
		return nil
	}
	errno, err := rawSocketError(p.fd)
	switch {
	case err != nil:
		return p.opError("dial", "getsockopt", err)
	case errno != 0:
		return p.opError("dial", "connect", errno)
	}
	p.connecting = false
	return nil
}

// read feeds what the socket holds to the verdict. Edge-triggered epoll
// reports new data once, so it reads until EAGAIN or a verdict.
func (p *liveProbe) read(buf []byte) (bool, error) {
	if p.tc != nil {
		return p.readTLS(buf)
	}
	for {
		n, err := rawRead(p.fd, buf)
		switch {
		case n > 0:
			if done, verr := p.verdict.feed(buf[:n]); done {
				return true, verr
			}
		case err == nil:
			return true, p.verdict.eof()
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return false, nil
		default:
			return true, p.verdict.abort(p.opError("read", "read", err))
		}
	}
}

// expire ends the probes whose deadline has passed, judging what they
// got so far the way a blocking probe judges a read that timed out.
func (r *Reactor) expire(now time.Time) {
	for {
		r.mu.Lock()
		if len(r.byTime) == 0 || r.byTime[0].deadline.After(now) {
			r.mu.Unlock()
			return
		}
		p := r.byTime[0]
		r.mu.Unlock()
		var err error
		switch {
		case p.connecting:
			err = p.opError("dial", "", os.ErrDeadlineExceeded)
		case len(p.out) > 0:
			err = p.opError("write", "", os.ErrDeadlineExceeded)
		default:
			err = p.verdict.abort(p.opError("read", "", os.ErrDeadlineExceeded))
		}
		r.finishAt(p, err, context.DeadlineExceeded)
	}
}

func (r *Reactor) finish(p *liveProbe, err error) { r.finishAt(p, err, nil) }

// finishAt forgets p, then ends it.
func (r *Reactor) finishAt(p *liveProbe, err, ended error) {
	r.mu.Lock()
	delete(r.probes, int32(p.fd))
	heap.Remove(&r.byTime, p.index)
	r.mu.Unlock()
	p.end(err, ended)
}

// end closes p's socket (RST) and reports its result; ended is why its
// time ran out, if it did.
func (p *liveProbe) end(err, ended error) {
	p.close()
	p.done(resultOf(err, ended))
}

func (p *liveProbe) close() {
	p.ended = true
	switch {
	case p.conn != nil:
		// Its TCPConn owns the socket (the runtime closes what it owns
		// when it is collected: the descriptor must not be closed twice).
		// No close_notify: the same RST ends any probe.
		p.conn.Close()
	case p.fd >= 0:
		rawClose(p.fd)
	}
}

func (r *Reactor) closeFds() {
	for _, p := range r.probes {
		p.close()
	}
	syscall.Close(r.wake[0])
	syscall.Close(r.wake[1])
	if r.ep != nil {
		r.ep.Close()
	} else {
		syscall.Close(r.epfd)
	}
}

// deadlines is a min-heap of probes by deadline.
type deadlines []*liveProbe

func (h deadlines) Len() int           { return len(h) }
func (h deadlines) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h deadlines) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *deadlines) Push(x any) {
	p := x.(*liveProbe)
	p.index = len(*h)
	*h = append(*h, p)
}
func (h *deadlines) Pop() any {
	old := *h
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return p
}
