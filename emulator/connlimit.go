package emulator

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// idleFirstListener holds at most max API connections open, as
// netutil.LimitListener does, but a client that arrives when all are taken
// gets the place of the connection that has waited longest without a
// request in flight (idle between keep-alive requests, or new and silent):
// that one is closed. Clients holding idle connections, by accident or on
// purpose, then cannot keep a new client waiting until their idle timeout
// ends; only max connections each busy with a request can. Its track
// method is the http.Server's ConnState hook, which says which are idle.
type idleFirstListener struct {
	net.Listener
	slots chan struct{} // one per open connection
	done  chan struct{} // closed with the listener
	// idled wakes an Accept that waits for a place when a connection
	// becomes idle: its request ended after the Accept found none idle.
	idled chan struct{}

	mu        sync.Mutex
	idleSince map[net.Conn]time.Time // the open connections without a request in flight
	closeOnce sync.Once
}

func newIdleFirstListener(l net.Listener, max int) *idleFirstListener {
	return &idleFirstListener{Listener: l, slots: make(chan struct{}, max), done: make(chan struct{}),
		idled: make(chan struct{}, 1), idleSince: map[net.Conn]time.Time{}}
}

// Accept takes the next connection, then a place for it: the idlest
// connection's when none is free, or, when none is idle, the first freed
// or the first to become idle.
func (l *idleFirstListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
		default:
		}
		l.closeIdlest()
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
		case <-l.idled:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// closeIdlest closes the connection idle the longest, if any: closing
// frees its place (limitedConn.Close), and its server goroutine, whose
// read fails, ends it.
func (l *idleFirstListener) closeIdlest() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var idlest net.Conn
	var since time.Time
	for c, t := range l.idleSince {
		if idlest == nil || t.Before(since) {
			idlest, since = c, t
		}
	}
	if idlest != nil {
		// Under the lock, so that the hook cannot mark it busy meanwhile.
		delete(l.idleSince, idlest)
		idlest.Close()
	}
}

// track is the server's ConnState hook: a connection is idle while it is
// new or between requests.
func (l *idleFirstListener) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateNew, http.StateIdle:
		l.idleSince[c] = time.Now()
		select {
		case l.idled <- struct{}{}:
		default: // a wake-up is already waiting
		}
	default:
		delete(l.idleSince, c)
	}
}

func (l *idleFirstListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn frees its place once, when it is closed.
type limitedConn struct {
	net.Conn
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
