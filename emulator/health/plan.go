package health

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Snapshot is every stored resource that decides what is probed, keyed by
// path ("projects/p/global/healthChecks/x").
type Snapshot struct {
	HealthChecks    map[string]*api.HealthCheck
	LegacyHTTP      map[string]*api.LegacyHealthCheck
	LegacyHTTPS     map[string]*api.LegacyHealthCheck
	Groups          map[string]*api.NetworkEndpointGroup
	BackendServices map[string]*api.BackendService
	TargetPools     map[string]*api.TargetPool
}

// Plan lists the targets a snapshot asks for: every endpoint of every group
// of every backend service that has a health check, probed once per service
// (SPEC 3.1), and every instance of every target pool that has one. allowed
// says which addresses the emulator may probe; others are reported, not
// probed.
func Plan(s Snapshot, allowed func(netip.Addr) bool) []Target {
	var targets []Target
	for _, bsPath := range slices.Sorted(maps.Keys(s.BackendServices)) {
		bs := s.BackendServices[bsPath]
		if len(bs.HealthChecks) == 0 {
			continue
		}
		for _, b := range bs.Backends {
			groupPath := api.PathOf(b.Group)
			if g, ok := s.Groups[groupPath]; ok {
				targets = append(targets, s.groupTargets(bsPath, bs, groupPath, g)...)
			}
		}
	}
	for _, tpPath := range slices.Sorted(maps.Keys(s.TargetPools)) {
		targets = append(targets, s.poolTargets(tpPath, s.TargetPools[tpPath])...)
	}
	return restrict(targets, allowed)
}

// groupTargets are the endpoints of group g probed for service bs.
func (s Snapshot) groupTargets(bsPath string, bs *api.BackendService, groupPath string, g *api.NetworkEndpointGroup) []Target {
	targets := make([]Target, 0, len(g.Endpoints))
	for _, e := range g.Endpoints {
		ep := Endpoint{IP: e.IPAddress, Instance: e.Instance, Stopped: e.State == api.EndpointStopped}
		if e.Port != nil {
			ep.Port = int(*e.Port)
		}
		check, ok := s.check(bs.HealthChecks[0], bs, ep)
		if !ok {
			continue
		}
		targets = append(targets, Target{Owner: bsPath, Group: groupPath, Endpoint: ep, Check: check})
	}
	return targets
}

// poolTargets are the instances of a target pool, probed with its legacy
// HTTP check on the instance's own port when it names one.
func (s Snapshot) poolTargets(tpPath string, tp *api.TargetPool) []Target {
	if len(tp.HealthChecks) == 0 {
		return nil
	}
	var targets []Target
	for _, inst := range tp.Instances {
		addr, port, err := rules.SplitInstance(inst)
		if err != nil {
			continue
		}
		ep := Endpoint{IP: addr.String(), Port: port, Instance: inst}
		check, ok := s.check(tp.HealthChecks[0], nil, ep)
		if !ok {
			continue
		}
		if port != 0 {
			check.Port, check.Unresolved = port, ""
		}
		targets = append(targets, Target{Owner: tpPath, Endpoint: ep, Check: check})
	}
	return targets
}

// check resolves a health-check reference, regular or legacy, for one
// endpoint of a backend service (bs is nil for target pools).
func (s Snapshot) check(ref string, bs *api.BackendService, ep Endpoint) (Check, bool) {
	path := api.PathOf(ref)
	if hc, ok := s.HealthChecks[path]; ok {
		c := CheckOf(path, hc)
		c.Port, c.Unresolved = resolvePort(hc, bs, ep)
		return c, true
	}
	if hc, ok := s.LegacyHTTP[path]; ok {
		return legacyCheck(path, hc, "LEGACY_HTTP"), true
	}
	if hc, ok := s.LegacyHTTPS[path]; ok {
		return legacyCheck(path, hc, "LEGACY_HTTPS"), true
	}
	return Check{}, false
}

// legacyCheck is what probing needs of a legacy check: only its port.
func legacyCheck(path string, hc *api.LegacyHealthCheck, protocol string) Check {
	return Check{
		Name:               path,
		Probe:              prober.Spec{Protocol: protocol, Host: hc.Host, RequestPath: hc.RequestPath},
		Port:               int(deref(hc.Port)),
		Interval:           seconds(hc.CheckIntervalSec),
		Timeout:            seconds(hc.TimeoutSec),
		HealthyThreshold:   int(deref(hc.HealthyThreshold)),
		UnhealthyThreshold: int(deref(hc.UnhealthyThreshold)),
	}
}

// restrict keeps targets outside the allowed networks from being probed,
// and says why.
func restrict(targets []Target, allowed func(netip.Addr) bool) []Target {
	for i := range targets {
		t := &targets[i]
		if addr, err := netip.ParseAddr(t.Endpoint.IP); err != nil || !allowed(addr) {
			t.Check.Port, t.Check.Unresolved = 0, fmt.Sprintf("%s is outside the networks this emulator may probe (--probe-networks)", t.Endpoint.IP)
		}
	}
	return targets
}

// CheckOf is what probing needs of a (stored, defaulted) health check; the
// port is left for the caller to resolve per endpoint.
func CheckOf(path string, hc *api.HealthCheck) Check {
	c := Check{
		Name:               path,
		Interval:           seconds(hc.CheckIntervalSec),
		Timeout:            seconds(hc.TimeoutSec),
		HealthyThreshold:   int(deref(hc.HealthyThreshold)),
		UnhealthyThreshold: int(deref(hc.UnhealthyThreshold)),
		Log:                hc.LogConfig != nil && hc.LogConfig.Enable != nil && *hc.LogConfig.Enable,
		Probe:              probeSpec(hc),
	}
	return c
}

// probeSpec copies the protocol block that is set into a prober.Spec.
func probeSpec(hc *api.HealthCheck) prober.Spec {
	spec := prober.Spec{Protocol: hc.Type}
	if b, ok := hc.Block(); ok {
		spec.ProxyHeader = b.Ports.ProxyHeader
	}
	switch {
	case hc.TCPHealthCheck != nil:
		spec.Request, spec.Response = hc.TCPHealthCheck.Request, hc.TCPHealthCheck.Response
	case hc.SSLHealthCheck != nil:
		spec.Request, spec.Response = hc.SSLHealthCheck.Request, hc.SSLHealthCheck.Response
	case hc.HTTPHealthCheck != nil:
		spec.Host, spec.RequestPath, spec.Response = hc.HTTPHealthCheck.Host, hc.HTTPHealthCheck.RequestPath, hc.HTTPHealthCheck.Response
	case hc.HTTPSHealthCheck != nil:
		spec.Host, spec.RequestPath, spec.Response = hc.HTTPSHealthCheck.Host, hc.HTTPSHealthCheck.RequestPath, hc.HTTPSHealthCheck.Response
	case hc.HTTP2HealthCheck != nil:
		spec.Host, spec.RequestPath, spec.Response = hc.HTTP2HealthCheck.Host, hc.HTTP2HealthCheck.RequestPath, hc.HTTP2HealthCheck.Response
	case hc.GRPCHealthCheck != nil:
		spec.GRPCServiceName = hc.GRPCHealthCheck.GRPCServiceName
	case hc.GRPCTLSHealthCheck != nil:
		spec.GRPCServiceName = hc.GRPCTLSHealthCheck.GRPCServiceName
	}
	return spec
}

// resolvePort picks the port to probe (SPEC 2.1): the endpoint's own port
// for USE_SERVING_PORT, the service's named port for USE_NAMED_PORT (or a
// port name alone), else the check's port. 0 and a reason when it cannot.
func resolvePort(hc *api.HealthCheck, bs *api.BackendService, ep Endpoint) (int, string) {
	b, ok := hc.Block()
	if !ok {
		return 0, "the health check has no protocol block"
	}
	spec, port := b.Ports.PortSpecification, b.Ports.Port
	portName := ""
	if b.PortName != nil {
		portName = *b.PortName
	}
	switch {
	case spec == api.UseServingPort:
		if ep.Port == 0 {
			return 0, "USE_SERVING_PORT, but the endpoint has no port of its own (GCE_VM_IP)"
		}
		return ep.Port, ""
	case port != nil && spec != api.UseNamedPort:
		return int(*port), ""
	case portName != "" && bs != nil:
		for _, np := range bs.NamedPorts {
			if np.Name == portName && np.Port != nil {
				return int(*np.Port), ""
			}
		}
		return 0, fmt.Sprintf("the backend service has no named port %q", portName)
	case portName != "":
		return 0, fmt.Sprintf("named port %q, but only backend services have named ports", portName)
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
