package emulator_test

import (
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// wantError sends a request that must fail with code and a message holding
// every one of parts.
func wantError(t *testing.T, e interface{ URL() string }, method, path, body string, code int, parts ...string) {
	t.Helper()
	var out api.ErrorBody
	got := apiCallURL(t, e.URL(), method, path, body, &out)
	if got != code {
		t.Fatalf("%s %s: HTTP %d (%s), want %d", method, path, got, out.Error.Message, code)
	}
	for _, p := range parts {
		if !strings.Contains(out.Error.Message, p) {
			t.Errorf("%s %s: message %q does not contain %q", method, path, out.Error.Message, p)
		}
	}
}

func TestLegacy_TargetPoolFollowsItsInstances(t *testing.T) {
	t.Parallel()
	ok, moved := newSwitchable(t), newSwitchable(t)
	moved.status.Store(301)
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "global/httpHealthChecks", `{"name":"legacy","checkIntervalSec":1,"timeoutSec":1,"unhealthyThreshold":1,"healthyThreshold":1}`)
	mustCall(t, e, "POST", "regions/r/targetPools", `{"name":"pool","instances":["127.0.0.1:`+ok.port()+`","127.0.0.1:`+moved.port()+`"],
		"healthChecks":["global/httpHealthChecks/legacy"]}`)
	pool := func() map[string]api.HealthStatus {
		var h api.TargetPoolInstanceHealth
		apiCall(t, e, "POST", "regions/r/targetPools/pool/getHealth", "", &h)
		out := map[string]api.HealthStatus{}
		for _, s := range h.HealthStatus {
			out[s.Instance] = s
		}
		return out
	}
	okInst, movedInst := "127.0.0.1:"+ok.port(), "127.0.0.1:"+moved.port()
	waitFor(t, "200 instance HEALTHY and 301 instance UNHEALTHY", func() bool {
		h := pool()
		return h[okInst].HealthState == "HEALTHY" && h[movedInst].HealthState == "UNHEALTHY" && h[movedInst].Reason == "BAD_STATUS"
	})
	moved.status.Store(200)
	waitFor(t, "the instance HEALTHY once it answers 200", func() bool { return pool()[movedInst].HealthState == "HEALTHY" })

	var one api.TargetPoolInstanceHealth
	apiCall(t, e, "POST", "regions/r/targetPools/pool/getHealth", `{"instance":"`+okInst+`"}`, &one)
	if len(one.HealthStatus) != 1 || one.HealthStatus[0].Instance != okInst {
		t.Fatalf("getHealth of one instance: %+v", one.HealthStatus)
	}
	wantError(t, e, "DELETE", "global/httpHealthChecks/legacy", "", 400, "already being used by", "targetPools/pool")
}

func TestLegacy_KindsAreNeverMixed(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "global/httpHealthChecks", `{"name":"http"}`)
	mustCall(t, e, "POST", "global/httpsHealthChecks", `{"name":"https"}`)
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"regular","tcpHealthCheck":{}}`)
	msg := "target pools take one legacy HTTP health check only"
	wantError(t, e, "POST", "regions/r/targetPools", `{"name":"p","healthChecks":["global/httpsHealthChecks/https"]}`, 400, "a legacy HTTPS health check", msg)
	wantError(t, e, "POST", "regions/r/targetPools", `{"name":"p","healthChecks":["global/healthChecks/regular"]}`, 400, "a health check (not a legacy one)", msg)
	wantError(t, e, "POST", "regions/r/targetPools", `{"name":"p","healthChecks":["http","http"]}`, 400, "lists 2 health checks", msg)
	wantError(t, e, "POST", "regions/r/targetPools", `{"name":"p","instances":["127.0.0.1:0"]}`, 400, "instances[0]")

	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":80}]}`)
	wantError(t, e, "POST", "global/backendServices", `{"name":"bs","loadBalancingScheme":"INTERNAL_MANAGED",
		"backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["global/httpHealthChecks/http"]}`,
		400, "legacy checks are accepted only by EXTERNAL and EXTERNAL_MANAGED backend services")
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],
		"healthChecks":["global/httpsHealthChecks/https"]}`)
	wantError(t, e, "POST", "regions/r/backendServices", `{"name":"bs","healthChecks":["global/httpHealthChecks/http"]}`,
		400, "legacy health check, which is global")
	// No path turns one kind into the other: the collections are separate,
	// and a legacy check has no protocol block (one sent is ignored, as an
	// unknown field: strict emulators refuse it).
	mustCall(t, e, "PUT", "global/httpHealthChecks/http", `{"name":"http","tcpHealthCheck":{}}`)
	_, body, err := call("GET", e.URL()+"/compute/v1/projects/p/global/httpHealthChecks/http", "")
	if err != nil || strings.Contains(string(body), "tcpHealthCheck") || !strings.Contains(string(body), `"compute#httpHealthCheck"`) {
		t.Errorf("legacy check after a PUT with a TCP block: %v %s", err, body)
	}
}

func TestForwardingRules_TargetsAndReferences(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "global/httpHealthChecks", `{"name":"http"}`)
	mustCall(t, e, "POST", "regions/r/targetPools", `{"name":"pool","instances":["127.0.0.1"],"healthChecks":["http"]}`)
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr","IPAddress":"127.0.0.1","portRange":"80","target":"pool"}`)
	wantError(t, e, "DELETE", "regions/r/targetPools/pool", "", 400, "already being used by", "forwardingRules/fr")
	wantError(t, e, "POST", "global/forwardingRules", `{"name":"g","target":"regions/r/targetPools/pool"}`, 400, "target pools are regional")
	wantError(t, e, "POST", "regions/r/forwardingRules", `{"name":"x"}`, 400, "one of backendService or target is required")
	wantError(t, e, "POST", "regions/r/forwardingRules", `{"name":"x","portRange":"90-80","target":"pool"}`, 400, "portRange (\"90-80\")")
	wantError(t, e, "POST", "regions/r/forwardingRules", `{"name":"x","target":"missing"}`, 404, "does not exist")
	wantError(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr","target":"pool"}`, 409, "already exists")
	mustCall(t, e, "DELETE", "regions/r/forwardingRules/fr", "")
	mustCall(t, e, "DELETE", "regions/r/targetPools/pool", "")
	mustCall(t, e, "DELETE", "global/httpHealthChecks/http", "")
}

// Instances are compared as addresses (regression: "::1" and "0::1" passed
// as two instances and fought over one engine endpoint).
func TestLegacy_InstancesComparedAsAddresses(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator0())
	wantError(t, e, "POST", "regions/r/targetPools", `{"name":"p","instances":["::1","0::1"]}`, 400, "instances[1]", "repeats instances[0]")
	wantError(t, e, "POST", "regions/r/targetPools", `{"name":"p","instances":["[::1]:80","[0::1]:80"]}`, 400, "repeats instances[0]")
	mustCall(t, e, "POST", "regions/r/targetPools", `{"name":"p","instances":["[::1]:80","[::1]:81"]}`)
}

// TestLegacy_BareAddressShowsTheCheckPort: a pool instance written without
// a port is probed on its check's port, and the status page and /metrics
// name it by that port, never ":0".
func TestLegacy_BareAddressShowsTheCheckPort(t *testing.T) {
	t.Parallel()
	ok := newSwitchable(t)
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "global/httpHealthChecks", `{"name":"legacy","port":`+ok.port()+`,"checkIntervalSec":1,"timeoutSec":1,"unhealthyThreshold":1,"healthyThreshold":1}`)
	mustCall(t, e, "POST", "regions/r/targetPools", `{"name":"pool","instances":["127.0.0.1"],"healthChecks":["global/httpHealthChecks/legacy"]}`)
	waitFor(t, "the bare address HEALTHY on the check's port", func() bool {
		var h api.TargetPoolInstanceHealth
		apiCall(t, e, "POST", "regions/r/targetPools/pool/getHealth", "", &h)
		return len(h.HealthStatus) == 1 && h.HealthStatus[0].HealthState == "HEALTHY"
	})
	want := "127.0.0.1:" + ok.port()
	_, metrics, _ := call("GET", e.URL()+"/metrics", "")
	if !strings.Contains(string(metrics), `endpoint="`+want+`"`) || strings.Contains(string(metrics), `endpoint="127.0.0.1:0"`) {
		t.Errorf("/metrics does not name the endpoint %s:\n%s", want, grepLines(string(metrics), "lbhealth_endpoint_state"))
	}
	_, page, _ := call("GET", e.URL()+"/", "")
	if !strings.Contains(string(page), want) || strings.Contains(string(page), "127.0.0.1:0") {
		t.Errorf("the status page does not name the endpoint %s:\n%s", want, page)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
