package plan

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const link = "http://emulator/compute/v1/"

// With multiplicity on, a backend is probed once per target proxy that
// leads to its service (through a URL map, or directly for TCP and SSL
// proxies), or per forwarding rule that names its passthrough service or
// pool; adding or removing one re-plans the owners it counts for. Off, or
// with no front end, it is probed once.
func TestPlanner_ProbeMultiplicity(t *testing.T) {
	const (
		internal = "projects/p/regions/us-central1/backendServices/internal"
		mapPath  = "projects/p/global/urlMaps/web"
	)
	p := webPlanner(FirewallsOff)
	p.SetProbeMultiplicity(true)
	p.Set(internal, service(hcPath, negPath))
	p.Set(poolPath, &api.TargetPool{HealthChecks: []string{hcPath}, Instances: []string{"zones/us-central1-a/instances/web-1"}})
	multiplicity := func(owner string, got map[string][]health.Target) int {
		t.Helper()
		return only(t, got[owner]).Multiplicity
	}
	got := p.Flush()
	for _, owner := range []string{svcPath, internal, poolPath} {
		if m := multiplicity(owner, got); m != 1 {
			t.Errorf("%s with no front end: multiplicity %d, want 1", owner, m)
		}
	}

	p.Set(mapPath, &api.URLMap{DefaultService: link + svcPath, PathMatchers: []api.PathMatcher{{DefaultService: link + svcPath}}})
	p.Set("projects/p/global/targetHttpProxies/a", &api.TargetHTTPProxy{URLMap: link + mapPath})
	p.Set("projects/p/global/targetHttpsProxies/b", &api.TargetHTTPSProxy{URLMap: link + mapPath})
	p.Set("projects/p/global/targetTcpProxies/c", &api.TargetTCPProxy{Service: link + svcPath})
	// A rule whose target is a proxy counts through the proxy, not again.
	p.Set("projects/p/global/forwardingRules/to-proxy", &api.ForwardingRule{Target: link + "projects/p/global/targetHttpProxies/a"})
	for _, name := range []string{"one", "two"} {
		p.Set("projects/p/regions/us-central1/forwardingRules/"+name, &api.ForwardingRule{BackendService: link + internal})
		p.Set("projects/p/regions/us-central1/forwardingRules/pool-"+name, &api.ForwardingRule{Target: link + poolPath})
	}
	got = p.Flush()
	for owner, want := range map[string]int{svcPath: 3, internal: 2, poolPath: 2} {
		if m := multiplicity(owner, got); m != want {
			t.Errorf("%s: multiplicity %d, want %d", owner, m, want)
		}
	}

	p.Set("projects/p/global/targetHttpsProxies/b", nil)
	got = p.Flush()
	if m := multiplicity(svcPath, got); m != 2 || len(got) != 1 {
		t.Errorf("a proxy deleted: %s multiplicity %d, %d owners re-planned; want 2, only it", svcPath, m, len(got))
	}
	p.Set(mapPath, &api.URLMap{DefaultService: link + internal})
	if m := multiplicity(svcPath, p.Flush()); m != 1 {
		t.Errorf("the URL map no longer leads to %s: multiplicity %d, want 1 (the TCP proxy)", svcPath, m)
	}

	off := webPlanner(FirewallsOff)
	off.Set("projects/p/global/targetTcpProxies/c", &api.TargetTCPProxy{Service: link + svcPath})
	if m := multiplicity(svcPath, off.Flush()); m != 0 {
		t.Errorf("off: multiplicity %d, want 0 (once)", m)
	}
}
