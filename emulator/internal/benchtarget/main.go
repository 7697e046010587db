// Command benchtarget is the HTTP backend of the probe-engine benchmark
// (emulator/health/bench_test.go). It runs in a process of its own so that
// its CPU is never charged to the checker being measured.
//
// It listens on -n loopback addresses, one port shared by all of them, and
// answers every connection with one minimal "200 OK" and a close. It prints
// one "listen ADDR:PORT" line per listener, then "ready". Each line then
// read on stdin is answered with "ACCEPTED ANSWERED": connections accepted
// and answered so far, the counter that both halves of the benchmark are
// measured by. It exits when stdin closes.
//
// With -misbehave N, one address in N misbehaves instead, for the soak
// (emulator/soak_test.go): the last of every N, cycling through hang
// (read the request, never answer), reset (close with RST at once) and
// slowloris (answer one byte every half second); their lines say so:
// "listen ADDR:PORT hang".
//
// -protocol says what every listener speaks, by the health check type it
// stands for:
//   - HTTP (the default): the minimal answer above;
//   - HTTPS: the same over TLS (a self-signed ECDSA P-256 certificate made
//     at start, TLS 1.2 and 1.3, session tickets on, as Go's servers have
//     them by default);
//   - SSL: TLS alone: a completed handshake is a connection answered;
//   - HTTP2: net/http's server over TLS, HTTP/2 only (ALPN h2), answering
//     every request 200; a request answered counts;
//   - GRPC, GRPC_WITH_TLS: one gRPC server (over TLS for the second),
//     serving the standard health service (grpc.health.v1) SERVING; a
//     check answered counts as a connection accepted and answered.
//
// Only 127.0.0.0/8 is accepted: the benchmark never leaves loopback.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// response is all a health check needs: status 200, an exact length, and
// the promise that the server closes.
var response = []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

var accepted, answered atomic.Int64

func main() {
	n := flag.Int("n", 1000, "number of addresses to listen on")
	first := flag.String("first", "127.1.0.1", "first address; later ones count up from it, skipping .0 and .255")
	misbehave := flag.Int("misbehave", 0, "one address in this many misbehaves (hang, reset, slowloris in turn); 0: none")
	flag.StringVar(&protocol, "protocol", "HTTP", "what every listener speaks: HTTP, HTTPS, SSL, HTTP2, GRPC or GRPC_WITH_TLS")
	flag.Parse()
	if err := setUp(); err != nil {
		fmt.Fprintln(os.Stderr, "benchtarget:", err)
		os.Exit(1)
	}
	if err := run(*n, *first, *misbehave); err != nil {
		fmt.Fprintln(os.Stderr, "benchtarget:", err)
		os.Exit(1)
	}
}

// protocol is the -protocol flag.
var protocol string

// setUp prepares what protocol needs: a certificate, the HTTP/2 server,
// the gRPC server.
func setUp() error {
	switch protocol {
	case "HTTP", "GRPC":
	case "HTTPS", "SSL", "HTTP2", "GRPC_WITH_TLS":
		cert, err := targets.SelfSignedCert("")
		if err != nil {
			return err
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	default:
		return fmt.Errorf("-protocol %q: want HTTP, HTTPS, SSL, HTTP2, GRPC or GRPC_WITH_TLS", protocol)
	}
	switch protocol {
	case "GRPC":
		grpcServer = newGRPCServer()
	case "GRPC_WITH_TLS":
		grpcServer = newGRPCServer(grpc.Creds(credentials.NewTLS(tlsConfig)))
	case "HTTP2":
		h2Server = newH2Server()
	}
	return nil
}

func run(n int, first string, misbehave int) error {
	addrs, err := addresses(first, n)
	if err != nil {
		return err
	}
	// Plain TCP like most backends (Go listens with MPTCP by default), and
	// no keep-alive setsockopts per accepted connection: on loopback the
	// checker's own system calls run part of the listener's TCP work, so
	// the target should do no more than a minimal server would.
	var lc net.ListenConfig
	lc.KeepAlive = -1
	lc.SetMultipathTCP(false)
	out := bufio.NewWriter(os.Stdout)
	port := 0 // the first listener picks a free port; the others share it
	for i, a := range addrs {
		l, err := lc.Listen(context.Background(), "tcp4", netip.AddrPortFrom(a, uint16(port)).String())
		if err != nil {
			return err
		}
		ln := l.(*net.TCPListener)
		port = ln.Addr().(*net.TCPAddr).Port
		if m := misbehaviour(i, misbehave); m != "" {
			fmt.Fprintf(out, "listen %s %s\n", ln.Addr(), m)
			go misbehaveOn(ln, m)
		} else {
			fmt.Fprintf(out, "listen %s\n", ln.Addr())
			go serve(ln)
		}
	}
	fmt.Fprintln(out, "ready")
	if err := out.Flush(); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		fmt.Printf("%d %d\n", accepted.Load(), answered.Load())
	}
	return nil
}

// addresses lists n addresses of 127.0.0.0/8 from first up.
func addresses(first string, n int) ([]netip.Addr, error) {
	a, err := netip.ParseAddr(first)
	if err != nil || !a.Is4() || a.As4()[0] != 127 {
		return nil, fmt.Errorf("-first %q: want an address in 127.0.0.0/8", first)
	}
	out := make([]netip.Addr, 0, n)
	for ; len(out) < n; a = a.Next() {
		b := a.As4()
		if b[0] != 127 {
			return nil, fmt.Errorf("%d addresses from %s leave 127.0.0.0/8", n, first)
		}
		if b[3] != 0 && b[3] != 255 {
			out = append(out, a)
		}
	}
	return out, nil
}

// serve answers one connection at a time: each address sees about one
// check per second, so a goroutine per connection would only cost more.
func serve(ln *net.TCPListener) {
	switch {
	case grpcServer != nil:
		if err := grpcServer.Serve(ln); err != nil {
			fmt.Fprintln(os.Stderr, "benchtarget: grpc:", err)
		}
		return
	case h2Server != nil:
		if err := h2Server.ServeTLS(ln, "", ""); err != nil {
			fmt.Fprintln(os.Stderr, "benchtarget: http2:", err)
		}
		return
	}
	buf := make([]byte, 1024)
	for {
		c, err := ln.AcceptTCP()
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtarget: accept:", err)
			time.Sleep(10 * time.Millisecond) // e.g. out of descriptors: do not spin
			continue
		}
		accepted.Add(1)
		if answer(c, buf) {
			answered.Add(1)
		}
	}
}

// answer reads the request (one read: checks send a few dozen bytes in one
// segment) before writing, so that closing never finds unread data and
// resets the connection under the checker's read.
func answer(c *net.TCPConn, buf []byte) bool {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	var conn net.Conn = c
	if tlsConfig != nil {
		tc := tls.Server(c, tlsConfig)
		if protocol == "SSL" {
			return tc.Handshake() == nil
		}
		conn = tc
	}
	if _, err := conn.Read(buf); err != nil {
		return false
	}
	_, err := conn.Write(response)
	return err == nil
}

// grpcServer serves every listener under -grpc, else nil.
var grpcServer *grpc.Server

// newGRPCServer is a gRPC server of the health service, SERVING, that
// counts each call answered.
func newGRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	s := grpc.NewServer(append(opts, grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo,
		handler grpc.UnaryHandler) (any, error) {
		accepted.Add(1)
		resp, err := handler(ctx, req)
		if err == nil {
			answered.Add(1)
		}
		return resp, err
	}))...)
	healthpb.RegisterHealthServer(s, health.NewServer()) // SERVING for the server as a whole
	return s
}

// tlsConfig is the listeners' TLS configuration when the protocol has
// TLS, else nil.
var tlsConfig *tls.Config

// h2Server serves every listener under -protocol HTTP2, else nil.
var h2Server *http.Server

// newH2Server is net/http's server speaking HTTP/2 alone over TLS, which
// answers every request "200 ok" and counts it.
func newH2Server() *http.Server {
	var protocols http.Protocols
	protocols.SetHTTP2(true)
	return &http.Server{
		TLSConfig: tlsConfig,
		Protocols: &protocols,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				accepted.Add(1)
			}
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", "2")
			if _, err := w.Write([]byte("ok")); err == nil {
				answered.Add(1)
			}
		}),
		ErrorLog: log.New(io.Discard, "", 0), // a probe closing at once is no news
	}
}

// misbehaviour is what address number i (from 0) does when one in every
// misbehaves: "" (answer), "hang", "reset" or "slowloris".
func misbehaviour(i, every int) string {
	if every <= 0 || i%every != every-1 {
		return ""
	}
	return [...]string{"hang", "reset", "slowloris"}[(i/every)%3]
}

// misbehaveOn treats every connection of ln the way m says, each on a
// goroutine of its own: a hung connection must not hold up the next.
func misbehaveOn(ln *net.TCPListener, m string) {
	for {
		c, err := ln.AcceptTCP()
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtarget: accept:", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		accepted.Add(1)
		go misbehaveWith(c, m)
	}
}

// slowBytes is the answer slowloris dribbles out, one byte at a time.
var slowBytes = []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

func misbehaveWith(c *net.TCPConn, m string) {
	defer c.Close()
	// Long enough to outlast any probe: the prober is the one to give up.
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute))
	buf := make([]byte, 1024)
	switch m {
	case "reset":
		_ = c.SetLinger(0) // close sends RST
		return
	case "hang":
		for {
			if _, err := c.Read(buf); err != nil {
				return // the prober gave up and closed
			}
		}
	case "slowloris":
		if _, err := c.Read(buf); err != nil {
			return
		}
		for _, b := range slowBytes {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
}
