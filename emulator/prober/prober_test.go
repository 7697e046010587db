package prober

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

var allProtocols = []string{"TCP", "SSL", "HTTP", "HTTPS", "HTTP2", "GRPC", "GRPC_WITH_TLS", "UDP", "LEGACY_HTTP", "LEGACY_HTTPS"}

func TestLookup(t *testing.T) {
	for _, p := range allProtocols {
		if f, ok := Lookup(p); !ok || f == nil {
			t.Errorf("Lookup(%q) = %v, %v; want a prober", p, f, ok)
		}
	}
	for _, p := range []string{"", "http", "udp", "HTTP3"} {
		if _, ok := Lookup(p); ok {
			t.Errorf("Lookup(%q) found a prober", p)
		}
	}
}

// An unknown protocol is an unhealthy PROTOCOL_ERROR, without any I/O.
func TestProbeUnknownProtocol(t *testing.T) {
	res := probe(t, probeTimeout, Spec{Protocol: "QUIC"}, closedPort(t))
	wantResult(t, res, false, ReasonProtocolError)
	if !strings.Contains(res.Detail, "QUIC") {
		t.Fatalf("detail %q does not name the protocol", res.Detail)
	}
}

func TestClassify(t *testing.T) {
	opErr := func(errno error) error {
		return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", errno)}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.DeadlineExceeded, ReasonTimeout},
		{context.Canceled, ReasonTimeout},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), ReasonTimeout},
		{opErr(syscall.ECONNREFUSED), ReasonConnectionRefused},
		{opErr(syscall.ECONNRESET), ReasonConnectionReset},
		{opErr(syscall.EPIPE), ReasonConnectionReset},
		{io.ErrUnexpectedEOF, ReasonConnectionReset},
		{&tlsHandshakeError{err: io.EOF}, ReasonTLSError},
		{&tlsHandshakeError{err: os.ErrDeadlineExceeded}, ReasonTimeout},
		{tls.RecordHeaderError{Msg: "bad record"}, ReasonTLSError},
		{opErr(syscall.EHOSTUNREACH), ReasonUnreachable},
		{opErr(syscall.ENETUNREACH), ReasonUnreachable},
		{failure(ReasonBadStatus, "HTTP status 500"), ReasonBadStatus},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestTruncateDetail(t *testing.T) {
	if got := truncate("short"); got != "short" {
		t.Fatalf("truncate(short) = %q", got)
	}
	for _, s := range []string{strings.Repeat("x", 500), strings.Repeat("é", 300), strings.Repeat("日本", 200)} {
		got := truncate(s)
		if len(got) > maxDetail || !utf8.ValidString(got) || !strings.HasSuffix(got, "...") {
			t.Errorf("truncate(%d bytes) = %d bytes, valid UTF-8 %v: %q", len(s), len(got), utf8.ValidString(got), got)
		}
	}
	// End to end: a backend's long garbage line yields a short one-line detail.
	tg := serveTCP(t, nil, func(c net.Conn) { _, _ = io.WriteString(c, strings.Repeat("\x01garbage\n", 2000)) })
	res := probe(t, probeTimeout, Spec{Protocol: "TCP", TCP: &TCPSpec{Response: strings.Repeat("x", 300)}}, tg)
	wantResult(t, res, false, ReasonResponseMismatch)
	if strings.ContainsAny(res.Detail, "\n\x01") {
		t.Fatalf("detail has control characters: %q", res.Detail)
	}
}

// Cancelling a context without a deadline aborts the probe at once.
func TestCancelAbortsProbe(t *testing.T) {
	silent := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	tlsSilent := serveTCP(t, serverTLS(t, validCert, "h2"), func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	for _, tc := range []struct {
		protocol string
		tg       Target
	}{{"TCP", silent}, {"HTTP", silent}, {"HTTPS", tlsSilent}, {"HTTP2", tlsSilent}, {"GRPC", silent}} {
		t.Run(tc.protocol, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			const after = 100 * time.Millisecond
			start := time.Now() // before the timer, so that el >= after holds
			time.AfterFunc(after, cancel)
			res := Probe(ctx, Spec{Protocol: tc.protocol, TCP: &TCPSpec{Response: "never sent"}, HTTP: &HTTPSpec{Response: "never sent"}}, tc.tg)
			if el := time.Since(start); el < after || el > after+deadlineSlack {
				t.Fatalf("probe returned after %v, cancelled at %v", el, after)
			}
			wantResult(t, res, false, ReasonTimeout)
		})
	}
}

// countTimeWait counts TIME_WAIT sockets in /proc/net/tcp{,6} whose remote
// port is port: the prober's side of connections to a listener.
func countTimeWait(t *testing.T, port int) int {
	t.Helper()
	n := 0
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue // no IPv6 table on this host
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local_address rem_address st ...; st 06 = TIME_WAIT.
			if len(fields) < 4 || fields[3] != "06" {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[2], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port {
				n++
			}
		}
		fh.Close()
	}
	return n
}

// Short-lived probe sockets must not pile up in TIME_WAIT (SO_LINGER 0).
// The server never closes first, so the prober is the active closer: a
// plain close would leave every probe socket in TIME_WAIT for 60 s.
func TestNoTimeWaitPileUp(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("needs Linux /proc/net/tcp to count TIME_WAIT sockets:", err)
	}
	tg := serveTCP(t, nil, func(c net.Conn) {
		if readLine(c) == "PING\n" {
			_, _ = io.WriteString(c, "PONG\n")
		}
		_, _ = io.Copy(io.Discard, c) // wait for the prober to close
	})
	const probes = 200
	for i := range probes {
		spec := Spec{Protocol: "TCP"}
		if i%2 == 1 {
			spec.TCP = &TCPSpec{Request: "PING\n", Response: "PONG"}
		}
		wantResult(t, probe(t, probeTimeout, spec, tg), true, "")
	}
	if n := countTimeWait(t, tg.Port); n >= 10 {
		t.Fatalf("%d of %d probe sockets are in TIME_WAIT", n, probes)
	}
}

// benchHTTPServer is a minimal canned-response HTTP server, so that the
// benchmark measures the prober rather than net/http's server.
func benchHTTPServer(b *testing.B) Target {
	const resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
	return serveTCP(b, nil, func(c net.Conn) {
		buf := make([]byte, 1024)
		n := 0
		for !strings.Contains(string(buf[:n]), "\r\n\r\n") && n < len(buf) {
			m, err := c.Read(buf[n:])
			if err != nil {
				return
			}
			n += m
		}
		_, _ = io.WriteString(c, resp)
		_, _ = io.Copy(io.Discard, c)
	})
}

func benchProbe(b *testing.B, spec Spec, tg Target) {
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		res := Probe(ctx, spec, tg)
		cancel()
		if !res.Healthy {
			b.Fatalf("probe failed: %+v", res)
		}
	}
}

func BenchmarkProbeHTTP(b *testing.B) {
	benchProbe(b, Spec{Protocol: "HTTP"}, benchHTTPServer(b))
}

func BenchmarkProbeHTTPResponseMatch(b *testing.B) {
	benchProbe(b, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Response: "ok"}}, benchHTTPServer(b))
}

func BenchmarkProbeTCP(b *testing.B) {
	tg := serveTCP(b, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	benchProbe(b, Spec{Protocol: "TCP"}, tg)
}

// Probes share package state (registry, buffer pool, HTTP/2 transport):
// run many at once, across protocols, under the race detector.
func TestConcurrentProbes(t *testing.T) {
	hs, grpcTarget := grpcHealthServer(t, false)
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	httpTarget := httpServer(t, ok)
	tlsTarget := tlsHTTPServer(t, serverTLS(t, validCert, "h2", "http/1.1"), nil, ok)
	jobs := []struct {
		spec Spec
		tg   Target
	}{
		{Spec{Protocol: "TCP"}, httpTarget},
		{Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Response: "healthy"}}, httpTarget},
		{Spec{Protocol: "HTTPS", HTTP: &HTTPSpec{Response: "healthy"}}, tlsTarget},
		{Spec{Protocol: "HTTP2", HTTP: &HTTPSpec{Response: "healthy"}}, tlsTarget},
		{Spec{Protocol: "GRPC"}, grpcTarget},
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := range 100 {
		job := jobs[i%len(jobs)]
		wg.Go(func() {
			if res := probe(t, probeTimeout, job.spec, job.tg); !res.Healthy {
				errs <- fmt.Sprintf("%s: %+v", job.spec.Protocol, res)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A target that resets the connection during the TLS handshake is a
// CONNECTION_RESET, not a TLS_ERROR (regression: it was TLS_ERROR).
func TestResetDuringHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1)
			c.Read(buf) // the first byte of the ClientHello
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, proto := range []string{"HTTPS", "SSL", "HTTP2"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		res := Probe(ctx, Spec{Protocol: proto}, Target{IP: "127.0.0.1", Port: port})
		cancel()
		if res.Healthy || res.Reason != ReasonConnectionReset {
			t.Errorf("%s against a reset during the handshake: %+v, want CONNECTION_RESET", proto, res)
		}
	}
}
