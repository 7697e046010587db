package emulator_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestInstances_ProbedAtTheirNetworkIP: an instance attached to a NEG by
// instance alone (attachNetworkEndpoints, as Google's client and
// terraform-provider-google do it) is probed at its networkIP: a loopback
// address, given (127.0.0.1) or assigned by the emulator (127.0.x.y).
func TestInstances_ProbedAtTheirNetworkIP(t *testing.T) {
	for _, tt := range []struct {
		name, nic string // the instance's interface as sent
	}{
		{"given", `{"networkIP": "127.0.0.1"}`},
		{"assigned", `{}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t, emulator0())
			mustCall(t, e, "POST", "zones/us-east1-b/instances", `{"name": "vm", "networkInterfaces": [`+tt.nic+`]}`)
			var in api.Instance
			apiCall(t, e, "GET", "zones/us-east1-b/instances/vm", "", &in)
			ip := in.PrimaryIP()
			if !strings.HasPrefix(ip, "127.") {
				t.Fatalf("instance networkIP %q, want a loopback address", ip)
			}
			// The target listens where the instance is.
			l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
			if err != nil {
				t.Skipf("cannot listen on %s (not every system routes all of 127.0.0.0/8 to loopback): %v", ip, err)
			}
			target := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte("ok"))
			})}}
			target.Start()
			t.Cleanup(target.Close)
			port := target.URL[strings.LastIndex(target.URL, ":")+1:]

			mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
				"unhealthyThreshold": 1, "httpHealthCheck": {"portSpecification": "USE_SERVING_PORT", "requestPath": "/"}}`)
			mustCall(t, e, "POST", "zones/us-east1-b/networkEndpointGroups", `{"name": "neg", "networkEndpointType": "GCE_VM_IP_PORT", "defaultPort": `+port+`}`)
			mustCall(t, e, "POST", "zones/us-east1-b/networkEndpointGroups/neg/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm"}]}`)
			mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "healthChecks": ["hc"],
				"backends": [{"group": "zones/us-east1-b/networkEndpointGroups/neg"}]}`)

			p, _ := strconv.ParseInt(port, 10, 64)
			waitFor(t, "the instance HEALTHY", func() bool {
				h, ok := health(t, e, "bs")[p]
				return ok && h.HealthState == "HEALTHY" && h.IPAddress == ip
			})
			var list api.NetworkEndpointGroupsListNetworkEndpoints
			apiCall(t, e, "POST", "zones/us-east1-b/networkEndpointGroups/neg/listNetworkEndpoints", `{"healthStatus": "SHOW"}`, &list)
			if len(list.Items) != 1 || list.Items[0].NetworkEndpoint.Instance != "vm" || len(list.Items[0].Healths) != 1 ||
				list.Items[0].Healths[0].HealthState != "HEALTHY" {
				t.Errorf("listNetworkEndpoints = %+v", list)
			}
		})
	}
}
