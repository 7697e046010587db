package prober

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// h2OnlyServer serves TLS with ALPN "h2" only, configured through
// http2.ConfigureServer, and reports each request's protocol and Host.
func h2OnlyServer(t *testing.T, seen chan<- string) Target {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Proto + " " + r.Host
		_, _ = io.WriteString(w, "h2 says "+strings.Repeat("-", 2000)+"late")
	})
	mux.HandleFunc("/missing", http.NotFound)
	srv := &http.Server{Handler: mux, ErrorLog: log.New(io.Discard, "", 0)}
	if err := http2.ConfigureServer(srv, &http2.Server{}); err != nil {
		t.Fatal(err)
	}
	cfg := serverTLS(t, validCert, "h2")
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.TLSConfig = cfg
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return targetOf(t, ln.Addr())
}

func TestHTTP2(t *testing.T) {
	seen := make(chan string, 10)
	tg := h2OnlyServer(t, seen)
	for _, tc := range []struct {
		name     string
		spec     Spec
		reason   string
		wantSeen string
	}{
		{"ok", Spec{}, "", "HTTP/2.0 127.0.0.1:" + strconv.Itoa(tg.Port)},
		{"host", Spec{HTTP: &HTTPSpec{Host: "backend.example"}}, "", "HTTP/2.0 backend.example"},
		{"match", Spec{HTTP: &HTTPSpec{Response: "h2 says"}}, "", "HTTP/2.0 127.0.0.1:" + strconv.Itoa(tg.Port)},
		{"match after 1024", Spec{HTTP: &HTTPSpec{Response: "late"}}, ReasonResponseMismatch, "HTTP/2.0 127.0.0.1:" + strconv.Itoa(tg.Port)},
		{"404", Spec{HTTP: &HTTPSpec{RequestPath: "/missing"}}, ReasonBadStatus, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Protocol = "HTTP2"
			res := probe(t, probeTimeout, tc.spec, tg)
			wantResult(t, res, tc.reason == "", tc.reason)
			if tc.wantSeen != "" {
				if got := <-seen; got != tc.wantSeen {
					t.Fatalf("server saw %q, want %q", got, tc.wantSeen)
				}
			}
		})
	}
}

// A TLS server that does not negotiate h2 is not an HTTP2 backend, whether
// it rejects the ALPN offer or ignores ALPN altogether.
func TestHTTP2WithoutH2(t *testing.T) {
	answer := func(c net.Conn) { _, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
	for name, start := range map[string]func() Target{
		"http/1.1 only": func() Target { return tlsHTTPServer(t, serverTLS(t, validCert, "http/1.1"), nil, ok) },
		"no ALPN":       func() Target { return serveTCP(t, serverTLS(t, validCert), answer) },
	} {
		t.Run(name, func(t *testing.T) {
			tg := start()
			res := probe(t, probeTimeout, Spec{Protocol: "HTTP2"}, tg)
			wantResult(t, res, false, ReasonProtocolError)
			if !strings.Contains(res.Detail, "h2") {
				t.Fatalf("detail %q does not mention h2", res.Detail)
			}
		})
	}
}

// An h2 server that never answers the request: TIMEOUT at the deadline.
func TestHTTP2Timeout(t *testing.T) {
	tg := serveTCP(t, serverTLS(t, validCert, "h2"), func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	res := timedProbe(t, Spec{Protocol: "HTTP2"}, tg, 150*time.Millisecond)
	wantResult(t, res, false, ReasonTimeout)
}
