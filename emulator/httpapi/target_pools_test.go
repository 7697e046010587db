package httpapi_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const (
	poolsPath       = "/compute/v1/projects/p/regions/us-east1/targetPools"
	legacyHTTPPath  = "/compute/v1/projects/p/global/httpHealthChecks"
	legacyHTTPSPath = "/compute/v1/projects/p/global/httpsHealthChecks"
	rulesPath       = "/compute/v1/projects/p/regions/us-east1/forwardingRules"
	globalRulesPath = "/compute/v1/projects/p/global/forwardingRules"
)

func (e *emu) pool(name string) api.TargetPool {
	e.t.Helper()
	var tp api.TargetPool
	e.ok("GET", poolsPath+"/"+name, "", &tp)
	return tp
}

func TestTargetPool_AddRemoveInstance(t *testing.T) {
	e := newEmu(t)
	e.insert(instancesPath, `{"name": "vm", "networkInterfaces": [{"networkIP": "127.0.0.1"}]}`)
	e.insert("/compute/v1/projects/p/zones/us-west1-a/instances", `{"name": "far"}`)
	e.insert(poolsPath, `{"name": "pool"}`)
	pool := poolsPath + "/pool"

	var op api.Operation
	e.ok("POST", pool+"/addInstance", `{"instances": [{"instance": "zones/us-east1-b/instances/vm"}, {"instance": "127.0.0.2:8080"}]}`, &op)
	if op.OperationType != "addInstance" || e.path(op.TargetLink) != pool {
		t.Errorf("operation = %+v", op)
	}
	tp := e.pool("pool")
	if len(tp.Instances) != 2 || e.path(tp.Instances[0]) != instancesPath+"/vm" || tp.Instances[1] != "127.0.0.2:8080" {
		t.Fatalf("pool = %+v", tp)
	}
	for _, tt := range []struct{ body, want string }{
		{`{"instances": [{"instance": "` + e.url + instancesPath + `/vm"}]}`, "is already an instance of target pool pool"},
		{`{"instances": [{"instance": "zones/us-west1-a/instances/far"}]}`, "is in zone us-west1-a: a target pool takes instances of its own region (us-east1)"},
		{`{"instances": [{"instance": "vm"}]}`, `instances[0].instance ("vm") must be an endpoint address, "ip" or "ip:port", or the URL of an instance`},
	} {
		wantMessage(t, e.fail("POST", pool+"/addInstance", tt.body, 400, api.ReasonInvalid), tt.want)
	}
	// An empty list changes nothing, and is answered as any change is:
	// terraform-provider-google sends both on every update of a pool.
	for _, method := range []string{"addInstance", "removeInstance"} {
		e.ok("POST", pool+"/"+method, `{"instances": []}`, &op)
		if tp := e.pool("pool"); op.OperationType != method || len(tp.Instances) != 2 {
			t.Errorf("%s of no instances: operation %+v, pool %+v", method, op, tp)
		}
	}
	e.ok("POST", pool+"/removeInstance", `{"instances": [{"instance": "projects/p/zones/us-east1-b/instances/vm"}]}`, &op)
	if op.OperationType != "removeInstance" {
		t.Errorf("operation = %+v", op)
	}
	if tp := e.pool("pool"); len(tp.Instances) != 1 || tp.Instances[0] != "127.0.0.2:8080" {
		t.Errorf("pool after remove = %+v", tp)
	}
	wantMessage(t, e.fail("POST", pool+"/removeInstance", `{"instances": [{"instance": "zones/us-east1-b/instances/vm"}]}`, 400, api.ReasonInvalid),
		"is not an instance of target pool pool")
	e.fail("POST", poolsPath+"/nope/addInstance", `{"instances": [{"instance": "127.0.0.1"}]}`, 404, api.ReasonNotFound)
	// An instance URL given when the pool is created is checked the same
	// way, but, as in the Compute API, it may name an instance that does not
	// exist yet (it is probed once it does).
	wantMessage(t, e.fail("POST", poolsPath, `{"name": "p2", "instances": ["zones/us-west1-a/instances/far"]}`, 400, api.ReasonInvalid),
		"a target pool takes instances of its own region")
	e.insert(poolsPath, `{"name": "p2", "instances": ["zones/us-east1-b/instances/later"]}`)
	e.ok("POST", pool+"/addInstance", `{"instances": [{"instance": "zones/us-east1-b/instances/later"}]}`, nil)
	if tp := e.pool("p2"); len(tp.Instances) != 1 || e.path(tp.Instances[0]) != instancesPath+"/later" {
		t.Errorf("pool naming an instance not made yet = %+v", tp)
	}
}

func TestTargetPool_AddRemoveHealthCheck(t *testing.T) {
	e := newEmu(t)
	e.insert(legacyHTTPPath, `{"name": "hc"}`)
	e.insert(legacyHTTPPath, `{"name": "hc2"}`)
	e.insert(legacyHTTPSPath, `{"name": "secure"}`)
	e.insert(poolsPath, `{"name": "pool"}`)
	pool := poolsPath + "/pool"
	var op api.Operation
	e.ok("POST", pool+"/addHealthCheck", `{"healthChecks": [{"healthCheck": "global/httpHealthChecks/hc"}]}`, &op)
	if op.OperationType != "addHealthCheck" {
		t.Errorf("operation = %+v", op)
	}
	if tp := e.pool("pool"); len(tp.HealthChecks) != 1 || e.path(tp.HealthChecks[0]) != legacyHTTPPath+"/hc" {
		t.Fatalf("pool = %+v", tp)
	}
	for _, tt := range []struct{ body, want string }{
		{`{"healthChecks": [{"healthCheck": "hc"}]}`, "is already the health check of target pool pool"},
		{`{"healthChecks": [{"healthCheck": "hc2"}]}`, "healthChecks lists 2 health checks: target pools take one legacy HTTP health check only"},
	} {
		wantMessage(t, e.fail("POST", pool+"/addHealthCheck", tt.body, 400, api.ReasonInvalid), tt.want)
	}
	wantMessage(t, e.fail("DELETE", legacyHTTPPath+"/hc", "", 400, api.ReasonResourceInUse), "targetPools/pool")
	for _, method := range []string{"addHealthCheck", "removeHealthCheck"} {
		e.ok("POST", pool+"/"+method, `{"healthChecks": []}`, &op)
		if tp := e.pool("pool"); op.OperationType != method || len(tp.HealthChecks) != 1 {
			t.Errorf("%s of no checks: operation %+v, pool %+v", method, op, tp)
		}
	}
	e.ok("POST", pool+"/removeHealthCheck", `{"healthChecks": [{"healthCheck": "`+e.url+legacyHTTPPath+`/hc"}]}`, &op)
	if tp := e.pool("pool"); len(tp.HealthChecks) != 0 || op.OperationType != "removeHealthCheck" {
		t.Errorf("pool after remove = %+v, operation %+v", tp, op)
	}
	wantMessage(t, e.fail("POST", pool+"/removeHealthCheck", `{"healthChecks": [{"healthCheck": "hc"}]}`, 400, api.ReasonInvalid),
		"is not a health check of target pool pool")
	wantMessage(t, e.fail("POST", pool+"/addHealthCheck", `{"healthChecks": [{"healthCheck": "nope"}]}`, 404, api.ReasonNotFound),
		"projects/p/global/httpHealthChecks/nope, which does not exist")
	wantMessage(t, e.fail("POST", pool+"/addHealthCheck", `{"healthChecks": [{"healthCheck": "global/httpsHealthChecks/secure"}]}`, 400, api.ReasonInvalid),
		"is a legacy HTTPS health check: target pools take one legacy HTTP health check only")
	e.fail("POST", poolsPath+"/nope/removeHealthCheck", `{"healthChecks": [{"healthCheck": "hc"}]}`, 404, api.ReasonNotFound)
}

func TestForwardingRules_SetTarget(t *testing.T) {
	e := newEmu(t)
	e.insert(poolsPath, `{"name": "p1"}`)
	e.insert(poolsPath, `{"name": "p2"}`)
	e.insert(rulesPath, `{"name": "fr", "target": "p1"}`)
	var op api.Operation
	e.ok("POST", rulesPath+"/fr/setTarget", `{"target": "regions/us-east1/targetPools/p2"}`, &op)
	if op.OperationType != "setTarget" || e.path(op.TargetLink) != rulesPath+"/fr" {
		t.Errorf("operation = %+v", op)
	}
	var fr api.ForwardingRule
	e.ok("GET", rulesPath+"/fr", "", &fr)
	if e.path(fr.Target) != poolsPath+"/p2" {
		t.Errorf("rule = %+v", fr)
	}
	e.ok("DELETE", poolsPath+"/p1", "", nil) // no longer used
	wantMessage(t, e.fail("POST", rulesPath+"/fr/setTarget", `{"target": "nope"}`, 404, api.ReasonNotFound), "targetPools/nope, which does not exist")
	wantMessage(t, e.fail("POST", rulesPath+"/fr/setTarget", `{}`, 400, api.ReasonInvalid), "target is required")
	e.fail("POST", rulesPath+"/nope/setTarget", `{"target": "p2"}`, 404, api.ReasonNotFound)

	// globalForwardingRules: global/forwardingRules, with setTarget; no
	// target the emulator models is global.
	e.insert("/compute/v1/projects/p/global/backendServices", `{"name": "bs"}`)
	e.insert(globalRulesPath, `{"name": "gfr", "backendService": "bs"}`)
	e.ok("GET", globalRulesPath+"/gfr", "", nil)
	wantMessage(t, e.fail("POST", globalRulesPath+"/gfr/setTarget", `{"target": "regions/us-east1/targetPools/p2"}`, 400, api.ReasonInvalid),
		"backendService and target are both set")
}

// fakeHealth is a HealthReader with fixed statuses per owner.
type fakeHealth map[string][]health.Status

func (f fakeHealth) Statuses(owner string) []health.Status { return f[owner] }

// newEmuHealth serves the API with h as its probe engine.
func newEmuHealth(t *testing.T, h httpapi.HealthReader) *emu {
	t.Helper()
	st := store.NewMemory()
	ts := httptest.NewUnstartedServer(nil)
	root := "http://" + ts.Listener.Addr().String()
	srv := httpapi.New(st, httpapi.Options{RootURL: root, Log: slog.New(slog.NewTextHandler(errorLog{t}, &slog.HandlerOptions{Level: slog.LevelError})), Health: h})
	ts.Config.Handler = srv
	ts.Start()
	t.Cleanup(ts.Close)
	return &emu{t: t, url: root, store: st}
}

// TestHealth_Enums: getHealth answers with the Compute API's HealthStatus
// enum (HEALTHY, UNHEALTHY): an endpoint with no verdict yet is UNHEALTHY,
// reason UNKNOWN. listNetworkEndpoints, whose enum has UNKNOWN, says so.
func TestHealth_Enums(t *testing.T) {
	const (
		bs  = "projects/p/global/backendServices/bs"
		neg = "projects/p/zones/us-east1-b/networkEndpointGroups/neg"
		hc  = "projects/p/global/healthChecks/hc"
	)
	h := fakeHealth{bs: {
		{Owner: bs, Group: neg, Endpoint: health.Endpoint{IP: "127.0.0.1", Port: 80}, Check: hc, State: api.StateUnknown},
		{Owner: bs, Group: neg, Endpoint: health.Endpoint{IP: "127.0.0.2", Port: 80}, Check: hc, State: api.StateHealthy, LastProbe: time.Now()},
	}}
	e := newEmuHealth(t, h)
	e.insert("/compute/v1/"+"projects/p/global/healthChecks", `{"name": "hc", "tcpHealthCheck": {"port": 80}}`)
	e.insert(zonalNEGs, `{"name": "neg", "defaultPort": 80, "endpoints": [{"ipAddress": "127.0.0.1"}, {"ipAddress": "127.0.0.2"}]}`)
	e.insert("/compute/v1/projects/p/global/backendServices", `{"name": "bs", "protocol": "TCP", "healthChecks": ["hc"], "backends": [{"group": "`+neg+`"}]}`)

	var gh api.BackendServiceGroupHealth
	e.ok("POST", "/compute/v1/"+bs+"/getHealth", "", &gh)
	if len(gh.HealthStatus) != 2 {
		t.Fatalf("getHealth = %+v", gh)
	}
	if s := gh.HealthStatus[0]; s.HealthState != "UNHEALTHY" || s.Reason != api.ReasonNoVerdict || s.State() != "UNKNOWN" {
		t.Errorf("no verdict yet: %+v", s)
	}
	if s := gh.HealthStatus[1]; s.HealthState != "HEALTHY" || s.Reason != "" {
		t.Errorf("healthy: %+v", s)
	}

	l := e.listEndpoints("/compute/v1/"+neg, "", `{"healthStatus": "SHOW"}`)
	if len(l.Items) != 2 {
		t.Fatalf("list = %+v", l)
	}
	for i, want := range []string{"UNKNOWN", "HEALTHY"} {
		hs := l.Items[i].Healths
		if len(hs) != 1 || hs[0].HealthState != want || e.path(hs[0].BackendService.BackendService) != "/compute/v1/"+bs ||
			e.path(hs[0].HealthCheck.HealthCheck) != "/compute/v1/"+hc {
			t.Errorf("item %d healths = %+v, want one %s for bs", i, hs, want)
		}
	}
}

// TestForwardingRules_NetworkAndSubnetwork: the network and subnetwork a
// rule names must exist, the subnetwork in the rule's region and network;
// they are stored as URLs and cannot be deleted while the rule uses them.
func TestForwardingRules_NetworkAndSubnetwork(t *testing.T) {
	e := newEmu(t)
	e.insert(poolsPath, `{"name": "p1"}`)
	e.insert("/compute/v1/projects/p/global/networks", `{"name": "net", "autoCreateSubnetworks": false}`)
	e.insert("/compute/v1/projects/p/global/networks", `{"name": "other", "autoCreateSubnetworks": false}`)
	e.insert("/compute/v1/projects/p/regions/us-east1/subnetworks", `{"name": "sub", "network": "global/networks/net", "ipCidrRange": "10.0.0.0/24"}`)
	e.insert("/compute/v1/projects/p/regions/us-west1/subnetworks", `{"name": "far", "network": "global/networks/net", "ipCidrRange": "10.0.1.0/24"}`)
	before := e.snapshot()
	wantMessage(t, e.fail("POST", rulesPath, `{"name": "fr", "target": "p1", "network": "global/networks/nope"}`, 404, api.ReasonNotFound),
		`network ("global/networks/nope") refers to projects/p/global/networks/nope, which does not exist.`)
	wantMessage(t, e.fail("POST", rulesPath, `{"name": "fr", "target": "p1", "subnetwork": "nope"}`, 404, api.ReasonNotFound),
		`subnetwork ("nope") refers to projects/p/regions/us-east1/subnetworks/nope, which does not exist.`)
	wantMessage(t, e.fail("POST", rulesPath, `{"name": "fr", "target": "p1", "subnetwork": "regions/us-west1/subnetworks/far"}`, 400, api.ReasonInvalid),
		`subnetwork ("regions/us-west1/subnetworks/far") is in regions/us-west1: a forwarding rule in region us-east1 takes a subnetwork of its own region.`)
	wantMessage(t, e.fail("POST", rulesPath, `{"name": "fr", "target": "p1", "network": "other", "subnetwork": "sub"}`, 400, api.ReasonInvalid),
		`subnetwork ("sub") is a range of network net, not of network ("other").`)
	if after := e.snapshot(); after != before {
		t.Fatalf("refused rules changed what is stored:\n%s\n%s", before, after)
	}

	e.insert(rulesPath, `{"name": "fr", "target": "p1", "network": "net", "subnetwork": "sub"}`)
	var fr api.ForwardingRule
	e.ok("GET", rulesPath+"/fr", "", &fr)
	if e.path(fr.Network) != "/compute/v1/projects/p/global/networks/net" || e.path(fr.Subnetwork) != "/compute/v1/projects/p/regions/us-east1/subnetworks/sub" {
		t.Errorf("network %q, subnetwork %q: want their URLs", fr.Network, fr.Subnetwork)
	}
	e.fail("DELETE", "/compute/v1/projects/p/regions/us-east1/subnetworks/sub", "", 400, api.ReasonResourceInUse)
}
