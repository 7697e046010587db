package prober

import (
	"bufio"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// proxyListener consumes the PROXY v1 line of each accepted connection,
// reports it with the first byte that follows, and hands the rest of the
// stream to the real server (HTTP, TLS, gRPC...) unchanged.
type proxyListener struct {
	net.Listener
	seen chan proxySeen
}

type proxySeen struct {
	line string
	next byte // first byte after the line: 0x16 for a TLS ClientHello
}

// bufConn is a conn whose reads go through the reader that parsed the line.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (l *proxyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	_ = c.SetReadDeadline(time.Now().Add(probeTimeout))
	br := bufio.NewReader(c)
	line, _ := br.ReadString('\n')
	next, _ := br.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	s := proxySeen{line: line}
	if len(next) == 1 {
		s.next = next[0]
	}
	select {
	case l.seen <- s:
	default:
	}
	return &bufConn{Conn: c, r: br}, nil
}

func newProxyListener(t *testing.T) *proxyListener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return &proxyListener{Listener: ln, seen: make(chan proxySeen, 2)}
}

// Servers behind a proxyListener, one per kind of backend.

func servePingPong(t *testing.T, ln net.Listener) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if readLine(c) == "PING\n" {
					_, _ = io.WriteString(c, "PONG")
				}
			}()
		}
	}()
}

func serveHTTP(t *testing.T, ln net.Listener, h2 bool) {
	srv := &http.Server{Handler: http.HandlerFunc(ok), ErrorLog: log.New(io.Discard, "", 0)}
	if h2 {
		_ = http2.ConfigureServer(srv, nil)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
}

func serveGRPC(t *testing.T, ln net.Listener, useTLS bool) {
	var opts []grpc.ServerOption
	if useTLS {
		cert := selfSigned(t, validCert)
		opts = append(opts, grpc.Creds(credentials.NewServerTLSFromCert(&cert)))
	}
	srv := grpc.NewServer(opts...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
}

// The PROXY v1 line comes first on the raw TCP connection: before the
// request, before the TLS ClientHello, before the HTTP/2 preface.
func TestProxyV1(t *testing.T) {
	wrap := func(ln net.Listener, protos ...string) net.Listener {
		return tls.NewListener(ln, serverTLS(t, validCert, protos...))
	}
	for _, tc := range []struct {
		protocol string
		serve    func(pl *proxyListener)
		next     byte
	}{
		{"TCP", func(pl *proxyListener) { servePingPong(t, pl) }, 'P'},
		{"SSL", func(pl *proxyListener) { servePingPong(t, wrap(pl)) }, 0x16},
		{"HTTP", func(pl *proxyListener) { serveHTTP(t, pl, false) }, 'G'},
		{"HTTPS", func(pl *proxyListener) { serveHTTP(t, wrap(pl), false) }, 0x16},
		{"HTTP2", func(pl *proxyListener) { serveHTTP(t, wrap(pl, "h2"), true) }, 0x16},
		{"GRPC", func(pl *proxyListener) { serveGRPC(t, pl, false) }, 'P'},
		{"GRPC_WITH_TLS", func(pl *proxyListener) { serveGRPC(t, pl, true) }, 0x16},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			pl := newProxyListener(t)
			tc.serve(pl)
			spec := Spec{Protocol: tc.protocol, ProxyHeader: "PROXY_V1"}
			if tc.protocol == "TCP" || tc.protocol == "SSL" {
				spec.TCP = &TCPSpec{Request: "PING\n", Response: "PONG"}
			}
			wantResult(t, probe(t, probeTimeout, spec, targetOf(t, pl.Addr())), true, "")
			for range ways(tc.protocol) {
				got := <-pl.seen
				if got.line != proxyV1Line || got.next != tc.next {
					t.Fatalf("server saw line %q then byte %#x, want %q then %#x", got.line, got.next, proxyV1Line, tc.next)
				}
			}
		})
	}
}

// Without PROXY_V1, and always for LEGACY_*, no PROXY line is sent.
func TestNoProxyLine(t *testing.T) {
	lines := make(chan string, 2)
	tg := serveTCP(t, nil, func(c net.Conn) {
		lines <- readLine(c)
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	})
	for _, spec := range []Spec{
		{Protocol: "HTTP"},
		{Protocol: "HTTP", ProxyHeader: "NONE"},
		{Protocol: "LEGACY_HTTP", ProxyHeader: "PROXY_V1"},
	} {
		wantResult(t, probe(t, probeTimeout, spec, tg), true, "")
		for range ways(spec.Protocol) {
			if got := <-lines; got != "GET / HTTP/1.1\r\n" {
				t.Fatalf("%+v: first line %q, want the request line", spec, got)
			}
		}
	}
}
