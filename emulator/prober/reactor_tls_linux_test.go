package prober

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every TLS case of the prober tests already runs on the reactor too
// (probe and timedProbe in helpers_test.go); these tests cover what only
// the reactor's TLS probes have: the wait for the answer on the loop.

// dribbleConn, once on, sends every write in pieces of a few bytes with a
// pause between them, so that the client gets each TLS record over several
// reads and several events: a partial record must wait in the tls.Conn.
type dribbleConn struct {
	net.Conn
	on atomic.Bool
}

func (c *dribbleConn) Write(p []byte) (int, error) {
	if !c.on.Load() {
		return c.Conn.Write(p)
	}
	for i := 0; i < len(p); i += 7 {
		if _, err := c.Conn.Write(p[i:min(i+7, len(p))]); err != nil {
			return i, err
		}
		time.Sleep(time.Millisecond)
	}
	return len(p), nil
}

// An answer that comes late, after the session tickets of TLS 1.3, and a
// few bytes at a time is read whole, over TLS 1.2 and 1.3, both ways.
func TestReactor_TLSAnswerLateAndInPieces(t *testing.T) {
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		cfg := serverTLS(t, validCert)
		cfg.MaxVersion = version
		tg := serveTCP(t, nil, func(c net.Conn) {
			dc := &dribbleConn{Conn: c}
			tc := tls.Server(dc, cfg)
			line := readLine(tc)
			time.Sleep(30 * time.Millisecond)
			dc.on.Store(true)
			if line == "ping\n" {
				_, _ = io.WriteString(tc, "pong")
				return
			}
			_, _ = io.WriteString(tc, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhealthy: yes")
		})
		name := tls.VersionName(version)
		for _, spec := range []Spec{
			{Protocol: "HTTPS", HTTP: &HTTPSpec{Response: "healthy"}},
			{Protocol: "LEGACY_HTTPS"},
			{Protocol: "SSL", TCP: &TCPSpec{Request: "ping\n", Response: "pong"}},
		} {
			t.Run(name+"/"+spec.Protocol, func(t *testing.T) {
				wantResult(t, probe(t, probeTimeout, spec, tg), true, "")
			})
		}
	}
}

// While a server that completed TLS keeps the probe waiting for its
// answer, no goroutine of the prober waits with it: the
// handshake's goroutine has ended, and Poll holds the probe.
func TestReactor_NoGoroutineWaitsForTLSAnswer(t *testing.T) {
	const n = 40
	requests := make(chan struct{}, n)
	tg := serveTCP(t, serverTLS(t, validCert), func(c net.Conn) {
		readLine(c)
		requests <- struct{}{}
		_, _ = io.Copy(io.Discard, c) // never answers; returns when the probe closes
	})
	r := newTestReactor(t)
	pollInBackground(t, r)
	before := runtime.NumGoroutine()
	got := make(chan Result, n)
	const timeout = 2 * time.Second
	for range n {
		if !r.Start(Spec{Protocol: "HTTPS"}, tg, time.Now().Add(timeout), func(res Result) { got <- res }) {
			t.Fatal("the reactor did not take an HTTPS probe")
		}
	}
	for range n {
		<-requests
	}
	// n goroutines of the server wait on their connections; the probes'
	// handshake goroutines end right after the request is sent.
	wait := time.Now().Add(timeout / 2)
	for runtime.NumGoroutine() > before+n && time.Now().Before(wait) {
		time.Sleep(5 * time.Millisecond)
	}
	if extra := runtime.NumGoroutine() - before - n; extra > n/4 {
		t.Errorf("%d goroutines more than the server's while %d probes wait for an answer", extra, n)
	}
	for range n {
		wantResult(t, <-got, false, ReasonTimeout)
	}
}

// Close gives up the TLS handshakes in flight at once: it returns without
// waiting for their deadline, and their done functions are never called.
func TestReactor_CloseAbortsTLSHandshakes(t *testing.T) {
	var conns sync.WaitGroup
	conns.Add(3)
	tg := serveTCP(t, nil, func(c net.Conn) {
		conns.Done()
		_, _ = io.Copy(io.Discard, c) // never answers the ClientHello
	})
	r, err := NewReactor()
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan Result, 3)
	for range 3 {
		if !r.Start(Spec{Protocol: "SSL"}, tg, time.Now().Add(probeTimeout), func(res Result) { called <- res }) {
			t.Fatal("the reactor did not take an SSL probe")
		}
	}
	conns.Wait()
	start := time.Now()
	r.Close()
	if el := time.Since(start); el > 30*time.Second { // a hang guard, not a measurement
		t.Fatalf("Close took %v with handshakes in flight", el)
	}
	select {
	case res := <-called:
		t.Fatalf("done called after Close: %+v", res)
	case <-time.After(50 * time.Millisecond):
	}
}

// Probes connect without binding first. Dialer.DialTCP with no local
// address binds to port 0 (golang/go#81620), a search of the ephemeral
// ports that grew with the sockets open and took most of the CPU of
// 2,000 waiting TLS probes. Linux gives bind odd ports and
// connect even ones while it can (4.6 and later), which tells them apart.
func TestDialDoesNotBind(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tg := targetOf(t, ln.Addr())
	even := 0
	for range 8 {
		c, stop, err := dial(context.Background(), tg, false)
		if err != nil {
			t.Fatal(err)
		}
		if c.LocalAddr().(*net.TCPAddr).Port%2 == 0 {
			even++
		}
		stop()
		c.Close()
	}
	if even == 0 {
		t.Fatal("every probe connection had an odd local port: bound before connecting")
	}
}

// pollInBackground drives r until the test ends, before r closes.
func pollInBackground(t *testing.T, r *Reactor) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			r.Poll(time.Now().Add(20 * time.Millisecond))
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}
