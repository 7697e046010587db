package prober

import (
	"net"
	"testing"
	"time"
)

// serveUDP answers every datagram on a loopback socket with reply(what it
// got), or not at all when reply returns nil, until the test ends; got
// receives each datagram.
func serveUDP(t *testing.T, reply func([]byte) []byte) (Target, <-chan string) {
	return serveUDPOn(t, "127.0.0.1:0", reply)
}

// serveUDPOn is serveUDP on the local address addr.
func serveUDPOn(t *testing.T, addr string, reply func([]byte) []byte) (Target, <-chan string) {
	t.Helper()
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		t.Fatalf("UDP server on %s: %v", addr, err)
	}
	t.Cleanup(func() { pc.Close() })
	got := make(chan string, 16)
	go func() {
		buf := make([]byte, 65535)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			select {
			case got <- string(buf[:n]):
			default:
			}
			if r := reply(buf[:n]); r != nil {
				_, _ = pc.WriteTo(r, from)
			}
		}
	}()
	local := pc.LocalAddr().(*net.UDPAddr)
	return Target{IP: local.IP.String(), Port: local.Port}, got
}

func TestUDP(t *testing.T) {
	pong := func(p []byte) []byte {
		if string(p) == "PING" {
			return []byte("+PONG lbhealth")
		}
		return []byte("-ERR unknown")
	}
	cases := []struct {
		name              string
		reply             func([]byte) []byte
		request, response string
		wantHealthy       bool
		wantReason        string
		checkSent         bool // the server must have got request
	}{
		{name: "reply contains the response", reply: pong, request: "PING", response: "PONG", wantHealthy: true, checkSent: true},
		{name: "any reply when no response is expected", reply: pong, request: "PING", wantHealthy: true},
		{name: "empty request is an empty datagram", reply: pong, response: "ERR", wantHealthy: true, checkSent: true},
		{name: "wrong reply", reply: pong, request: "HELLO", response: "PONG", wantReason: ReasonResponseMismatch},
		{name: "no reply", reply: func([]byte) []byte { return nil }, request: "PING", response: "PONG", wantReason: ReasonTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg, got := serveUDP(t, tc.reply)
			spec := NewSpec("UDP", "", func(field string) string {
				return map[string]string{"request": tc.request, "response": tc.response}[field]
			})
			wantResult(t, probe(t, 300*time.Millisecond, spec, tg), tc.wantHealthy, tc.wantReason)
			if tc.checkSent {
				if sent := <-got; sent != tc.request {
					t.Errorf("the server got %q, want %q", sent, tc.request)
				}
			}
		})
	}
}

// TestUDPPortUnreachable: nothing listens, the kernel answers with ICMP
// port unreachable, and the probe fails at once rather than at its
// deadline.
func TestUDPPortUnreachable(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().(*net.UDPAddr)
	pc.Close()
	// A probe that waited for the deadline instead of the ICMP answer
	// would say TIMEOUT.
	res := probe(t, 5*time.Second, Spec{Protocol: "UDP", TCP: &TCPSpec{Request: "PING"}}, Target{IP: addr.IP.String(), Port: addr.Port})
	wantResult(t, res, false, ReasonConnectionRefused)
}

// TestUDPOverIPv6: an echo server on the IPv6 loopback.
func TestUDPOverIPv6(t *testing.T) {
	tg, _ := serveUDPOn(t, "[::1]:0", func(p []byte) []byte { return p })
	wantResult(t, probe(t, 300*time.Millisecond, Spec{Protocol: "UDP", TCP: &TCPSpec{Request: "x", Response: "x"}}, tg), true, "")
}
