package emulator_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/rawserver"
)

// What hostile clients and backends do to the data plane's HTTP
// listeners: each case is answered as net/http frames it, never desyncs a
// client, and never takes the API down with it.

// A client that half-closes its connection right after its request
// (shutdown(SHUT_WR)) still gets the answer, whatever the request.
func TestDataPlane_AHalfClosedClientGetsItsAnswer(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	for _, req := range []string{
		"GET / HTTP/1.1\r\nHost: lb\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: lb\r\nConnection: close\r\n\r\n",
		"POST /upload HTTP/1.1\r\nHost: lb\r\nContent-Length: 5\r\n\r\nhello",
	} {
		for i := range 10 {
			conn := dialLB(t, lb, 10*time.Second)
			io.WriteString(conn, req)
			conn.CloseWrite()
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("%q, try %d: no answer after the client half-closed: %v", req, i, err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 || len(body) == 0 {
				t.Fatalf("%q, try %d: %d %q (%v)", req, i, resp.StatusCode, body, err)
			}
			conn.Close()
		}
	}
}

// Connection may name any header as hop-by-hop, but never takes the
// request's Host away from the backend; a request target a proxy cannot
// send on as it came is refused.
func TestDataPlane_ConnectionNamingHostKeepsTheHost(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	conn := dialLB(t, lb, 10*time.Second)
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: shop.example.com\r\nConnection: Host, X-Gone\r\nX-Gone: 1\r\nX-Kept: 1\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// A target a proxy cannot send on whole is refused.
	for target, want := range map[string]string{"http://a\"b/": "malformed Host\n", "a:b": "malformed request target\n",
		"*": "malformed request target\n"} {
		c := dialLB(t, lb, 10*time.Second)
		io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: a\r\n\r\n")
		bad, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("GET %s: %v", target, err)
		}
		if body, _ := io.ReadAll(bad.Body); bad.StatusCode != 400 || string(body) != want {
			t.Errorf("GET %s: %d %q, want 400 %q", target, bad.StatusCode, body, want)
		}
	}
	if resp.Header.Get("Seen-Host") != "shop.example.com" || resp.Header.Get("Seen-X-Gone") != "" || resp.Header.Get("Seen-X-Kept") != "1" {
		t.Errorf("the backend saw Host %q, X-Gone %q, X-Kept %q; want the Host, no X-Gone, X-Kept",
			resp.Header.Get("Seen-Host"), resp.Header.Get("Seen-X-Gone"), resp.Header.Get("Seen-X-Kept"))
	}
}

// A request's headers may take 64 KB; past that (and net/http's 4 KB of
// slack) the client gets 431. A backend's answer head past 64 KB is a 502.
func TestDataPlane_HeaderLimits(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	for _, c := range []struct {
		size int
		want int
	}{{60 << 10, 200}, {70 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		req, _ := http.NewRequest("GET", lb+"/", nil)
		req.Header.Set("X-Big", strings.Repeat("a", c.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("a request with %d KB of headers: %d, want %d", c.size>>10, resp.StatusCode, c.want)
		}
	}
	if code, _, _ := get(t, lb+"/big-head"); code != http.StatusBadGateway {
		t.Errorf("a backend's answer with 70 KB of headers: %d, want 502", code)
	}
}

// A backend whose answer head is malformed, or framed two ways, never
// desyncs the client: it gets a 502, the answer as net/http frames it, or
// its connection closed, and then, on the same connection, either the next
// answer whole or the connection closed, never bytes of the bad answer as
// an answer.
func TestDataPlane_MisbehavingBackendsNeverDesyncAClient(t *testing.T) {
	t.Parallel()
	smuggled := "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nX-Smuggled: 1\r\n\r\nsmuggle"
	for name, bad := range map[string]string{
		"bare LF in the status line":       "HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\nok" + smuggled,
		"bare LF before chunked":           "HTTP/1.1 200 OK\r\nX-A: 1\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
		"NUL in a header value":            "HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok" + smuggled,
		"HTTP/1.0 with TE and CL":          "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + smuggled,
		"two different Content-Lengths":    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\nok" + smuggled,
		"a chunk size past 64 bits":        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffffffffffff0\r\nab\r\n0\r\n\r\n" + smuggled,
		"obs-fold":                         "HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\nok" + smuggled,
		"no status code":                   "HTTP/1.1 OK\r\nContent-Length: 2\r\n\r\nok" + smuggled,
		"an answer longer than its length": "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" + smuggled,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
			backend := rawserver.Start(t, "/bad", func() []byte { return []byte(bad) })
			lb := wireLBTo(t, e, backend[strings.LastIndex(backend, ":")+1:], "HTTP", "")
			conn := dialLB(t, lb, 10*time.Second)
			br := bufio.NewReader(conn)
			io.WriteString(conn, "GET /bad HTTP/1.1\r\nHost: lb\r\n\r\n")
			first, err := http.ReadResponse(br, nil)
			if err != nil {
				// The answer broke off (its head may have gone before its
				// body failed): the connection must be closed.
				if _, err := br.ReadByte(); err == nil {
					t.Fatal("/bad broke off, and the connection carries on")
				}
				return
			}
			body, _ := io.ReadAll(first.Body)
			if first.Header.Get("X-Smuggled") != "" || bytes.Contains(body, []byte("smuggle")) {
				t.Fatalf("/bad answered %d %v %q: the smuggled answer came through", first.StatusCode, first.Header, body)
			}
			io.WriteString(conn, "GET /good HTTP/1.1\r\nHost: lb\r\n\r\n")
			second, err := http.ReadResponse(br, nil)
			if err != nil {
				return // the connection closed: no desync
			}
			body, _ = io.ReadAll(second.Body)
			if second.StatusCode != 200 || string(body) != rawserver.Good || second.Header.Get("X-Smuggled") != "" {
				t.Fatalf("after /bad (%d), /good on the same connection answered %d %v %q", first.StatusCode, second.StatusCode, second.Header, body)
			}
		})
	}
}

// However many clients hold data-plane connections open with half a
// request, the API and /healthz keep answering: the data plane's caps
// leave the rest waiting to be accepted, and say so in /metrics.
func TestDataPlane_ConnectionCapsKeepTheAPIAnswering(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true,
		DataPlaneMaxConnections: 20, DataPlaneMaxConnectionsPerListener: 8})
	lb := wireLB(t, e, backend, "HTTP", "")
	for range 300 {
		conn, err := net.Dial("tcp", strings.TrimPrefix(lb, "http://"))
		if err != nil {
			break // the kernel's accept queue is full: what the caps are for
		}
		t.Cleanup(func() { conn.Close() })
		io.WriteString(conn, "GET / HTTP/1.1\r\nHost: lb\r\nX-Half: ")
	}
	for _, path := range []string{"/healthz", "/compute/v1/projects/p/global/backendServices/web"} {
		resp, err := http.Get(e.URL() + path)
		if err != nil {
			t.Fatalf("GET %s with the data plane full: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s with the data plane full: %d", path, resp.StatusCode)
		}
	}
	addr := strings.TrimPrefix(lb, "http://")
	waitFor(t, "the cap counted in /metrics", func() bool {
		m := metricsText(t, e)
		return strings.Contains(m, fmt.Sprintf("lbhealth_dataplane_open_connections{listener=%q} 8\n", addr)) &&
			strings.Contains(m, fmt.Sprintf("lbhealth_dataplane_connection_cap_waits_total{listener=%q}", addr))
	})
}

// No upgrade carries a client past Cloud Armor's rules: an h2c upgrade is
// never passed on (the backend gets a plain request), a backend that
// answers 101 without completing a WebSocket handshake gets its client a
// 502, not a tunnel, and what the client sends next on that connection is
// a request that the rules judge, never bytes the backend alone reads.
func TestDataPlane_NoUpgradeTunnelsPastTheRules(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string // the paths the backend got, and whether each asked to upgrade
	record := func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.URL.Path+" upgrade="+r.Header.Get("Upgrade"))
	}
	// A backend that switches to any protocol asked of it, and then reads
	// HTTP requests from the tunnel and serves them.
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		up := r.Header.Get("Upgrade")
		if up == "" {
			io.WriteString(w, "plain "+r.URL.Path)
			return
		}
		c, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: %s\r\nConnection: Upgrade\r\n\r\n", up)
		rw.Flush()
		for {
			req, err := http.ReadRequest(rw.Reader)
			if err != nil {
				return
			}
			record(req)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret")
			rw.Flush()
		}
	}))
	t.Cleanup(backend.Close)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	mustCall(t, e, "POST", "global/securityPolicies", `{"name":"armor","rules":[
		{"priority":100,"action":"deny(403)","match":{"expr":{"expression":"request.path.lower().contains('/admin')"}}},
		{"priority":2147483647,"action":"allow","match":{"versionedExpr":"SRC_IPS_V1","config":{"srcIpRanges":["*"]}}}]}`)
	mustCall(t, e, "POST", "global/backendServices/web/setSecurityPolicy", `{"securityPolicy":"global/securityPolicies/armor"}`)
	waitFor(t, "the policy in force", func() bool { code, _, _ := get(t, lb+"/admin"); return code == 403 })

	for name, c := range map[string]struct {
		upgrade  string
		wantCode int
	}{
		"h2c": {"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n", 200},
		"websocket without the handshake": {"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", 502},
		"another protocol": {"Connection: Upgrade\r\nUpgrade: tls/1.3\r\n", 200},
	} {
		conn := dialLB(t, lb, 10*time.Second)
		br := bufio.NewReader(conn)
		io.WriteString(conn, "GET /public HTTP/1.1\r\nHost: lb\r\n"+c.upgrade+"\r\n")
		first, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body, _ := io.ReadAll(first.Body)
		if first.StatusCode != c.wantCode {
			t.Errorf("%s: GET /public answered %d %q, want %d", name, first.StatusCode, body, c.wantCode)
		}
		io.WriteString(conn, "GET /admin/secret HTTP/1.1\r\nHost: lb\r\n\r\n")
		if second, err := http.ReadResponse(br, nil); err == nil {
			body, _ := io.ReadAll(second.Body)
			if second.StatusCode != 403 {
				t.Errorf("%s: then GET /admin/secret on the same connection answered %d %q, want 403", name, second.StatusCode, body)
			}
		} // else the connection closed: nothing reached the backend either
		conn.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.HasPrefix(s, "/admin") || strings.Contains(s, "upgrade=h2c") || strings.Contains(s, "upgrade=tls") {
			t.Errorf("the backend got %q; all it got: %q", s, seen)
		}
	}
}
