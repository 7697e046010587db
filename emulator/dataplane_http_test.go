package emulator_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// wireBackend is a backend for what an HTTP proxy must carry beyond a GET:
// bodies both ways, answers streamed, an Upgrade, a backend that closes
// its connection, one that is too slow. It answers 200 on / for the
// health check. It is served over TLS or not, and closed when t ends.
func wireBackend(t *testing.T, overTLS bool) (*httptest.Server, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// What the backend saw of the request, for the test to read.
		for h, vs := range r.Header {
			if strings.HasPrefix(h, "X-") || h == "Keep-Alive" || h == "Via" {
				w.Header().Set("Seen-"+h, strings.Join(vs, ","))
			}
		}
		w.Header().Set("Seen-Proto", r.Proto)
		w.Header().Set("Seen-Tls", fmt.Sprint(r.TLS != nil))
		w.Header().Set("Seen-Uri", r.RequestURI)
		w.Header().Set("Seen-Host", r.Host)
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/big-head", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Big", strings.Repeat("a", 70<<10))
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/cors", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "https://backend.example") // a proxy's policy replaces it
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, _ := io.Copy(h, r.Body)
		fmt.Fprintf(w, "%d %s", n, hex.EncodeToString(h.Sum(nil)))
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("0123456789abcdef"), 384<<10)) // 6 MiB
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		io.WriteString(w, "last\n")
	})
	mux.HandleFunc("/close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Header().Set("Keep-Alive", "timeout=5")
		io.WriteString(w, "bye")
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		// A WebSocket server that echoes each message.
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, msg, err := c.Read(r.Context())
			if err != nil || c.Write(r.Context(), typ, append([]byte("echo: "), msg...)) != nil {
				return
			}
		}
	})
	s := httptest.NewUnstartedServer(mux)
	s.EnableHTTP2 = true
	if overTLS {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s, release
}

// dialLB opens a connection to the listener at lb (an http:// URL), for
// a test that writes its requests itself; it must be done within timeout,
// and the connection closes when t ends.
func dialLB(t *testing.T, lb string, timeout time.Duration) *net.TCPConn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(lb, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(timeout))
	return conn.(*net.TCPConn)
}

// wireLB puts backend behind an Application Load Balancer of the given
// service protocol (its health check of the same protocol) and returns the
// listener's address.
func wireLB(t *testing.T, e *emulator.Emulator, backend *httptest.Server, protocol, extra string) string {
	t.Helper()
	return wireLBTo(t, e, backend.URL[strings.LastIndex(backend.URL, ":")+1:], protocol, extra)
}

// wireLBTo is wireLB for a backend on 127.0.0.1 at port.
func wireLBTo(t *testing.T, e *emulator.Emulator, port, protocol, extra string) string {
	t.Helper()
	check := map[string]string{"HTTP": "httpHealthCheck", "HTTPS": "httpsHealthCheck", "HTTP2": "http2HealthCheck"}[protocol]
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"`+check+`":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP_PORT","endpoints":[{"ipAddress":"127.0.0.1","port":`+port+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"web","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"`+protocol+`",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100}],"healthChecks":["global/healthChecks/hc"]`+extra+`}`)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web"}`)
	waitFor(t, "the backend HEALTHY", func() bool { code, _, _ := get(t, lb+"/"); return code == 200 })
	return lb
}

func TestDataPlane_HTTPCarriesBodiesStreamsAndHeaders(t *testing.T) {
	t.Parallel()
	backend, release := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	// /slow goes to a service of the same backend with a timeout of 1 s.
	mustCall(t, e, "POST", "global/backendServices", `{"name":"slow","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP","timeoutSec":1,
		"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100}],"healthChecks":["global/healthChecks/hc"]}`)
	mustCall(t, e, "PATCH", "global/urlMaps/um", `{"hostRules":[{"hosts":["*"],"pathMatcher":"m"}],
		"pathMatchers":[{"name":"m","defaultService":"global/backendServices/web","pathRules":[{"paths":["/slow"],"service":"global/backendServices/slow"}]}]}`)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}

	// Headers: those the cloud's proxies add (X-Forwarded-For after the
	// client's own, the service's custom headers), hop-by-hop ones
	// dropped, the rest and the request line kept as sent.
	// A header the Compute API refuses is refused, naming it, and the
	// service is left as it was.
	var refused map[string]any
	if code := apiCall(t, e, "PATCH", "global/backendServices/web", `{"customRequestHeaders":["X-Goog-Authenticated-User-Id: me"]}`, &refused); code != 400 ||
		!strings.Contains(fmt.Sprint(refused), "customRequestHeaders[0]") || !strings.Contains(fmt.Sprint(refused), "X-GFE or X-Amz- are reserved") {
		t.Errorf("a reserved custom header: %d %v, want 400 naming customRequestHeaders[0] and the rule", code, refused)
	}
	var stored map[string]any
	if apiCall(t, e, "GET", "global/backendServices/web", "", &stored); stored["customRequestHeaders"] != nil {
		t.Errorf("the refused headers were stored: %v", stored["customRequestHeaders"])
	}
	mustCall(t, e, "PATCH", "global/backendServices/web", `{"customRequestHeaders":["X-Encrypted: {client_encrypted}","X-Geo: {client_region},{client_city}"],
		"customResponseHeaders":["X-Served-By: lb {client_encrypted}"]}`)
	req, _ := http.NewRequest("GET", lb+"/a%2Fb/c%20d?q=1&q=2", nil)
	req.Host = "shop.example.com"
	req.Header.Set("Keep-Alive", "timeout=9")
	req.Header.Set("X-Custom", "kept")
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for h, want := range map[string]string{"Seen-X-Forwarded-For": "203.0.113.9, 127.0.0.1, 127.0.0.1", "Seen-X-Forwarded-Host": "",
		"Seen-X-Forwarded-Proto": "http", "Seen-Keep-Alive": "", "Seen-X-Custom": "kept", "Seen-Uri": "/a%2Fb/c%20d?q=1&q=2",
		"Seen-Host": "shop.example.com", "Seen-Proto": "HTTP/1.1", "Seen-Via": "1.1 google", "Seen-X-Encrypted": "false",
		"Seen-X-Geo": ",", "Via": "1.1 google", "X-Served-By": "lb false"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s %q, want %q", h, got, want)
		}
	}
	if tc := resp.Header.Get("Seen-X-Cloud-Trace-Context"); !regexp.MustCompile(`^[0-9a-f]{32}/[0-9]+;o=0$`).MatchString(tc) {
		t.Errorf("the backend saw X-Cloud-Trace-Context %q, want a new trace id and span id", tc)
	}
	mustCall(t, e, "PATCH", "global/backendServices/web", `{"customRequestHeaders":[],"customResponseHeaders":[]}`)

	// A body larger than the listener buffers reaches the backend whole,
	// and the same connection carries the next request.
	body := bytes.Repeat([]byte("lbhealth"), 768<<10) // 6 MiB
	sum := sha256.Sum256(body)
	for i := range 2 {
		resp, err := client.Post(lb+"/upload", "application/octet-stream", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf("%d %x", len(body), sum); string(got) != want {
			t.Fatalf("upload %d: the backend read %q, want %q", i, got, want)
		}
	}
	resp, err = client.Get(lb + "/download")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n != 6<<20 {
		t.Fatalf("download: %d bytes, want %d", n, 6<<20)
	}

	// An answer is streamed as the backend writes it: the first line
	// arrives while the backend still holds the rest.
	resp, err = client.Get(lb + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	br := bufio.NewReader(resp.Body)
	go func() { line, _ := br.ReadString('\n'); first <- line }()
	select {
	case line := <-first:
		if line != "first\n" {
			t.Fatalf("stream: first line %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream: the first line did not arrive while the backend held the rest (the proxy buffered the answer)")
	}
	close(release)
	rest, _ := io.ReadAll(br)
	resp.Body.Close()
	if string(rest) != "last\n" {
		t.Fatalf("stream: then %q, want the last line", rest)
	}

	// A backend that closes its connection does not close the client's.
	conn := dialLB(t, lb, 10*time.Second)
	cr := bufio.NewReader(conn)
	for i := range 2 {
		fmt.Fprintf(conn, "GET /close HTTP/1.1\r\nHost: lb\r\n\r\n")
		r, err := http.ReadResponse(cr, nil)
		if err != nil {
			t.Fatalf("request %d on one client connection after the backend closed its own: %v", i, err)
		}
		io.ReadAll(r.Body)
		r.Body.Close()
		if r.Close || r.Header.Get("Keep-Alive") != "" {
			t.Fatalf("the backend's Connection: close or Keep-Alive reached the client: %v", r.Header)
		}
	}

	// A backend slower than the service's timeoutSec: 504.
	waitFor(t, "504 from a backend slower than timeoutSec", func() bool {
		code, be, _ := get(t, lb+"/slow")
		return code == http.StatusGatewayTimeout && be != ""
	})
}

func TestDataPlane_HTTPClientsThatCloseDoNotCloseTheBackendConnection(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	carried := map[string]bool{} // the data plane's connections that carried traffic
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			return // the health check, and wireLB's wait
		}
		mu.Lock()
		carried[r.RemoteAddr] = true
		mu.Unlock()
		if r.Header.Get("Connection") != "" {
			http.Error(w, "Connection: "+r.Header.Get("Connection"), http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/download" {
			w.Write(bytes.Repeat([]byte("x"), 1<<20)) // streamed
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(backend.Close)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")

	requests := func() {
		t.Helper()
		for _, r := range []struct {
			method, path  string
			length        int   // of the body
			contentLength int64 // -1: chunked
		}{{"GET", "/a", 2, 2}, {"GET", "/download", 1 << 20, -1}, {"HEAD", "/b", 0, 2}, {"GET", "/download", 1 << 20, -1}, {"GET", "/c", 2, 2}} {
			req, _ := http.NewRequest(r.method, lb+r.path, nil)
			req.Close = true // Connection: close
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || len(body) != r.length || resp.ContentLength != r.contentLength || !resp.Close {
				t.Fatalf("%s %s with Connection: close: %d, %d bytes (%v), Content-Length %d, closing %v; want 200, %d bytes, %d, and the connection closed",
					r.method, r.path, resp.StatusCode, len(body), err, resp.ContentLength, resp.Close, r.length, r.contentLength)
			}
		}
		// HTTP/1.0 without keep-alive closes too.
		conn := dialLB(t, lb, 10*time.Second)
		io.WriteString(conn, "GET /old HTTP/1.0\r\nHost: lb\r\n\r\n")
		// net/http answers an HTTP/1.0 request in HTTP/1.0.
		if all, err := io.ReadAll(conn); err != nil || !bytes.HasPrefix(all, []byte("HTTP/1.0 200")) || !bytes.HasSuffix(all, []byte("\r\n\r\nok")) {
			t.Fatalf("an HTTP/1.0 request got %q (%v), want HTTP/1.0 200 and ok, then the connection closed", all, err)
		}
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(carried)
	}
	// The first six open one connection to the backend; the next six
	// reuse it.
	requests()
	first := count()
	requests()
	if n := count(); first != 1 || n != first {
		t.Fatalf("six requests in turn, each from a client that closed its connection after it, reached the backend "+
			"on %d connections of the data plane, and six more on %d in all; want 1, kept across them", first, n)
	}
}

// A WebSocket goes through: its opening handshake reaches the backend,
// and the tunnel carries messages both ways.
func TestDataPlane_WebSocketReachesTheBackend(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(lb, "http")+"/ws", nil)
	if err != nil {
		t.Fatalf("WebSocket through the load balancer: %v (%v)", err, resp)
	}
	defer c.CloseNow()
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Via") == "" {
		t.Errorf("the opening answer: %d %v, want 101 through the proxy", resp.StatusCode, resp.Header)
	}
	for _, msg := range []string{"hello", "again"} {
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if _, got, err := c.Read(ctx); err != nil || string(got) != "echo: "+msg {
			t.Fatalf("after the upgrade the backend answered %q (%v)", got, err)
		}
	}
}

func TestDataPlane_HTTPToServicesOverTLSAndHTTP2(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ protocol, proto string }{{"HTTPS", "HTTP/1.1"}, {"HTTP2", "HTTP/2.0"}} {
		t.Run(c.protocol, func(t *testing.T) {
			t.Parallel()
			backend, _ := wireBackend(t, true)
			e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
			lb := wireLB(t, e, backend, c.protocol, "")
			resp, err := http.Get(lb + "/x?y=1")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Seen-Tls") != "true" || resp.Header.Get("Seen-Proto") != c.proto ||
				resp.Header.Get("Seen-Uri") != "/x?y=1" {
				t.Fatalf("a %s service: %d, the backend saw TLS %s, %s, %s; want 200 over TLS, %s, /x?y=1", c.protocol, resp.StatusCode,
					resp.Header.Get("Seen-Tls"), resp.Header.Get("Seen-Proto"), resp.Header.Get("Seen-Uri"), c.proto)
			}
		})
	}
}

// brokenAndSound makes service web (with the extra fields) over two
// endpoints, both HEALTHY when it returns: a passes its health check (/hc)
// but answers 503 to traffic and is slow (5 s) on the paths under /slow;
// b serves. It returns a's URL and its count of traffic requests.
func brokenAndSound(t *testing.T, e *emulator.Emulator, extra string) (string, *atomic.Int64) {
	t.Helper()
	aHits := new(atomic.Int64)
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hc" {
			return
		}
		aHits.Add(1)
		if strings.HasPrefix(r.URL.Path, "/slow") {
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(a.Close)
	b := newSwitchable(t)
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT","requestPath":"/hc"}}`)
	port := func(u string) string { return u[strings.LastIndex(u, ":")+1:] }
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP_PORT","endpoints":[
		{"ipAddress":"127.0.0.1","port":`+port(a.URL)+`},{"ipAddress":"127.0.0.1","port":`+port(b.URL)+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"web","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100}],"healthChecks":["global/healthChecks/hc"]`+extra+`}`)
	waitFor(t, "both endpoints HEALTHY", func() bool {
		hs := health(t, e, "web")
		pa, _ := strconv.ParseInt(port(a.URL), 10, 64)
		pb, _ := strconv.ParseInt(b.port(), 10, 64)
		return hs[pa].HealthState == "HEALTHY" && hs[pb].HealthState == "HEALTHY"
	})
	return a.URL, aHits
}

func TestDataPlane_OutlierDetectionEjectsAnEndpointThatFailsInARow(t *testing.T) {
	t.Parallel()
	// Only outlier detection can take a out: its health check passes.
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	aURL, aHits := brokenAndSound(t, e, `,"outlierDetection":{"consecutiveGatewayFailure":3,"baseEjectionTime":{"seconds":"5"}}`)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web"}`)
	failed := 0
	for range 12 {
		if code, _, _ := get(t, lb+"/"); code != 200 {
			failed++
		}
	}
	if failed != 3 || aHits.Load() != 3 {
		t.Fatalf("12 requests: %d failed, a got %d; want a ejected after its third 503 in a row", failed, aHits.Load())
	}
	_, _, metrics := get(t, e.URL()+"/metrics")
	if want := `lbhealth_dataplane_ejections_total{backend="` + strings.TrimPrefix(aURL, "http://") + `",backend_service="projects/p/global/backendServices/web"} 1`; !strings.Contains(metrics, want) {
		t.Errorf("/metrics has no %s", want)
	}
	// After baseEjectionTime it takes traffic again.
	waitFor(t, "a back in traffic after its ejection", func() bool { get(t, lb+"/"); return aHits.Load() > 3 })
}

func TestDataPlane_URLMapTemplatesAndHeaderActions(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	mustCall(t, e, "PATCH", "global/urlMaps/um", `{
		"headerAction":{"requestHeadersToAdd":[{"headerName":"X-Map","headerValue":"map","replace":true}],
			"responseHeadersToAdd":[{"headerName":"X-Answer","headerValue":"map","replace":true}]},
		"hostRules":[{"hosts":["*"],"pathMatcher":"m"}],
		"pathMatchers":[{"name":"m","defaultService":"global/backendServices/web",
			"headerAction":{"requestHeadersToAdd":[{"headerName":"X-Matcher","headerValue":"m","replace":false}],"requestHeadersToRemove":["X-Drop"]},
			"routeRules":[{"priority":1,"matchRules":[{"pathTemplateMatch":"/shop/{lang}/{rest=**}"}],
				"headerAction":{"requestHeadersToAdd":[{"headerName":"X-Map","headerValue":"rule","replace":true}],
					"responseHeadersToAdd":[{"headerName":"X-Answer","headerValue":"rule","replace":false}],"responseHeadersToRemove":["Seen-X-Lang"]},
				"routeAction":{"urlRewrite":{"pathTemplateRewrite":"/{rest}/in/{lang}"},
					"weightedBackendServices":[{"backendService":"global/backendServices/web","weight":100,
						"headerAction":{"requestHeadersToAdd":[{"headerName":"X-Lang","headerValue":"weighted","replace":true}]}}]}}]}]}`)

	// Both front ends route alike; this is the plain-HTTP one.
	var resp *http.Response
	waitFor(t, "the route rule in use", func() bool {
		req, _ := http.NewRequest("GET", lb+"/shop/fr/a/b?q=1", nil)
		req.Header.Set("X-Drop", "secret")
		req.Header.Set("X-Matcher", "client")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		resp = r
		return r.Header.Get("Seen-Uri") != "/shop/fr/a/b?q=1"
	})
	for h, want := range map[string]string{
		"Seen-Uri":       "/a/b/in/fr?q=1",
		"Seen-X-Map":     "map",      // the map's action comes last and replaces the rule's
		"Seen-X-Matcher": "client,m", // added beside the client's
		"Seen-X-Drop":    "",         // removed by the path matcher
		"Seen-X-Lang":    "",         // the weighted service's, removed from the answer by the rule
		"X-Answer":       "map",      // replaced by the map's after the rule's
	} {
		if got := strings.Join(resp.Header.Values(h), ","); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	// A path the template does not match takes the matcher's default,
	// unrewritten.
	resp, err := http.Get(lb + "/shop")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Seen-Uri"); resp.StatusCode != 200 || got != "/shop" {
		t.Fatalf("/shop: %d, the backend saw %q", resp.StatusCode, got)
	}
}

func TestDataPlane_RouteActionRetriesTimesOutAndInjectsFaults(t *testing.T) {
	t.Parallel()
	for _, front := range []string{"HTTP", "HTTPS"} {
		t.Run(front, func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
			_, aHits := brokenAndSound(t, e, "")
			mustCall(t, e, "POST", "global/urlMaps", `{"name":"um","defaultService":"global/backendServices/web",
				"hostRules":[{"hosts":["*"],"pathMatcher":"m"}],
				"pathMatchers":[{"name":"m","defaultService":"global/backendServices/web",
					"defaultRouteAction":{"retryPolicy":{"retryConditions":["gateway-error"],"numRetries":1}},
					"pathRules":[{"paths":["/slow"],"service":"global/backendServices/web","routeAction":{"timeout":{"seconds":"1"}}},
						{"paths":["/slow-retried"],"service":"global/backendServices/web","routeAction":{"timeout":{"seconds":"4"},
							"retryPolicy":{"retryConditions":["gateway-error"],"numRetries":1,"perTryTimeout":{"nanos":300000000}}}},
						{"paths":["/teapot"],"service":"global/backendServices/web","routeAction":{"faultInjectionPolicy":{"abort":{"httpStatus":418,"percentage":100}}}},
						{"paths":["/held"],"service":"global/backendServices/web","routeAction":{"faultInjectionPolicy":{"delay":{"fixedDelay":{"seconds":"1"},"percentage":100}},
							"retryPolicy":{"retryConditions":["5xx"]}}}]}]}`)
			lbPort := freePort(t)
			client := http.DefaultClient
			scheme := "http"
			if front == "HTTPS" {
				sslCertificate(t, e, "lb.example.com")
				mustCall(t, e, "POST", "global/targetHttpsProxies", `{"name":"p","urlMap":"global/urlMaps/um","sslCertificates":["global/sslCertificates/cert"]}`)
				mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
					"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpsProxies/p"}`, lbPort))
				client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
				scheme = "https"
			} else {
				mustCall(t, e, "POST", "global/targetHttpProxies", `{"name":"p","urlMap":"global/urlMaps/um"}`)
				mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
					"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpProxies/p"}`, lbPort))
			}
			lb := fmt.Sprintf("%s://127.0.0.1:%d", scheme, lbPort)
			do := func(method, path string, body io.Reader) int {
				req, _ := http.NewRequest(method, lb+path, body)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode
			}
			waitFor(t, "the listener", func() bool { return do("GET", "/", nil) == 200 })

			// Every GET that meets a's 503 is tried again on b.
			before := aHits.Load()
			for i := range 20 {
				if code := do("GET", "/", nil); code != 200 {
					t.Fatalf("GET %d: %d, want 200 after a retry", i, code)
				}
			}
			if n := aHits.Load() - before; n < 5 {
				t.Fatalf("a got %d of 20 GETs: the retries were not tested", n)
			}
			// A request with a body is not tried again.
			failed := 0
			for range 6 {
				if do("POST", "/", strings.NewReader("payload")) == 503 {
					failed++
				}
			}
			if failed == 0 {
				t.Fatal("no POST reached a's 503: a request with a body was retried")
			}
			// Fault injection: an abort answers without a backend, a delay
			// holds the request before it goes on.
			if code := do("GET", "/teapot", nil); code != http.StatusTeapot {
				t.Fatalf("/teapot with an abort of 418 at 100%%: %d", code)
			}
			before = aHits.Load()
			start := time.Now()
			for range 2 {
				if code := do("GET", "/held", nil); code != 200 {
					t.Fatalf("/held: %d", code)
				}
			}
			if held := time.Since(start); held < 2*time.Second || aHits.Load() == before {
				t.Fatalf("two requests with a delay of 1 s at 100%% took %v (a reached: %v)", held, aHits.Load() > before)
			}
			// perTryTimeout: an attempt on a (slow) ends after 0.3 s and is
			// tried on b, well within the route's timeout (4 s), which
			// would otherwise end the request with a 504 while a thinks.
			before = aHits.Load()
			for i := range 4 {
				if code := do("GET", "/slow-retried", nil); code != 200 {
					t.Fatalf("/slow-retried %d: %d, want 200 from b after a's attempt timed out", i, code)
				}
			}
			if aHits.Load() == before {
				t.Fatal("a got none of 4 requests to /slow-retried: perTryTimeout was not tested")
			}
			// The route's timeout (1 s) before the service's (30 s): 504.
			if code := do("GET", "/slow", nil); code != http.StatusGatewayTimeout {
				// b answers /slow at once: try until a gets it.
				if code2 := do("GET", "/slow", nil); code2 != http.StatusGatewayTimeout {
					t.Fatalf("/slow with a route timeout of 1 s: %d and %d, want a 504", code, code2)
				}
			}
		})
	}
}

func TestDataPlane_HTTPDrainsABackendThatTurnsUnhealthy(t *testing.T) {
	t.Parallel()
	// a: its health check follows hcStatus; /slow holds its request until
	// the proxy gives up on it. Its server counts the connections that
	// carried traffic (not probes) and were closed.
	var hcStatus, closed atomic.Int64
	hcStatus.Store(200)
	var trafficMu sync.Mutex
	traffic := map[string]bool{} // remote addresses of the data plane's connections
	slowStarted, slowEnded := make(chan struct{}, 1), make(chan struct{}, 1)
	a := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hc" {
			trafficMu.Lock()
			traffic[r.RemoteAddr] = true
			trafficMu.Unlock()
		}
		switch r.URL.Path {
		case "/hc":
			w.WriteHeader(int(hcStatus.Load()))
		case "/slow":
			// Never blocks: a /slow sent again (a retry on another
			// connection) would otherwise hold a.Close forever.
			select {
			case slowStarted <- struct{}{}:
			default:
			}
			select {
			case <-r.Context().Done():
				select {
				case slowEnded <- struct{}{}:
				default:
				}
			case <-time.After(20 * time.Second):
			}
		}
		w.Header().Set("X-Served-By", "a")
	}))
	a.Config.ConnState = func(c net.Conn, s http.ConnState) {
		trafficMu.Lock()
		defer trafficMu.Unlock()
		if s == http.StateClosed && traffic[c.RemoteAddr().String()] {
			closed.Add(1)
		}
	}
	a.Start()
	t.Cleanup(a.Close)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	port := a.URL[strings.LastIndex(a.URL, ":")+1:]
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT","requestPath":"/hc"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP_PORT","endpoints":[{"ipAddress":"127.0.0.1","port":`+port+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"web","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100}],"healthChecks":["global/healthChecks/hc"],
		"connectionDraining":{"drainingTimeoutSec":1}}`)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web"}`)
	waitFor(t, "a serving", func() bool { code, _, _ := get(t, lb+"/"); return code == 200 })

	// One request in flight on a connection of its own; the data plane
	// keeps the others' connections idle in its pool.
	go http.Get(lb + "/slow") //nolint:errcheck // its end is what the backend sees
	<-slowStarted
	// And one idle: a request on a connection of its own, kept.
	if r, err := http.Get(lb + "/"); err != nil || r.StatusCode != 200 {
		t.Fatalf("a second request to a: %v %v", r, err)
	} else {
		r.Body.Close()
	}
	if closed.Load() != 0 {
		t.Fatal("a connection of the data plane to a closed while a was healthy")
	}
	hcStatus.Store(500)
	waitFor(t, "the idle connection closed once a is out of traffic", func() bool { return closed.Load() > 0 })
	select {
	case <-slowEnded:
	case <-time.After(10 * time.Second):
		t.Fatal("the request in flight to a was not ended after drainingTimeoutSec (1 s)")
	}
	waitFor(t, "both connections closed: the idle one and the one that was in flight", func() bool { return closed.Load() >= 2 })
}

// httpsLB puts URL map um behind a target HTTPS proxy too, whose
// certificate names app.example.com: the other HTTP front end. It returns
// the listener's URL and a client for it.
func httpsLB(t *testing.T, e *emulator.Emulator) (string, *http.Client) {
	t.Helper()
	sslCertificate(t, e, "app.example.com")
	mustCall(t, e, "POST", "global/targetHttpsProxies", `{"name":"tls","urlMap":"global/urlMaps/um","sslCertificates":["global/sslCertificates/cert"]}`)
	port := freePort(t)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr-tls","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpsProxies/tls"}`, port))
	return fmt.Sprintf("https://127.0.0.1:%d", port),
		&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "app.example.com"}}}
}

func TestDataPlane_CORSPolicy(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	plain := wireLB(t, e, backend, "HTTP", "")
	mustCall(t, e, "PATCH", "global/urlMaps/um", `{"defaultRouteAction":{"corsPolicy":{
		"allowOrigins":["https://app.example.com"],"allowOriginRegexes":["https://[a-z]+[.]example[.]org"],
		"allowMethods":["GET","PUT"],"allowHeaders":["X-Token"],"exposeHeaders":["Seen-Uri"],"maxAge":600,"allowCredentials":true}}}`)
	secure, client := httpsLB(t, e)

	ask := func(method, url string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, lb := range []string{plain, secure} {
		preflight := func(origin string) *http.Response {
			return ask("OPTIONS", lb+"/", "Origin", origin, "Access-Control-Request-Method", "PUT")
		}
		waitFor(t, lb+": the policy in use", func() bool {
			return preflight("https://app.example.com").Header.Get("Access-Control-Allow-Origin") != ""
		})
		resp := preflight("https://app.example.com")
		for h, want := range map[string]string{
			"Access-Control-Allow-Origin":      "https://app.example.com",
			"Access-Control-Allow-Methods":     "GET,PUT",
			"Access-Control-Allow-Headers":     "X-Token",
			"Access-Control-Max-Age":           "600",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Expose-Headers":    "", // for actual requests
			"X-Lbhealth-Backend":               "", // the proxy answers a preflight itself
		} {
			if got := strings.Join(resp.Header.Values(h), ","); got != want {
				t.Errorf("%s: preflight: %s: %q, want %q", lb, h, got, want)
			}
		}
		if resp.StatusCode != 200 {
			t.Errorf("%s: preflight: %d, want 200", lb, resp.StatusCode)
		}

		// An actual request from an origin a regex allows: the backend's
		// answer, with the policy's headers in place of its own.
		resp = ask("GET", lb+"/cors", "Origin", "https://shop.example.org")
		for h, want := range map[string]string{
			"Access-Control-Allow-Origin":      "https://shop.example.org",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Expose-Headers":    "Seen-Uri",
		} {
			if got := strings.Join(resp.Header.Values(h), ","); got != want {
				t.Errorf("%s: GET: %s: %q, want %q", lb, h, got, want)
			}
		}
		if resp.Header.Get("X-Lbhealth-Backend") == "" {
			t.Errorf("%s: GET from an allowed origin did not reach the backend", lb)
		}

		// Another origin: untouched, and its preflight goes to the backend.
		if got := ask("GET", lb+"/", "Origin", "https://evil.example.org.net").Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("%s: an origin the policy does not allow got Access-Control-Allow-Origin %q", lb, got)
		}
		if resp := preflight("https://evil.example"); resp.Header.Get("X-Lbhealth-Backend") == "" || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: the preflight of an origin not allowed: backend %q, allowed origin %q, want the backend's answer",
				lb, resp.Header.Get("X-Lbhealth-Backend"), resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}

	// An origin regex RE2 cannot parse is refused, and nothing changes.
	var out map[string]any
	if code := apiCall(t, e, "PATCH", "global/urlMaps/um", `{"defaultRouteAction":{"corsPolicy":{"allowOriginRegexes":["https://(?!evil)"]}}}`, &out); code != 400 ||
		!strings.Contains(fmt.Sprint(out), `defaultRouteAction.corsPolicy.allowOriginRegexes[0] ("https://(?!evil)") is not a regular expression in RE2's syntax`) {
		t.Errorf("a URL map with an origin regex RE2 cannot parse: %d %v", code, out)
	}
	if got := ask("GET", plain+"/", "Origin", "https://app.example.com").Header.Get("Access-Control-Allow-Origin"); got != "https://app.example.com" {
		t.Errorf("after a refused change, the policy answers Access-Control-Allow-Origin %q", got)
	}

	mustCall(t, e, "PATCH", "global/urlMaps/um", `{"defaultRouteAction":{"corsPolicy":{"allowOrigins":["*"],"disabled":true}}}`)
	waitFor(t, "the policy disabled", func() bool {
		return ask("GET", plain+"/", "Origin", "https://app.example.com").Header.Get("Access-Control-Allow-Origin") == ""
	})
}

func TestDataPlane_RequestMirrorPolicy(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	type seen struct{ host, uri, body, forwardedFor string }
	shadowed := make(chan seen, 16)
	shadow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" { // the health check
			return
		}
		body, _ := io.ReadAll(r.Body)
		shadowed <- seen{r.Host, r.RequestURI, string(body), r.Header.Get("X-Forwarded-For")}
		w.WriteHeader(http.StatusTeapot) // nobody waits for it
	}))
	t.Cleanup(shadow.Close)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	plain := wireLB(t, e, backend, "HTTP", "")
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg-shadow","networkEndpointType":"GCE_VM_IP_PORT","endpoints":[{"ipAddress":"127.0.0.1","port":`+
		shadow.URL[strings.LastIndex(shadow.URL, ":")+1:]+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"shadow","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg-shadow","balancingMode":"RATE","maxRatePerEndpoint":100}],"healthChecks":["global/healthChecks/hc"]}`)
	mustCall(t, e, "PATCH", "global/urlMaps/um", `{"defaultRouteAction":{"requestMirrorPolicy":{"backendService":"global/backendServices/shadow"},
		"urlRewrite":{"hostRewrite":"internal:8080"}}}`)
	secure, client := httpsLB(t, e)
	var out map[string]any
	if code := apiCall(t, e, "PATCH", "global/urlMaps/um", `{"defaultRouteAction":{"requestMirrorPolicy":{"backendService":"global/backendServices/nope"}}}`, &out); code < 400 ||
		!strings.Contains(fmt.Sprint(out), "defaultRouteAction.requestMirrorPolicy.backendService") {
		t.Errorf("a mirror to a service that does not exist: %d %v", code, out)
	}

	for _, lb := range []string{plain, secure} {
		var got seen
		waitFor(t, lb+": a request mirrored", func() bool {
			req, _ := http.NewRequest("POST", lb+"/upload?x=1", strings.NewReader("hello"))
			req.Host = "app.example.com:8080"
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			// The client gets the backend's answer, which saw the body.
			if resp.StatusCode != 200 || !strings.HasPrefix(string(answer), "5 ") {
				t.Fatalf("%s: POST /upload: %d %q, want the backend's answer to 5 bytes", lb, resp.StatusCode, answer)
			}
			select {
			case got = <-shadowed:
				return true
			case <-time.After(200 * time.Millisecond):
				return false
			}
		})
		// As the backend gets it (its Host rewritten), the name suffixed.
		want := seen{host: "internal-shadow:8080", uri: "/upload?x=1", body: "hello", forwardedFor: "127.0.0.1, 127.0.0.1"}
		if got != want {
			t.Errorf("%s: the shadow saw %+v, want %+v", lb, got, want)
		}
	}
}

// A client that does not read a large answer for a while (the data plane
// stops reading the backend meanwhile) gets it whole once it reads, and
// its next answer on the same connection too.
func TestDataPlane_ASlowClientGetsTheWholeAnswer(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	conn := dialLB(t, lb, 20*time.Second)
	conn.SetReadBuffer(128 << 10) // far less than the answer, which waits in the data plane
	for range 2 {                 // the second on the same connection, after the first's end
		io.WriteString(conn, "GET /download HTTP/1.1\r\nHost: lb\r\n\r\n")
		time.Sleep(300 * time.Millisecond) // not reading: the answer piles up
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		n, err := io.Copy(h, resp.Body)
		want := sha256.Sum256(bytes.Repeat([]byte("0123456789abcdef"), 384<<10))
		if err != nil || n != 6<<20 || !bytes.Equal(h.Sum(nil), want[:]) {
			t.Fatalf("a slow client's download: %d bytes (%v), want 6 MiB as sent", n, err)
		}
	}
}

// Two requests in one write, a download then a WebSocket opening: both
// answers come, in order, and the tunnel carries a message both ways.
func TestDataPlane_PipelinedRequestsThenAnUpgrade(t *testing.T) {
	t.Parallel()
	backend, _ := wireBackend(t, false)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	lb := wireLB(t, e, backend, "HTTP", "")
	conn := dialLB(t, lb, 10*time.Second)
	conn.SetReadBuffer(128 << 10) // far less than the answer, which waits in the data plane
	io.WriteString(conn, "GET /download HTTP/1.1\r\nHost: lb\r\n\r\n"+
		"GET /ws HTTP/1.1\r\nHost: lb\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	time.Sleep(300 * time.Millisecond) // not reading: the first answer waits when the second comes up
	br := bufio.NewReader(conn)
	first, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, first.Body); err != nil || first.StatusCode != 200 || n != 6<<20 {
		t.Fatalf("the first answer: %d, %d bytes (%v)", first.StatusCode, n, err)
	}
	second, err := http.ReadResponse(br, nil)
	if err != nil || second.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("the second answer: %v %v, want 101", second, err)
	}
	conn.Write(clientFrame("hello"))
	if got, err := serverFrame(br); got != "echo: hello" {
		t.Fatalf("after the upgrade: %q (%v)", got, err)
	}
}

// clientFrame is a client's WebSocket text message of payload (under 126
// bytes), masked as a client's must be.
func clientFrame(payload string) []byte {
	mask := [4]byte{0x12, 0x34, 0x56, 0x78}
	frame := append([]byte{0x81, 0x80 | byte(len(payload))}, mask[:]...)
	for i := range len(payload) {
		frame = append(frame, payload[i]^mask[i%4])
	}
	return frame
}

// serverFrame reads a server's unmasked WebSocket text message of under
// 126 bytes.
func serverFrame(br *bufio.Reader) (string, error) {
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return "", err
	}
	if head[0] != 0x81 || head[1]&0x80 != 0 || head[1] >= 126 {
		return "", fmt.Errorf("not a short unmasked text frame: % x", head)
	}
	payload := make([]byte, head[1])
	_, err := io.ReadFull(br, payload)
	return string(payload), err
}
