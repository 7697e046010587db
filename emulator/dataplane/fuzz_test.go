package dataplane

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/rawserver"
)

// hostileRequests are request heads (and what follows) that proxies have
// been made to read two ways: smuggling by Content-Length and chunked,
// obs-fold, bare LF, a chunk size past 64 bits, trailers, many headers,
// pipelining.
var hostileRequests = []string{
	"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nhello",
	"GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n folded\r\n\r\n",
	"GET / HTTP/1.1\nHost: a\n\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffffffffffff0\r\nab\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X-Many: 1\r\n", 10000) + "\r\n",
	"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\nHost: b\r\n\r\n",
	"GET / HTTP/1.0\r\n\r\n",
	"GET http://other/x HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nConnection: Host\r\n\r\n",
	"GET http://a\"b/ HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET a:b HTTP/1.1\r\nHost: a\r\n\r\n",
	"POST * HTTP/1.1\r\nHost: a\r\n\r\n",
	// Upgrades: only a WebSocket opening asks the backend to switch, and
	// the requests after any other are read as requests.
	"GET /public HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n" +
		"GET /admin/secret HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET /ws HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\nGET /admin/secret HTTP/1.1\r\nHost: a\r\n\r\n",
	"POST /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: x\r\nContent-Length: 0\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nSec-WebSocket-Key: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket, h2c\r\nSec-WebSocket-Key: x\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: TLS/1.2\r\n\r\n",
}

// seen is a request as a backend received it: its Upgrade too.
type seen struct{ method, path, host, upgrade string }

// recorder is a backend that records each request it receives.
type recorder struct {
	mu  sync.Mutex
	got []seen
}

// ServeHTTP records a request once its body has arrived whole: one whose
// client broke off may reach the backend after the client has left, and
// is not recorded.
func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return
	}
	rc.mu.Lock()
	rc.got = append(rc.got, seen{r.Method, r.URL.Path, r.Host, r.Header.Get("Upgrade")})
	rc.mu.Unlock()
	io.WriteString(w, "ok")
}

func (rc *recorder) take() []seen {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := rc.got
	rc.got = nil
	return out
}

// netHTTPReads is the requests net/http's server reads whole from in, in
// order, until the first it refuses, less those a proxy cannot forward
// (unforwardable). After a POST the server skips up to four CR or LF
// bytes, for old clients that end a body with a line end.
func netHTTPReads(in []byte) []seen {
	var out []seen
	br := bufio.NewReader(bytes.NewReader(in))
	last := ""
	for {
		if last == "POST" {
			peek, _ := br.Peek(4)
			n := 0
			for n < len(peek) && (peek[n] == '\r' || peek[n] == '\n') {
				n++
			}
			br.Discard(n)
		}
		req, err := http.ReadRequest(br)
		if err != nil {
			return out
		}
		last = req.Method
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return out // its body breaks off: the backend cannot get it whole
		}
		if unforwardable(req) == "" {
			upgrade := ""
			if websocketOpening(req) {
				upgrade = req.Header.Get("Upgrade")
			}
			out = append(out, seen{req.Method, req.URL.Path, req.Host, upgrade})
		}
	}
}

// exchange writes in to the listener at addr, half-closes, and returns
// all it answers: what came before a reset too (the server may close on
// input it has not read). A listener that neither answers nor closes
// within 10 s fails the test.
func exchange(t *testing.T, addr string, in []byte) []byte {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatalf("the listener accepts no connection: %v", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write(in)
	conn.(*net.TCPConn).CloseWrite()
	out, err := io.ReadAll(conn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("no end to the answer to %q: %q so far", in, out)
	}
	return out
}

// answers checks that out is whole HTTP answers and nothing else, and
// returns how many.
func answers(t *testing.T, out []byte) int {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(out))
	n := 0
	for {
		if _, err := br.Peek(1); err != nil {
			return n
		}
		resp, err := readFinal(br)
		if brokeOff(err) {
			return n // the last answer broke off, and the connection with it
		}
		if err != nil {
			t.Fatalf("answer %d does not parse (%v); all the data plane wrote: %q", n+1, err, out)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatalf("answer %d breaks off (%v); all the data plane wrote: %q", n+1, err, out)
		}
		n++
	}
}

// brokeOff tells whether reading an answer failed because what the data
// plane wrote ended in the middle of it: it closed the connection there.
func brokeOff(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) }

// readFinal reads an answer, past the informational (1xx) ones before it,
// as a client does.
func readFinal(br *bufio.Reader) (*http.Response, error) {
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, err
		}
	}
}

// FuzzRequestHead sends arbitrary bytes to an Application Load Balancer's
// listener: what it writes back is whole answers, and the backend gets
// only requests net/http reads from those bytes, in their order, each
// with its method, path and host, and asked to upgrade only when it is a
// WebSocket opening.
func FuzzRequestHead(f *testing.F) {
	for _, s := range hostileRequests {
		f.Add([]byte(s))
	}
	rc := &recorder{}
	backend := httptest.NewServer(rc)
	f.Cleanup(backend.Close)
	_, addr := proxyPlane(f, Options{}, strings.TrimPrefix(backend.URL, "http://"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rc.take()
		out := exchange(t, addr, in)
		answers(t, out)
		want, got := netHTTPReads(in), rc.take()
		if len(got) > len(want) {
			t.Fatalf("the backend got %v; net/http reads %v", got, want)
		}
		for i := range got {
			if want[i].host == "" {
				want[i].host = got[i].host // no Host (HTTP/1.0): the backend's address goes in its place
			}
			if want[i].path == "" {
				want[i].path = "/" // an http URL without a path: the backend gets /
			}
			if got[i] != want[i] {
				t.Fatalf("request %d: the backend got %+v; net/http reads %+v", i+1, got[i], want[i])
			}
		}
	})
}

// FuzzAnswerHead has a backend answer with arbitrary bytes: the client
// gets whole answers only, a 502 whenever net/http cannot read the
// backend's, and its next request on the same connection answered whole
// (or the connection closed): never a desync.
func FuzzAnswerHead(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\nX-A: 1\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffffffffffff0\r\nab\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n",
		"garbage",
	} {
		f.Add([]byte(s))
	}
	var mu sync.Mutex
	var current []byte
	backend := rawserver.Start(f, "/fuzz", func() []byte { mu.Lock(); defer mu.Unlock(); return current })
	_, addr := proxyPlane(f, Options{}, backend)
	f.Fuzz(func(t *testing.T, answer []byte) {
		mu.Lock()
		current = answer
		mu.Unlock()
		out := exchange(t, addr, []byte("GET /fuzz HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n"))
		br := bufio.NewReader(bytes.NewReader(out))
		if _, err := br.Peek(1); err != nil {
			return // closed at once
		}
		first, err := readFinal(br)
		if brokeOff(err) {
			return // the answer broke off, and the connection with it
		}
		if err != nil {
			t.Fatalf("the first answer does not parse (%v): %q", err, out)
		}
		if _, err := io.Copy(io.Discard, first.Body); err != nil {
			return // it broke off, and the connection with it
		}
		if _, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(answer)), &http.Request{Method: "GET"}); err != nil &&
			first.StatusCode != http.StatusBadGateway {
			t.Fatalf("net/http cannot read the backend's answer (%v), and the client got %d", err, first.StatusCode)
		}
		if _, err := br.Peek(1); err != nil {
			return // closed after the first answer
		}
		second, err := readFinal(br)
		if brokeOff(err) {
			return
		}
		if err != nil {
			t.Fatalf("the second answer does not parse (%v): %q", err, out)
		}
		body, err := io.ReadAll(second.Body)
		if err != nil || second.StatusCode != 200 || string(body) != rawserver.Good {
			t.Fatalf("the second answer is %d %q (%v), want 200 good: %q", second.StatusCode, body, err, out)
		}
	})
}
