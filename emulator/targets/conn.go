package targets

import (
	"bytes"
	"io"
	"net"
	"sync"
)

// frontListener is the listener a protocol server accepts from. The real
// socket's acceptor delivers connections to it; closing the real socket
// (refuse) does not close the front, so servers need no restart.
type frontListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newFrontListener(addr net.Addr) *frontListener {
	return &frontListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *frontListener) Accept() (net.Conn, error) {
	// Closed wins over a pending connection, which deliver then closes.
	select {
	case <-l.done:
		return nil, net.ErrClosed
	default:
	}
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// deliver hands c to the server, or closes it when the target is closing.
func (l *frontListener) deliver(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.done:
		c.Close()
	}
}

func (l *frontListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *frontListener) Addr() net.Addr { return l.addr }

// connSet tracks open connections so that a mode change can close them.
type connSet struct {
	mu     sync.Mutex
	m      map[*trackedConn]struct{}
	closed bool
}

// track adds c, or closes it and returns nil once the set is shut: a
// connection accepted while the target closes must not outlive it.
func (s *connSet) track(c net.Conn) net.Conn {
	tc := &trackedConn{Conn: c, set: s}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return nil
	}
	if s.m == nil {
		s.m = map[*trackedConn]struct{}{}
	}
	s.m[tc] = struct{}{}
	return tc
}

func (s *connSet) remove(tc *trackedConn) {
	s.mu.Lock()
	delete(s.m, tc)
	s.mu.Unlock()
}

// closeAll closes what is open now; shut also refuses what comes later.
func (s *connSet) closeAll() { s.closeOpen(false) }
func (s *connSet) shut()     { s.closeOpen(true) }

// closeOpen closes outside the lock, because Close removes from the set.
func (s *connSet) closeOpen(forever bool) {
	s.mu.Lock()
	s.closed = s.closed || forever
	all := make([]*trackedConn, 0, len(s.m))
	for tc := range s.m {
		all = append(all, tc)
	}
	s.mu.Unlock()
	for _, tc := range all {
		tc.Close()
	}
}

type trackedConn struct {
	net.Conn
	set *connSet
}

func (c *trackedConn) Close() error {
	c.set.remove(c)
	return c.Conn.Close()
}

// PROXY protocol v1 (HAProxy's spec): "PROXY " ... CRLF, at most 107 bytes.
const (
	proxySignature = "PROXY "
	proxyLineMax   = 107
)

// proxyConn drops a leading PROXY v1 line, as a backend behind a load
// balancer with proxy_header = PROXY_V1 does, so that such checks
// can be tried against every kind of target. Connections without
// the line are untouched.
//
// It decides lazily, on the first Read, and reads no further than the
// bytes already match the signature: a client that sends "PING" and waits
// is never blocked waiting for six bytes.
type proxyConn struct {
	net.Conn
	decided bool
	head    []byte // bytes read while deciding that are data, not the PROXY line
}

func (c *proxyConn) Read(p []byte) (int, error) {
	if !c.decided {
		if err := c.skipProxyLine(); err != nil {
			return 0, err
		}
	}
	if len(c.head) > 0 {
		n := copy(p, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// skipProxyLine reads until it knows whether the connection starts with a
// PROXY line, then keeps what follows the line in head. On a read error
// it keeps what it has, so that a retry (after a read deadline) resumes.
func (c *proxyConn) skipProxyLine() error {
	buf := make([]byte, proxyLineMax)
	for {
		if rest, ok := c.afterProxyLine(); ok {
			c.head, c.decided = rest, true
			return nil
		}
		n, err := c.Conn.Read(buf[:proxyLineMax-len(c.head)])
		c.head = append(c.head, buf[:n]...)
		if err == io.EOF && len(c.head) > 0 {
			// Deliver what came, then EOF on the next Read.
			c.decided = true
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// afterProxyLine says whether head is decided, and what of it is data.
func (c *proxyConn) afterProxyLine() ([]byte, bool) {
	h := c.head
	if len(h) < len(proxySignature) {
		// Undecided while h could still become the signature.
		return h, len(h) > 0 && !bytes.HasPrefix([]byte(proxySignature), h)
	}
	if !bytes.HasPrefix(h, []byte(proxySignature)) {
		return h, true
	}
	if i := bytes.Index(h, []byte("\r\n")); i >= 0 {
		return h[i+2:], true
	}
	// Too long for a PROXY line: not one, hand it on as data.
	return h, len(h) >= proxyLineMax
}
