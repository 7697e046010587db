package httpapi_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Autohealing and autoscaling read the managed groups, autoscalers,
// instances and backend services the change feed keeps decoded: a tick
// reads nothing from the store, and sees each write, by a client or by a
// control loop, as soon as it is made.
func TestControlLoops_ReadWhatTheFeedKeepsNotTheStore(t *testing.T) {
	st := store.NewMemory()
	srv := httpapi.New(st, httpapi.Options{RootURL: "http://127.0.0.1:8686"})
	t.Cleanup(srv.Close)
	call := func(method, path, body string) {
		t.Helper()
		r := httptest.NewRequest(method, "http://127.0.0.1:8686/compute/v1/projects/p/"+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
	}
	call("POST", "global/healthChecks", `{"name":"hc","tcpHealthCheck":{"port":80}}`)
	call("POST", "global/instanceTemplates", `{"name":"tpl","properties":{"machineType":"e2-small","networkInterfaces":[{}]}}`)
	call("POST", "zones/us-east1-b/instanceGroupManagers", `{"name":"mig","baseInstanceName":"web","instanceTemplate":"global/instanceTemplates/tpl",
		"targetSize":2,"autoHealingPolicies":[{"healthCheck":"global/healthChecks/hc","initialDelaySec":60}]}`)
	call("POST", "global/backendServices", `{"name":"bs","protocol":"HTTP","loadBalancingScheme":"EXTERNAL_MANAGED","healthChecks":["global/healthChecks/hc"],
		"backends":[{"group":"zones/us-east1-b/instanceGroups/mig","balancingMode":"RATE","maxRatePerInstance":5}]}`)
	call("POST", "zones/us-east1-b/autoscalers", `{"name":"as","target":"zones/us-east1-b/instanceGroupManagers/mig",
		"autoscalingPolicy":{"minNumReplicas":1,"maxNumReplicas":3,"loadBalancingUtilization":{"utilizationTarget":0.5}}}`)

	ctx := context.Background()
	groups, scalers := srv.Compute().ManagedGroups(), srv.Compute().ScaledGroups()
	read := st.ObjectsRead()
	managers, err := groups.Managers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	autoscalers, err := scalers.Autoscalers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.ObjectsRead() - read; n != 0 {
		t.Errorf("a tick of autohealing and autoscaling read %d objects from the store, want 0", n)
	}
	if len(managers) != 1 || managers[0].Size != 2 || len(managers[0].Instances) != 2 {
		t.Fatalf("managers %+v, want mig with its 2 instances", managers)
	}
	if len(autoscalers) != 1 || autoscalers[0].Size != 2 || autoscalers[0].PerInstance != 5 {
		t.Fatalf("autoscalers %+v, want as sizing mig (2) at 5 requests/s an instance", autoscalers)
	}

	// A client's resize, and an autoscaler's own, are seen at once.
	call("POST", "zones/us-east1-b/instanceGroupManagers/mig/resize?size=3", "")
	if managers, _ := groups.Managers(ctx); len(managers) != 1 || managers[0].Size != 3 || len(managers[0].Instances) != 3 {
		t.Errorf("after a resize to 3: %+v", managers)
	}
	if err := scalers.Resize(ctx, autoscalers[0].Manager, 1); err != nil {
		t.Fatal(err)
	}
	if autoscalers, _ := scalers.Autoscalers(ctx); len(autoscalers) != 1 || autoscalers[0].Size != 1 {
		t.Errorf("after the autoscaler resized to 1: %+v", autoscalers)
	}
	if err := scalers.Recommend(ctx, autoscalers[0].Autoscaler, 1, nil); err != nil {
		t.Fatal(err)
	}
	if autoscalers, _ := scalers.Autoscalers(ctx); len(autoscalers) != 1 || autoscalers[0].Recommended != 1 {
		t.Errorf("after a recommendation of 1: %+v", autoscalers)
	}
	call("DELETE", "zones/us-east1-b/autoscalers/as", "")
	if autoscalers, _ := scalers.Autoscalers(ctx); len(autoscalers) != 0 {
		t.Errorf("after the autoscaler's delete: %+v", autoscalers)
	}
}
