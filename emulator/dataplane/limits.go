package dataplane

import (
	"io"
	"net"
	"sync"
)

// Connection caps: the data plane's listeners together hold at most
// Options.MaxConnections client connections, and each at most
// Options.MaxConnectionsPerListener. A listener at its cap (or with the
// plane at its own) accepts nothing more until a connection ends: the
// next clients wait in the kernel's accept queue, as behind HAProxy's
// maxconn, and hold no descriptor of the emulator's. So however many
// clients open connections and stall, the API, /healthz and the probes
// keep descriptors of their own.

// DefaultMaxConnectionsPerListener is each listener's cap unless told
// otherwise.
const DefaultMaxConnectionsPerListener = 1024

// descriptorsKept are the descriptors the default cap leaves to the rest
// of the emulator: the API's connections (1,024 by default), probes, the
// store, the simulated workloads.
const descriptorsKept = 4096

// DefaultMaxConnections is the plane's cap unless told otherwise: half of
// the descriptors this process may open, less those kept for the rest
// (a carried connection holds two: the client's and the backend's), at
// least 64 and at most 10,000.
func DefaultMaxConnections() int {
	return min(max((descriptorLimit()-descriptorsKept)/2, 64), 10000)
}

// slots is a counting semaphore that a closing listener can interrupt.
type slots chan struct{}

// take waits for a slot; false when done closed first.
func (s slots) take(done <-chan struct{}) bool {
	select {
	case s <- struct{}{}:
		return true
	case <-done:
		return false
	}
}

func (s slots) give() { <-s }

// tryTake takes a slot if one is free now.
func (s slots) tryTake() bool {
	select {
	case s <- struct{}{}:
		return true
	default:
		return false
	}
}

// cappedListener accepts a connection only once both its own and the
// plane's caps have room, and gives the slots back when it closes.
type cappedListener struct {
	net.Listener
	own, plane slots
	done       chan struct{} // closed by Close: a waiting Accept returns
	closeOnce  sync.Once
	waited     func() // counts an Accept that found a cap full
	opened     func(delta int)
}

func (l *cappedListener) Accept() (net.Conn, error) {
	for _, s := range []slots{l.own, l.plane} {
		select {
		case s <- struct{}{}:
			continue
		default:
		}
		l.waited()
		if !s.take(l.done) {
			if s == l.plane {
				l.own.give()
			}
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		l.own.give()
		l.plane.give()
		return nil, err
	}
	l.opened(1)
	return &cappedConn{Conn: c, l: l}, nil
}

func (l *cappedListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// cappedConn gives its listener's slots back once closed.
type cappedConn struct {
	net.Conn
	l    *cappedListener
	once sync.Once
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.own.give()
		c.l.plane.give()
		c.l.opened(-1)
	})
	return err
}

// CloseWrite half-closes the connection, as the TCP proxies do when one
// side has finished sending.
func (c *cappedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom and WriteTo keep the kernel's splice for the TCP proxies'
// copies, which a wrapper would otherwise hide.
func (c *cappedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

func (c *cappedConn) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := c.Conn.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{c.Conn})
}
