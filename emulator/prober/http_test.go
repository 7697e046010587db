package prober

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// httpServer starts a loopback HTTP server for the test.
func httpServer(t *testing.T, h http.HandlerFunc) Target {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return targetOfURL(t, srv.URL)
}

func TestHTTPStatus(t *testing.T) {
	var followed atomic.Int32
	tg := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/target":
			followed.Add(1)
		case "/301":
			http.Redirect(w, r, "/target", http.StatusMovedPermanently)
		case "/302":
			http.Redirect(w, r, "/target", http.StatusFound)
		case "/404":
			http.NotFound(w, r)
		case "/500":
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	})
	for _, tc := range []struct {
		path, reason string
	}{
		{"/target", ""}, {"/301", ReasonBadStatus}, {"/302", ReasonBadStatus},
		{"/404", ReasonBadStatus}, {"/500", ReasonBadStatus},
	} {
		for _, p := range []string{"HTTP", "LEGACY_HTTP"} {
			t.Run(p+tc.path, func(t *testing.T) {
				res := probe(t, probeTimeout, Spec{Protocol: p, HTTP: &HTTPSpec{RequestPath: tc.path}}, tg)
				wantResult(t, res, tc.reason == "", tc.reason)
				if tc.reason != "" && !strings.Contains(res.Detail, tc.path[1:]) {
					t.Fatalf("detail %q does not name status %s", res.Detail, tc.path[1:])
				}
			})
		}
	}
	if n := followed.Load(); n != int32(2*ways("HTTP")) { // only the direct probes of /target
		t.Fatalf("/target hit %d times: redirects were followed", n)
	}
}

func TestHTTPResponseMatch(t *testing.T) {
	const needle = "NEEDLE"
	bodyAt := func(off int) string { return strings.Repeat(".", off) + needle + strings.Repeat(".", 4000) }
	tg := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		var body string
		switch r.URL.Path {
		case "/ok":
			body = "status: " + needle + "\n"
		case "/other":
			body = "status: something else\n"
		case "/empty":
		case "/ends-at-1024":
			body = bodyAt(1024 - len(needle))
		case "/crosses-1024":
			body = bodyAt(1024 - len(needle) + 1)
		case "/after-1024":
			body = bodyAt(2000)
		case "/chunked":
			// Several flushes without Content-Length: chunked encoding.
			for _, part := range []string{strings.Repeat("x", 700), strings.Repeat("y", 300), needle} {
				_, _ = io.WriteString(w, part)
				w.(http.Flusher).Flush()
			}
			return
		case "/chunked-late":
			for range 3 {
				_, _ = io.WriteString(w, strings.Repeat("z", 500))
				w.(http.Flusher).Flush()
			}
			_, _ = io.WriteString(w, needle)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = io.WriteString(w, body)
	})
	for _, tc := range []struct {
		path     string
		protocol string
		reason   string
	}{
		{"/ok", "HTTP", ""},
		{"/other", "HTTP", ReasonResponseMismatch},
		{"/empty", "HTTP", ReasonResponseMismatch},
		{"/ends-at-1024", "HTTP", ""},
		{"/crosses-1024", "HTTP", ReasonResponseMismatch},
		{"/after-1024", "HTTP", ReasonResponseMismatch},
		{"/chunked", "HTTP", ""},
		{"/chunked-late", "HTTP", ReasonResponseMismatch},
		{"/other", "LEGACY_HTTP", ""}, // legacy checks never match the body
	} {
		t.Run(tc.protocol+tc.path, func(t *testing.T) {
			spec := Spec{Protocol: tc.protocol, HTTP: &HTTPSpec{RequestPath: tc.path, Response: needle}}
			wantResult(t, probe(t, probeTimeout, spec, tg), tc.reason == "", tc.reason)
		})
	}
}

// A backend slower than the deadline: TIMEOUT, returned at the deadline.
func TestHTTPTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tg := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	for _, p := range []string{"HTTP", "LEGACY_HTTP"} {
		res := timedProbe(t, Spec{Protocol: p}, tg, 200*time.Millisecond)
		wantResult(t, res, false, ReasonTimeout)
	}
}

// endlessServer answers 200 with a 1 GB (Content-Length) or endless
// (chunked) body and records how many body bytes it managed to push.
func endlessServer(t *testing.T, chunked bool, pushed *atomic.Int64) Target {
	return serveTCP(t, nil, func(c net.Conn) {
		_, _ = http.ReadRequest(bufio.NewReader(c))
		head := "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n"
		if chunked {
			head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		}
		_, _ = io.WriteString(c, head)
		chunk := []byte(strings.Repeat("a", 16<<10))
		if chunked {
			chunk = fmt.Appendf(nil, "%x\r\n%s\r\n", len(chunk), chunk)
		}
		for {
			n, err := c.Write(chunk)
			pushed.Add(int64(n))
			if err != nil {
				return // the prober reset the connection
			}
		}
	})
}

// A huge body costs a bounded read: the probe decides after at most 1024
// body bytes and resets the connection, well before the deadline.
func TestHTTPHugeBodyBoundedRead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		chunked  bool
		response string
		reason   string
	}{
		{"length status only", false, "", ""},
		{"length match", false, "aaaa", ""},
		{"length mismatch", false, "NEEDLE", ReasonResponseMismatch},
		{"chunked match", true, "aaaa", ""},
		{"chunked mismatch", true, "NEEDLE", ReasonResponseMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pushed atomic.Int64
			tg := endlessServer(t, tc.chunked, &pushed)
			// A probe that did not stop reading would run to its deadline
			// and say TIMEOUT.
			res := probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Response: tc.response}}, tg)
			wantResult(t, res, tc.reason == "", tc.reason)
			// What the server pushed is bounded by socket buffers, not by
			// the body: the probe never drained the 1 GB.
			time.Sleep(20 * time.Millisecond)
			if p := pushed.Load(); p > 64<<20 {
				t.Fatalf("server pushed %d bytes: the probe kept reading", p)
			}
		})
	}
}

func TestHTTPHostHeader(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	tg := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
	})
	for _, tc := range []struct{ host, want string }{
		{"", fmt.Sprintf("127.0.0.1:%d", tg.Port)},
		{"backend.example", "backend.example"},
		{"backend.example:8080", "backend.example:8080"},
	} {
		wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Host: tc.host}}, tg), true, "")
		mu.Lock()
		got := hosts
		hosts = nil
		mu.Unlock()
		// One request per way of probing (blocking, reactor).
		if len(got) == 0 || slices.ContainsFunc(got, func(h string) bool { return h != tc.want }) {
			t.Fatalf("Host headers %q, want only %q", got, tc.want)
		}
	}
}

func TestHTTPHostHeaderIPv6(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback on this host:", err)
	}
	hosts := make(chan string, 2)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) { hosts <- r.Host })}}
	srv.Start()
	t.Cleanup(srv.Close)
	tg := targetOf(t, ln.Addr())
	wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTP"}, tg), true, "")
	for range ways("HTTP") {
		if got, want := <-hosts, fmt.Sprintf("[::1]:%d", tg.Port); got != want {
			t.Fatalf("Host = %q, want %q", got, want)
		}
	}
}

// The default port is omitted from the Host header, as HTTP clients do.
func TestAppendHost(t *testing.T) {
	for _, tc := range []struct {
		tg      Target
		defPort int
		want    string
	}{
		{Target{"10.0.0.1", 80}, 80, "10.0.0.1"},
		{Target{"10.0.0.1", 8080}, 80, "10.0.0.1:8080"},
		{Target{"2001:db8::1", 443}, 443, "[2001:db8::1]"},
		{Target{"2001:db8::1", 80}, 443, "[2001:db8::1]:80"},
	} {
		if got := string(appendHost(nil, "", tc.tg, tc.defPort)); got != tc.want {
			t.Errorf("appendHost(%v, %d) = %q, want %q", tc.tg, tc.defPort, got, tc.want)
		}
	}
}

func TestHTTPRequestPath(t *testing.T) {
	uris := make(chan string, 2)
	tg := httpServer(t, func(w http.ResponseWriter, r *http.Request) { uris <- r.RequestURI })
	for _, tc := range []struct{ path, want string }{
		{"", "/"}, {"/healthz", "/healthz"}, {"/status?probe=lb&x=1", "/status?probe=lb&x=1"},
	} {
		wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{RequestPath: tc.path}}, tg), true, "")
		for range ways("HTTP") {
			if got := <-uris; got != tc.want {
				t.Fatalf("request URI = %q, want %q", got, tc.want)
			}
		}
	}
	// A path that would inject headers is refused, not sent.
	res := probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{RequestPath: "/x HTTP/1.1\r\nX-Evil: 1"}}, tg)
	wantResult(t, res, false, ReasonProtocolError)
}

// Answers that are not HTTP, or that stop short, are classified.
func TestHTTPBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, answer, reason string
	}{
		{"ssh banner", "SSH-2.0-OpenSSH_9.6\r\n", ReasonProtocolError},
		{"garbage then close", "\x00\x01\x02garbage", ReasonProtocolError},
		{"bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", ReasonProtocolError},
		{"closed without answer", "", ReasonConnectionReset},
		{"closed inside status line", "HTTP/1.1 20", ReasonConnectionReset},
		{"closed inside headers", "HTTP/1.1 200 OK\r\nContent-Le", ReasonConnectionReset},
		{"bad content length", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", ReasonProtocolError},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", ReasonProtocolError},
		{"long garbage", strings.Repeat("garbage ", 1000), ReasonProtocolError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := serveTCP(t, nil, func(c net.Conn) {
				_, _ = http.ReadRequest(bufio.NewReader(c))
				_, _ = io.WriteString(c, tc.answer)
			})
			res := probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Response: "x"}}, tg)
			wantResult(t, res, false, tc.reason)
		})
	}
}

// Interim 1xx responses are skipped; the final status decides.
func TestHTTPInterimResponse(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) {
		_, _ = http.ReadRequest(bufio.NewReader(c))
		_, _ = io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"+
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Response: "ok"}}, tg), true, "")
}

// A header line longer than the read buffer is skipped, not fatal, and the
// framing headers around it are still honoured.
func TestHTTPLongHeaderLine(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) {
		_, _ = http.ReadRequest(bufio.NewReader(c))
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Big: "+strings.Repeat("b", 10000)+
			"\r\nContent-Length: 5\r\n\r\nhello")
	})
	wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Response: "hello"}}, tg), true, "")
}

// Body framing on the wire: close-delimited bodies are read to EOF (up to
// 1024 bytes), and Content-Length bounds what is searched.
func TestHTTPBodyFraming(t *testing.T) {
	for _, tc := range []struct {
		name, answer, reason string
	}{
		{"http/1.0 close-delimited", "HTTP/1.0 200 OK\r\n\r\nall is ok", ""},
		{"close-delimited mismatch", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall is bad", ReasonResponseMismatch},
		{"content-length bounds the search", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nallok", ReasonResponseMismatch},
		{"chunked with extension", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nis o\r\n1\r\nk\r\n0\r\n\r\n", ""},
		{"obsolete header folding", "HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 2\r\n\r\nok", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := serveTCP(t, nil, func(c net.Conn) {
				_, _ = http.ReadRequest(bufio.NewReader(c))
				_, _ = io.WriteString(c, tc.answer)
			})
			res := probe(t, probeTimeout, Spec{Protocol: "HTTP", HTTP: &HTTPSpec{Response: "ok"}}, tg)
			wantResult(t, res, tc.reason == "", tc.reason)
		})
	}
}

// TestHTTPIncompleteHeaders: without a response to match, a 200 passes only
// once the whole header block has arrived before the deadline. A status
// line and then silence, a close, or headers that never end fail, on the
// reactor and the blocking prober alike; a complete block passes even when
// the body never comes.
func TestHTTPIncompleteHeaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(c net.Conn)
		reason string
	}{
		{"status line, then silence", func(c net.Conn) {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n")
			_, _ = io.Copy(io.Discard, c)
		}, ReasonTimeout},
		{"status line, then close", func(c net.Conn) { _, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n") }, ReasonConnectionReset},
		{"endless headers", func(c net.Conn) {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n")
			for {
				if _, err := io.WriteString(c, "X-More: "+strings.Repeat("m", 100)+"\r\n"); err != nil {
					return
				}
			}
		}, ReasonProtocolError},
		{"headers complete, body never comes", func(c net.Conn) {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
			_, _ = io.Copy(io.Discard, c)
		}, ""},
	} {
		for _, protocol := range []string{"HTTP", "LEGACY_HTTP"} {
			t.Run(tc.name+"/"+protocol, func(t *testing.T) {
				tg := serveTCP(t, nil, func(c net.Conn) {
					_, _ = http.ReadRequest(bufio.NewReader(c))
					tc.answer(c)
				})
				res := probe(t, 300*time.Millisecond, Spec{Protocol: protocol}, tg)
				wantResult(t, res, tc.reason == "", tc.reason)
			})
		}
	}
}
