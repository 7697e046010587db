package emulator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// An autoscaler sizes its managed group by the traffic the data plane
// carries to it: load above the target (RATE backends of 5 requests/s an
// instance, at 0.5) grows the group from 1 to its maximum of 3, whose new
// instances serve; once the load stops, the group shrinks back to 1 after
// the cool-down. The emulator runs 100 times faster, so the minute of
// measuring and of cool-down take little real time; the test waits on
// outcomes, in order.
func TestAutoscaler_GrowsUnderLoadAndShrinksWhenItStops(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, Workloads: true, TimeScale: 100,
		ManagedInstanceRange: netip.MustParsePrefix("127.1.204.0/29")})
	mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
		"unhealthyThreshold": 1, "httpHealthCheck": {"port": 8080, "requestPath": "/"}}`)
	mustCall(t, e, "POST", "global/instanceTemplates", `{"name": "web", "properties": {"machineType": "e2-small", "networkInterfaces": [{}]}}`)
	mustCall(t, e, "POST", "zones/us-east1-b/instanceGroupManagers", `{"name": "mig", "baseInstanceName": "web",
		"instanceTemplate": "global/instanceTemplates/web", "targetSize": 1, "namedPorts": [{"name": "http", "port": 8080}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "protocol": "HTTP", "portName": "http", "loadBalancingScheme": "EXTERNAL_MANAGED",
		"healthChecks": ["global/healthChecks/hc"], "backends": [{"group": "zones/us-east1-b/instanceGroups/mig", "balancingMode": "RATE", "maxRatePerInstance": 5}]}`)
	lb := applicationLB(t, e, freePort(t), `{"name": "um", "defaultService": "global/backendServices/bs"}`)
	mustCall(t, e, "POST", "zones/us-east1-b/autoscalers", `{"name": "as", "target": "zones/us-east1-b/instanceGroupManagers/mig",
		"autoscalingPolicy": {"minNumReplicas": 1, "maxNumReplicas": 3, "coolDownPeriodSec": 60, "loadBalancingUtilization": {"utilizationTarget": 0.5}}}`)
	size := func() int64 {
		var m api.InstanceGroupManager
		apiCall(t, e, "GET", "zones/us-east1-b/instanceGroupManagers/mig", "", &m)
		return *m.TargetSize
	}
	waitFor(t, "the instance serving", func() bool { code, _, _ := get(t, lb+"/"); return code == 200 })

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			c := &http.Client{}
			for ctx.Err() == nil {
				if resp, err := c.Get(lb + "/"); err == nil {
					resp.Body.Close()
				}
			}
		})
	}
	waitFor(t, "the group grown to its maximum under load", func() bool { return size() == 3 })
	waitFor(t, "three instances answering", func() bool { return len(groupHealthOf(t, e)) == 3 })
	stop()
	wg.Wait()
	waitFor(t, "the group back to its minimum once the load stopped", func() bool { return size() == 1 })

	var as api.Autoscaler
	apiCall(t, e, "GET", "zones/us-east1-b/autoscalers/as", "", &as)
	if as.Status != "ACTIVE" || as.RecommendedSize == nil || *as.RecommendedSize != 1 {
		t.Errorf("autoscaler %+v, want ACTIVE recommending 1", as)
	}
	_, _, tl := get(t, e.URL()+"/_emulator/timeline?kind=autoscaler")
	var page api.TimelinePage
	if err := json.Unmarshal([]byte(tl), &page); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, ev := range page.Events {
		steps = append(steps, ev.From+">"+ev.To)
		if ev.Resource != "projects/p/zones/us-east1-b/autoscalers/as" || ev.Group != "projects/p/zones/us-east1-b/instanceGroupManagers/mig" ||
			!strings.Contains(ev.Cause, "requests/s") {
			t.Errorf("event %+v: want the autoscaler, its group and the load", ev)
		}
	}
	if len(steps) < 2 || !strings.HasPrefix(steps[0], "1>") || !strings.HasSuffix(steps[len(steps)-1], ">1") {
		t.Errorf("resizes %v, want growth from 1 first and back to 1 last", steps)
	}
}

// groupHealthOf is the health of each instance of mig behind bs, by name.
func groupHealthOf(t *testing.T, e *emulator.Emulator) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, state := range groupHealth(t, e) {
		if state == "HEALTHY" {
			out[name] = state
		}
	}
	return out
}
