package emulator

import (
	"net"
	"net/http"
	"testing"
	"time"
)

// A client that arrives while every place is taken by a request in flight
// gets the place of the first of them to end its request and go idle: it
// does not wait for one to close. (An Accept that looked for an idle
// connection only once, on arrival, waited for a close that a keep-alive
// client never makes.)
func TestIdleFirstListener_AWaitingClientTakesTheFirstToGoIdle(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newIdleFirstListener(ln, 1)
	defer l.Close()

	first, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	held, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	l.track(held, http.StateActive) // a request in flight

	second, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()

	// A chance for the Accept to find no idle connection and wait; passing
	// does not depend on it.
	time.Sleep(300 * time.Millisecond)
	l.track(held, http.StateIdle) // the request ended; the client keeps the connection
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(30 * time.Second): // a hang guard, not a measure
		t.Fatal("the waiting client was not accepted when the busy connection went idle")
	}
	// The idle connection was closed for it.
	first.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := first.Read(make([]byte, 1)); err == nil {
		t.Fatalf("the idle connection is still open (read %d bytes)", n)
	}
}
