package plan

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/firewall"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const (
	negPath  = "projects/p/zones/us-central1-a/networkEndpointGroups/web"
	webPath  = "projects/p/zones/us-central1-a/instances/web-1"
	svcPath  = "projects/p/global/backendServices/web"
	poolPath = "projects/p/regions/us-central1/targetPools/pool"
	fwPath   = "projects/p/global/firewalls/allow-probers"
	defNet   = "projects/p/global/networks/default"
)

// allowProbers lets the cloud's probers reach port on instances tagged tag.
func allowProbers(port, tag string) *api.Firewall {
	fw := &api.Firewall{Network: "http://emulator/compute/v1/" + defNet, SourceRanges: []string{"35.191.0.0/16", "209.85.152.0/22", "209.85.204.0/22"},
		Allowed: []api.FirewallRule{{IPProtocol: "tcp", Ports: []string{port}}}}
	if tag != "" {
		fw.TargetTags = []string{tag}
	}
	fw.Name = "allow-probers"
	return fw
}

// webPlanner plans a global external Application LB's service over a zonal
// NEG whose one endpoint is a tagged instance in the default network, probed
// on TCP 8080.
func webPlanner(mode FirewallMode) *Planner {
	p := NewPlanner(allowAll)
	p.SetFirewalls(mode, firewall.GoogleCloud)
	p.Set(hcPath, tcpCheck(8080))
	p.Set(webPath, &api.Instance{NetworkInterfaces: []api.NetworkInterface{{NetworkIP: "127.0.0.1", Network: defNet}},
		Tags: &api.Tags{Items: []string{"web"}}})
	p.Set(negPath, &api.NetworkEndpointGroup{NetworkEndpointType: api.GCEVMIPPort, Network: defNet,
		Endpoints: []api.NetworkEndpoint{{Instance: "web-1", Port: i64(8080)}}})
	bs := service(hcPath, negPath)
	bs.LoadBalancingScheme, bs.Protocol = api.SchemeExternalManaged, api.ProtocolHTTP
	p.Set(svcPath, bs)
	return p
}

func only(t *testing.T, targets []health.Target) health.Check {
	t.Helper()
	if len(targets) != 1 {
		t.Fatalf("%d targets, want 1: %+v", len(targets), targets)
	}
	return targets[0].Check
}

// Without a rule for the probers, the implied deny blocks them: warn says
// so and probes on, enforce blocks; a rule that lets them in re-plans the
// service (and only the owners in that network) and clears the finding.
func TestPlanner_FirewallFindings(t *testing.T) {
	for _, mode := range []FirewallMode{FirewallsWarn, FirewallsEnforce} {
		p := webPlanner(mode)
		c := only(t, p.Flush()[svcPath])
		if c.LoadBalancer != string(firewall.GlobalExternalALB) {
			t.Errorf("%s: load balancer %q, want %q", mode, c.LoadBalancer, firewall.GlobalExternalALB)
		}
		if !strings.Contains(c.Firewall, "every probe would be blocked") || !strings.Contains(c.Firewall, "tcp:8080 from 35.191.0.0/16") {
			t.Errorf("%s: finding %q, want every probe blocked and the rule to add", mode, c.Firewall)
		}
		if c.Blocked != (mode == FirewallsEnforce) {
			t.Errorf("%s: blocked %v", mode, c.Blocked)
		}

		p.Set("projects/p/global/firewalls/other-network", &api.Firewall{Network: "global/networks/other", SourceRanges: []string{"0.0.0.0/0"},
			Allowed: []api.FirewallRule{{IPProtocol: "all"}}})
		if got := p.Flush(); len(got) != 0 {
			t.Errorf("%s: a rule of another network re-planned %v", mode, slices.Collect(maps.Keys(got)))
		}
		p.Set(fwPath, allowProbers("8000-9000", "db"))
		if c := only(t, p.Flush()[svcPath]); c.Firewall == "" || c.Blocked != (mode == FirewallsEnforce) {
			t.Errorf("%s: a rule for another tag: finding %q blocked %v, want still blocked", mode, c.Firewall, c.Blocked)
		}
		p.Set(fwPath, allowProbers("8000-9000", "web"))
		if c := only(t, p.Flush()[svcPath]); c.Firewall != "" || c.Blocked {
			t.Errorf("%s: with the rule: finding %q blocked %v, want none", mode, c.Firewall, c.Blocked)
		}
		p.Set(fwPath, nil)
		if c := only(t, p.Flush()[svcPath]); c.Firewall == "" {
			t.Errorf("%s: rule deleted: no finding", mode)
		}
	}
}

// Off reads no rule; a target pool is warned of but never blocked (its
// probes may come through the metadata server).
func TestPlanner_FirewallModesAndExemptions(t *testing.T) {
	p := webPlanner(FirewallsOff)
	if c := only(t, p.Flush()[svcPath]); c.Firewall != "" || c.Blocked {
		t.Errorf("off: finding %q blocked %v", c.Firewall, c.Blocked)
	}

	p = webPlanner(FirewallsEnforce)
	p.Set(legacyPath, &api.LegacyHealthCheck{Port: i64(80), CheckIntervalSec: i64(5), TimeoutSec: i64(5), HealthyThreshold: i64(2), UnhealthyThreshold: i64(2)})
	p.Set(poolPath, &api.TargetPool{HealthChecks: []string{legacyPath}, Instances: []string{"zones/us-central1-a/instances/web-1"}})
	c := only(t, p.Flush()[poolPath])
	if c.LoadBalancer != string(firewall.ExternalPassthroughNLB) || !strings.Contains(c.Firewall, "tcp:80 from 35.191.0.0/16, 209.85.152.0/22, 209.85.204.0/22") || c.Blocked {
		t.Errorf("target pool: %q %q blocked %v, want warned with the three ranges, not blocked", c.LoadBalancer, c.Firewall, c.Blocked)
	}
}

// Envoy-based load balancers probe hybrid backends from the region's
// proxy-only subnet: without one, the finding says so.
func TestPlanner_ProxyOnlySubnet(t *testing.T) {
	p := NewPlanner(allowAll)
	p.SetFirewalls(FirewallsEnforce, firewall.GoogleCloud)
	const hybrid = "projects/p/zones/us-central1-a/networkEndpointGroups/onprem"
	const regional = "projects/p/regions/us-central1/backendServices/app"
	p.Set(hcPath, tcpCheck(80))
	p.Set(hybrid, &api.NetworkEndpointGroup{NetworkEndpointType: api.NonGCPPrivateIPPort, Network: defNet,
		Endpoints: []api.NetworkEndpoint{{IPAddress: "127.0.0.5", Port: i64(80)}}})
	bs := service(hcPath, hybrid)
	bs.LoadBalancingScheme, bs.Protocol = api.SchemeInternalManaged, api.ProtocolHTTP
	p.Set(regional, bs)
	c := only(t, p.Flush()[regional])
	if c.LoadBalancer != string(firewall.RegionalInternalALB) || !strings.Contains(c.Firewall, "no proxy-only subnet (purpose REGIONAL_MANAGED_PROXY) in region us-central1") || c.Blocked {
		t.Errorf("%q %q blocked %v, want the missing proxy-only subnet named, not blocked", c.LoadBalancer, c.Firewall, c.Blocked)
	}
	p.Set("projects/p/regions/us-central1/subnetworks/proxy-only", &api.Subnetwork{Network: defNet, IPCIDRRange: "10.129.0.0/23", Purpose: api.PurposeRegionalManagedProxy})
	if c := only(t, p.Flush()[regional]); c.Firewall != "" {
		t.Errorf("with the subnet: %q, want no finding", c.Firewall)
	}
}
