package prober

import (
	"io"
	"net"
	"testing"
	"time"
)

// Every plain-TCP case of the prober tests already runs on the reactor
// too (probe and timedProbe in helpers_test.go); these tests cover what
// only the reactor has.

func TestReactor_LeavesHTTP2AndGRPCToBlockingProbers(t *testing.T) {
	r := newTestReactor(t)
	for _, p := range []string{"HTTP2", "GRPC", "GRPC_WITH_TLS"} {
		if r.Start(Spec{Protocol: p}, Target{IP: "127.0.0.1", Port: 1}, time.Now().Add(time.Second),
			func(Result) { t.Errorf("%s: done called", p) }) {
			t.Errorf("%s: the reactor took a protocol whose client reads on goroutines of its own", p)
		}
	}
}

// An answer that comes after the first rounds of gathering is still read:
// Poll then waits in epoll_wait for it.
func TestReactor_LateAnswer(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) {
		readLine(c)
		time.Sleep(50 * time.Millisecond)
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	})
	r := newTestReactor(t)
	got := make(chan Result, 1)
	if !r.Start(Spec{Protocol: "HTTP"}, tg, time.Now().Add(probeTimeout), func(res Result) { got <- res }) {
		t.Fatal("the reactor did not take an HTTP probe")
	}
	wantResult(t, pollUntil(t, r, got), true, "")
}

// Waits longer than maxPark park in the runtime's poller: with nothing in
// flight and no limit, Poll waits there until Interrupt; with a limit it
// returns at the limit, never before it.
func TestReactor_LongWaits(t *testing.T) {
	r := newTestReactor(t)
	returned := make(chan struct{})
	go func() {
		r.Poll(time.Time{})
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("Poll with nothing in flight and no limit returned before Interrupt")
	case <-time.After(50 * time.Millisecond):
	}
	r.Interrupt()
	select {
	case <-returned:
	case <-time.After(probeTimeout):
		t.Fatal("Poll did not return after Interrupt")
	}
	for _, wait := range []time.Duration{3 * maxPark, maxPark / 2} {
		until := time.Now().Add(wait)
		r.Poll(until)
		if now := time.Now(); now.Before(until) {
			t.Errorf("Poll(%v ahead) returned %v before its limit", wait, until.Sub(now))
		}
	}
}

// Close abandons the probes in flight: their sockets close (the server
// sees the connection end) and their done functions are never called.
func TestReactor_CloseAbandonsProbes(t *testing.T) {
	ended := make(chan struct{}, 2)
	tg := serveTCP(t, nil, func(c net.Conn) {
		_, _ = io.Copy(io.Discard, c) // never answers; returns when the probe's socket closes
		ended <- struct{}{}
	})
	r, err := NewReactor()
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan Result, 1)
	if !r.Start(Spec{Protocol: "HTTP"}, tg, time.Now().Add(probeTimeout), func(res Result) { called <- res }) {
		t.Fatal("the reactor did not take an HTTP probe")
	}
	r.Poll(time.Now().Add(10 * time.Millisecond))
	r.Close()
	select {
	case <-ended:
	case <-time.After(probeTimeout):
		t.Fatal("the server's connection stayed open after Close")
	}
	select {
	case res := <-called:
		t.Fatalf("done called after Close: %+v", res)
	default:
	}
	if r.Start(Spec{Protocol: "HTTP"}, tg, time.Now().Add(time.Second), func(Result) {}) {
		t.Fatal("a closed reactor took a probe")
	}
	select {
	case <-ended:
		t.Fatal("a closed reactor still connected to the target")
	case <-time.After(50 * time.Millisecond):
	}
}

func newTestReactor(t *testing.T) *Reactor {
	t.Helper()
	r, err := NewReactor()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// pollUntil drives r on the test's goroutine until a result arrives.
func pollUntil(t *testing.T, r *Reactor, got <-chan Result) Result {
	t.Helper()
	deadline := time.Now().Add(probeTimeout + time.Second)
	for time.Now().Before(deadline) {
		r.Poll(time.Now().Add(100 * time.Millisecond))
		select {
		case res := <-got:
			return res
		default:
		}
	}
	t.Fatal("no result")
	return Result{}
}
