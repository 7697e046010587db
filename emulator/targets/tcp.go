package targets

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"time"
)

// The TCP target is a one-exchange, Redis-like server: it reads a request,
// answers one line and closes (a FIN, which probers accept).
const (
	// tcpGreetAfter: a client that sends nothing within this time gets the
	// answer anyway, so a "response only" TCP check (send nothing, match
	// what arrives) works too. Shorter than the smallest timeout_sec (1 s).
	tcpGreetAfter = 500 * time.Millisecond
	// tcpLineWait: after some bytes without a newline, how long to wait for
	// the rest. A check's request cannot contain CR or LF, so
	// "PING" usually arrives with no newline at all.
	tcpLineWait   = 50 * time.Millisecond
	tcpMaxRequest = 1024
	// tcpConnLife bounds a connection whatever the client does.
	tcpConnLife = 10 * time.Second
)

type tcpServer struct{ st *state }

func (s *tcpServer) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // the front only fails when the target closes
		}
		s.st.wg.Add(1)
		go func() {
			defer s.st.wg.Done()
			s.handle(c)
		}()
	}
}

func (s *tcpServer) setMode(Mode) {}

// stop has nothing to do: closing the front ends serve and closing the
// tracked connections ends the handlers.
func (s *tcpServer) stop() {}

func (s *tcpServer) handle(c net.Conn) {
	defer c.Close()
	s.st.probes.Add(1)
	c.SetDeadline(time.Now().Add(tcpConnLife)) //nolint:errcheck // a failure shows on the reads
	req, err := readRequest(c)
	if err != nil {
		return
	}
	c.Write([]byte(tcpAnswer(s.st.mode(), req))) //nolint:errcheck // the client may be gone: nothing to do
}

func tcpAnswer(m Mode, req []byte) string {
	switch {
	case m == ModeWrongBody:
		return "-ERR\r\n"
	case string(bytes.TrimSpace(req)) == "PING":
		return "+PONG\r\n"
	}
	return "+OK\r\n"
}

// readRequest returns what the client sent: up to a newline, up to
// tcpMaxRequest bytes, or what arrived before the client paused. Silence
// is an empty request, not an error.
func readRequest(c net.Conn) ([]byte, error) {
	buf := make([]byte, tcpMaxRequest)
	n := 0
	wait := tcpGreetAfter
	for n < len(buf) && bytes.IndexByte(buf[:n], '\n') < 0 {
		c.SetReadDeadline(time.Now().Add(wait)) //nolint:errcheck // a failure shows on the read
		m, err := c.Read(buf[n:])
		n += m
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return buf[:n], nil
		case errors.Is(err, io.EOF):
			return buf[:n], nil
		case err != nil:
			return nil, err
		}
		wait = tcpLineWait
	}
	return buf[:n], nil
}
