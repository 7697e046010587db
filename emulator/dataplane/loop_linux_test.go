package dataplane

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"golang.org/x/sys/unix"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
)

// loopPlane is a plane with its event loop, whose one listener forwards
// to the backend at backend; it answers at the address returned.
func loopPlane(t *testing.T, backend string) (*Plane, string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(backend)
	n, _ := strconv.Atoi(port)
	service := "projects/p/global/backendServices/web"
	p := New(Options{EventLoop: true, Health: fixedHealth{owner: service, eps: []health.Endpoint{{IP: host, Port: n}}}})
	t.Cleanup(p.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, lport, _ := net.SplitHostPort(addr)
	p.Set("backendServices", service, []byte(`{"protocol":"HTTP"}`))
	p.Set("urlMaps", "projects/p/global/urlMaps/um", []byte(`{"defaultService":"`+service+`"}`))
	p.Set("targetHttpProxies", "projects/p/global/targetHttpProxies/tp", []byte(`{"urlMap":"projects/p/global/urlMaps/um"}`))
	p.Set("forwardingRules", "projects/p/global/forwardingRules/fr",
		[]byte(`{"IPAddress":"127.0.0.1","portRange":"`+lport+`","target":"projects/p/global/targetHttpProxies/tp"}`))
	p.Apply()
	if p.loop == nil {
		t.Fatal("the plane has no event loop")
	}
	return p, addr
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
	big := bytes.Repeat([]byte("0123456789abcdef"), 12<<10) // 192 KiB: less than loopMaxPending, so the backend is never paused
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Write(big)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer backend.Close()
	p, addr := loopPlane(t, backend.Listener.Addr().String())
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.(*net.TCPConn).SetReadBuffer(16 << 10)
	// The loop's end of the connection keeps a small send buffer, so
	// that most of the answer waits in the loop, not in the kernel.
	for small := false; !small; time.Sleep(time.Millisecond) {
		p.loop.do(func() {
			for fd, c := range p.loop.conns {
				if c.b == nil {
					small = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4<<10) == nil
				}
			}
		})
	}
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
