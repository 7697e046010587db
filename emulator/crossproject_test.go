package emulator_test

import (
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// Cross-project service referencing: the URL map of an application load
// balancer in one project names a backend service of another project, and
// the load balancer carries traffic to that service's healthy backends;
// the service cannot be deleted while the map uses it. A classic load
// balancer's service (EXTERNAL) stays in the map's project, and a backend
// service still cannot use another project's health check.
func TestCrossProject_URLMapNamesAnotherProjectsService(t *testing.T) {
	t.Parallel()
	backend := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	svc := e.URL() + "/compute/v1/projects/svc/"
	must(t, "POST", svc+"global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	must(t, "POST", svc+"zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP_PORT",
		"endpoints":[{"ipAddress":"127.0.0.1","port":`+backend.port()+`}]}`)
	for _, bs := range []struct{ name, scheme string }{{"web", "EXTERNAL_MANAGED"}, {"classic", "EXTERNAL"}} {
		must(t, "POST", svc+"global/backendServices", `{"name":"`+bs.name+`","loadBalancingScheme":"`+bs.scheme+`","protocol":"HTTP",
			"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100}],"healthChecks":["global/healthChecks/hc"]}`)
	}

	code, body, _ := call("POST", e.URL()+"/compute/v1/projects/p/global/urlMaps", `{"name":"classic","defaultService":"projects/svc/global/backendServices/classic"}`)
	if code != 400 || !strings.Contains(string(body), `a URL map of project \"p\" names a backend service of another project only for the EXTERNAL_MANAGED and INTERNAL_MANAGED load balancers`) {
		t.Errorf("a classic service of another project: %d %s", code, body)
	}
	code, body, _ = call("POST", e.URL()+"/compute/v1/projects/p/global/backendServices", `{"name":"bs","loadBalancingScheme":"EXTERNAL_MANAGED",
		"healthChecks":["projects/svc/global/healthChecks/hc"]}`)
	if code != 400 || !strings.Contains(string(body), "cross-project references are not allowed for healthChecks") {
		t.Errorf("a health check of another project: %d %s", code, body)
	}

	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"`+svc+`global/backendServices/web"}`)
	waitFor(t, "traffic through the other project's service", func() bool {
		code, be, _ := get(t, lb+"/")
		return code == 200 && be == strings.TrimPrefix(backend.URL, "http://")
	})
	code, body, _ = call("DELETE", svc+"global/backendServices/web", "")
	if code != 400 || !strings.Contains(string(body), "projects/p/global/urlMaps/um") {
		t.Errorf("deleting the service the map uses: %d %s", code, body)
	}
}
