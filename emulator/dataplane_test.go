package emulator_test

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// freePort is a loopback port nothing listens on (at the time of asking).
func freePort(t testing.TB) int { return lbhealthtest.FreePort(t) }

// noRedirects is a client that shows redirects rather than follows them,
// and keeps no connection between requests.
var noRedirects = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Transport:     &http.Transport{DisableKeepAlives: true},
}

// get sends a request through the data plane and returns its status, the
// backend header and the body.
func get(t *testing.T, url string, header ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return resp.StatusCode, "", resp.Header.Get("Location")
	}
	return resp.StatusCode, resp.Header.Get("X-Lbhealth-Backend"), string(body)
}

// applicationLB makes a global external Application Load Balancer on
// 127.0.0.1:port: a URL map (body um), its target HTTP proxy and the rule.
func applicationLB(t testing.TB, e *emulator.Emulator, port int, um string) string {
	t.Helper()
	mustCall(t, e, "POST", "global/urlMaps", um)
	mustCall(t, e, "POST", "global/targetHttpProxies", `{"name":"proxy","urlMap":"global/urlMaps/um"}`)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpProxies/proxy"}`, port))
	return "http://127.0.0.1:" + strconv.Itoa(port)
}

// service makes health check hc (if missing) and backend service name
// over a NEG of the given targets, with the extra service fields.
func service(t *testing.T, e *emulator.Emulator, name, extra string, targets ...*switchable) {
	t.Helper()
	var eps []string
	for _, s := range targets {
		eps = append(eps, `{"ipAddress":"127.0.0.1","port":`+s.port()+`}`)
	}
	apiCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`, nil)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg-`+name+`","networkEndpointType":"GCE_VM_IP_PORT","endpoints":[`+strings.Join(eps, ",")+`]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"`+name+`","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg-`+name+`","balancingMode":"RATE","maxRatePerEndpoint":100}],"healthChecks":["global/healthChecks/hc"]`+extra+`}`)
}

func TestDataPlane_TrafficLeavesABrokenBackendAndComesBack(t *testing.T) {
	t.Parallel()
	a, b := newSwitchable(t), newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "web", "", a, b)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web"}`)
	addrA, addrB := strings.TrimPrefix(a.URL, "http://"), strings.TrimPrefix(b.URL, "http://")

	waitFor(t, "both backends serving", func() bool {
		seen := map[string]bool{}
		for range 4 {
			if code, be, _ := get(t, lb+"/"); code == 200 {
				seen[be] = true
			}
		}
		return seen[addrA] && seen[addrB]
	})

	a.status.Store(500)
	waitFor(t, "the broken backend out of traffic", func() bool {
		for range 4 {
			if _, be, _ := get(t, lb+"/"); be != addrB {
				return false
			}
		}
		return true
	})
	hits := a.hits.Load()
	for range 10 {
		if code, be, _ := get(t, lb+"/x"); code != 200 || be != addrB {
			t.Fatalf("with %s broken: %d from %q, want 200 from %s", addrA, code, be, addrB)
		}
	}
	// Only the health check reaches a broken backend, once a second.
	if n := a.hits.Load() - hits; n > 3 {
		t.Fatalf("the broken backend got %d requests while out of traffic", n)
	}

	b.status.Store(500)
	waitFor(t, "503 with no healthy backend", func() bool {
		code, be, body := get(t, lb+"/")
		return code == 503 && be == "" && strings.Contains(body, "no healthy upstream")
	})

	a.status.Store(200)
	waitFor(t, "traffic back on the recovered backend", func() bool {
		code, be, _ := get(t, lb+"/")
		return code == 200 && be == addrA
	})

	// The status page and /metrics show where the traffic went.
	_, _, page := get(t, e.URL()+"/")
	for _, want := range []string{"<h2>Traffic</h2>", "projects/p/global/forwardingRules/fr", "projects/p/global/backendServices/web",
		addrA, addrB, "none healthy"} {
		if !strings.Contains(page, want) {
			t.Errorf("the status page has no %q in its traffic section", want)
		}
	}
	_, _, metrics := get(t, e.URL()+"/metrics")
	for _, want := range []string{`lbhealth_dataplane_requests_total{backend="` + addrB + `",backend_service="projects/p/global/backendServices/web",code="200",forwarding_rule="projects/p/global/forwardingRules/fr"}`,
		`code="503"`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

func TestDataPlane_RoutesByTheURLMap(t *testing.T) {
	t.Parallel()
	web, api, v2 := newSwitchable(t), newSwitchable(t), newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "web", "", web)
	service(t, e, "api", "", api)
	service(t, e, "v2", "", v2)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web",
		"hostRules":[{"hosts":["api.example.com"],"pathMatcher":"api"},{"hosts":["old.example.com"],"pathMatcher":"old"},
			{"hosts":["rules.example.com"],"pathMatcher":"rules"}],
		"pathMatchers":[
			{"name":"api","defaultService":"global/backendServices/api",
			 "pathRules":[{"paths":["/v2/*"],"service":"global/backendServices/v2",
			               "routeAction":{"urlRewrite":{"pathPrefixRewrite":"/","hostRewrite":"v2.internal"}}}]},
			{"name":"rules","defaultService":"global/backendServices/api",
			 "routeRules":[{"priority":1,"matchRules":[{"prefixMatch":"/","headerMatches":[{"headerName":"x-version","exactMatch":"2"}]}],
			                "service":"global/backendServices/v2"}]},
			{"name":"old",
			 "defaultUrlRedirect":{"hostRedirect":"new.example.com","redirectResponseCode":"FOUND"}}]}`)
	addr := func(s *switchable) string { return strings.TrimPrefix(s.URL, "http://") }

	waitFor(t, "every service serving", func() bool {
		c1, _, _ := get(t, lb+"/")
		c2, _, _ := get(t, lb+"/", "Host", "api.example.com")
		c3, _, _ := get(t, lb+"/v2/x", "Host", "api.example.com")
		return c1 == 200 && c2 == 200 && c3 == 200
	})
	cases := []struct {
		name, path string
		header     []string
		want       *switchable
	}{
		{"no host rule: the default service", "/v2/x", nil, web},
		{"host rule: its matcher's default", "/", []string{"Host", "api.example.com"}, api},
		{"path rule", "/v2/users", []string{"Host", "api.example.com"}, v2},
		{"route rule by header", "/other", []string{"Host", "rules.example.com", "X-Version", "2"}, v2},
		{"no route rule: the matcher's default", "/other", []string{"Host", "rules.example.com", "X-Version", "1"}, api},
	}
	for _, c := range cases {
		if code, be, _ := get(t, lb+c.path, c.header...); code != 200 || be != addr(c.want) {
			t.Errorf("%s: %d from %q, want 200 from %s", c.name, code, be, addr(c.want))
		}
	}

	// The rewrite reaches the backend: a switchable answers "ok", so ask
	// one that echoes instead.
	seen := make(chan *http.Request, 1)
	echo := newSwitchable(t)
	echo.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" { // not the health check's path
			select {
			case seen <- r:
			default:
			}
		}
	})
	mustCall(t, e, "PATCH", "zones/z/networkEndpointGroups/neg-v2", `{"endpoints":[{"ipAddress":"127.0.0.1","port":`+echo.port()+`}]}`)
	waitFor(t, "the echo backend serving", func() bool {
		_, be, _ := get(t, lb+"/v2/a/b?q=1", "Host", "api.example.com")
		return be == addr(echo)
	})
	r := <-seen
	if r.URL.Path != "/a/b" || r.URL.RawQuery != "q=1" || r.Host != "v2.internal" || r.Header.Get("X-Forwarded-For") != "127.0.0.1, 127.0.0.1" {
		t.Fatalf("rewritten request: path %q query %q host %q X-Forwarded-For %q; want /a/b, q=1, v2.internal, the client's and the rule's address",
			r.URL.Path, r.URL.RawQuery, r.Host, r.Header.Get("X-Forwarded-For"))
	}

	if code, _, loc := get(t, lb+"/p?q=1", "Host", "old.example.com"); code != 302 || loc != "http://new.example.com/p?q=1" {
		t.Fatalf("redirect: %d to %q, want 302 to http://new.example.com/p?q=1", code, loc)
	}
}

func TestDataPlane_SessionAffinity(t *testing.T) {
	t.Parallel()
	a, b, c := newSwitchable(t), newSwitchable(t), newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "sticky", `,"sessionAffinity":"GENERATED_COOKIE"`, a, b, c)
	service(t, e, "byheader", `,"sessionAffinity":"HEADER_FIELD","localityLbPolicy":"RING_HASH","consistentHash":{"httpHeaderName":"x-user"}`, a, b, c)
	service(t, e, "strong", `,"sessionAffinity":"STRONG_COOKIE_AFFINITY","strongSessionAffinityCookie":{"name":"pin","ttl":{"seconds":"600"}}`, a, b, c)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/sticky",
		"hostRules":[{"hosts":["h"],"pathMatcher":"h"},{"hosts":["s"],"pathMatcher":"s"}],
		"pathMatchers":[{"name":"h","defaultService":"global/backendServices/byheader"},{"name":"s","defaultService":"global/backendServices/strong"}]}`)
	waitFor(t, "three backends serving each service", func() bool {
		seen, hashed := map[string]bool{}, map[string]bool{}
		for i := range 30 {
			_, be, _ := get(t, lb+"/")
			seen[be] = true
			_, be, _ = get(t, lb+"/", "Host", "h", "X-User", "w"+strconv.Itoa(i))
			hashed[be] = true
		}
		return len(seen) == 3 && !seen[""] && len(hashed) == 3 && !hashed[""]
	})

	// GENERATED_COOKIE: the first answer sets GCLB; sending it back sticks.
	resp, err := noRedirects.Get(lb + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "GCLB" {
			cookie = ck
		}
	}
	if cookie == nil {
		t.Fatalf("no GCLB cookie in %v", resp.Header)
	}
	first := resp.Header.Get("X-Lbhealth-Backend")
	for range 10 {
		if _, be, _ := get(t, lb+"/", "Cookie", "GCLB="+cookie.Value); be != first {
			t.Fatalf("with its cookie, a client went to %s, then %s", first, be)
		}
	}

	// HEADER_FIELD: one user sticks to one backend; many users spread.
	users := map[string]bool{}
	for i := range 30 {
		user := "u" + strconv.Itoa(i)
		_, be, _ := get(t, lb+"/", "Host", "h", "X-User", user)
		for range 3 {
			if _, again, _ := get(t, lb+"/", "Host", "h", "X-User", user); again != be {
				t.Fatalf("user %s went to %s, then %s", user, be, again)
			}
		}
		users[be] = true
	}
	if len(users) < 2 {
		t.Fatalf("30 users all went to %v: the hash does not spread", users)
	}

	// STRONG_COOKIE_AFFINITY: the service's cookie, for its ttl, keeps a
	// client with its backend until that backend turns unhealthy.
	pinned := func(cookie string) (backend string, set *http.Cookie) {
		req, _ := http.NewRequest("GET", lb+"/", nil)
		req.Host = "s"
		if cookie != "" {
			req.Header.Set("Cookie", "pin="+cookie)
		}
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for _, ck := range resp.Cookies() {
			if ck.Name == "pin" {
				set = ck
			}
		}
		return resp.Header.Get("X-Lbhealth-Backend"), set
	}
	home, pin := pinned("")
	if pin == nil || pin.MaxAge != 600 || pin.Path != "/" {
		t.Fatalf("STRONG_COOKIE_AFFINITY set %v, want the cookie pin on / for 600 s", pin)
	}
	for range 10 {
		if be, set := pinned(pin.Value); be != home || set != nil {
			t.Fatalf("with its cookie, a client went to %s (cookie %v), then %s", home, set, be)
		}
	}
	byAddr := map[string]*switchable{strings.TrimPrefix(a.URL, "http://"): a, strings.TrimPrefix(b.URL, "http://"): b, strings.TrimPrefix(c.URL, "http://"): c}
	byAddr[home].status.Store(500)
	waitFor(t, "the pinned backend's client moved", func() bool {
		be, set := pinned(pin.Value)
		return be != home && set != nil && set.Value != pin.Value
	})
}

func TestDataPlane_OffByDefaultInTheLibrary(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true})
	service(t, e, "web", "", a)
	port := freePort(t)
	lb := applicationLB(t, e, port, `{"name":"um","defaultService":"global/backendServices/web"}`)
	if _, err := http.Get(lb + "/"); err == nil {
		t.Fatalf("%s answered with the data plane off", lb)
	}
}

// servedBy sends one request on a new connection to addr and returns the
// backend that answered (X-Served-By), "" when the connection was closed
// without an answer.
func servedBy(t *testing.T, addr string) string {
	t.Helper()
	resp, err := noRedirects.Get("http://" + addr + "/")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.Header.Get("X-Served-By")
}

// spread is the backends that answer n requests to addr.
func spread(t *testing.T, addr string, n int) map[string]int {
	t.Helper()
	out := map[string]int{}
	for range n {
		out[servedBy(t, addr)]++
	}
	return out
}

// twoBackendsOnOnePort starts switchables at 127.0.0.2 and 127.0.0.3 on one
// port nothing on 127.0.0.1 uses: a passthrough rule on 127.0.0.1 sends to
// them on the port it receives on.
func twoBackendsOnOnePort(t *testing.T) (a, b *switchable, port string) {
	t.Helper()
	for range 20 {
		a = newSwitchableAt(t, "127.0.0.2:0")
		port = a.port()
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			continue
		}
		ln.Close()
		if ln, err := net.Listen("tcp", "127.0.0.3:"+port); err == nil {
			ln.Close()
			return a, newSwitchableAt(t, "127.0.0.3:"+port), port
		}
	}
	t.Fatal("no port free on 127.0.0.1-3")
	return nil, nil, ""
}

// sslCertificate makes the self-managed certificate global/sslCertificates/cert
// for host.
func sslCertificate(t *testing.T, e *emulator.Emulator, host string) {
	t.Helper()
	cert, key := ccSelfSigned(t, host)
	body, _ := json.Marshal(map[string]string{"name": "cert", "certificate": cert, "privateKey": key})
	mustCall(t, e, "POST", "global/sslCertificates", string(body))
}

// passthroughOverTwo makes a passthrough Network Load Balancer of scheme
// (EXTERNAL or INTERNAL) over the endpoints 127.0.0.2 and 127.0.0.3,
// checked on port, and its rule on 127.0.0.1 with the given ports field
// (`"ports":["8080"]`, `"allPorts":true`).
func passthroughOverTwo(t *testing.T, e *emulator.Emulator, scheme, port, ports string) {
	t.Helper()
	mustCall(t, e, "POST", "regions/r/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"port":`+port+`}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP","endpoints":[{"ipAddress":"127.0.0.2"},{"ipAddress":"127.0.0.3"}]}`)
	mustCall(t, e, "POST", "regions/r/backendServices", `{"name":"nlb","loadBalancingScheme":"`+scheme+`","protocol":"TCP",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["regions/r/healthChecks/hc"]}`)
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",`+ports+`,
		"loadBalancingScheme":"`+scheme+`","backendService":"regions/r/backendServices/nlb"}`)
}

func TestDataPlane_PassthroughSendsToEveryBackendWhenNoneIsHealthy(t *testing.T) {
	t.Parallel()
	a, b, port := twoBackendsOnOnePort(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	passthroughOverTwo(t, e, "EXTERNAL", port, `"ports":["`+port+`"]`)
	lb, addrA, addrB := "127.0.0.1:"+port, "127.0.0.2:"+port, "127.0.0.3:"+port

	waitFor(t, "both backends carrying", func() bool { s := spread(t, lb, 10); return s[addrA] > 0 && s[addrB] > 0 })
	// A backend sees the client's address, not the data plane's.
	from5 := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 5)}}).DialContext}}
	resp, err := from5.Get("http://" + lb + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Client"); got != "127.0.0.5" {
		t.Errorf("a client at 127.0.0.5 reached its backend from %q", got)
	}
	a.status.Store(500)
	waitFor(t, "the broken backend out of traffic", func() bool { return spread(t, lb, 6)[addrB] == 6 })
	b.status.Store(500)
	// Every backend unhealthy: the cloud sends to all of them.
	waitFor(t, "traffic to both broken backends", func() bool { s := spread(t, lb, 10); return s[addrA] > 0 && s[addrB] > 0 })
}

func TestDataPlane_FailoverPolicy(t *testing.T) {
	t.Parallel()
	a, b, port := twoBackendsOnOnePort(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	mustCall(t, e, "POST", "regions/r/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"port":`+port+`}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"primary","networkEndpointType":"GCE_VM_IP","endpoints":[{"ipAddress":"127.0.0.2"}]}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"standby","networkEndpointType":"GCE_VM_IP","endpoints":[{"ipAddress":"127.0.0.3"}]}`)
	mustCall(t, e, "POST", "regions/r/backendServices", `{"name":"ilb","loadBalancingScheme":"INTERNAL","protocol":"TCP",
		"backends":[{"group":"zones/z/networkEndpointGroups/primary"},{"group":"zones/z/networkEndpointGroups/standby","failover":true}],
		"failoverPolicy":{"dropTrafficIfUnhealthy":true},"healthChecks":["regions/r/healthChecks/hc"]}`)
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP","ports":["`+port+`"],
		"loadBalancingScheme":"INTERNAL","backendService":"regions/r/backendServices/ilb"}`)
	lb, addrA, addrB := "127.0.0.1:"+port, "127.0.0.2:"+port, "127.0.0.3:"+port

	waitFor(t, "the primary alone carrying", func() bool { return spread(t, lb, 6)[addrA] == 6 })
	a.status.Store(500)
	waitFor(t, "the failover backend carrying", func() bool { return spread(t, lb, 6)[addrB] == 6 })
	b.status.Store(500)
	// dropTrafficIfUnhealthy: with none healthy, connections are dropped.
	waitFor(t, "connections dropped", func() bool { return spread(t, lb, 4)[""] == 4 })
	a.status.Store(200)
	waitFor(t, "the primary back", func() bool { return spread(t, lb, 6)[addrA] == 6 })
}

func TestDataPlane_AllPortsListensOnThePortsItsBackendsServe(t *testing.T) {
	t.Parallel()
	a, b, port := twoBackendsOnOnePort(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	passthroughOverTwo(t, e, "INTERNAL", port, `"allPorts":true`)
	lb, addrA, addrB := "127.0.0.1:"+port, "127.0.0.2:"+port, "127.0.0.3:"+port

	// The health check's port is the one its backends are known to serve.
	waitFor(t, "both backends carrying on the check's port", func() bool { s := spread(t, lb, 10); return s[addrA] > 0 && s[addrB] > 0 })
	a.status.Store(500)
	waitFor(t, "the broken backend out of traffic", func() bool { return spread(t, lb, 6)[addrB] == 6 })
	b.status.Store(500)

	// The check moves to another port: the rule's listener follows it.
	other := strconv.Itoa(freePort(t))
	mustCall(t, e, "PATCH", "regions/r/healthChecks/hc", `{"httpHealthCheck":{"port":`+other+`}}`)
	waitFor(t, "the listener on the check's new port", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+other)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	if c, err := net.Dial("tcp", lb); err == nil {
		c.Close()
		t.Errorf("%s still takes connections after the check left port %s", lb, port)
	}
}

func TestDataPlane_TargetPoolWithABackupPool(t *testing.T) {
	t.Parallel()
	a, b := newSwitchable(t), newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	mustCall(t, e, "POST", "global/httpHealthChecks", `{"name":"legacy","checkIntervalSec":1,"timeoutSec":1,"unhealthyThreshold":1,"healthyThreshold":1}`)
	mustCall(t, e, "POST", "regions/r/targetPools", `{"name":"backup","instances":["127.0.0.1:`+b.port()+`"],"healthChecks":["global/httpHealthChecks/legacy"]}`)
	mustCall(t, e, "POST", "regions/r/targetPools", `{"name":"main","instances":["127.0.0.1:`+a.port()+`"],"healthChecks":["global/httpHealthChecks/legacy"],
		"backupPool":"regions/r/targetPools/backup","failoverRatio":0.5}`)
	port := freePort(t)
	mustCall(t, e, "POST", "regions/r/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP","portRange":"%d",
		"target":"regions/r/targetPools/main"}`, port))
	lb, addrA, addrB := fmt.Sprintf("127.0.0.1:%d", port), strings.TrimPrefix(a.URL, "http://"), strings.TrimPrefix(b.URL, "http://")

	waitFor(t, "the main pool carrying", func() bool { return spread(t, lb, 4)[addrA] == 4 })
	a.status.Store(500)
	waitFor(t, "the backup pool carrying", func() bool { return spread(t, lb, 4)[addrB] == 4 })
	a.status.Store(200)
	waitFor(t, "the main pool back", func() bool { return spread(t, lb, 4)[addrA] == 4 })
}

// A target pool without a health check counts every instance healthy (no
// check of it can fail) and carries traffic to them, probing nothing; a
// check added later judges them.
func TestDataPlane_TargetPoolWithoutAHealthCheck(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	inst := "127.0.0.1:" + a.port()
	mustCall(t, e, "POST", "regions/r/targetPools", `{"name":"pool","instances":["`+inst+`"]}`)
	port := freePort(t)
	mustCall(t, e, "POST", "regions/r/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP","portRange":"%d",
		"target":"regions/r/targetPools/pool"}`, port))
	health := func() api.HealthStatus {
		var h api.TargetPoolInstanceHealth
		apiCall(t, e, "POST", "regions/r/targetPools/pool/getHealth", `{"instance":"`+inst+`"}`, &h)
		if len(h.HealthStatus) != 1 {
			return api.HealthStatus{}
		}
		return h.HealthStatus[0]
	}
	waitFor(t, "the instance HEALTHY without a check", func() bool { return health().HealthState == "HEALTHY" })
	if h := health(); h.Reason != "NO_HEALTH_CHECK" {
		t.Errorf("reason %q, want NO_HEALTH_CHECK", h.Reason)
	}
	lb := fmt.Sprintf("127.0.0.1:%d", port)
	if got := servedBy(t, lb); got != inst {
		t.Fatalf("served by %q, want %s", got, inst)
	}
	if hits := a.hits.Load(); hits != 1 {
		t.Errorf("%d requests reached the instance, want the one sent through the rule: nothing probes it", hits)
	}

	a.status.Store(500)
	mustCall(t, e, "POST", "global/httpHealthChecks", `{"name":"legacy","checkIntervalSec":1,"timeoutSec":1,"unhealthyThreshold":1,"healthyThreshold":1}`)
	mustCall(t, e, "POST", "regions/r/targetPools/pool/addHealthCheck", `{"healthChecks":[{"healthCheck":"global/httpHealthChecks/legacy"}]}`)
	waitFor(t, "the instance UNHEALTHY once a check judges it", func() bool {
		h := health()
		return h.HealthState == "UNHEALTHY" && h.Reason == "BAD_STATUS"
	})
}

func TestDataPlane_TCPProxyDrainsAnUnhealthyBackend(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "tcp", `,"connectionDraining":{"drainingTimeoutSec":1}`, a)
	mustCall(t, e, "PATCH", "global/backendServices/tcp", `{"protocol":"TCP"}`)
	mustCall(t, e, "POST", "global/targetTcpProxies", `{"name":"proxy","service":"global/backendServices/tcp"}`)
	port := freePort(t)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetTcpProxies/proxy"}`, port))
	lb := fmt.Sprintf("127.0.0.1:%d", port)
	addrA := strings.TrimPrefix(a.URL, "http://")
	waitFor(t, "the proxy carrying", func() bool { return servedBy(t, lb) == addrA })

	// A connection open when its backend turns unhealthy is closed after
	// the draining timeout; new ones find no backend and are closed.
	c, err := net.Dial("tcp", lb)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	if n, err := c.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "200 OK") {
		t.Fatalf("first answer: %q, %v", buf[:n], err)
	}
	a.status.Store(500)
	waitFor(t, "new connections closed", func() bool { return servedBy(t, lb) == "" })
	c.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hang guard
	if _, err := c.Read(buf); err != io.EOF {
		t.Fatalf("the open connection, after draining: %v, want EOF", err)
	}
}

func TestDataPlane_PassthroughUDP(t *testing.T) {
	t.Parallel()
	// A UDP echo server at 127.0.0.2 that says who it is, with a TCP port
	// beside it for its health check.
	health := newSwitchableAt(t, "127.0.0.2:0")
	var pc net.PacketConn
	var port string
	for range 20 {
		c, err := net.ListenPacket("udp", "127.0.0.2:0")
		if err != nil {
			t.Fatal(err)
		}
		port = strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port)
		if probe, err := net.ListenPacket("udp", "127.0.0.1:"+port); err == nil {
			probe.Close()
			pc = c
			break
		}
		c.Close()
	}
	if pc == nil {
		t.Fatal("no UDP port free on 127.0.0.1 and 127.0.0.2")
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			host, _, _ := net.SplitHostPort(from.String())
			pc.WriteTo(fmt.Appendf(nil, "127.0.0.2 got %s from %s", buf[:n], host), from)
		}
	}()
	// One flow at a time per listener: a second client's flow would pass
	// the cap, and its datagrams are dropped.
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, DataPlaneMaxConnectionsPerListener: 1})
	mustCall(t, e, "POST", "regions/r/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"tcpHealthCheck":{"port":`+health.port()+`}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP","endpoints":[{"ipAddress":"127.0.0.2"}]}`)
	mustCall(t, e, "POST", "regions/r/backendServices", `{"name":"udp","loadBalancingScheme":"EXTERNAL","protocol":"UDP",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["regions/r/healthChecks/hc"]}`)
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"UDP","ports":["`+port+`"],
		"loadBalancingScheme":"EXTERNAL","backendService":"regions/r/backendServices/udp"}`)

	// From 127.0.0.6: the backend sees the client's address.
	c, err := (&net.Dialer{LocalAddr: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 6)}}).Dial("udp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 1500)
	waitFor(t, "an echo through the rule", func() bool {
		c.Write([]byte("ping"))
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := c.Read(buf)
		return err == nil && string(buf[:n]) == "127.0.0.2 got ping from 127.0.0.6"
	})

	second, err := (&net.Dialer{LocalAddr: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 7)}}).Dial("udp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	waitFor(t, "the second flow refused at the cap", func() bool {
		second.Write([]byte("ping"))
		return strings.Contains(metricsText(t, e), `lbhealth_dataplane_connection_cap_waits_total{listener="127.0.0.1:`+port+`"}`)
	})
	if !strings.Contains(metricsText(t, e), `lbhealth_dataplane_open_connections{listener="127.0.0.1:`+port+`"} 1`) {
		t.Errorf("the open flows are not counted:\n%s", metricsText(t, e))
	}
	c.Write([]byte("again")) // the first flow still carries
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "127.0.0.2 got again from 127.0.0.6" {
		t.Errorf("the first flow after the cap refused another: %q %v", buf[:n], err)
	}
}

func TestDataPlane_HTTPSProxyEndsTLSWithTheCertificatesNames(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "web", "", a)
	mustCall(t, e, "POST", "global/urlMaps", `{"name":"um","defaultService":"global/backendServices/web"}`)
	sslCertificate(t, e, "shop.example.com")
	mustCall(t, e, "POST", "global/sslPolicies", `{"name":"modern","profile":"MODERN","minTlsVersion":"TLS_1_2"}`)
	mustCall(t, e, "POST", "global/targetHttpsProxies", `{"name":"tls","urlMap":"global/urlMaps/um",
		"sslCertificates":["global/sslCertificates/cert"],"sslPolicy":"global/sslPolicies/modern"}`)
	port := freePort(t)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpsProxies/tls"}`, port))
	lb := fmt.Sprintf("127.0.0.1:%d", port)

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "shop.example.com"}}}
	var resp *http.Response
	waitFor(t, "an answer over TLS", func() bool {
		r, err := client.Get("https://" + lb + "/")
		if err != nil {
			return false
		}
		r.Body.Close()
		resp = r
		return r.StatusCode == 200 && r.Header.Get("X-Lbhealth-Backend") == strings.TrimPrefix(a.URL, "http://")
	})
	leaf := resp.TLS.PeerCertificates[0]
	if err := leaf.VerifyHostname("shop.example.com"); err != nil {
		t.Fatalf("the listener's certificate: %v (names %v)", err, leaf.DNSNames)
	}
	// The SSL policy's minimum version holds.
	old := &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11}
	if c, err := tls.Dial("tcp", lb, old); err == nil {
		c.Close()
		t.Fatal("a TLS 1.1 client was let in past minTlsVersion TLS_1_2")
	}
}

func TestDataPlane_SSLProxyEndsTLSThenCarriesTCP(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "tcp", "", a)
	mustCall(t, e, "PATCH", "global/backendServices/tcp", `{"protocol":"TCP"}`)
	sslCertificate(t, e, "db.example.com")
	mustCall(t, e, "POST", "global/targetSslProxies", `{"name":"ssl","service":"global/backendServices/tcp","sslCertificates":["global/sslCertificates/cert"]}`)
	port := freePort(t)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetSslProxies/ssl"}`, port))
	lb := fmt.Sprintf("127.0.0.1:%d", port)

	// Plain HTTP inside the TLS the proxy ends reaches the plain backend.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}}
	waitFor(t, "an answer through the SSL proxy", func() bool {
		r, err := client.Get("https://" + lb + "/")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200 && r.Header.Get("X-Served-By") == strings.TrimPrefix(a.URL, "http://") &&
			r.TLS.PeerCertificates[0].VerifyHostname("db.example.com") == nil
	})
}

func TestDataPlane_ListenersComeAndGoWithTheirRules(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	service(t, e, "web", "", a)
	port := freePort(t)
	lb := applicationLB(t, e, port, `{"name":"um","defaultService":"global/backendServices/web"}`)
	answers := func() bool {
		resp, err := noRedirects.Get(lb + "/")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}
	waitFor(t, "the rule's listener", answers)
	mustCall(t, e, "DELETE", "global/forwardingRules/fr", "")
	if answers() {
		t.Fatal("a deleted rule's address still answers")
	}
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpProxies/proxy"}`, port))
	if !answers() {
		t.Fatal("a rule made again does not answer")
	}
	if code, _, err := call("POST", e.URL()+"/_emulator/reset", ""); err != nil || code != 200 {
		t.Fatalf("reset: %d %v", code, err)
	}
	if answers() {
		t.Fatal("after a reset, the rule's address still answers")
	}
}

func TestDataPlane_BackendCapacityDividesTraffic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		a, b   string // the two groups' capacity fields
		minB   int    // of 100 requests, how many b gets at least
		maxB   int    // and at most
		policy string
	}{
		{"capacityScaler 0 drains a group", `"balancingMode":"RATE","maxRatePerEndpoint":100`, `"balancingMode":"RATE","maxRatePerEndpoint":100,"capacityScaler":0`, 0, 0, "ROUND_ROBIN"},
		{"capacityScaler 0.25 takes a fifth", `"balancingMode":"RATE","maxRatePerEndpoint":100`, `"balancingMode":"RATE","maxRatePerEndpoint":100,"capacityScaler":0.25`, 15, 25, "ROUND_ROBIN"},
		{"maxRatePerEndpoint 300 against 100 takes three quarters", `"balancingMode":"RATE","maxRatePerEndpoint":100`, `"balancingMode":"RATE","maxRatePerEndpoint":300`, 60, 90, "RANDOM"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, b := newSwitchable(t), newSwitchable(t)
			e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
			apiCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
				"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`, nil)
			for name, s := range map[string]*switchable{"a": a, "b": b} {
				mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg-`+name+`","networkEndpointType":"GCE_VM_IP_PORT","endpoints":[{"ipAddress":"127.0.0.1","port":`+s.port()+`}]}`)
			}
			mustCall(t, e, "POST", "global/backendServices", `{"name":"web","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP","localityLbPolicy":"`+c.policy+`",
				"backends":[{"group":"zones/z/networkEndpointGroups/neg-a",`+c.a+`},{"group":"zones/z/networkEndpointGroups/neg-b",`+c.b+`}],
				"healthChecks":["global/healthChecks/hc"]}`)
			lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/web"}`)
			waitFor(t, "both groups HEALTHY", func() bool {
				hs := health(t, e, "web")
				pa, _ := strconv.ParseInt(a.port(), 10, 64)
				pb, _ := strconv.ParseInt(b.port(), 10, 64)
				return hs[pa].HealthState == "HEALTHY" && hs[pb].HealthState == "HEALTHY"
			})
			waitFor(t, "the service serving", func() bool { code, _, _ := get(t, lb+"/"); return code == 200 })
			addrB := strings.TrimPrefix(b.URL, "http://")
			toB := 0
			for range 100 {
				if _, be, _ := get(t, lb+"/"); be == addrB {
					toB++
				}
			}
			if toB < c.minB || toB > c.maxB {
				t.Fatalf("%d of 100 requests went to b, want %d to %d", toB, c.minB, c.maxB)
			}
		})
	}
}

func TestDataPlane_TargetInstanceForwardsToItsInstance(t *testing.T) {
	t.Parallel()
	_, _, port := twoBackendsOnOnePort(t) // the instance's server is the one at 127.0.0.2
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	mustCall(t, e, "POST", "zones/r-a/instances", `{"name":"vm","networkInterfaces":[{"networkIP":"127.0.0.2"}]}`)
	mustCall(t, e, "POST", "zones/r-a/targetInstances", `{"name":"ti","instance":"zones/r-a/instances/vm"}`)
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP","portRange":"`+port+`",
		"target":"zones/r-a/targetInstances/ti"}`)
	lb := "127.0.0.1:" + port
	if got := servedBy(t, lb); got != "127.0.0.2:"+port {
		t.Fatalf("through the target instance: served by %q, want 127.0.0.2:%s", got, port)
	}
}

// The status page's empty Traffic section says what gets a listener and
// which guide tells more (it used to point to a README section there is
// not).
func TestStatusPage_EmptyTrafficSaysWhereToRead(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	_, _, page := get(t, e.URL()+"/")
	if !strings.Contains(page, "a forwarding rule whose address is on loopback gets one") || !strings.Contains(page, "docs/guides/traffic.md") {
		t.Errorf("the empty Traffic section does not say what gets a listener, nor where to read more")
	}
}
