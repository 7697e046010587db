package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// switchable is a loopback HTTP target whose status code a test can change.
type switchable struct {
	*httptest.Server
	status atomic.Int32
	hits   atomic.Int64
}

func newSwitchable(t *testing.T) *switchable { return newSwitchableAt(t, "127.0.0.1:0") }

// newSwitchableAt is a switchable listening on addr. It names itself in
// an X-Served-By header, and counts the body it read in X-Body-Bytes.
func newSwitchableAt(t *testing.T, addr string) *switchable {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &switchable{}
	s.status.Store(200)
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		w.Header().Set("X-Served-By", ln.Addr().String())
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			w.Header().Set("X-Client", host) // the address it was reached from
		}
		n, _ := io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Body-Bytes", strconv.FormatInt(n, 10))
		w.WriteHeader(int(s.status.Load()))
		w.Write([]byte("ok"))
	}))
	s.Listener.Close()
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *switchable) port() string { return s.URL[strings.LastIndex(s.URL, ":")+1:] }

// apiCall sends a JSON request to the emulator and decodes the answer into out.
func apiCall(t testing.TB, e *emulator.Emulator, method, path, body string, out any) int {
	t.Helper()
	return apiCallURL(t, e.URL(), method, path, body, out)
}

func apiCallURL(t testing.TB, root, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, root+"/compute/v1/projects/p/"+path, bytes.NewBufferString(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(api.ExtensionsHeader, "true") // as the lbhealth client asks
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

func mustCall(t testing.TB, e *emulator.Emulator, method, path, body string) {
	t.Helper()
	var out map[string]any
	if code := apiCall(t, e, method, path, body, &out); code != 200 {
		t.Fatalf("%s %s: %d %v", method, path, code, out)
	}
}

// health returns the state of each endpoint of service bs, by port.
func health(t *testing.T, e *emulator.Emulator, bs string) map[int64]api.HealthStatus {
	t.Helper()
	var gh api.BackendServiceGroupHealth
	apiCall(t, e, "POST", "global/backendServices/"+bs+"/getHealth", "", &gh)
	out := map[int64]api.HealthStatus{}
	for _, hs := range gh.HealthStatus {
		out[hs.Port] = hs
	}
	return out
}

// waitFor polls until cond holds; the deadline is generous because it is a
// hang guard, not a measurement (the bench measures).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// emulator0 is the configuration most tests use: in memory.
func emulator0() emulator.Config { return emulator.Config{InMemory: true} }

func startEmulator(t testing.TB, cfg emulator.Config) *emulator.Emulator {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	e, err := emulator.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestProbing_EndpointsBreakAndRecoverOnTheirOwn(t *testing.T) {
	t.Parallel()
	a, b := newSwitchable(t), newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true})
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":2,"unhealthyThreshold":2,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[
		{"ipAddress":"127.0.0.1","port":`+a.port()+`},{"ipAddress":"127.0.0.1","port":`+b.port()+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)

	var pa, pb int64
	json.Unmarshal([]byte(a.port()), &pa)
	json.Unmarshal([]byte(b.port()), &pb)
	waitFor(t, "both endpoints HEALTHY", func() bool {
		h := health(t, e, "bs")
		return h[pa].HealthState == "HEALTHY" && h[pb].HealthState == "HEALTHY"
	})
	a.status.Store(500)
	waitFor(t, "the failing endpoint UNHEALTHY with BAD_STATUS", func() bool {
		return health(t, e, "bs")[pa].Reason == "BAD_STATUS" && health(t, e, "bs")[pa].HealthState == "UNHEALTHY"
	})
	if st := health(t, e, "bs")[pb].HealthState; st != "HEALTHY" {
		t.Fatalf("the other endpoint is %s: only failing endpoints are unhealthy", st)
	}
	a.status.Store(200)
	waitFor(t, "the endpoint HEALTHY again", func() bool { return health(t, e, "bs")[pa].HealthState == "HEALTHY" })
}

func TestProbing_ChangesTakeEffectWithoutRestart(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true})
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"tcpHealthCheck":{"port":`+a.port()+`}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":1}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	waitFor(t, "TCP check HEALTHY", func() bool { return health(t, e, "bs")[1].HealthState == "HEALTHY" })

	// Switch the check to HTTP with a request path that answers 404: the
	// endpoint goes UNHEALTHY without a restart.
	a.status.Store(404)
	mustCall(t, e, "PUT", "global/healthChecks/hc", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"port":`+a.port()+`,"requestPath":"/missing"}}`)
	waitFor(t, "HTTP check UNHEALTHY (BAD_STATUS)", func() bool { return health(t, e, "bs")[1].Reason == "BAD_STATUS" })

	// Stopping the endpoint stops probing it at once.
	mustCall(t, e, "PATCH", "zones/z/networkEndpointGroups/neg", `{"endpoints":[{"ipAddress":"127.0.0.1","port":1,"state":"STOPPED"}]}`)
	if h := health(t, e, "bs")[1]; h.HealthState != "UNHEALTHY" || h.Reason != "STOPPED" {
		t.Fatalf("stopped endpoint: %+v, want UNHEALTHY/STOPPED", h)
	}
	hits := a.hits.Load()
	time.Sleep(1500 * time.Millisecond) // more than an interval: a probe would have come
	if a.hits.Load() != hits {
		t.Fatal("a STOPPED endpoint was probed")
	}

	// Removing the service stops everything.
	mustCall(t, e, "DELETE", "global/backendServices/bs", "")
	if code := apiCall(t, e, "POST", "global/backendServices/bs/getHealth", "", nil); code != 404 {
		t.Fatalf("getHealth of a deleted service: %d, want 404", code)
	}
}

func TestProbing_ResumesAfterRestart(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	dir := t.TempDir()
	e, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":`+a.port()+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	e.Close()
	before := a.hits.Load()

	e = startEmulator(t, emulator.Config{DataDir: dir})
	waitFor(t, "probing resumed after restart", func() bool { return a.hits.Load() > before })
	var pa int64
	json.Unmarshal([]byte(a.port()), &pa)
	waitFor(t, "HEALTHY after restart", func() bool { return health(t, e, "bs")[pa].HealthState == "HEALTHY" })
}

func TestProbing_OnlyAllowedNetworksAreProbed(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","tcpHealthCheck":{}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"192.0.2.10","port":80}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	h := health(t, e, "bs")[80]
	if h.HealthState != "UNHEALTHY" || h.Reason != "NOT_PROBED" || !strings.Contains(h.Detail, "--probe-networks") {
		t.Fatalf("endpoint outside the probe networks: %+v, want UNHEALTHY/NOT_PROBED naming --probe-networks", h)
	}
}

func TestStatusPage_ShowsEndpointsColouredByState(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	a.status.Store(500)
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"unhealthyThreshold":1,"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":`+a.port()+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"unchecked"}`)
	page := func() string {
		resp, err := http.Get(e.URL() + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		io.Copy(&b, resp.Body)
		return b.String()
	}
	row := `<tr data-state="error" data-endpoint="127.0.0.1:` + a.port() + `"><td class="error">UNHEALTHY</td><td class="path">127.0.0.1:` + a.port() + `</td>`
	waitFor(t, "the failing endpoint shown red", func() bool { return strings.Contains(page(), row) })
	p := page()
	for _, want := range []string{
		"BAD_STATUS",
		// The owner's counts, in the appliance's words, and the grey
		// service that probes nothing.
		`<span class="error">Error 1</span>`, "projects/p/global/backendServices/unchecked",
		"No data: no health check, or no endpoints.",
		// Since when, the last probe and its latency, the strip of the
		// last probes (failed), and the transition in the events.
		`<time data-ms="`, " ms</td>", `<i class="f"></i>`, `UNKNOWN → <span class="error pill">UNHEALTHY</span>`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the status page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("status page lacks the endpoint or the grey unchecked service:\n%s", p)
	}
}
