package emulator_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// freePort is a loopback port nothing listens on (at the time of asking).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

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
func applicationLB(t *testing.T, e *emulator.Emulator, port int, um string) string {
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
	if r.URL.Path != "/a/b" || r.URL.RawQuery != "q=1" || r.Host != "v2.internal" || r.Header.Get("X-Forwarded-For") != "127.0.0.1" {
		t.Fatalf("rewritten request: path %q query %q host %q X-Forwarded-For %q; want /a/b, q=1, v2.internal, 127.0.0.1",
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
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/sticky",
		"hostRules":[{"hosts":["h"],"pathMatcher":"h"}],"pathMatchers":[{"name":"h","defaultService":"global/backendServices/byheader"}]}`)
	waitFor(t, "three backends serving", func() bool {
		seen := map[string]bool{}
		for range 9 {
			_, be, _ := get(t, lb+"/")
			seen[be] = true
		}
		return len(seen) == 3 && !seen[""]
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
