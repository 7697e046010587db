package emulator_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// compositeSetup creates, in region r, an INTERNAL backend service over the
// given loopback ports, a 60/1 policy, a health source, a forwarding rule
// and a composite check.
func compositeSetup(t *testing.T, e *emulator.Emulator, ports ...string) {
	t.Helper()
	var eps []string
	for _, p := range ports {
		eps = append(eps, `{"ipAddress":"127.0.0.1","port":`+p+`}`)
	}
	mustCall(t, e, "POST", "regions/r/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "regions/r/networkEndpointGroups", `{"name":"neg","endpoints":[`+strings.Join(eps, ",")+`]}`)
	mustCall(t, e, "POST", "regions/r/backendServices", `{"name":"bs","loadBalancingScheme":"INTERNAL_MANAGED",
		"backends":[{"group":"regions/r/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	mustCall(t, e, "POST", "regions/r/healthAggregationPolicies", `{"name":"policy"}`)
	mustCall(t, e, "POST", "regions/r/healthSources", `{"name":"src","sourceType":"BACKEND_SERVICE","sources":["bs"],"healthAggregationPolicy":"policy"}`)
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr","loadBalancingScheme":"INTERNAL_MANAGED","backendService":"bs"}`)
	mustCall(t, e, "POST", "regions/r/compositeHealthChecks", `{"name":"chc","healthSources":["src"],"healthDestination":"fr"}`)
}

func compositeState(t *testing.T, e *emulator.Emulator) api.CompositeHealthCheckHealth {
	var h api.CompositeHealthCheckHealth
	apiCall(t, e, "POST", "regions/r/compositeHealthChecks/chc/getHealth", "", &h)
	return h
}

func fingerprint(t *testing.T, e *emulator.Emulator, path string) string {
	var obj struct{ Fingerprint string }
	apiCall(t, e, "GET", path, "", &obj)
	if obj.Fingerprint == "" {
		t.Fatalf("%s has no fingerprint", path)
	}
	return obj.Fingerprint
}

func TestComposite_FollowsProbesAndPolicy(t *testing.T) {
	t.Parallel()
	a, b := newSwitchable(t), newSwitchable(t)
	e := startEmulator(t, emulator0())
	compositeSetup(t, e, a.port(), b.port())
	waitFor(t, "composite HEALTHY", func() bool { return compositeState(t, e).HealthState == "HEALTHY" })

	// 1 of 2 healthy is 50% < 60%: the source, and so the composite, fail.
	a.status.Store(500)
	waitFor(t, "composite UNHEALTHY", func() bool { return compositeState(t, e).HealthState == "UNHEALTHY" })
	var src api.HealthSourceHealth
	apiCall(t, e, "POST", "regions/r/healthSources/src/getHealth", "", &src)
	if src.HealthState != "UNHEALTHY" || len(src.Sources) != 1 || len(src.Sources[0].Backends) != 1 ||
		src.Sources[0].Backends[0].EndpointCount != 2 || src.Sources[0].Backends[0].HealthyEndpointCount != 1 ||
		!strings.HasSuffix(src.Sources[0].ForwardingRule, "/forwardingRules/fr") {
		t.Fatalf("health source health: %+v", src)
	}

	// Lowering the threshold to 40% re-evaluates at once.
	fp := fingerprint(t, e, "regions/r/healthAggregationPolicies/policy")
	mustCall(t, e, "PATCH", "regions/r/healthAggregationPolicies/policy", `{"healthyPercentThreshold":40,"fingerprint":"`+fp+`"}`)
	if st := compositeState(t, e).HealthState; st != "HEALTHY" {
		t.Fatalf("after lowering the threshold to 40%%: %s, want HEALTHY at once", st)
	}
	// A stale fingerprint is refused and changes nothing.
	wantError(t, e, "PATCH", "regions/r/healthAggregationPolicies/policy", `{"healthyPercentThreshold":90,"fingerprint":"`+fp+`"}`, 412, "stale")
	wantError(t, e, "PATCH", "regions/r/healthAggregationPolicies/policy", `{"healthyPercentThreshold":90}`, 412, "fingerprint is required")
	// updateMask naming a field the body leaves out resets it to its default.
	fp = fingerprint(t, e, "regions/r/healthAggregationPolicies/policy")
	mustCall(t, e, "PATCH", "regions/r/healthAggregationPolicies/policy?updateMask=healthyPercentThreshold", `{"minHealthyThreshold":7,"fingerprint":"`+fp+`"}`)
	var p api.HealthAggregationPolicy
	apiCall(t, e, "GET", "regions/r/healthAggregationPolicies/policy", "", &p)
	if *p.HealthyPercentThreshold != 60 || *p.MinHealthyThreshold != 1 {
		t.Fatalf("after updateMask=healthyPercentThreshold: %d%%/%d, want 60%%/1 (only the masked field changes)", *p.HealthyPercentThreshold, *p.MinHealthyThreshold)
	}
	if st := compositeState(t, e).HealthState; st != "UNHEALTHY" {
		t.Fatalf("back at 60%%: %s, want UNHEALTHY", st)
	}
	a.status.Store(200)
	waitFor(t, "composite HEALTHY after recovery", func() bool { return compositeState(t, e).HealthState == "HEALTHY" })
}

func TestComposite_Rules(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator0())
	compositeSetup(t, e, a.port())
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr2","loadBalancingScheme":"INTERNAL","backendService":"bs"}`)
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"ext","loadBalancingScheme":"EXTERNAL","backendService":"bs"}`)

	wantError(t, e, "POST", "regions/r/compositeHealthChecks", `{"name":"c2","healthSources":["src"],"healthDestination":"fr"}`,
		400, "already the health destination of projects/p/regions/r/compositeHealthChecks/chc")
	wantError(t, e, "POST", "regions/r/compositeHealthChecks", `{"name":"c2","healthSources":[],"healthDestination":"fr2"}`, 400, "lists 0 health sources", "1 to 10")
	eleven := strings.TrimSuffix(strings.Repeat(`"src",`, 11), ",")
	wantError(t, e, "POST", "regions/r/compositeHealthChecks", `{"name":"c2","healthSources":[`+eleven+`],"healthDestination":"fr2"}`, 400, "lists 11 health sources")
	wantError(t, e, "POST", "regions/r/compositeHealthChecks", `{"name":"c2","healthSources":["regions/r/compositeHealthChecks/chc"],"healthDestination":"fr2"}`,
		400, "cannot be a health source")
	wantError(t, e, "POST", "regions/r/compositeHealthChecks", `{"name":"c2","healthSources":["src"],"healthDestination":"ext"}`, 400, "INTERNAL or INTERNAL_MANAGED forwarding rule")
	mustCall(t, e, "POST", "regions/r2/healthAggregationPolicies", `{"name":"far"}`)
	wantError(t, e, "POST", "regions/r/healthSources", `{"name":"s2","sourceType":"BACKEND_SERVICE","sources":["bs"],"healthAggregationPolicy":"regions/r2/healthAggregationPolicies/far"}`,
		400, "in region r2")
	wantError(t, e, "POST", "regions/r/healthSources", `{"name":"s2","sourceType":"BACKEND_SERVICE","sources":["bs","bs"],"healthAggregationPolicy":"policy"}`, 400, "exactly one backend service")
	wantError(t, e, "POST", "regions/r/healthAggregationPolicies", `{"name":"bad","healthyPercentThreshold":101}`, 400, "healthyPercentThreshold (101) must be between 0 and 100")
	wantError(t, e, "POST", "regions/r/healthAggregationPolicies", `{"name":"bad","minHealthyThreshold":0}`, 400, "minHealthyThreshold (0)")
	wantError(t, e, "POST", "regions/r/healthAggregationPolicies", `{"name":"bad","policyType":"GLOBAL"}`, 400, "policyType (\"GLOBAL\") must be one of BACKEND_SERVICE_POLICY")

	mustCall(t, e, "POST", "global/healthChecks", `{"name":"g","tcpHealthCheck":{}}`)
	mustCall(t, e, "POST", "regions/r/backendServices", `{"name":"external","backends":[{"group":"regions/r/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	wantError(t, e, "POST", "regions/r/healthSources", `{"name":"s2","sourceType":"BACKEND_SERVICE","sources":["external"],"healthAggregationPolicy":"policy"}`,
		400, "INTERNAL or INTERNAL_MANAGED backend service")

	// Deleting out of order is refused; in dependency order it works.
	wantError(t, e, "DELETE", "regions/r/healthAggregationPolicies/policy", "", 400, "healthSources/src")
	wantError(t, e, "DELETE", "regions/r/healthSources/src", "", 400, "compositeHealthChecks/chc")
	wantError(t, e, "DELETE", "regions/r/forwardingRules/fr", "", 400, "compositeHealthChecks/chc")
	for _, path := range []string{"compositeHealthChecks/chc", "healthSources/src", "healthAggregationPolicies/policy",
		"forwardingRules/fr", "forwardingRules/fr2", "forwardingRules/ext", "backendServices/bs"} {
		mustCall(t, e, "DELETE", "regions/r/"+path, "")
	}
}

func TestComposite_ImmutableSourceTypeAndIDs(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator0())
	compositeSetup(t, e, a.port())
	var hs map[string]any
	apiCall(t, e, "GET", "regions/r/healthSources/src", "", &hs)
	if id, _ := hs["id"].(string); id == "" || hs["selfLink"] == nil {
		t.Fatalf("health source without a numeric id or selfLink: %v", hs)
	}
	fp, _ := hs["fingerprint"].(string)
	body, _ := json.Marshal(map[string]any{"sourceType": "OTHER", "fingerprint": fp})
	wantError(t, e, "PATCH", "regions/r/healthSources/src", string(body), 400, "sourceType")
}

// One health source under two spellings is still listed twice
// (regression: the duplicate check compared the raw strings).
func TestComposite_RepeatedSourceUnderTwoSpellings(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator0())
	compositeSetup(t, e, a.port())
	mustCall(t, e, "POST", "regions/r/forwardingRules", `{"name":"fr2","loadBalancingScheme":"INTERNAL","backendService":"bs"}`)
	wantError(t, e, "POST", "regions/r/compositeHealthChecks",
		`{"name":"c2","healthSources":["src","projects/p/regions/r/healthSources/src"],"healthDestination":"fr2"}`,
		400, "healthSources[1]", "is healthSources[0] again")
}

// Rules that span two resources hold when the used one changes too
// (regression: only the user's own writes were checked).
func TestReferencedChangesKeepCrossRules(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator0())
	compositeSetup(t, e, a.port())
	// A health source takes INTERNAL services only: the service cannot turn EXTERNAL under it.
	wantError(t, e, "PATCH", "regions/r/backendServices/bs", `{"loadBalancingScheme":"EXTERNAL"}`, 400,
		"projects/p/regions/r/healthSources/src uses projects/p/regions/r/backendServices/bs", "INTERNAL or INTERNAL_MANAGED backend service")
	var bs api.BackendService
	apiCall(t, e, "GET", "regions/r/backendServices/bs", "", &bs)
	if bs.LoadBalancingScheme != "INTERNAL_MANAGED" {
		t.Fatalf("refused change was stored: scheme %s", bs.LoadBalancingScheme)
	}
	// A check with sourceRegions cannot be used by a backend service.
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"g","checkIntervalSec":30,"tcpHealthCheck":{}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":1}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"gbs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["g"]}`)
	wantError(t, e, "PATCH", "global/healthChecks/g", `{"sourceRegions":["us-east1","us-west1","europe-west1"]}`, 400,
		"projects/p/global/backendServices/gbs uses projects/p/global/healthChecks/g", "cannot be used by a backend service")
	// A change that breaks no rule of its users goes through.
	mustCall(t, e, "PATCH", "global/healthChecks/g", `{"checkIntervalSec":40}`)
}

// A health source takes a backend service over an instance group, as the
// Compute API allows: its health follows the probes of the group's
// instances.
func TestComposite_InstanceGroupBackends(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "zones/r-a/instances", `{"name":"vm","networkInterfaces":[{"networkIP":"127.0.0.1"}]}`)
	mustCall(t, e, "POST", "zones/r-a/instanceGroups", `{"name":"ig","instances":["zones/r-a/instances/vm"],"namedPorts":[{"name":"http","port":`+a.port()+`}]}`)
	mustCall(t, e, "POST", "regions/r/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "regions/r/backendServices", `{"name":"bs","loadBalancingScheme":"INTERNAL_MANAGED",
		"backends":[{"group":"zones/r-a/instanceGroups/ig"}],"healthChecks":["hc"]}`)
	mustCall(t, e, "POST", "regions/r/healthAggregationPolicies", `{"name":"policy"}`)
	mustCall(t, e, "POST", "regions/r/healthSources", `{"name":"src","sourceType":"BACKEND_SERVICE","sources":["bs"],"healthAggregationPolicy":"policy"}`)
	source := func() string {
		var src api.HealthSourceHealth
		apiCall(t, e, "POST", "regions/r/healthSources/src/getHealth", "", &src)
		return src.HealthState
	}
	waitFor(t, "the source HEALTHY", func() bool { return source() == "HEALTHY" })
	a.status.Store(500)
	waitFor(t, "the source UNHEALTHY", func() bool { return source() == "UNHEALTHY" })
}
