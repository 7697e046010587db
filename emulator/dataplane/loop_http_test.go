package dataplane

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func TestParseHead(t *testing.T) {
	const get = "GET /a?b=c HTTP/1.1\r\nHost: shop.example\r\nAccept: */*\r\n\r\n"
	h, ok := parseHead([]byte(get + "GET /next"))
	if !ok || !h.loopable || h.size != len(get) || h.method != "GET" || string(h.target) != "/a?b=c" || h.host != "shop.example" || h.closing {
		t.Fatalf("a plain GET: %+v, %v", h, ok)
	}
	if got := string(h.forBackend([]byte(get), "127.0.0.9")); got != "GET /a?b=c HTTP/1.1\r\nHost: shop.example\r\nAccept: */*\r\n"+
		"X-Forwarded-For: 127.0.0.9\r\nX-Forwarded-Host: shop.example\r\nX-Forwarded-Proto: http\r\n\r\n" {
		t.Errorf("the backend's head: %q", got)
	}
	if _, ok := parseHead([]byte("GET / HTTP/1.1\r\nHost: x\r\n")); ok {
		t.Error("a head without its blank line was taken as whole")
	}
	if h, ok := parseHead([]byte("GET / HTTP/1.1\nHost: x\n\n")); ok || h.err == nil {
		t.Error("a head of bare LFs waits for a CRLF that never comes; want an error (fasthttp reads it)")
	}

	// What goes to the backend: hop-by-hop headers, those Connection
	// names, and the client's X-Forwarded ones are dropped.
	raw := "POST /up HTTP/1.1\r\nhost: x\r\nConnection: close, X-Secret\r\nX-Secret: 1\r\nKeep-Alive: timeout=5\r\n" +
		"X-Forwarded-For: 6.6.6.6\r\nTE: trailers\r\nContent-Length: 3\r\nX-Kept: yes\r\n\r\nabc"
	h, ok = parseHead([]byte(raw))
	if !ok || !h.loopable || !h.closing || h.contentLength != 3 {
		t.Fatalf("a POST that closes: %+v, %v", h, ok)
	}
	got := string(h.forBackend([]byte(raw[:h.size]), "127.0.0.1"))
	for _, gone := range []string{"Connection", "X-Secret", "Keep-Alive", "6.6.6.6", "TE:"} {
		if strings.Contains(got, gone) {
			t.Errorf("the backend's head has %q: %q", gone, got)
		}
	}
	for _, kept := range []string{"host: x\r\n", "Content-Length: 3\r\n", "X-Kept: yes\r\n", "X-Forwarded-For: 127.0.0.1\r\n"} {
		if !strings.Contains(got, kept) {
			t.Errorf("the backend's head lacks %q: %q", kept, got)
		}
	}

	// Left to fasthttp: whole, but not the loop's.
	for name, raw := range map[string]string{
		"HTTP/1.0":          "GET / HTTP/1.0\r\nHost: x\r\n\r\n",
		"absolute form":     "GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n",
		"no Host":           "GET / HTTP/1.1\r\n\r\n",
		"two Hosts":         "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
		"chunked":           "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		"two lengths":       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
		"a signed length":   "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\n",
		"a long body":       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n",
		"Upgrade":           "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
		"Expect":            "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n",
		"a folded line":     "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n 2\r\n\r\n",
		"a space in a name": "GET / HTTP/1.1\r\nHost: x\r\nX A: 1\r\n\r\n",
		"CONNECT":           "CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n",
		"a bare CR":         "GET / HTTP/1.1\r\nHost: x\rX\r\n\r\n",
		"a space in a path": "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		if h, ok := parseHead([]byte(raw)); !ok || h.loopable {
			t.Errorf("%s: whole %v, loopable %v; want whole and left to fasthttp", name, ok, h.loopable)
		}
	}
}

func TestLoopRequest(t *testing.T) {
	raw := "GET /a%20b/../c?x=1&y=2 HTTP/1.1\r\nHost: Shop.Example:8080\r\nX-Tag: a\r\nx-tag: b\r\nCookie: s=1; lb=abc\r\n\r\n"
	h, _ := parseHead([]byte(raw))
	r := &loopReq{h: &h, addr: "127.0.0.3"}
	if r.host() != "shop.example:8080" || r.path() != "/c" || r.method() != "GET" || r.clientIP() != "127.0.0.3" {
		t.Errorf("host %q, path %q, method %q, client %q", r.host(), r.path(), r.method(), r.clientIP())
	}
	if v, ok := r.header("X-TAG"); !ok || v != "a,b" {
		t.Errorf("header X-Tag: %q %v, want a,b", v, ok)
	}
	if _, ok := r.header("X-None"); ok {
		t.Error("a header not sent was found")
	}
	if v, ok := r.query("y"); !ok || v != "2" {
		t.Errorf("query y: %q %v", v, ok)
	}
	if r.cookie("lb") != "abc" || r.cookie("none") != "" {
		t.Errorf("cookie lb: %q", r.cookie("lb"))
	}
}

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, raw, method string
		wantErr           bool
		body              framing
		client            string // the head as the client gets it, before extra
	}{
		{"a length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: timeout=5\r\n\r\n", "GET", false,
			framing{remaining: 2, reusable: true}, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n", "GET", false,
			framing{chunked: true, reusable: true}, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"},
		{"until close", "HTTP/1.0 200 OK\r\nX-A: 1\r\n\r\n", "GET", false,
			framing{untilClose: true}, "HTTP/1.1 200 OK\r\nX-A: 1\r\nConnection: close\r\n"},
		{"closes", "HTTP/1.1 404 Not Found\r\nConnection: close, X-B\r\nX-B: 1\r\nContent-Length: 0\r\n\r\n", "GET", false,
			framing{}, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"},
		{"HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n", "HEAD", false,
			framing{reusable: true}, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n"},
		{"not modified", "HTTP/1.1 304 Not Modified\r\n\r\n", "GET", false, framing{reusable: true}, "HTTP/1.1 304 Not Modified\r\n"},
		{"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", "GET", true, framing{}, ""},
		{"a bad status", "HTTP/1.1 2000 OK\r\n\r\n", "GET", true, framing{}, ""},
		{"not HTTP", "SSH-2.0\r\n\r\n", "GET", true, framing{}, ""},
	} {
		a, ok, err := parseAnswer([]byte(tc.raw), tc.method)
		if tc.wantErr {
			if err == nil {
				t.Errorf("%s: no error", tc.name)
			}
			continue
		}
		if err != nil || !ok || a.body != tc.body {
			t.Errorf("%s: %v %v, framing %+v, want %+v", tc.name, ok, err, a.body, tc.body)
			continue
		}
		if got := string(a.forClient(nil, nil)); got != tc.client+"\r\n" {
			t.Errorf("%s: the client's head %q, want %q", tc.name, got, tc.client+"\r\n")
		}
	}
	if a, ok, err := parseAnswer([]byte("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n"), "GET"); !ok || err != nil || !a.informational {
		t.Errorf("a 103: %+v %v %v, want an informational head", a, ok, err)
	}
}

func TestFramingChunked(t *testing.T) {
	body := "4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: x\r\n\r\n"
	next := "HTTP/1.1 200 OK\r\n"
	// Whole, then split at every byte: the same end.
	for split := 0; split <= len(body); split++ {
		f := framing{chunked: true}
		in := []byte(body + next)
		n1, done, err := f.consume(in[:split])
		if err != nil || done && split < len(body) {
			t.Fatalf("split at %d: first part %d, done %v, %v", split, n1, done, err)
		}
		if done {
			continue
		}
		rest := in[n1:]
		n2, done, err := f.consume(rest)
		if err != nil || !done || n1+n2 != len(body) {
			t.Fatalf("split at %d: %d + %d bytes, done %v, %v; want %d, done", split, n1, n2, done, err, len(body))
		}
	}
	for _, bad := range []string{"z\r\n", "4\r\nWikiXX", "-1\r\n", "\r\n"} {
		f := framing{chunked: true}
		if _, _, err := f.consume([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	f := framing{chunked: true}
	if _, _, err := f.consume(bytes.Repeat([]byte("1"), maxChunkLine+1)); err == nil {
		t.Error("a size line longer than maxChunkLine: no error")
	}
}

// FuzzLoopFraming: the framing reads the same body whichever way the bytes
// arrive, and never claims more than it was given.
func FuzzLoopFraming(f *testing.F) {
	f.Add([]byte("4\r\nWiki\r\n0\r\n\r\n"), 3)
	f.Add([]byte("1;a=b\r\nx\r\n0\r\nT: 1\r\n\r\nrest"), 7)
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		whole := framing{chunked: true}
		n, done, err := whole.consume(b)
		if n < 0 || n > len(b) {
			t.Fatalf("consumed %d of %d", n, len(b))
		}
		if split < 0 || split > len(b) {
			return
		}
		parts := framing{chunked: true}
		n1, done1, err1 := parts.consume(b[:split])
		if err1 != nil || done1 {
			return // ended or failed in the first part; nothing to compare
		}
		buf := append(append([]byte(nil), b[n1:split]...), b[split:]...)
		n2, done2, err2 := parts.consume(buf)
		if (err == nil) != (err2 == nil) || err == nil && (done != done2 || n != n1+n2) {
			t.Fatalf("whole: %d %v %v; in two parts at %d: %d+%d %v %v", n, done, err, split, n1, n2, done2, err2)
		}
	})
}

// FuzzParseHead: a head the loop carries, net/http reads alike (method,
// Host, the body's length): the loop and a backend agree on where the
// request ends, so no request can hide in another's body.
func FuzzParseHead(f *testing.F) {
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	f.Add([]byte("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close, X-A\r\n\r\nabc"))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := parseHead(b)
		if !ok || !h.loopable {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b[:h.size])))
		if err != nil {
			t.Fatalf("the loop carries %q, which net/http refuses: %v", b[:h.size], err)
		}
		if req.Method != h.method || req.Host != h.host || req.ContentLength != int64(h.contentLength) || req.Close != h.closing {
			t.Fatalf("%q: the loop reads %s %q, length %d, closing %v; net/http %s %q, %d, %v",
				b[:h.size], h.method, h.host, h.contentLength, h.closing, req.Method, req.Host, req.ContentLength, req.Close)
		}
		// And the head it sends on reads the same.
		out := h.forBackend(b[:h.size], "127.0.0.1")
		back, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(out)))
		if err != nil || back.ContentLength != req.ContentLength || back.Host != req.Host {
			t.Fatalf("the backend's head %q: %v", out, err)
		}
	})
}
