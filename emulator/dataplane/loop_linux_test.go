package dataplane

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"golang.org/x/sys/unix"
)

// loopPlane is a plane with its event loop, whose one listener forwards
// to the backend at backend; it answers at the address returned.
func loopPlane(t *testing.T, backend string) (*Plane, string) {
	t.Helper()
	p, addr := proxyPlane(t, Options{EventLoop: true}, backend)
	if p.loop == nil {
		t.Fatal("the plane has no event loop")
	}
	return p, addr
}

// slowClient puts a plane with its event loop in front of a backend that
// answers /big with big and any other path with "ok", and dials it as a
// client that reads slowly: its receive buffer is small, and so is the
// loop's send buffer on its connection, so an answer waits in the loop,
// not in the kernel.
func slowClient(t *testing.T, big []byte) (*Plane, net.Conn) {
	t.Helper()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write(big)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(backend.Close)
	p, addr := loopPlane(t, backend.Listener.Addr().String())
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	conn.(*net.TCPConn).SetReadBuffer(16 << 10)
	clientConn(t, p, func(c *loopConn) { unix.SetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4<<10) })
	return p, conn
}

// clientConn is the loop's one client connection, looked at on the loop's
// goroutine; it waits for the loop to accept it.
func clientConn(t *testing.T, p *Plane, f func(c *loopConn)) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		found := false
		p.loop.do(func() {
			for _, c := range p.loop.conns {
				if c.b == nil {
					found = true
					f(c)
				}
			}
		})
		if found {
			return
		}
	}
	t.Fatal("the loop has no client connection")
}

// heldIn waits until the loop keeps at least maxHeaderBytes read of its
// client connection, and a little more, and says how much it keeps.
func heldIn(t *testing.T, p *Plane) (n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); n < maxHeaderBytes && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		clientConn(t, p, func(c *loopConn) { n = len(c.in) })
	}
	time.Sleep(50 * time.Millisecond) // the client writes on, and the loop must not read it
	clientConn(t, p, func(c *loopConn) { n = len(c.in) })
	return n
}

func getOK(t *testing.T, client *http.Client, url string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("GET %s: %d %q", url, resp.StatusCode, body)
	}
}

// A signal ends the loop's wait with EINTR, as the Go runtime's own do
// (preemption, stopping the world); the loop waits again and serves on.
func TestEventLoop_Interrupted(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer backend.Close()
	p, addr := loopPlane(t, backend.Listener.Addr().String())
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	getOK(t, client, "http://"+addr+"/")

	// Idle, the loop waits through unix.EpollWait. SIGURG is the
	// runtime's preemption signal, which it takes at any time; every
	// thread gets it, the loop's among them.
	time.Sleep(2 * loopBusy)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skip("no /proc/self/task:", err)
	}
	for range 20 {
		for _, task := range tasks {
			if tid, err := strconv.Atoi(task.Name()); err == nil {
				unix.Tgkill(os.Getpid(), tid, unix.SIGURG)
			}
		}
		time.Sleep(time.Millisecond)
	}
	getOK(t, client, "http://"+addr+"/")
	var carried dto.Metric
	p.loop.carried.Write(&carried)
	if got := carried.GetCounter().GetValue(); got != 2 {
		t.Errorf("the loop carried %v requests, want 2", got)
	}
}

// Draining a backend closes every idle connection the loop keeps to it.
func TestEventLoop_DrainIdle(t *testing.T) {
	const held = 4
	var arrived sync.WaitGroup
	arrived.Add(held)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		arrived.Wait() // every request on a connection of its own
		io.WriteString(w, "ok")
	}))
	defer server.Close()
	p, addr := loopPlane(t, server.Listener.Addr().String())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: held}}
	defer client.CloseIdleConnections()
	var done sync.WaitGroup
	for range held {
		done.Go(func() { getOK(t, client, "http://"+addr+"/") })
	}
	done.Wait()

	var b *backend
	var idle int
	p.loop.do(func() {
		for b = range p.loop.idle {
			idle = len(p.loop.idle[b])
		}
	})
	if b == nil || idle != held {
		t.Fatalf("the loop keeps %d idle connections to the backend, want %d", idle, held)
	}
	p.loop.drain(b, time.Minute)
	p.loop.do(func() {}) // after the drain
	if n := b.loopConns.Load(); n != 0 {
		t.Errorf("after the drain the loop keeps %d connections to the backend, want 0", n)
	}
}

// A backend's body that breaks its framing ends the client's connection
// (it must not take the answer whole); the client is not left waiting.
func TestEventLoop_BrokenBody(t *testing.T) {
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
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\nnot a size\r\n")
				c.Read(buf) // until the proxy closes
			}()
		}
	}()
	p, addr := loopPlane(t, ln.Addr().String())
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: shop.example\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the client's connection stays open after a broken body (%v); read %q", err, got)
	}
	p.loop.do(func() {
		for _, lc := range p.loop.conns {
			t.Errorf("the loop keeps a connection: %+v", lc)
		}
	})
}

// A connection goes to fasthttp only once the loop has written all it
// had for it: here the client does not read while the loop still holds
// most of the first answer, and the second request (HTTP/1.0, which the
// loop leaves to fasthttp) came in the same write.
func TestEventLoop_HandOffAfterWrites(t *testing.T) {
	big := mixedBody(192 << 10) // less than loopMaxPending: the backend is never paused
	_, conn := slowClient(t, big)
	io.WriteString(conn, "GET /big HTTP/1.1\r\nHost: lb\r\n\r\nGET / HTTP/1.0\r\nHost: lb\r\n\r\n")
	time.Sleep(300 * time.Millisecond) // not reading: the loop holds the rest of the first answer
	br := bufio.NewReader(conn)
	first, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(first.Body)
	if err != nil || first.StatusCode != 200 || !bytes.Equal(body, big) {
		t.Fatalf("the first answer: %d, %d of %d bytes (%v)", first.StatusCode, len(body), len(big), err)
	}
	second, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the second answer: %v", err)
	}
	body, _ = io.ReadAll(second.Body)
	if second.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("the second answer: %d %q", second.StatusCode, body)
	}
}

// A client that pipelines more than one request may hold behind the one
// in flight is no longer read until that one is answered, then read on:
// every request gets its answer, in order.
func TestEventLoop_PipelinedPastBuffer(t *testing.T) {
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			<-release
		}
		io.WriteString(w, r.URL.Path)
	}))
	defer backend.Close()
	p, addr := loopPlane(t, backend.Listener.Addr().String())
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	const behind = 3000 // 105 KB of requests
	raw := "GET /hold HTTP/1.1\r\nHost: lb\r\n\r\n" + strings.Repeat("GET /next HTTP/1.1\r\nHost: lb\r\n\r\n", behind)
	go io.WriteString(conn, raw) // blocks while the loop does not read

	if held := heldIn(t, p); held < maxHeaderBytes || held >= maxHeaderBytes+loopBufferSize {
		t.Errorf("behind the request in flight the loop holds %d bytes of the client's, want from %d to %d", held, maxHeaderBytes, maxHeaderBytes+loopBufferSize)
	}
	close(release)
	readAnswers(t, conn, []byte("/hold"), "/next", behind)
}

// A client that does not read its answer while it sends more requests
// is no longer read once it has sent what one request may be: the loop
// keeps no more of it while the answer waits, then serves the rest.
func TestEventLoop_FloodWhileWriting(t *testing.T) {
	big := mixedBody(192 << 10) // whole in the loop: the backend is never paused
	p, conn := slowClient(t, big)
	const behind = 6000 // 210 KB of requests
	go io.WriteString(conn, "GET /big HTTP/1.1\r\nHost: lb\r\n\r\n"+strings.Repeat("GET /next HTTP/1.1\r\nHost: lb\r\n\r\n", behind))

	var waiting int
	if held := heldIn(t, p); held < maxHeaderBytes || held >= maxHeaderBytes+loopBufferSize {
		t.Errorf("while its answer waits, the loop holds %d bytes of the client's, want from %d to %d", held, maxHeaderBytes, maxHeaderBytes+loopBufferSize)
	}
	clientConn(t, p, func(c *loopConn) { waiting = len(c.out) })
	if waiting == 0 {
		t.Fatal("the first answer does not wait in the loop: the test sees nothing")
	}
	readAnswers(t, conn, big, "ok", behind)
}

// readAnswers reads the answers to pipelined requests from conn: the
// first must be 200 with first, the behind after it 200 with rest.
func readAnswers(t *testing.T, conn net.Conn, first []byte, rest string, behind int) {
	t.Helper()
	br := bufio.NewReader(conn)
	for i := range behind + 1 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("answer %d of %d: %v", i, behind+1, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := []byte(rest)
		if i == 0 {
			want = first
		}
		if resp.StatusCode != 200 || !bytes.Equal(body, want) {
			t.Fatalf("answer %d: %d, %d bytes %.20q; want 200, %d bytes %.20q", i, resp.StatusCode, len(body), body, len(want), want)
		}
	}
}

// mixedSeed seeds the mixed test's choices (set another to explore).
var mixedSeed uint64 = 22

// mixedBody is the body of n bytes the mixed test's backend sends.
func mixedBody(n int) []byte {
	return bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
}

// A mix of requests, in random order and pipelined, some carried by the
// loop and some handed to fasthttp, against a backend that answers by
// length, chunked, closing or not at all: every answer comes whole and in
// order, and once the clients are gone the loop keeps no client's
// connection and no request is in flight. fasthttp alone (the loop off)
// gives the same answers to the same mix.
func TestEventLoop_Mixed(t *testing.T) {
	t.Run("loop", func(t *testing.T) { mixedTraffic(t, true) })
	t.Run("fasthttp", func(t *testing.T) { mixedTraffic(t, false) }) // the same answers without the loop
}

func mixedTraffic(t *testing.T, loop bool) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind, size, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		n, _ := strconv.Atoi(size)
		switch kind {
		case "len":
			w.Header().Set("Content-Length", size)
			w.Write(mixedBody(n))
		case "chunk":
			for _, part := range [][]byte{mixedBody(n)[:n/2], mixedBody(n)[n/2:]} {
				w.Write(part)
				w.(http.Flusher).Flush()
			}
		case "close":
			w.Header().Set("Connection", "close")
			w.Write(mixedBody(n))
		case "echo":
			body, _ := io.ReadAll(r.Body) // all of it before answering, as net/http asks
			w.Write(body)
		case "reset":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		case "eof": // a body that ends with the connection
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Write(append([]byte("HTTP/1.1 200 OK\r\n\r\n"), mixedBody(n)...))
			c.Close()
		case "hints":
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Write(mixedBody(n))
		}
	}))
	defer backend.Close()
	opts := Options{EventLoop: loop}
	p, addr := proxyPlane(t, opts, backend.Listener.Addr().String())

	// A request as sent, and what its answer must be.
	type exchange struct {
		raw    string
		method string
		status int
		body   []byte
		last   bool // the connection ends with its answer
	}
	sizes := []int{0, 1, 1000, 70000, 300000}
	pick := func(r *rand.Rand) exchange {
		n := sizes[r.IntN(len(sizes))]
		get := func(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: lb\r\n\r\n" }
		switch r.IntN(12) {
		case 0:
			return exchange{raw: get(fmt.Sprint("/chunk/", n)), status: 200, body: mixedBody(n)}
		case 1:
			return exchange{raw: get(fmt.Sprint("/close/", n)), status: 200, body: mixedBody(n)}
		case 2:
			return exchange{raw: get("/reset/0"), status: 502}
		case 3:
			body := mixedBody(r.IntN(70000))
			return exchange{raw: fmt.Sprintf("POST /echo/0 HTTP/1.1\r\nHost: lb\r\nContent-Length: %d\r\n\r\n%s", len(body), body), status: 200, body: body}
		case 4: // chunked: handed to fasthttp
			return exchange{raw: "POST /echo/0 HTTP/1.1\r\nHost: lb\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", status: 200, body: []byte("abc")}
		case 5:
			return exchange{raw: fmt.Sprintf("HEAD /len/%d HTTP/1.1\r\nHost: lb\r\n\r\n", n), method: "HEAD", status: 200}
		case 6: // HTTP/1.0: handed to fasthttp, which closes after it
			return exchange{raw: fmt.Sprintf("GET /len/%d HTTP/1.0\r\nHost: lb\r\n\r\n", n), status: 200, body: mixedBody(n), last: true}
		case 7:
			return exchange{raw: fmt.Sprintf("GET /len/%d HTTP/1.1\r\nHost: lb\r\nConnection: close\r\n\r\n", n), status: 200, body: mixedBody(n), last: true}
		case 8: // a body past what the loop carries: handed to fasthttp
			body := mixedBody(100000)
			return exchange{raw: fmt.Sprintf("POST /echo/0 HTTP/1.1\r\nHost: lb\r\nContent-Length: %d\r\n\r\n%s", len(body), body), status: 200, body: body}
		case 9:
			return exchange{raw: get(fmt.Sprint("/eof/", n)), status: 200, body: mixedBody(n), last: true}
		case 10:
			return exchange{raw: get(fmt.Sprint("/hints/", n)), status: 200, body: mixedBody(n)}
		}
		return exchange{raw: get(fmt.Sprint("/len/", n)), status: 200, body: mixedBody(n)}
	}

	var clients sync.WaitGroup
	for g := range 8 {
		clients.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), mixedSeed))
			for range 40 {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Error(err)
					return
				}
				conn.SetDeadline(time.Now().Add(20 * time.Second))
				br := bufio.NewReader(conn)
				var history []string
			connection:
				for range 1 + r.IntN(4) {
					var batch []exchange // pipelined: written at once
					for range 1 + r.IntN(3) {
						x := pick(r)
						batch = append(batch, x)
						if x.last {
							break
						}
					}
					var raw strings.Builder
					for _, x := range batch {
						raw.WriteString(x.raw)
					}
					io.WriteString(conn, raw.String())
					for _, x := range batch {
						history = append(history, x.raw[:min(len(x.raw), 30)])
					}
					history = append(history, "|")
					for i, x := range batch {
						if r.IntN(20) == 0 { // gone in the middle of an answer
							br.ReadByte()
							break connection
						}
						resp, err := http.ReadResponse(br, &http.Request{Method: cmp.Or(x.method, "GET")})
						for err == nil && resp.StatusCode == http.StatusEarlyHints {
							resp, err = http.ReadResponse(br, &http.Request{Method: cmp.Or(x.method, "GET")})
						}
						if err != nil {
							t.Errorf("client %d, answer %d of %q: %v (on this connection: %q)", g, i, batch[i].raw[:min(len(batch[i].raw), 40)], err, history)
							break connection
						}
						body, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						if err != nil || resp.StatusCode != x.status || x.status == 200 && !bytes.Equal(body, x.body) {
							t.Errorf("client %d, %q: %d, %d bytes (%v); want %d, %d bytes", g, x.raw[:min(len(x.raw), 40)], resp.StatusCode, len(body), err, x.status, len(x.body))
							break connection
						}
						if x.last {
							break connection
						}
					}
				}
				conn.Close()
			}
		})
	}
	clients.Wait()

	// The clients are gone: so are their connections and requests.
	var left int
	var inFlight int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		inFlight = 0
		for _, b := range p.pools.get(p.cfg, poolKey{"projects/p/global/backendServices/web", modeProxy}).healthy {
			inFlight += b.inFlight.Load()
		}
		if loop {
			p.loop.do(func() {
				left = 0
				for _, c := range p.loop.conns {
					if c.b == nil {
						left++
					}
				}
			})
		}
		if left == 0 && inFlight == 0 {
			break
		}
	}
	if left != 0 || inFlight != 0 {
		t.Errorf("after the clients left, the loop keeps %d of their connections, and %d requests are in flight", left, inFlight)
	}
	if !loop {
		return
	}
	var carried, handoffs dto.Metric
	p.loop.carried.Write(&carried)
	p.loop.handoffs.Write(&handoffs)
	if carried.GetCounter().GetValue() == 0 || handoffs.GetCounter().GetValue() == 0 {
		t.Errorf("the mix was not mixed: %v carried, %v handed over", carried.GetCounter().GetValue(), handoffs.GetCounter().GetValue())
	}
}
