package emulator_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// workloadLB is a managed group of two instances (named port http on 8080,
// range rng) behind an external HTTP load balancer, as the public modules
// write one, with no server started by hand: the emulator's simulated
// workloads answer. heal adds an autohealing policy with the same check.
// It returns the emulator, the load balancer's URL and the group's path.
func workloadLB(t *testing.T, rng string, heal bool) (*emulator.Emulator, string, string) {
	t.Helper()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, Workloads: true,
		ManagedInstanceRange: netip.MustParsePrefix(rng)})
	mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
		"unhealthyThreshold": 1, "httpHealthCheck": {"port": 8080, "requestPath": "/"}}`)
	mustCall(t, e, "POST", "global/instanceTemplates", `{"name": "web", "properties": {"machineType": "e2-small", "networkInterfaces": [{}],
		"metadata": {"items": [{"key": "startup-script", "value": "apt-get install -y nginx"}]}}}`)
	policy := ""
	if heal {
		policy = `, "autoHealingPolicies": [{"healthCheck": "global/healthChecks/hc", "initialDelaySec": 0}]`
	}
	mustCall(t, e, "POST", "zones/us-east1-b/instanceGroupManagers", `{"name": "mig", "baseInstanceName": "web",
		"instanceTemplate": "global/instanceTemplates/web", "targetSize": 2, "namedPorts": [{"name": "http", "port": 8080}]`+policy+`}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "protocol": "HTTP", "portName": "http", "loadBalancingScheme": "EXTERNAL_MANAGED",
		"healthChecks": ["global/healthChecks/hc"], "backends": [{"group": "zones/us-east1-b/instanceGroups/mig"}]}`)
	mustCall(t, e, "POST", "global/urlMaps", `{"name": "um", "defaultService": "global/backendServices/bs"}`)
	mustCall(t, e, "POST", "global/targetHttpProxies", `{"name": "p", "urlMap": "global/urlMaps/um"}`)
	port := freePort(t)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name": "fr", "IPAddress": "127.0.0.1", "IPProtocol": "TCP",
		"portRange": "%d", "loadBalancingScheme": "EXTERNAL_MANAGED", "target": "global/targetHttpProxies/p"}`, port))
	return e, fmt.Sprintf("http://127.0.0.1:%d", port), "zones/us-east1-b/instanceGroupManagers/mig"
}

// served asks the load balancer n times and counts the answers by the
// instance each names ("ok web-abcd at ..."), or by status when not 200.
func served(t *testing.T, lb string, n int) map[string]int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	out := map[string]int{}
	for range n {
		resp, err := c.Get(lb + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if f := strings.Fields(string(b)); resp.StatusCode == 200 && len(f) > 1 && f[0] == "ok" {
			out[f[1]]++
		} else {
			out[resp.Status]++
		}
	}
	return out
}

// groupHealth is the health state of each instance of the group, by name.
func groupHealth(t *testing.T, e *emulator.Emulator) map[string]string {
	t.Helper()
	var gh api.BackendServiceGroupHealth
	apiCall(t, e, "POST", "global/backendServices/bs/getHealth", `{"group": "zones/us-east1-b/instanceGroups/mig"}`, &gh)
	out := map[string]string{}
	for _, s := range gh.HealthStatus {
		out[s.Instance[strings.LastIndex(s.Instance, "/")+1:]] = s.HealthState
	}
	return out
}

// setWorkload breaks or heals an instance's workload through the API.
func setWorkload(t *testing.T, e *emulator.Emulator, name, mode string) (int, string) {
	t.Helper()
	resp, err := http.Post(e.URL()+"/_emulator/workloads/projects/p/zones/us-east1-b/instances/"+name, "application/json",
		strings.NewReader(`{"mode": "`+mode+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A managed group's instances come alive with no server started by hand:
// both become HEALTHY and the load balancer's answers name each of them;
// one broken through the API goes UNHEALTHY and traffic avoids it; healed,
// it serves again.
func TestWorkloads_ManagedGroupServesThroughTheLoadBalancer(t *testing.T) {
	t.Parallel()
	e, lb, _ := workloadLB(t, "127.1.202.0/29", false)
	waitFor(t, "both instances HEALTHY", func() bool {
		h := groupHealth(t, e)
		return len(h) == 2 && h[slices.Sorted(maps.Keys(h))[0]] == "HEALTHY" && h[slices.Sorted(maps.Keys(h))[1]] == "HEALTHY"
	})
	instances := slices.Sorted(maps.Keys(groupHealth(t, e)))
	got := served(t, lb, 20)
	if got[instances[0]] == 0 || got[instances[1]] == 0 || got[instances[0]]+got[instances[1]] != 20 {
		t.Fatalf("answers %v, want all 20 from the two instances %v", got, instances)
	}

	broken, sound := instances[0], instances[1]
	if code, body := setWorkload(t, e, broken, "status-500"); code != 200 || !strings.Contains(body, `"mode": "status-500"`) {
		t.Fatalf("breaking %s: %d %s", broken, code, body)
	}
	waitFor(t, broken+" UNHEALTHY", func() bool { return groupHealth(t, e)[broken] == "UNHEALTHY" })
	if got := served(t, lb, 10); got[sound] != 10 {
		t.Errorf("answers %v, want all 10 from %s while %s is broken", got, sound, broken)
	}

	code, body := setWorkload(t, e, broken, "sideways")
	if code != 400 || !strings.Contains(body, `mode (\"sideways\") is not a workload mode`) {
		t.Errorf("an unknown mode: %d %s", code, body)
	}
	if code, body := setWorkload(t, e, "nope", "ok"); code != 404 || !strings.Contains(body, "instances/nope") {
		t.Errorf("an unknown instance: %d %s", code, body)
	}

	setWorkload(t, e, broken, "ok")
	waitFor(t, broken+" HEALTHY again", func() bool { return groupHealth(t, e)[broken] == "HEALTHY" })
	var list struct{ Items []control.Status }
	resp, err := http.Get(e.URL() + "/_emulator/workloads")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Items) != 2 || list.Items[0].State != "SERVING" ||
		len(list.Items[0].Ports) != 1 || list.Items[0].Ports[0].Port != 8080 {
		t.Errorf("workloads %+v (%v), want two SERVING on 8080", list, err)
	}
}

// A workload stopped through the API makes its instance UNHEALTHY, and
// autohealing recreates it: the new instance boots with its workload
// healed and is HEALTHY again, with no hand on it.
func TestWorkloads_AutohealingReplacesAStoppedWorkload(t *testing.T) {
	t.Parallel()
	e, _, mig := workloadLB(t, "127.1.202.8/29", true)
	waitFor(t, "both instances HEALTHY", func() bool {
		h := groupHealth(t, e)
		return len(h) == 2 && h[slices.Sorted(maps.Keys(h))[0]] == "HEALTHY" && h[slices.Sorted(maps.Keys(h))[1]] == "HEALTHY"
	})
	var before api.ListManagedInstancesResponse
	apiCall(t, e, "POST", mig+"/listManagedInstances", "", &before)
	victim := before.ManagedInstances[0]
	if code, body := setWorkload(t, e, victim.Name, "stop"); code != 200 {
		t.Fatalf("stopping %s: %d %s", victim.Name, code, body)
	}
	waitFor(t, "the stopped instance recreated and HEALTHY again", func() bool {
		var now api.ListManagedInstancesResponse
		apiCall(t, e, "POST", mig+"/listManagedInstances", "", &now)
		for _, mi := range now.ManagedInstances {
			if mi.Name == victim.Name {
				return mi.ID != victim.ID && mi.CurrentAction == "NONE" && healthOf(mi) == "HEALTHY"
			}
		}
		return false
	})
}

// A zonal NEG's endpoint names an instance and a port of its own (not the
// check's, not a named port): the instance's workload serves that port,
// where the load balancer sends its traffic, whether the endpoint names
// the instance by name or by URL; getHealth names the instance by its URL,
// as the API does.
func TestWorkloads_ServeTheirNEGEndpointsPorts(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, Workloads: true})
	mustCall(t, e, "POST", "zones/us-east1-b/instances", `{"name": "vm", "networkInterfaces": [{"networkIP": "127.1.206.2"}]}`)
	mustCall(t, e, "POST", "zones/us-east1-b/instances", `{"name": "vm2", "networkInterfaces": [{"networkIP": "127.1.206.3"}]}`)
	mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
		"unhealthyThreshold": 1, "httpHealthCheck": {"port": 8080, "requestPath": "/"}}`)
	vm2 := e.URL() + "/compute/v1/projects/p/zones/us-east1-b/instances/vm2"
	mustCall(t, e, "POST", "zones/us-east1-b/networkEndpointGroups", `{"name": "neg", "networkEndpointType": "GCE_VM_IP_PORT", "defaultPort": 9107}`)
	mustCall(t, e, "POST", "zones/us-east1-b/networkEndpointGroups/neg/attachNetworkEndpoints",
		`{"networkEndpoints": [{"instance": "vm", "port": 9107}, {"instance": "`+vm2+`", "port": 9108}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "loadBalancingScheme": "EXTERNAL_MANAGED", "protocol": "HTTP",
		"healthChecks": ["global/healthChecks/hc"], "backends": [{"group": "zones/us-east1-b/networkEndpointGroups/neg",
		"balancingMode": "RATE", "maxRatePerEndpoint": 100}]}`)
	lb := applicationLB(t, e, freePort(t), `{"name": "um", "defaultService": "global/backendServices/bs"}`)
	waitFor(t, "both endpoints HEALTHY", func() bool {
		h := health(t, e, "bs")
		return h[9107].HealthState == "HEALTHY" && h[9108].HealthState == "HEALTHY"
	})
	if h := health(t, e, "bs"); h[9107].Instance != e.URL()+"/compute/v1/projects/p/zones/us-east1-b/instances/vm" || h[9108].Instance != vm2 {
		t.Errorf("getHealth instances %q and %q, want their URLs", h[9107].Instance, h[9108].Instance)
	}
	if got := served(t, lb, 10); got["vm"] == 0 || got["vm2"] == 0 || got["vm"]+got["vm2"] != 10 {
		t.Errorf("answers %v, want all 10 from vm and vm2", got)
	}
}
