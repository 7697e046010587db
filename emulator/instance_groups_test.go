package emulator_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestInstanceGroups_EveryInstanceIsProbedOnTheNamedPort: a backend
// service over an unmanaged instance group probes each of its instances at
// its networkIP, on the port the group names for the check's port name;
// one instance failing is UNHEALTHY on its own, and getHealth of the group
// reports both.
func TestInstanceGroups_EveryInstanceIsProbedOnTheNamedPort(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator0())
	// Two servers on one port number, each at its instance's address.
	first, err := net.Listen("tcp", "127.0.0.21:0")
	if err != nil {
		t.Fatal(err)
	}
	port := first.Addr().(*net.TCPAddr).Port
	second, err := net.Listen("tcp", fmt.Sprintf("127.0.0.22:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	var failing atomic.Bool
	serve := func(l net.Listener, fails *atomic.Bool) {
		s := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if fails != nil && fails.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		})}}
		s.Start()
		t.Cleanup(s.Close)
	}
	serve(first, nil)
	serve(second, &failing)

	for i, ip := range []string{"127.0.0.21", "127.0.0.22"} {
		mustCall(t, e, "POST", "zones/us-east1-b/instances", fmt.Sprintf(`{"name": "vm-%d", "networkInterfaces": [{"networkIP": %q}]}`, i, ip))
	}
	mustCall(t, e, "POST", "zones/us-east1-b/instanceGroups", `{"name": "ig"}`)
	mustCall(t, e, "POST", "zones/us-east1-b/instanceGroups/ig/addInstances",
		`{"instances": [{"instance": "zones/us-east1-b/instances/vm-0"}, {"instance": "zones/us-east1-b/instances/vm-1"}]}`)
	mustCall(t, e, "POST", "zones/us-east1-b/instanceGroups/ig/setNamedPorts", fmt.Sprintf(`{"namedPorts": [{"name": "web", "port": %d}]}`, port))
	mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
		"unhealthyThreshold": 1, "httpHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "web"}}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "healthChecks": ["hc"], "portName": "web",
		"backends": [{"group": "zones/us-east1-b/instanceGroups/ig"}]}`)

	byIP := func() map[string]api.HealthStatus {
		var gh api.BackendServiceGroupHealth
		apiCall(t, e, "POST", "global/backendServices/bs/getHealth", `{"group": "zones/us-east1-b/instanceGroups/ig"}`, &gh)
		out := map[string]api.HealthStatus{}
		for _, hs := range gh.HealthStatus {
			if hs.Port == int64(port) {
				out[hs.IPAddress] = hs
			}
		}
		return out
	}
	waitFor(t, "both instances HEALTHY on port "+strconv.Itoa(port), func() bool {
		h := byIP()
		return h["127.0.0.21"].HealthState == "HEALTHY" && h["127.0.0.22"].HealthState == "HEALTHY"
	})
	if h := byIP()["127.0.0.22"]; api.PathOf(h.Instance) != "projects/p/zones/us-east1-b/instances/vm-1" {
		t.Errorf("instance %q, want vm-1's link", h.Instance)
	}
	failing.Store(true)
	waitFor(t, "vm-1 UNHEALTHY while vm-0 stays HEALTHY", func() bool {
		h := byIP()
		return h["127.0.0.21"].HealthState == "HEALTHY" && h["127.0.0.22"].HealthState == "UNHEALTHY"
	})
}
