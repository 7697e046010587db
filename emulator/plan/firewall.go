package plan

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/firewall"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// FirewallMode says what the planner does with a network's firewall rules.
type FirewallMode string

// Firewall modes.
const (
	// FirewallsOff: the rules are stored and never read.
	FirewallsOff FirewallMode = "off"
	// FirewallsWarn: what the rules would do to the cloud's probes is
	// reported with each endpoint; probing goes on as if they let them in.
	FirewallsWarn FirewallMode = "warn"
	// FirewallsEnforce: an endpoint whose rules block every probe is
	// UNHEALTHY (FIREWALL_BLOCKED) and not probed, as the cloud's implied
	// deny makes it.
	FirewallsEnforce FirewallMode = "enforce"
)

// ParseFirewallMode reads --firewalls.
func ParseFirewallMode(s string) (FirewallMode, error) {
	switch m := FirewallMode(s); m {
	case FirewallsOff, FirewallsWarn, FirewallsEnforce:
		return m, nil
	}
	return "", fmt.Errorf("%q: want off, warn or enforce", s)
}

// SetFirewalls says how the planner reads firewall rules, and the universe
// whose probers' ranges they are checked against; it applies from the next
// plan.
func (p *Planner) SetFirewalls(mode FirewallMode, u firewall.Universe) {
	p.firewallMode, p.universe = mode, u
}

// networkOf is the network of a stored firewall rule or subnetwork: the
// owners planned in that network are planned again when it changes.
func (p *Planner) networkOf(path string) string {
	if fw, ok := p.s.Firewalls[path]; ok {
		return networkPath(fw.Network, path)
	}
	if sn, ok := p.s.Subnetworks[path]; ok {
		return networkPath(sn.Network, path)
	}
	return ""
}

// networkPath is the path of a network reference (a URL, a path, a
// "global/networks/n" or a name in the project of the resource at from); a
// project's default network when ref is empty, as the API defaults it.
func networkPath(ref, from string) string {
	if p := api.PathOf(ref); p != "" {
		return p
	}
	project, _, _ := strings.Cut(strings.TrimPrefix(from, "projects/"), "/")
	switch {
	case ref == "":
		ref = "global/networks/default"
	case !strings.Contains(ref, "/"):
		ref = "global/networks/" + ref
	}
	return "projects/" + project + "/" + ref
}

// judge sets, on each target of an owner, the load balancer it serves and
// what the firewall rules of its network do to the cloud's probes of it,
// and returns the networks it read (the owner is planned again when their
// rules change).
func (p *Planner) judge(owner string, targets []health.Target) []string {
	lb, ok := p.s.loadBalancerOf(owner)
	if !ok {
		return nil
	}
	_, pool := p.s.TargetPools[owner]
	networks := map[string]bool{}
	memo := map[string]finding{}
	for i := range targets {
		t := &targets[i]
		t.Check.LoadBalancer = string(lb)
		if p.firewallMode == FirewallsOff || t.Check.Unchecked {
			continue // no probes for the rules to let in
		}
		f, network := p.findingOf(owner, lb, t, memo)
		if network != "" {
			networks[network] = true
		}
		t.Check.Firewall, t.Check.FirewallVerdict, t.Check.FirewallFix = f.message, f.verdict, f.fix
		// Target pools may be probed through the metadata server, which
		// every network lets in: a block is only ever a warning for them.
		t.Check.Blocked = f.verdict == string(firewall.Blocked) && p.firewallMode == FirewallsEnforce && !pool
	}
	return slices.Sorted(maps.Keys(networks))
}

// finding is what the rules do to one target's probes.
type finding struct {
	message string // "" when the probes get in, or nothing can be said
	verdict string // BLOCKED or PARTIAL with a message from the rules; else ""
	fix     string // with a verdict: the rule that would let the probes in
}

// loadBalancerOf is the load balancer an owner's probes are for; false for
// autohealing, whose probes serve no load balancer.
func (s snapshot) loadBalancerOf(owner string) (firewall.Type, bool) {
	if bs, ok := s.BackendServices[owner]; ok {
		return firewall.TypeOf(bs.LoadBalancingScheme, cmp.Or(bs.Protocol, api.ProtocolHTTP), strings.Contains(owner, "/global/"))
	}
	if _, ok := s.TargetPools[owner]; ok {
		return firewall.ExternalPassthroughNLB, true
	}
	return "", false
}

// findingOf evaluates the rules for one target, and names the network it
// read ("" when it read none).
func (p *Planner) findingOf(owner string, lb firewall.Type, t *health.Target, memo map[string]finding) (finding, string) {
	kind, network := p.s.backendOf(t)
	row, ok := firewall.Lookup(p.universe, lb, kind)
	if !ok {
		return finding{message: fmt.Sprintf("the %s universe has no %s with %s backends: its probers' ranges are unknown", p.universe, lb, kind)}, ""
	}
	switch row.Source {
	case firewall.NotProbed, firewall.SelfManagedEnvoy:
		return finding{}, ""
	case firewall.ProxyOnlySubnet:
		return p.s.proxyOnlySubnet(owner, t.Group, network), network
	}
	if network == "" {
		return finding{}, ""
	}
	addr, err := netip.ParseAddr(t.Endpoint.IP)
	if err != nil {
		return finding{}, network
	}
	sources := row.IPv4
	if addr.Unmap().Is6() {
		sources = row.IPv6
	}
	target := firewall.Target{Network: network, Protocol: firewall.ProtocolOf(t.Check.Probe.Protocol), Port: t.Check.Port}
	if target.Protocol == "" {
		return finding{}, "" // expressions and scenarios send no probe of their own
	}
	if in, _ := p.s.instanceOf(t); in != nil {
		if in.Tags != nil {
			target.Tags = in.Tags.Items
		}
		for _, sa := range in.ServiceAccounts {
			target.ServiceAccounts = append(target.ServiceAccounts, sa.Email)
		}
	}
	key := strings.Join([]string{network, strings.Join(target.Tags, ","), strings.Join(target.ServiceAccounts, ","),
		target.Protocol, strconv.Itoa(target.Port), strconv.FormatBool(addr.Unmap().Is6()), string(kind)}, "|")
	if f, ok := memo[key]; ok {
		return f, network
	}
	fd := firewall.Evaluate(p.s.firewallsOf(network), target, sources)
	f := finding{message: fd.Message}
	if fd.Verdict != firewall.Allowed {
		f.verdict, f.fix = string(fd.Verdict), fd.Fix
	}
	memo[key] = f
	return f, network
}

// backendOf is the kind of backend a target is, as the prober-range tables
// tell them apart, and the path of its network ("" when unknown).
func (s snapshot) backendOf(t *health.Target) (firewall.Backend, string) {
	network := ""
	if in, path := s.instanceOf(t); in != nil && len(in.NetworkInterfaces) > 0 {
		network = networkPath(in.NetworkInterfaces[0].Network, path)
	}
	if g, ok := s.Groups[t.Group]; ok {
		if network == "" && g.Network != "" || network == "" && strings.Contains(t.Group, "/zones/") {
			network = networkPath(g.Network, t.Group)
		}
		return negKind(g.NetworkEndpointType, t.Group), network
	}
	if g, ok := s.InstanceGroups[t.Group]; ok {
		if network == "" {
			network = networkPath(g.Network, t.Group)
		}
		return firewall.InstanceGroup, network
	}
	return firewall.TargetPoolInstance, network
}

// instanceOf is the stored instance a target's endpoint names, and its
// path; nil when it names none.
func (s snapshot) instanceOf(t *health.Target) (*api.Instance, string) {
	if t.Endpoint.Instance == "" {
		return nil, ""
	}
	path := api.PathOf(t.Endpoint.Instance)
	if _, ok := s.Groups[t.Group]; ok {
		path, _ = endpointInstancePath(t.Endpoint.Instance, t.Group)
	} else if t.Group == "" {
		path = instanceRef(t.Endpoint.Instance, t.Owner) // a target pool's
	}
	return s.Instances[path], path
}

// negKind is the backend kind of a network endpoint group.
func negKind(typ, path string) firewall.Backend {
	switch typ {
	case api.GCEVMIP:
		return firewall.ZonalIP
	case api.NonGCPPrivateIPPort:
		return firewall.Hybrid
	case api.InternetIPPort, api.InternetFQDNPort:
		if strings.Contains(path, "/regions/") {
			return firewall.RegionalInternet
		}
		return firewall.GlobalInternet
	case api.Serverless:
		return firewall.ServerlessNEG
	case api.PrivateServiceConnect:
		return firewall.PrivateServiceNEG
	}
	return firewall.ZonalIPPort
}

// firewallsOf are the stored rules of a network, in a stable order.
func (s snapshot) firewallsOf(network string) []*api.Firewall {
	var out []*api.Firewall
	for _, path := range slices.Sorted(maps.Keys(s.Firewalls)) {
		if fw := s.Firewalls[path]; networkPath(fw.Network, path) == network {
			out = append(out, fw)
		}
	}
	return out
}

// proxyOnlySubnet is the finding for a backend an Envoy-based load balancer
// probes from its proxy-only subnet (hybrid and regional internet
// backends): none when the network has one in the region, whose range the
// backend's own firewall (outside the cloud's network) must let in.
func (s snapshot) proxyOnlySubnet(owner, group, network string) finding {
	purpose, region := api.PurposeRegionalManagedProxy, regionOf(owner)
	if region == "" {
		purpose, region = api.PurposeGlobalManagedProxy, regionOf(group)
	}
	for path, sn := range s.Subnetworks {
		if regionOf(path) == region && (network == "" || networkPath(sn.Network, path) == network) &&
			(sn.Purpose == purpose || purpose == api.PurposeRegionalManagedProxy && sn.Purpose == api.PurposeInternalHTTPSLoadBalancer) {
			return finding{}
		}
	}
	where := "network " + network
	if network == "" {
		where = "its network"
	}
	return finding{message: fmt.Sprintf("no proxy-only subnet (purpose %s) in region %s of %s: the load balancer's proxies, "+
		"which probe hybrid and internet backends, have no addresses to probe from", purpose, region, where)}
}

// regionOf is the region of a regional or zonal path, "" for a global one.
func regionOf(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) < 4 {
		return ""
	}
	switch parts[2] {
	case "regions":
		return parts[3]
	case "zones":
		return rules.ZoneRegion(parts[3])
	}
	return ""
}
