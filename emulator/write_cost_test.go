package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// do sends one API request (path under /compute/v1/projects/p/) and
// returns the decoded answer; it fails the test on anything but 200.
func do(t *testing.T, e *Emulator, method, path, body string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, e.URL()+"/compute/v1/projects/p/"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// unit creates, in region r, one of everything that takes part in
// planning and aggregation, named after prefix.
func unit(t *testing.T, e *Emulator, prefix string) {
	t.Helper()
	do(t, e, "POST", "regions/r/healthChecks", `{"name":"`+prefix+`-hc","tcpHealthCheck":{"port":80}}`)
	do(t, e, "POST", "regions/r/networkEndpointGroups", `{"name":"`+prefix+`-neg","defaultPort":80,
		"endpoints":[{"ipAddress":"127.0.0.1"},{"ipAddress":"127.0.0.2"}]}`)
	do(t, e, "POST", "regions/r/backendServices", `{"name":"`+prefix+`-bs","loadBalancingScheme":"INTERNAL_MANAGED",
		"backends":[{"group":"regions/r/networkEndpointGroups/`+prefix+`-neg"}],"healthChecks":["`+prefix+`-hc"]}`)
	do(t, e, "POST", "regions/r/healthAggregationPolicies", `{"name":"`+prefix+`-policy"}`)
	do(t, e, "POST", "regions/r/healthSources", `{"name":"`+prefix+`-src","sourceType":"BACKEND_SERVICE",
		"sources":["`+prefix+`-bs"],"healthAggregationPolicy":"`+prefix+`-policy"}`)
	do(t, e, "POST", "regions/r/forwardingRules", `{"name":"`+prefix+`-fr","loadBalancingScheme":"INTERNAL_MANAGED","backendService":"`+prefix+`-bs"}`)
	do(t, e, "POST", "regions/r/compositeHealthChecks", `{"name":"`+prefix+`-chc","healthSources":["`+prefix+`-src"],"healthDestination":"`+prefix+`-fr"}`)
	do(t, e, "POST", "global/httpHealthChecks", `{"name":"`+prefix+`-legacy"}`)
	do(t, e, "POST", "regions/r/targetPools", `{"name":"`+prefix+`-pool","instances":["127.0.0.1:80"],"healthChecks":["global/httpHealthChecks/`+prefix+`-legacy"]}`)
}

// work is what a sequence of writes cost.
type work struct {
	StoreReads uint64 // objects the store handed out
	Decoded    uint64 // objects sync decoded
	Plan       plan.PlanStats
}

func (e *Emulator) work() work {
	return work{StoreReads: e.store.(*store.Memory).ObjectsRead(), Decoded: e.state.decoded, Plan: e.state.planner.Stats()}
}

func (w work) minus(v work) work {
	return work{w.StoreReads - v.StoreReads, w.Decoded - v.Decoded,
		plan.PlanStats{Objects: w.Plan.Objects - v.Plan.Objects, Owners: w.Plan.Owners - v.Plan.Owners, Targets: w.Plan.Targets - v.Plan.Targets}}
}

// TestWrite_CostDoesNotGrowWithTheStore: the same writes cost the same work
// (objects read from the store, decoded, planned) whether 10 or 300 sets
// of resources are stored beside them (STYLE 17). Work is counted, not
// timed, so the test is exact and does not depend on the machine.
func TestWrite_CostDoesNotGrowWithTheStore(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("stores a few thousand resources")
	}
	var costs []work
	for _, size := range []int{10, 300} {
		// No network may be probed: planning runs in full, probing not at all.
		e, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", InMemory: true, ProbeNetworks: []netip.Prefix{}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range size {
			unit(t, e, fmt.Sprintf("u%03d", i))
		}
		before := e.work()
		unit(t, e, "x") // inserts of every kind
		do(t, e, "PATCH", "regions/r/healthChecks/x-hc", `{"checkIntervalSec":10,"timeoutSec":10}`)
		do(t, e, "PATCH", "regions/r/networkEndpointGroups/x-neg", `{"endpoints":[{"ipAddress":"127.0.0.3"}]}`)
		do(t, e, "PATCH", "regions/r/healthChecks/u000-hc", `{"description":"a check every stored set could have used"}`)
		policy := do(t, e, "GET", "regions/r/healthAggregationPolicies/x-policy", "")
		do(t, e, "PATCH", "regions/r/healthAggregationPolicies/x-policy", fmt.Sprintf(`{"healthyPercentThreshold":80,"fingerprint":%q}`, policy["fingerprint"]))
		do(t, e, "PATCH", "regions/r/targetPools/x-pool", `{"instances":["127.0.0.1:81"]}`)
		for _, path := range []string{"regions/r/compositeHealthChecks/x-chc", "regions/r/forwardingRules/x-fr", "regions/r/healthSources/x-src",
			"regions/r/healthAggregationPolicies/x-policy", "regions/r/targetPools/x-pool", "global/httpHealthChecks/x-legacy",
			"regions/r/backendServices/x-bs", "regions/r/networkEndpointGroups/x-neg", "regions/r/healthChecks/x-hc"} {
			do(t, e, "DELETE", path, "")
		}
		cost := e.work().minus(before)
		t.Logf("%d sets stored: %+v", size, cost)
		costs = append(costs, cost)
		e.Close()
	}
	if costs[0] != costs[1] {
		t.Fatalf("the same writes cost %+v beside 10 sets and %+v beside 300: work grows with the store", costs[0], costs[1])
	}
	// And what they cost is what they change: 25 writes, each planning
	// at most the one owner it touches.
	if c := costs[0]; c.Plan.Owners > 25 || c.Decoded > 25 {
		t.Fatalf("25 writes planned %d owners and decoded %d objects", c.Plan.Owners, c.Decoded)
	}
}

// TestSync_InstancesResolveAndTheirChangesReplan: an endpoint that names
// an instance and no address is probed at the instance's primary address,
// follows it when it changes, and says why it is not probed when the
// instance is gone.
func TestSync_InstancesResolveAndTheirChangesReplan(t *testing.T) {
	t.Parallel()
	e, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", InMemory: true, ProbeNetworks: []netip.Prefix{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	key := func(scope, collection, name string) store.Key {
		return store.Key{Project: "p", Scope: scope, Collection: collection, Name: name}
	}
	put := func(k store.Key, v any) {
		b, _ := json.Marshal(v)
		if err := e.store.Insert(ctx, store.Object{Key: k, Body: b}); err != nil {
			e.store.Update(ctx, store.Object{Key: k, Body: b})
		}
		if err := e.sync(ctx, []core.Change{{Key: k, Unknown: true}}); err != nil {
			t.Fatal(err)
		}
	}
	port := int64(80)
	hc := &api.HealthCheck{Type: "TCP", TCPHealthCheck: &api.TCPHealthCheck{}}
	hc.TCPHealthCheck.Port = &port
	put(key("global", api.CollectionHealthChecks, "hc"), hc)
	put(key("zones/z", "networkEndpointGroups", "neg"), &api.NetworkEndpointGroup{NetworkEndpointType: api.GCEVMIP,
		Endpoints: []api.NetworkEndpoint{{Instance: "vm", State: api.EndpointRunning}}})
	put(key("global", "backendServices", "bs"), &api.BackendService{HealthChecks: []string{"projects/p/global/healthChecks/hc"},
		Backends: []api.Backend{{Group: "projects/p/zones/z/networkEndpointGroups/neg"}}})
	status := func() health.Status {
		t.Helper()
		sts := e.engine.Statuses("projects/p/global/backendServices/bs")
		if len(sts) != 1 {
			t.Fatalf("%d statuses, want 1", len(sts))
		}
		return sts[0]
	}
	if st := status(); st.Reason != health.ReasonNotProbed || !strings.Contains(st.Detail, "projects/p/zones/z/instances/vm does not exist") {
		t.Fatalf("before the instance: %+v", st)
	}
	vm := key("zones/z", api.CollectionInstances, "vm")
	put(vm, &api.Instance{NetworkInterfaces: []api.NetworkInterface{{NetworkIP: "10.1.2.3"}}})
	if st := status(); st.Endpoint.IP != "10.1.2.3" || !strings.Contains(st.Detail, "--probe-networks") {
		t.Fatalf("with the instance: %+v, want its address (outside the probe networks)", st)
	}
	put(vm, &api.Instance{NetworkInterfaces: []api.NetworkInterface{{NetworkIP: "10.1.2.4"}}})
	if st := status(); st.Endpoint.IP != "10.1.2.4" {
		t.Fatalf("after the instance moved: %+v", st)
	}
	e.store.Delete(ctx, vm)
	e.sync(ctx, []core.Change{{Key: vm, Unknown: true}})
	if st := status(); st.Endpoint.IP != "" || !strings.Contains(st.Detail, "does not exist") {
		t.Fatalf("after the instance was deleted: %+v", st)
	}
}
