package prober

import (
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"
)

// streamCase is one request/response scenario, shared by TCP and SSL.
type streamCase struct {
	name       string
	request    string
	response   string
	serve      func(c net.Conn, got chan<- string) // got receives what the server read
	wantHealth bool
	wantReason string
	wantRecv   string // what the server must have received ("" = not checked)
}

// readLine reads one '\n'-terminated line byte by byte, so nothing after
// it is consumed.
func readLine(r io.Reader) string {
	var line []byte
	b := make([]byte, 1)
	for {
		if _, err := r.Read(b); err != nil {
			return string(line)
		}
		line = append(line, b[0])
		if b[0] == '\n' {
			return string(line)
		}
	}
}

func streamCases() []streamCase {
	hold := func(c net.Conn, _ chan<- string) { _, _ = io.Copy(io.Discard, c) }
	answer := func(reply string) func(net.Conn, chan<- string) {
		return func(c net.Conn, got chan<- string) {
			got <- readLine(c)
			_, _ = io.WriteString(c, reply) // then FIN via deferred Close
		}
	}
	banner := func(b string) func(net.Conn, chan<- string) {
		return func(c net.Conn, _ chan<- string) { _, _ = io.WriteString(c, b); hold(c, nil) }
	}
	return []streamCase{
		{name: "connect only", serve: func(net.Conn, chan<- string) {}, wantHealth: true},
		{name: "request only, peer reads", request: "HELLO\n", serve: func(c net.Conn, got chan<- string) { got <- readLine(c) },
			wantHealth: true, wantRecv: "HELLO\n"},
		{name: "request only, peer closes at once", request: "HELLO\n", serve: func(net.Conn, chan<- string) {}, wantHealth: true},
		{name: "response only, banner matches", response: "220 ready", serve: banner("220 ready lbhealth\r\n"), wantHealth: true},
		{name: "response only, banner differs", response: "220 ready", serve: banner("554 go away\r\n"),
			wantReason: ReasonResponseMismatch},
		{name: "both, match then FIN", request: "PING\n", response: "PONG", serve: answer("PONG\n"),
			wantHealth: true, wantRecv: "PING\n"},
		{name: "both, mismatch", request: "PING\n", response: "PONG", serve: answer("NOPE\n"),
			wantReason: ReasonResponseMismatch, wantRecv: "PING\n"},
		{name: "both, short answer then FIN", request: "PING\n", response: "PONG", serve: answer("PO"),
			wantReason: ReasonConnectionReset},
		{name: "response, peer closes silently", response: "220", serve: func(net.Conn, chan<- string) {},
			wantReason: ReasonConnectionReset},
	}
}

// runStreamCases runs streamCases for protocol ("TCP" or "SSL").
func runStreamCases(t *testing.T, protocol string, cfg *tls.Config) {
	for _, tc := range streamCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, 2)
			tg := serveTCP(t, cfg, func(c net.Conn) { tc.serve(c, got) })
			spec := Spec{Protocol: protocol, TCP: &TCPSpec{Request: tc.request, Response: tc.response}}
			res := probe(t, probeTimeout, spec, tg)
			wantResult(t, res, tc.wantHealth, tc.wantReason)
			if tc.wantRecv == "" {
				return
			}
			for range ways(protocol) {
				select {
				case recv := <-got:
					if recv != tc.wantRecv {
						t.Fatalf("server received %q, want %q", recv, tc.wantRecv)
					}
				case <-time.After(probeTimeout):
					t.Fatal("server never received the request")
				}
			}
		})
	}
}

func TestTCPRequestResponse(t *testing.T) {
	runStreamCases(t, "TCP", nil)
}

func TestTCPSilentServerTimesOut(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	res := timedProbe(t, Spec{Protocol: "TCP", TCP: &TCPSpec{Response: "220"}}, tg, 150*time.Millisecond)
	wantResult(t, res, false, ReasonTimeout)
}

// The expected response is compared with the first len(response) bytes:
// whatever the backend sends afterwards does not matter.
func TestTCPResponseIsPrefix(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) {
		_, _ = io.WriteString(c, "OK and then a lot more")
		_, _ = io.Copy(io.Discard, c)
	})
	res := probe(t, probeTimeout, Spec{Protocol: "TCP", TCP: &TCPSpec{Response: "OK"}}, tg)
	wantResult(t, res, true, "")
}

func TestConnectionRefused(t *testing.T) {
	for _, p := range []string{"TCP", "SSL", "HTTP", "HTTPS", "HTTP2", "GRPC", "GRPC_WITH_TLS", "LEGACY_HTTP", "LEGACY_HTTPS"} {
		t.Run(p, func(t *testing.T) {
			res := probe(t, probeTimeout, Spec{Protocol: p}, closedPort(t))
			wantResult(t, res, false, ReasonConnectionRefused)
		})
	}
}
