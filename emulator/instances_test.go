package emulator_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestInstances_ProbedAtTheirNetworkIP: an instance attached to a NEG by
// instance alone (attachNetworkEndpoints, as Google's client and
// terraform-provider-google do it) is probed at its networkIP: a loopback
// address, given (127.0.0.1) or assigned by the emulator (127.0.x.y).
func TestInstances_ProbedAtTheirNetworkIP(t *testing.T) {
	t.Parallel()
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

// TestProbeMap_RealAddressesAreProbedLocally: an instance with a real
// configuration's address (10.44.0.2, from its subnetwork) is probed at
// the local address the probe map gives it (127.44.0.2), and getHealth
// reports both; without a map, it is not probed, and the reason names the
// flag that would probe it.
func TestProbeMap_RealAddressesAreProbedLocally(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.44.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	target := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}}
	target.Start()
	t.Cleanup(target.Close)
	port := l.Addr().(*net.TCPAddr).Port

	setup := func(cfg emulator.Config) *emulator.Emulator {
		e := startEmulator(t, cfg)
		mustCall(t, e, "POST", "global/networks", `{"name": "net", "autoCreateSubnetworks": false}`)
		mustCall(t, e, "POST", "regions/us-east1/subnetworks", `{"name": "sub", "network": "global/networks/net", "ipCidrRange": "10.44.0.0/24"}`)
		mustCall(t, e, "POST", "zones/us-east1-b/instances", `{"name": "vm", "networkInterfaces": [{"subnetwork": "regions/us-east1/subnetworks/sub"}]}`)
		mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
			"unhealthyThreshold": 1, "tcpHealthCheck": {"port": `+strconv.Itoa(port)+`}}`)
		mustCall(t, e, "POST", "zones/us-east1-b/instanceGroups", `{"name": "ig", "instances": ["zones/us-east1-b/instances/vm"]}`)
		mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "protocol": "TCP", "healthChecks": ["hc"],
			"backends": [{"group": "zones/us-east1-b/instanceGroups/ig"}]}`)
		return e
	}
	pm, err := plan.ParseProbeMap("10.0.0.0/8=127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	cfg := emulator0()
	cfg.ProbeMap = pm
	e := setup(cfg)
	waitFor(t, "10.44.0.2 HEALTHY, probed at 127.44.0.2", func() bool {
		h, ok := health(t, e, "bs")[0]
		return ok && h.IPAddress == "10.44.0.2" && h.ProbedAt == "127.44.0.2" && h.HealthState == "HEALTHY"
	})
	// The instance's address with the port its check probes.
	if want := regexp.MustCompile(`<td class="path">10\.44\.0\.2:[0-9]+ \(probed at 127\.44\.0\.2\)</td>`); !want.MatchString(statusPageText(t, e)) {
		t.Errorf("the status page does not show %s:\n%s", want, statusPageText(t, e))
	}
	if want := `probed_at="127.44.0.2"`; !strings.Contains(metricsText(t, e), want) {
		t.Errorf("/metrics does not show %s", want)
	}

	unmapped := setup(emulator0())
	waitFor(t, "10.44.0.2 not probed, saying why", func() bool {
		h := health(t, unmapped, "bs")[0]
		return strings.Contains(h.Detail, "10.44.0.2 is outside the networks this emulator may probe") && strings.Contains(h.Detail, "--probe-map")
	})
}
