// Package plan decides what the probe engine probes: it keeps the stored
// resources that decide it (health checks, endpoint groups, instances,
// backend services, target pools), decoded once, and turns them into the
// targets of each owner (a backend service or a target pool), re-planning
// only the owners a change reaches.
package plan

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/firewall"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/depindex"

	"fmt"
	"maps"
	"net/netip"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// snapshot is every stored resource that decides what is probed, keyed by
// path ("projects/p/global/healthChecks/x").
type snapshot struct {
	HealthChecks    map[string]*api.HealthCheck
	LegacyHTTP      map[string]*api.LegacyHealthCheck
	LegacyHTTPS     map[string]*api.LegacyHealthCheck
	Groups          map[string]*api.NetworkEndpointGroup
	BackendServices map[string]*api.BackendService
	TargetPools     map[string]*api.TargetPool
	Instances       map[string]*api.Instance
	InstanceGroups  map[string]*api.InstanceGroup
	Managers        map[string]*api.InstanceGroupManager
	// Firewalls and Subnetworks decide whether the cloud's probers would
	// get in (firewall.go).
	Firewalls   map[string]*api.Firewall
	Subnetworks map[string]*api.Subnetwork
	// The front end: what counts in probe multiplicity (multiplicity.go).
	ForwardingRules map[string]*api.ForwardingRule
	URLMaps         map[string]*api.URLMap
	HTTPProxies     map[string]*api.TargetHTTPProxy
	HTTPSProxies    map[string]*api.TargetHTTPSProxy
	TCPProxies      map[string]*api.TargetTCPProxy
	SSLProxies      map[string]*api.TargetSSLProxy
}

// Planner keeps the resources that decide what is probed, decoded once, and
// which owner (backend service or target pool) depends on which of them, so
// that a change re-plans only the owners it affects: a check its users, a
// group the services it backs, an instance the groups and pools that name
// it. It is not safe for concurrent use: the emulator calls it under its
// write lock.
type Planner struct {
	s        snapshot
	allowed  func(netip.Addr) bool
	probeMap ProbeMap
	// slots keep the objects of each collection the planner reads, and
	// owners are those collections whose objects own probes.
	slots  map[string]func(path string, obj any)
	owners map[string]bool
	// deps maps the path of a check, group or instance to the owners and
	// groups whose targets depend on it.
	deps depindex.Index
	// nets maps a network's path to the owners whose endpoints are in it,
	// as their last plan found them: a change of its firewall rules or
	// subnetworks plans them again.
	nets         depindex.Index
	firewallMode FirewallMode
	universe     firewall.Universe
	multiplicity bool
	dirty        map[string]struct{} // owners to re-plan at the next Flush
	stats        PlanStats
}

// PlanStats counts the planner's work since it was made: tests use it to
// prove that a write costs what it changes, not what is stored.
type PlanStats struct {
	Objects uint64 // objects set or deleted
	Owners  uint64 // owners planned
	Targets uint64 // targets planned
}

// NewPlanner returns a Planner that knows nothing yet. allowed says which
// addresses may be probed; targets at others are reported, not probed.
//
// Every collection the catalogue gives a probing role (api.ProbeInput,
// api.ProbeOwner) must have a place in the snapshot: one without panics
// here, at start, rather than be silently ignored.
func NewPlanner(allowed func(netip.Addr) bool) *Planner {
	p := &Planner{
		s: snapshot{HealthChecks: map[string]*api.HealthCheck{}, LegacyHTTP: map[string]*api.LegacyHealthCheck{},
			LegacyHTTPS: map[string]*api.LegacyHealthCheck{}, Groups: map[string]*api.NetworkEndpointGroup{},
			BackendServices: map[string]*api.BackendService{}, TargetPools: map[string]*api.TargetPool{}, Instances: map[string]*api.Instance{},
			InstanceGroups: map[string]*api.InstanceGroup{}, Managers: map[string]*api.InstanceGroupManager{},
			Firewalls: map[string]*api.Firewall{}, Subnetworks: map[string]*api.Subnetwork{},
			ForwardingRules: map[string]*api.ForwardingRule{}, URLMaps: map[string]*api.URLMap{},
			HTTPProxies: map[string]*api.TargetHTTPProxy{}, HTTPSProxies: map[string]*api.TargetHTTPSProxy{},
			TCPProxies: map[string]*api.TargetTCPProxy{}, SSLProxies: map[string]*api.TargetSSLProxy{}},
		allowed:      allowed,
		firewallMode: FirewallsWarn,
		universe:     firewall.GoogleCloud,
		owners:       map[string]bool{},
		dirty:        map[string]struct{}{},
	}
	p.slots = map[string]func(string, any){
		api.CollectionHealthChecks:          slot(p.s.HealthChecks),
		api.CollectionHTTPHealthChecks:      slot(p.s.LegacyHTTP),
		api.CollectionHTTPSHealthChecks:     slot(p.s.LegacyHTTPS),
		api.CollectionNetworkEndpointGroups: slot(p.s.Groups),
		api.CollectionBackendServices:       slot(p.s.BackendServices),
		api.CollectionTargetPools:           slot(p.s.TargetPools),
		api.CollectionInstances:             slot(p.s.Instances),
		api.CollectionInstanceGroups:        slot(p.s.InstanceGroups),
		api.CollectionInstanceGroupManagers: slot(p.s.Managers),
		api.CollectionFirewalls:             slot(p.s.Firewalls),
		api.CollectionSubnetworks:           slot(p.s.Subnetworks),
		api.CollectionForwardingRules:       slot(p.s.ForwardingRules),
		api.CollectionURLMaps:               slot(p.s.URLMaps),
		api.CollectionTargetHTTPProxies:     slot(p.s.HTTPProxies),
		api.CollectionTargetHTTPSProxies:    slot(p.s.HTTPSProxies),
		api.CollectionTargetTCPProxies:      slot(p.s.TCPProxies),
		api.CollectionTargetSSLProxies:      slot(p.s.SSLProxies),
	}
	probing := api.CollectionsWith(api.ProbeInput, api.ProbeOwner)
	for _, c := range probing {
		if p.slots[c.Name] == nil {
			panic("health: the catalogue says " + c.Name + " decides probing, but the planner keeps no " + c.Name)
		}
		p.owners[c.Name] = c.Role == api.ProbeOwner
	}
	if len(p.slots) != len(probing) {
		panic("health: the planner keeps a collection that the catalogue does not say decides probing")
	}
	return p
}

// isOwner tells whether path is a stored owner.
func (s snapshot) isOwner(path string) bool {
	_, bs := s.BackendServices[path]
	_, tp := s.TargetPools[path]
	return bs || tp
}

// slot stores the objects of one collection in m.
func slot[T any](m map[string]*T) func(string, any) {
	return func(path string, obj any) { setOrDelete(m, path, obj) }
}

// SetProbeMap says where endpoints of a real configuration's addresses are
// probed; it applies from the next plan.
func (p *Planner) SetProbeMap(m ProbeMap) { p.probeMap = m }

// Stats returns the work done so far.
func (p *Planner) Stats() PlanStats { return p.stats }

// Set records the object stored at path (of a collection that decides
// probing; others are ignored), or
// its deletion when obj is nil, and marks the owners it affects for the
// next Flush. obj's type must be the collection's: *api.HealthCheck,
// *api.LegacyHealthCheck, *api.NetworkEndpointGroup, *api.BackendService,
// *api.TargetPool or *api.Instance; the Planner keeps it and does not
// change it.
func (p *Planner) Set(path string, obj any) {
	set, ok := p.slots[api.CollectionOf(path)]
	if !ok {
		return
	}
	p.stats.Objects++
	before, reached := p.networkOf(path), p.s.frontOwners(path)
	set(path, obj)
	p.deps.Set(path, p.dependencies(path))
	p.markDirty(path)
	for _, network := range []string{before, p.networkOf(path)} {
		for owner := range p.nets.EachUser(network) {
			p.dirty[owner] = struct{}{}
		}
	}
	if p.multiplicity {
		for _, owner := range append(reached, p.s.frontOwners(path)...) {
			if p.s.isOwner(owner) {
				p.dirty[owner] = struct{}{}
			}
		}
	}
}

func setOrDelete[T any](m map[string]*T, path string, obj any) {
	if v, ok := obj.(*T); ok && v != nil {
		m[path] = v
		return
	}
	delete(m, path)
}

// dependencies lists the paths whose change changes the targets of the
// owner or group at path (none for other objects, or when it is gone).
func (p *Planner) dependencies(path string) []string {
	var deps []string
	// An owner depends on its (first, only) health check.
	check := func(checks []string) {
		if len(checks) > 0 {
			deps = append(deps, api.PathOf(checks[0]))
		}
	}
	if bs, ok := p.s.BackendServices[path]; ok {
		check(bs.HealthChecks)
		for _, b := range bs.Backends {
			deps = append(deps, api.PathOf(b.Group))
		}
	}
	if tp, ok := p.s.TargetPools[path]; ok {
		check(tp.HealthChecks)
		for _, inst := range tp.Instances {
			ip, _ := poolInstancePath(inst, path)
			deps = append(deps, ip) // "" for an address: depends on nothing
		}
	}
	if hc, ok := p.s.HealthChecks[path]; ok {
		// A scenario's verdict follows the checks it combines.
		if b, ok := hc.BlockOf(api.TypeScenario); ok {
			for _, ref := range *b.Lists["healthChecks"] {
				deps = append(deps, api.PathOf(ref))
			}
		}
	}
	if m, ok := p.s.Managers[path]; ok {
		for _, ah := range m.AutoHealingPolicies {
			deps = append(deps, api.PathOf(ah.HealthCheck))
		}
		deps = append(deps, api.PathOf(m.InstanceGroup))
	}
	if g, ok := p.s.InstanceGroups[path]; ok {
		for _, inst := range g.Instances {
			deps = append(deps, api.PathOf(inst))
		}
	}
	if g, ok := p.s.Groups[path]; ok {
		for _, e := range g.Endpoints {
			if e.IPAddress == "" && e.Instance != "" {
				ip, _ := endpointInstancePath(e.Instance, path)
				deps = append(deps, ip)
			}
		}
	}
	return deps
}

// markDirty marks the owners whose targets depend on path, itself
// included when it is one: through groups to services, at most two steps.
func (p *Planner) markDirty(path string) {
	if p.owners[api.CollectionOf(path)] {
		p.dirty[path] = struct{}{}
		return
	}
	for u := range p.deps.EachUser(path) {
		p.markDirty(u)
	}
}

// Flush plans the owners that changed since the last Flush: their new
// targets by owner, with no targets for an owner that is gone or probes
// nothing. Engine.UpdateOwners takes the result.
func (p *Planner) Flush() map[string][]health.Target {
	out := make(map[string][]health.Target, len(p.dirty))
	for owner := range p.dirty {
		out[owner] = p.plan(owner)
	}
	clear(p.dirty)
	return out
}

// All plans every owner: what the engine probes at start.
func (p *Planner) All() []health.Target {
	clear(p.dirty)
	var targets []health.Target
	for _, owner := range slices.Sorted(maps.Keys(p.s.BackendServices)) {
		targets = append(targets, p.plan(owner)...)
	}
	for _, owner := range slices.Sorted(maps.Keys(p.s.TargetPools)) {
		targets = append(targets, p.plan(owner)...)
	}
	for _, owner := range slices.Sorted(maps.Keys(p.s.Managers)) {
		targets = append(targets, p.plan(owner)...)
	}
	return targets
}

// plan lists the targets of one owner.
func (p *Planner) plan(owner string) []health.Target {
	p.stats.Owners++
	var targets []health.Target
	if bs, ok := p.s.BackendServices[owner]; ok {
		targets = p.s.serviceTargets(owner, bs)
	} else if tp, ok := p.s.TargetPools[owner]; ok {
		targets = p.s.poolTargets(owner, tp)
	} else if m, ok := p.s.Managers[owner]; ok {
		targets = p.s.managerTargets(owner, m)
	}
	p.stats.Targets += uint64(len(targets))
	p.nets.Set(owner, p.judge(owner, targets))
	if p.multiplicity && len(targets) > 0 {
		if _, managed := p.s.Managers[owner]; !managed { // autohealing serves no front end
			m := p.s.multiplicityOf(owner)
			for i := range targets {
				targets[i].Check.Multiplicity = m
			}
		}
	}
	return restrict(targets, p.allowed, p.probeMap)
}

// serviceTargets are the endpoints of every group of a service.
func (s snapshot) serviceTargets(bsPath string, bs *api.BackendService) []health.Target {
	if len(bs.HealthChecks) == 0 {
		return nil
	}
	oc, ok := s.ownerCheck(bs.HealthChecks[0])
	if !ok {
		return nil
	}
	var targets []health.Target
	for _, b := range bs.Backends {
		groupPath := api.PathOf(b.Group)
		if g, ok := s.Groups[groupPath]; ok {
			targets = append(targets, s.groupTargets(bsPath, bs, oc, groupPath, g)...)
		}
		if g, ok := s.InstanceGroups[groupPath]; ok {
			targets = append(targets, s.instanceGroupTargets(bsPath, bs, oc, groupPath, g)...)
		}
	}
	return targets
}

// groupTargets are the endpoints of group g probed for service bs.
func (s snapshot) groupTargets(bsPath string, bs *api.BackendService, oc ownerCheck, groupPath string, g *api.NetworkEndpointGroup) []health.Target {
	targets := make([]health.Target, 0, len(g.Endpoints))
	for _, e := range g.Endpoints {
		ep := health.Endpoint{IP: e.IPAddress, Instance: e.Instance, Stopped: e.State == api.EndpointStopped}
		if e.Port != nil {
			ep.Port = int(*e.Port)
		}
		unresolved := ""
		if e.Instance != "" {
			// The endpoint's instance by its path, whatever form the
			// endpoint gave: getHealth names it by URL, and the instance's
			// workload finds the port to serve by it.
			path, why := endpointInstancePath(e.Instance, groupPath)
			if path != "" {
				ep.Instance = path
			}
			if ep.IP == "" {
				ep.IP, unresolved = s.instanceIP(path, why)
			}
		}
		check := oc.forEndpoint(serviceNames(bs), ep, "")
		if unresolved != "" {
			check.Port, check.Unresolved = 0, unresolved
		}
		targets = append(targets, health.Target{Owner: bsPath, Group: groupPath, Endpoint: ep, Check: check})
	}
	return targets
}

// instanceGroupTargets are the instances of group g probed for service
// bs, each at its primary address. An instance's own port is the group's
// named port for the service's portName; port names of the check resolve
// in the group's named ports first, then in the service's.
func (s snapshot) instanceGroupTargets(bsPath string, bs *api.BackendService, oc ownerCheck, groupPath string, g *api.InstanceGroup) []health.Target {
	names := append([]namedPorts{{ports: g.NamedPorts, of: "instance group " + groupPath}}, serviceNames(bs)...)
	portName := bs.PortName
	if portName == "" {
		portName = api.DefaultServicePortName
	}
	serving := ""
	port := rules.NamedPort(g.NamedPorts, portName)
	if port == 0 {
		serving = fmt.Sprintf("USE_SERVING_PORT, but instance group %s has no named port %q (the backend service's portName)", groupPath, portName)
	}
	targets := make([]health.Target, 0, len(g.Instances))
	for _, inst := range g.Instances {
		path := api.PathOf(inst)
		ep := health.Endpoint{Instance: inst, Port: int(port)}
		ip, unresolved := s.instanceIP(path, "")
		ep.IP = ip
		if in, ok := s.Instances[path]; ok && in.Status != "" && in.Status != api.InstanceRunning {
			ep.Stopped = true
		}
		check := oc.forEndpoint(names, ep, serving)
		if unresolved != "" {
			check.Port, check.Unresolved = 0, unresolved
		}
		targets = append(targets, health.Target{Owner: bsPath, Group: groupPath, Endpoint: ep, Check: check})
	}
	return targets
}

// managerTargets are the instances of a managed group probed by its
// autohealing check, its own probes apart from any load balancer's. A
// port name resolves in the group's named ports. Each target's group is
// the instance's path and id, so that a recreated instance (a new id) is a
// new target and starts UNKNOWN, as a new VM does.
func (s snapshot) managerTargets(owner string, m *api.InstanceGroupManager) []health.Target {
	if len(m.AutoHealingPolicies) == 0 {
		return nil
	}
	oc, ok := s.ownerCheck(m.AutoHealingPolicies[0].HealthCheck)
	if !ok {
		return nil
	}
	g, ok := s.InstanceGroups[api.PathOf(m.InstanceGroup)]
	if !ok {
		return nil
	}
	names := []namedPorts{{ports: m.NamedPorts, of: "managed instance group " + owner}}
	var targets []health.Target
	for _, inst := range g.Instances {
		path := api.PathOf(inst)
		ep := health.Endpoint{Instance: inst}
		ip, unresolved := s.instanceIP(path, "")
		ep.IP = ip
		generation := path
		if in, ok := s.Instances[path]; ok {
			generation = api.Generation(path, in.ID)
			ep.Stopped = in.Status != "" && in.Status != api.InstanceRunning
		}
		check := oc.forEndpoint(names, ep, "USE_SERVING_PORT, but an autohealing check probes a port of its own or a named port of the group")
		if unresolved != "" {
			check.Port, check.Unresolved = 0, unresolved
		}
		targets = append(targets, health.Target{Owner: owner, Group: generation, Endpoint: ep, Check: check})
	}
	return targets
}

// namedPorts are named ports a check's port name may resolve in, and whose
// they are, for messages.
type namedPorts struct {
	ports []api.NamedPort
	of    string
}

// serviceNames are the named ports of a backend service (an lbhealth
// extension), when it has some.
func serviceNames(bs *api.BackendService) []namedPorts {
	if bs == nil || len(bs.NamedPorts) == 0 {
		return nil
	}
	return []namedPorts{{ports: bs.NamedPorts, of: "the backend service"}}
}

// poolTargets are the instances of a target pool, probed with its legacy
// HTTP check on the instance's own port when it names one. An instance
// given by its URL is probed at its primary address on the check's port.
// A pool without a check counts every instance healthy, as no check of it
// can fail: its targets are unchecked, never probed.
func (s snapshot) poolTargets(tpPath string, tp *api.TargetPool) []health.Target {
	oc := ownerCheck{base: health.Check{Unchecked: true}}
	if len(tp.HealthChecks) > 0 {
		var ok bool
		if oc, ok = s.ownerCheck(tp.HealthChecks[0]); !ok {
			return nil
		}
	}
	var targets []health.Target
	for _, inst := range tp.Instances {
		ep, unresolved, ok := s.poolEndpoint(inst, tpPath)
		if !ok {
			continue
		}
		check := oc.forEndpoint(nil, ep, "")
		switch {
		case unresolved != "":
			check.Port, check.Unresolved = 0, unresolved
		case ep.Port != 0:
			check.Port, check.Unresolved = ep.Port, ""
		}
		targets = append(targets, health.Target{Owner: tpPath, Endpoint: ep, Check: check})
	}
	return targets
}

// poolEndpoint reads one instance of a pool: "ip", "ip:port", or an
// instance URL or path. ok is false for anything else (the API refuses it).
func (s snapshot) poolEndpoint(inst, tpPath string) (ep health.Endpoint, unresolved string, ok bool) {
	if addr, port, err := rules.SplitInstance(inst); err == nil {
		return health.Endpoint{IP: addr.String(), Port: port, Instance: inst}, "", true
	}
	path, err := poolInstancePath(inst, tpPath)
	if path == "" && err == "" {
		return health.Endpoint{}, "", false
	}
	ep = health.Endpoint{Instance: inst}
	if err != "" {
		return ep, err, true
	}
	ep.IP, unresolved = s.instanceIP(path, "")
	return ep, unresolved, true
}

// instanceIP is the address an instance is probed at, or a reason why
// there is none. why is a reason already known (the reference itself is
// wrong).
func (s snapshot) instanceIP(path, why string) (string, string) {
	if why != "" {
		return "", why
	}
	in, ok := s.Instances[path]
	if !ok {
		return "", fmt.Sprintf("instance %s does not exist", path)
	}
	ip := in.PrimaryIP()
	if ip == "" {
		return "", fmt.Sprintf("instance %s has no address: its first network interface has no networkIP", path)
	}
	return ip, ""
}

// endpointInstancePath is the path of the instance an endpoint of the group
// at groupPath names: a URL, a path, or a name in the group's zone.
func endpointInstancePath(ref, groupPath string) (string, string) {
	if p := instanceRef(ref, groupPath); p != "" {
		return p, ""
	}
	parts := strings.Split(groupPath, "/") // projects/p/zones/z/networkEndpointGroups/g
	if !strings.Contains(ref, "/") && len(parts) == 6 && parts[2] == "zones" {
		return strings.Join([]string{"projects", parts[1], "zones", parts[3], api.CollectionInstances, ref}, "/"), ""
	}
	return "", fmt.Sprintf("instance %q cannot be found: a regional group names an instance by its URL (projects/{project}/zones/{zone}/instances/{name})", ref)
}

// poolInstancePath is the path of a pool instance given as a URL or path:
// "" when inst is not an instance reference at all.
func poolInstancePath(inst, tpPath string) (string, string) {
	if !strings.Contains(inst, "/"+api.CollectionInstances+"/") {
		return "", ""
	}
	if p := instanceRef(inst, tpPath); p != "" {
		return p, ""
	}
	return "", fmt.Sprintf("instance %q is not an instance reference: use its URL or projects/{project}/zones/{zone}/instances/{name}", inst)
}

// instanceRef reads an instance URL, "projects/p/zones/z/instances/n", or
// "zones/z/instances/n" in the project of the referring path.
func instanceRef(ref, from string) string {
	path := api.PathOf(ref)
	if path == "" && strings.HasPrefix(ref, "zones/") {
		if parts := strings.SplitN(from, "/", 3); len(parts) == 3 {
			path = "projects/" + parts[1] + "/" + ref
		}
	}
	parts := strings.Split(path, "/")
	if len(parts) != 6 || parts[2] != "zones" || parts[4] != api.CollectionInstances || parts[5] == "" {
		return ""
	}
	return path
}

// ownerCheck is an owner's health check, resolved once for all its
// endpoints: what probing needs of it (one probe spec, shared by every
// target), and, for a regular check, its protocol block, whose port
// settings resolve per endpoint.
type ownerCheck struct {
	base     health.Check
	regular  bool
	block    api.ProtocolBlock
	hasBlock bool
	// members are the checks a scenario combines, resolved per endpoint
	// with it; missing names a member that is not stored.
	members []ownerCheck
	missing map[int]string
}

// ownerCheck resolves a health-check reference, regular or legacy; false
// when it names no stored check.
func (s snapshot) ownerCheck(ref string) (ownerCheck, bool) {
	path := api.PathOf(ref)
	if hc, ok := s.HealthChecks[path]; ok {
		b, hasBlock := hc.Block()
		oc := ownerCheck{base: checkOf(path, hc, b, hasBlock), regular: true, block: b, hasBlock: hasBlock}
		if hasBlock && b.Type == api.TypeScenario {
			oc.members, oc.missing = s.scenarioMembers(*b.Lists["healthChecks"])
		}
		return oc, true
	}
	if hc, ok := s.LegacyHTTP[path]; ok {
		return ownerCheck{base: legacyCheck(path, hc, "LEGACY_HTTP")}, true
	}
	if hc, ok := s.LegacyHTTPS[path]; ok {
		return ownerCheck{base: legacyCheck(path, hc, "LEGACY_HTTPS")}, true
	}
	return ownerCheck{}, false
}

// forEndpoint is the check of one endpoint of the owner, whose port names
// resolve in names (none for target pools): a legacy check probes its own
// port, a regular one the port its block resolves for the endpoint.
// serving, when set, says why the endpoint has no serving port.
func (oc ownerCheck) forEndpoint(names []namedPorts, ep health.Endpoint, serving string) health.Check {
	c := oc.base
	if oc.regular {
		c.Port, c.Unresolved = resolvePort(oc.block, oc.hasBlock, names, ep, serving)
	}
	if oc.members != nil {
		sc := &prober.ScenarioSpec{Operator: *oc.block.Text["operator"], Members: make([]prober.Member, len(oc.members))}
		for i, m := range oc.members {
			sc.Members[i] = prober.Member{Name: path.Base(m.base.Name), Spec: m.base.Probe, Unresolved: oc.missing[i]}
			if oc.missing[i] == "" {
				sc.Members[i].Port, sc.Members[i].Unresolved = resolvePort(m.block, m.hasBlock, names, ep, serving)
			}
		}
		c.Probe.Scenario = sc
	}
	return c
}

// scenarioMembers are the checks a scenario combines; missing says, by
// index, which are not stored (the API refuses them: a store being loaded
// may still lack one).
func (s snapshot) scenarioMembers(refs []string) ([]ownerCheck, map[int]string) {
	members := make([]ownerCheck, len(refs))
	missing := map[int]string{}
	for i, ref := range refs {
		p := api.PathOf(ref)
		hc, ok := s.HealthChecks[p]
		if !ok {
			members[i].base.Name = p
			missing[i] = "health check " + p + " does not exist"
			continue
		}
		b, hasBlock := hc.Block()
		members[i] = ownerCheck{base: checkOf(p, hc, b, hasBlock), regular: true, block: b, hasBlock: hasBlock}
	}
	return members, missing
}

// legacyCheck is what probing needs of a legacy check: only its port.
func legacyCheck(path string, hc *api.LegacyHealthCheck, protocol string) health.Check {
	return health.Check{
		Name:               path,
		Probe:              prober.NewSpec(protocol, "", legacyText(hc)),
		Port:               int(deref(hc.Port)),
		Interval:           seconds(hc.CheckIntervalSec),
		Timeout:            seconds(hc.TimeoutSec),
		HealthyThreshold:   int(deref(hc.HealthyThreshold)),
		UnhealthyThreshold: int(deref(hc.UnhealthyThreshold)),
	}
}

// legacyText reads a legacy check's fields as those of a protocol block.
func legacyText(hc *api.LegacyHealthCheck) func(string) string {
	return func(field string) string {
		switch field {
		case "host":
			return hc.Host
		case "requestPath":
			return hc.RequestPath
		}
		return ""
	}
}

// restrict keeps targets outside the allowed networks from being probed,
// and says why; an address the probe map moves is probed where it maps to
// (which must be allowed).
func restrict(targets []health.Target, allowed func(netip.Addr) bool, probeMap ProbeMap) []health.Target {
	for i := range targets {
		t := &targets[i]
		if t.Endpoint.IP == "" && t.Check.Unresolved != "" {
			continue // an instance without an address: its reason stands
		}
		addr, err := netip.ParseAddr(t.Endpoint.IP)
		if err != nil {
			t.Check.Port, t.Check.Unresolved = 0, fmt.Sprintf("%q is not an address", t.Endpoint.IP)
			continue
		}
		probed, mapped := probeMap.Map(addr)
		switch {
		case mapped && !allowed(probed):
			t.Check.Port, t.Check.Unresolved = 0, fmt.Sprintf("%s maps to %s (--probe-map), which is outside the networks this emulator may probe (--probe-networks)",
				t.Endpoint.IP, probed)
		case mapped:
			t.Check.Address = probed.String()
		case !allowed(addr):
			t.Check.Port, t.Check.Unresolved = 0, fmt.Sprintf("%s is outside the networks this emulator may probe (--probe-networks); "+
				"to probe a local server for it, map its range to loopback with --probe-map (such as 10.0.0.0/8=127.0.0.0/8)", t.Endpoint.IP)
		}
	}
	return targets
}

// checkOf is what probing needs of a (stored, defaulted) health check whose
// protocol block is b (hasBlock false: none, or more than one); the port is
// left for the caller to resolve per endpoint.
func checkOf(path string, hc *api.HealthCheck, b api.ProtocolBlock, hasBlock bool) health.Check {
	c := health.Check{
		Name:               path,
		Interval:           seconds(hc.CheckIntervalSec),
		Timeout:            seconds(hc.TimeoutSec),
		HealthyThreshold:   int(deref(hc.HealthyThreshold)),
		UnhealthyThreshold: int(deref(hc.UnhealthyThreshold)),
		Log:                hc.LogConfig != nil && hc.LogConfig.Enable != nil && *hc.LogConfig.Enable,
		Probe:              probeSpec(hc.Type, b, hasBlock),
	}
	return c
}

// probeSpec is the prober.Spec of protocol block b (of type typ when
// there is none).
func probeSpec(typ string, b api.ProtocolBlock, ok bool) prober.Spec {
	if !ok {
		return prober.Spec{Protocol: typ}
	}
	proxyHeader := ""
	if b.Ports != nil {
		proxyHeader = b.Ports.ProxyHeader
	}
	return prober.NewSpec(b.Type, proxyHeader, func(field string) string {
		if p := b.Text[field]; p != nil {
			return *p
		}
		return ""
	})
}

// resolvePort picks the port to probe: the endpoint's own port for
// USE_SERVING_PORT (serving says why there is none, when it knows), the
// first of names that names the port for USE_NAMED_PORT (or a port name
// alone), else the check's port. 0 and a reason when it cannot.
func resolvePort(b api.ProtocolBlock, ok bool, names []namedPorts, ep health.Endpoint, serving string) (int, string) {
	if !ok {
		return 0, "the health check has no protocol block"
	}
	if b.Ports == nil {
		return ep.Port, "" // a check type that probes no port: the endpoint's own, as a fact
	}
	spec, port := b.Ports.PortSpecification, b.Ports.Port
	portName := ""
	if b.PortName != nil {
		portName = *b.PortName
	}
	switch {
	case spec == api.UseServingPort:
		switch {
		case ep.Port != 0:
			return ep.Port, ""
		case serving != "":
			return 0, serving
		}
		return 0, "USE_SERVING_PORT, but the endpoint has no port of its own (GCE_VM_IP)"
	case port != nil && spec != api.UseNamedPort:
		return int(*port), ""
	case portName != "" && len(names) == 0:
		return 0, fmt.Sprintf("named port %q, but only instance groups and backend services have named ports", portName)
	case portName != "":
		var where []string
		for _, n := range names {
			if p := rules.NamedPort(n.ports, portName); p != 0 {
				return int(p), ""
			}
			where = append(where, n.of)
		}
		return 0, fmt.Sprintf("no named port %q in %s", portName, strings.Join(where, " or "))
	}
	return 0, "the health check sets no port"
}

func seconds(p *int64) time.Duration { return time.Duration(deref(p)) * time.Second }

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
