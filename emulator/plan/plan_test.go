package plan

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"

	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func allowAll(netip.Addr) bool { return true }

func i64(v int64) *int64 { return &v }

const (
	hcPath     = "projects/p/global/healthChecks/hc"
	legacyPath = "projects/p/global/httpHealthChecks/legacy"
	vmPath     = "projects/p/zones/z/instances/vm"
)

func tcpCheck(port int64) *api.HealthCheck {
	hc := &api.HealthCheck{Type: "TCP", CheckIntervalSec: i64(5), TimeoutSec: i64(5), HealthyThreshold: i64(2), UnhealthyThreshold: i64(2),
		TCPHealthCheck: &api.TCPHealthCheck{}}
	hc.TCPHealthCheck.Port = i64(port)
	return hc
}

func group(endpoints ...api.NetworkEndpoint) *api.NetworkEndpointGroup {
	return &api.NetworkEndpointGroup{NetworkEndpointType: api.GCEVMIP, Endpoints: endpoints}
}

func service(check string, groups ...string) *api.BackendService {
	bs := &api.BackendService{HealthChecks: []string{check}}
	for _, g := range groups {
		bs.Backends = append(bs.Backends, api.Backend{Group: "http://emulator/compute/v1/" + g})
	}
	return bs
}

func vm(ip string) *api.Instance {
	return &api.Instance{NetworkInterfaces: []api.NetworkInterface{{NetworkIP: ip}}}
}

// A change re-plans the owners that depend on it and no other: a check its
// users, a group the services it backs, an instance the groups (and so
// services) and pools that name it.
func TestPlanner_ChangeReplansOnlyWhatDependsOnIt(t *testing.T) {
	p := NewPlanner(allowAll)
	p.Set(hcPath, tcpCheck(80))
	p.Set("projects/p/global/healthChecks/other", tcpCheck(81))
	p.Set(legacyPath, &api.LegacyHealthCheck{Port: i64(8080), CheckIntervalSec: i64(5), TimeoutSec: i64(5), HealthyThreshold: i64(2), UnhealthyThreshold: i64(2)})
	p.Set("projects/p/zones/z/networkEndpointGroups/a", group(api.NetworkEndpoint{IPAddress: "127.0.0.1"}))
	p.Set("projects/p/zones/z/networkEndpointGroups/b", group(api.NetworkEndpoint{Instance: "vm"}))
	p.Set("projects/p/global/backendServices/s1", service(hcPath, "projects/p/zones/z/networkEndpointGroups/a"))
	p.Set("projects/p/global/backendServices/s2", service("projects/p/global/healthChecks/other", "projects/p/zones/z/networkEndpointGroups/b"))
	p.Set("projects/p/regions/r/targetPools/pool", &api.TargetPool{HealthChecks: []string{legacyPath}, Instances: []string{"zones/z/instances/vm"}})
	p.Set("projects/p/global/backendServices/s3", service(hcPath))
	p.Flush()

	for _, tc := range []struct {
		path string
		obj  any
		want []string
	}{
		{hcPath, tcpCheck(90), []string{"projects/p/global/backendServices/s1", "projects/p/global/backendServices/s3"}},
		{"projects/p/zones/z/networkEndpointGroups/a", group(api.NetworkEndpoint{IPAddress: "127.0.0.2"}), []string{"projects/p/global/backendServices/s1"}},
		{vmPath, vm("127.0.0.9"), []string{"projects/p/global/backendServices/s2", "projects/p/regions/r/targetPools/pool"}},
		{"projects/p/global/healthChecks/unused", tcpCheck(1), nil},
		{"projects/p/global/backendServices/s3", nil, []string{"projects/p/global/backendServices/s3"}},
		// s3 is gone: the check no longer re-plans it.
		{hcPath, tcpCheck(91), []string{"projects/p/global/backendServices/s1"}},
		{"projects/p/global/forwardingRules/fr", struct{}{}, nil},
	} {
		p.Set(tc.path, tc.obj)
		got := slices.Sorted(maps.Keys(p.Flush()))
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("after %s: re-planned %v, want %v", tc.path, got, tc.want)
		}
	}
}

// An endpoint given by instance alone, and a pool instance given by URL,
// are probed at the instance's primary address; without the instance, or
// without an address, they are not probed, and say why.
func TestPlanner_InstancesResolveToTheirPrimaryIP(t *testing.T) {
	p := NewPlanner(allowAll)
	p.Set(hcPath, tcpCheck(80))
	p.Set(legacyPath, &api.LegacyHealthCheck{Port: i64(8080), CheckIntervalSec: i64(5), TimeoutSec: i64(5), HealthyThreshold: i64(2), UnhealthyThreshold: i64(2)})
	p.Set("projects/p/zones/z/networkEndpointGroups/neg", group(api.NetworkEndpoint{Instance: "vm"}, api.NetworkEndpoint{Instance: "gone"}))
	p.Set("projects/p/regions/r/networkEndpointGroups/regional", group(api.NetworkEndpoint{Instance: "vm"}))
	p.Set("projects/p/global/backendServices/bs", service(hcPath, "projects/p/zones/z/networkEndpointGroups/neg", "projects/p/regions/r/networkEndpointGroups/regional"))
	p.Set("projects/p/regions/r/targetPools/pool", &api.TargetPool{HealthChecks: []string{legacyPath},
		Instances: []string{"http://emulator/compute/v1/" + vmPath, "127.0.0.3:9000"}})

	describe := func(ts []health.Target) string {
		var out []string
		for _, t := range ts {
			out = append(out, fmt.Sprintf("%s %s:%d %s", t.Endpoint.Instance[strings.LastIndex(t.Endpoint.Instance, "/")+1:], t.Endpoint.IP, t.Check.Port, t.Check.Unresolved))
		}
		slices.Sort(out)
		return strings.Join(out, "\n")
	}
	check := func(when string, got map[string][]health.Target, owner, want string) {
		t.Helper()
		if d := describe(got[owner]); d != want {
			t.Errorf("%s, %s:\n%s\nwant\n%s", when, owner, d, want)
		}
	}
	got := p.Flush()
	check("before the instance exists", got, "projects/p/global/backendServices/bs",
		"gone :0 instance projects/p/zones/z/instances/gone does not exist\n"+
			"vm :0 instance \"vm\" cannot be found: a regional group names an instance by its URL (projects/{project}/zones/{zone}/instances/{name})\n"+
			"vm :0 instance projects/p/zones/z/instances/vm does not exist")
	check("before the instance exists", got, "projects/p/regions/r/targetPools/pool",
		"127.0.0.3:9000 127.0.0.3:9000 \nvm :0 instance projects/p/zones/z/instances/vm does not exist")

	p.Set(vmPath, &api.Instance{})
	got = p.Flush()
	check("without an address", got, "projects/p/regions/r/targetPools/pool",
		"127.0.0.3:9000 127.0.0.3:9000 \nvm :0 instance projects/p/zones/z/instances/vm has no address: its first network interface has no networkIP")

	p.Set(vmPath, vm("127.0.0.7"))
	got = p.Flush()
	check("with an address", got, "projects/p/global/backendServices/bs",
		"gone :0 instance projects/p/zones/z/instances/gone does not exist\n"+
			"vm 127.0.0.7:80 \n"+
			"vm :0 instance \"vm\" cannot be found: a regional group names an instance by its URL (projects/{project}/zones/{zone}/instances/{name})")
	check("with an address", got, "projects/p/regions/r/targetPools/pool", "127.0.0.3:9000 127.0.0.3:9000 \nvm 127.0.0.7:8080 ")

	// Targets whose instance has no address are told apart by name.
	ids := map[string]bool{}
	for _, tg := range got["projects/p/global/backendServices/bs"] {
		ids[tg.ID()] = true
	}
	if len(ids) != 3 {
		t.Errorf("%d distinct target ids, want 3: %v", len(ids), ids)
	}
}

// TestPlannerKeepsEveryProbingCollection: a collection the catalogue says
// decides probing, which the planner keeps no place for, stops the planner
// at construction rather than being ignored.
func TestPlannerKeepsEveryProbingCollection(t *testing.T) {
	NewPlanner(allowAll) // the catalogue as it is: no panic
	saved := api.Catalogue
	api.Catalogue = append(append([]api.Collection(nil), saved...),
		api.Collection{Name: "autoscalers", Kind: "compute#autoscaler", Scopes: api.Zonal, Role: api.ProbeInput})
	defer func() { api.Catalogue = saved }()
	defer func() {
		p := recover()
		if p == nil || !strings.Contains(fmt.Sprint(p), "autoscalers") {
			t.Fatalf("NewPlanner with a probing collection it does not keep: panic %v, want one naming autoscalers", p)
		}
	}()
	NewPlanner(allowAll)
}

// The instances of an instance group are probed at their primary address:
// a port name resolves in the group's named ports (then the service's), a
// serving port is the group's named port for the service's portName, and a
// change of the group or of one of its instances re-plans the service.
func TestPlanner_InstanceGroupBackends(t *testing.T) {
	const igPath = "projects/p/zones/z/instanceGroups/ig"
	p := NewPlanner(allowAll)
	p.Set(vmPath, vm("127.0.0.7"))
	p.Set("projects/p/zones/z/instances/vm2", vm("127.0.0.8"))
	p.Set(igPath, &api.InstanceGroup{Instances: []string{"http://emulator/compute/v1/" + vmPath, "http://emulator/compute/v1/projects/p/zones/z/instances/vm2"},
		NamedPorts: []api.NamedPort{{Name: "http", Port: i64(8080)}, {Name: "admin", Port: i64(9090)}}})
	named := func(name string) *api.HealthCheck {
		hc := tcpCheck(0)
		hc.TCPHealthCheck.Port, hc.TCPHealthCheck.PortName, hc.TCPHealthCheck.PortSpecification = nil, name, api.UseNamedPort
		return hc
	}
	serving := tcpCheck(0)
	serving.TCPHealthCheck.Port, serving.TCPHealthCheck.PortSpecification = nil, api.UseServingPort
	p.Set("projects/p/global/healthChecks/admin", named("admin"))
	p.Set("projects/p/global/healthChecks/missing", named("grpc"))
	p.Set("projects/p/global/healthChecks/serving", serving)
	p.Set(hcPath, tcpCheck(80))
	for _, bs := range []string{"admin", "missing", "serving", "hc"} {
		p.Set("projects/p/global/backendServices/"+bs, service("projects/p/global/healthChecks/"+bs, igPath))
	}
	other := service("projects/p/global/healthChecks/serving", igPath)
	other.PortName = "web"
	p.Set("projects/p/global/backendServices/web", other)

	got := p.Flush()
	ports := func(owner string) string {
		var out []string
		for _, tg := range got["projects/p/global/backendServices/"+owner] {
			out = append(out, fmt.Sprintf("%s:%d %s", tg.Endpoint.IP, tg.Check.Port, tg.Check.Unresolved))
		}
		slices.Sort(out)
		return strings.Join(out, "; ")
	}
	for owner, want := range map[string]string{
		"admin":   "127.0.0.7:9090 ; 127.0.0.8:9090 ",
		"serving": "127.0.0.7:8080 ; 127.0.0.8:8080 ",
		"hc":      "127.0.0.7:80 ; 127.0.0.8:80 ",
		"missing": `127.0.0.7:0 no named port "grpc" in instance group ` + igPath + `; 127.0.0.8:0 no named port "grpc" in instance group ` + igPath,
		"web": `127.0.0.7:0 USE_SERVING_PORT, but instance group ` + igPath + ` has no named port "web" (the backend service's portName); ` +
			`127.0.0.8:0 USE_SERVING_PORT, but instance group ` + igPath + ` has no named port "web" (the backend service's portName)`,
	} {
		if d := ports(owner); d != want {
			t.Errorf("%s: %s\nwant %s", owner, d, want)
		}
		if tg := got["projects/p/global/backendServices/"+owner]; len(tg) > 0 && tg[0].Group != igPath {
			t.Errorf("%s: group %q, want the instance group", owner, tg[0].Group)
		}
	}

	p.Set(vmPath, vm("127.0.0.9"))
	if n := len(p.Flush()); n != 5 {
		t.Errorf("an instance of the group changed: %d services re-planned, want the 5 over the group", n)
	}
	p.Set(igPath, &api.InstanceGroup{Instances: []string{"http://emulator/compute/v1/" + vmPath}})
	got = p.Flush()
	if d := ports("hc"); d != "127.0.0.9:80 " {
		t.Errorf("after the group lost vm2: %s", d)
	}
}
