package rules

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// NetworkEndpointGroup checks an endpoint group as a client sent it.
func NetworkEndpointGroup(g *api.NetworkEndpointGroup) Violations {
	var vs Violations
	vs.add(Name("name", g.Name))
	vs.add(Description("description", g.Description))
	vs.add(oneOf("networkEndpointType", g.NetworkEndpointType, api.GCEVMIPPort, api.GCEVMIP, api.NonGCPPrivateIPPort,
		api.InternetIPPort, api.InternetFQDNPort, api.Serverless, api.PrivateServiceConnect, api.GCEVMIPPortmap, api.GCEVMIPDedicated))
	vs.add(optionalRange("defaultPort", g.DefaultPort, MinPort, MaxPort))
	if len(vs) > 0 {
		return vs
	}
	typ := valueOrString(g.NetworkEndpointType, api.GCEVMIPPort)
	switch {
	case typ == api.GCEVMIP && g.DefaultPort != nil:
		vs = append(vs, violation("defaultPort", "%s (%d) must not be set when %s is GCE_VM_IP: GCE_VM_IP endpoints have no port (the health check's port is probed).",
			f("defaultPort"), *g.DefaultPort, f("networkEndpointType")))
	case (typ == api.Serverless || typ == api.PrivateServiceConnect) && g.DefaultPort != nil:
		vs = append(vs, violation("defaultPort", "%s (%d) must not be set when %s is %s: the group's endpoints are services, not ports.",
			f("defaultPort"), *g.DefaultPort, f("networkEndpointType"), typ))
	}
	seen := map[endpointKey]int{}
	for i := range g.Endpoints {
		vs = append(vs, NetworkEndpoint(fmt.Sprintf("endpoints[%d]", i), &g.Endpoints[i], typ, g.DefaultPort != nil)...)
		k := keyOf(&g.Endpoints[i], g.DefaultPort)
		if k.port == 0 && typ != api.GCEVMIP {
			continue // no port at all: reported above, and no key to compare
		}
		if j, dup := seen[k]; dup {
			vs = append(vs, duplicateEndpoint(g, i, j))
		}
		seen[k] = i
	}
	return vs
}

// endpointKey is what makes an endpoint distinct: its address, in canonical
// form ("::1" and "0:0::1" are one address), and the port it will be
// probed on, the group's default port when it sets none (0: no port). An
// endpoint given by instance alone is keyed by the instance until the
// emulator fills in the instance's address.
type endpointKey struct {
	addr string
	port int64
}

func keyOf(e *api.NetworkEndpoint, defaultPort *int64) endpointKey {
	addr := e.IPAddress
	if a, err := netip.ParseAddr(addr); err == nil {
		addr = a.String()
	} else if addr == "" {
		addr = "instance " + e.Instance
	}
	return endpointKey{addr: addr, port: valueOr(e.Port, valueOr(defaultPort, 0))}
}

// duplicateEndpoint reports endpoint i as a repeat of endpoint j. When
// either takes its port from defaultPort the message names it: the rule then
// reads it (an unknown default port at plan time leaves the rule undecided).
func duplicateEndpoint(g *api.NetworkEndpointGroup, i, j int) Violation {
	ei, ej := f(fmt.Sprintf("endpoints[%d]", i)), f(fmt.Sprintf("endpoints[%d]", j))
	e := &g.Endpoints[i]
	k := keyOf(e, g.DefaultPort)
	who := e.IPAddress
	if who == "" {
		who = fmt.Sprintf("instance %q", e.Instance)
	}
	switch {
	case k.port == 0:
		return violation(fmt.Sprintf("endpoints[%d]", i), "%s repeats %s (%s): each endpoint may be listed once.", ei, ej, who)
	case g.DefaultPort != nil && (e.Port == nil || g.Endpoints[j].Port == nil):
		return violation(fmt.Sprintf("endpoints[%d]", i), "%s repeats %s (%s, port %d with %s): each endpoint may be listed once.",
			ei, ej, who, k.port, f("defaultPort"))
	}
	return violation(fmt.Sprintf("endpoints[%d]", i), "%s repeats %s (%s, port %d): each endpoint may be listed once.", ei, ej, who, k.port)
}

// NetworkEndpoint checks one endpoint, named field, of a group of type typ.
// An endpoint of a GCE_VM_* group may name its instance alone: its address
// is then the instance's networkIP, as in the Compute API.
func NetworkEndpoint(field string, e *api.NetworkEndpoint, typ string, hasDefaultPort bool) Violations {
	var vs Violations
	switch _, err := netip.ParseAddr(e.IPAddress); {
	case typ == api.InternetFQDNPort && e.FQDN == "" && e.IPAddress == "":
		vs = append(vs, violation(field+".fqdn", "%s is required: INTERNET_FQDN_PORT endpoints are named by a domain name.", f(field+".fqdn")))
	case typ == api.InternetFQDNPort && e.IPAddress == "":
	case e.IPAddress == "" && e.Instance != "" && (typ == api.GCEVMIPPort || typ == api.GCEVMIP || typ == api.GCEVMIPPortmap || typ == api.GCEVMIPDedicated):
	case e.IPAddress == "" && e.Instance != "":
		vs = append(vs, violation(field+".ipAddress", "%s is required: %s endpoints are not instances, so %s alone does not give an address.",
			f(field+".ipAddress"), typ, f(field+".instance")))
	case err != nil:
		vs = append(vs, violation(field+".ipAddress", "%s (%q) must be an IPv4 or IPv6 address.", f(field+".ipAddress"), e.IPAddress))
	}
	if e.FQDN != "" && typ != api.InternetFQDNPort {
		vs = append(vs, violation(field+".fqdn", "%s (%q) must not be set: only INTERNET_FQDN_PORT endpoints are named by a domain name, and the group is %s.",
			f(field+".fqdn"), e.FQDN, typ))
	}
	vs.add(optionalRange(field+".port", e.Port, MinPort, MaxPort))
	vs.add(oneOf(field+".state", e.State, api.EndpointRunning, api.EndpointStopped))
	switch {
	case typ == api.GCEVMIP && e.Port != nil:
		vs = append(vs, violation(field+".port", "%s (%d) must not be set: GCE_VM_IP endpoints have no port (the health check's port is probed).",
			f(field+".port"), *e.Port))
	case hasPort(typ) && e.Port == nil && !hasDefaultPort:
		vs = append(vs, violation(field+".port", "%s is required: set it, or set the group's %s.", f(field+".port"), f("defaultPort")))
	}
	return vs
}

// ApplyNetworkEndpointGroupDefaults fills the unset fields of a valid group.
func ApplyNetworkEndpointGroupDefaults(g *api.NetworkEndpointGroup) {
	if g.NetworkEndpointType == "" {
		g.NetworkEndpointType = api.GCEVMIPPort
	}
	for i := range g.Endpoints {
		e := &g.Endpoints[i]
		if e.Port == nil && g.DefaultPort != nil {
			p := *g.DefaultPort
			e.Port = &p
		}
		if e.State == "" {
			e.State = api.EndpointRunning
		}
	}
	g.Size = int64(len(g.Endpoints))
}

// BackendService checks a backend service as a client sent it; the rules
// about the objects it references are in BackendServiceHealthCheck.
func BackendService(bs *api.BackendService) Violations {
	var vs Violations
	vs.add(Name("name", bs.Name))
	vs.add(Description("description", bs.Description))
	vs.add(oneOf("protocol", bs.Protocol, api.ProtocolHTTP, api.ProtocolHTTPS, api.ProtocolHTTP2, api.ProtocolTCP, api.ProtocolSSL,
		api.ProtocolUDP, api.ProtocolGRPC, api.ProtocolH2C, api.ProtocolUnspecified))
	vs.add(oneOf("loadBalancingScheme", bs.LoadBalancingScheme, Schemes...))
	// The API takes a backend service timeout of 1 to 2,147,483,647 s.
	vs.add(optionalRange("timeoutSec", bs.TimeoutSec, 1, math.MaxInt32))
	if p := bs.NetworkPassThroughLBTrafficPolicy; p != nil && p.ZonalAffinity != nil && p.ZonalAffinity.SpilloverRatio != nil {
		if r := *p.ZonalAffinity.SpilloverRatio; r < 0 || r > 1 {
			field := "networkPassThroughLbTrafficPolicy.zonalAffinity.spilloverRatio"
			vs = append(vs, violation(field, "%s (%g) is out of range: Must be less than or equal to 1.0, and at least 0.0.", f(field), r))
		}
	}
	if len(bs.HealthChecks) > 1 {
		vs = append(vs, violation("healthChecks", "%s lists %d health checks: a backend service takes one.", f("healthChecks"), len(bs.HealthChecks)))
	}
	names := map[string]bool{}
	for i, np := range bs.NamedPorts {
		field := fmt.Sprintf("namedPorts[%d]", i)
		vs.add(Name(field+".name", np.Name))
		if np.Port == nil {
			vs = append(vs, violation(field+".port", "%s is required.", f(field+".port")))
		}
		vs.add(optionalRange(field+".port", np.Port, MinPort, MaxPort))
		if names[np.Name] {
			vs = append(vs, violation(field+".name", "%s (%q) is used twice: named ports must have different names.", f(field+".name"), np.Name))
		}
		names[np.Name] = true
	}
	if bs.SessionAffinity == "STRONG_COOKIE_AFFINITY" && (bs.StrongSessionAffinityCookie == nil || bs.StrongSessionAffinityCookie.Name == "") {
		vs = append(vs, violation("strongSessionAffinityCookie.name", "%s is required when sessionAffinity is STRONG_COOKIE_AFFINITY: the cookie that keeps a client with its backend.",
			f("strongSessionAffinityCookie.name")))
	}
	vs = append(vs, CustomHeaders("customRequestHeaders", bs.CustomRequestHeaders)...)
	vs = append(vs, CustomHeaders("customResponseHeaders", bs.CustomResponseHeaders)...)
	for i, b := range bs.Backends {
		if b.Group == "" {
			vs = append(vs, violation(fmt.Sprintf("backends[%d].group", i), "%s is required: the endpoint group of the backend.", f(fmt.Sprintf("backends[%d].group", i))))
		}
	}
	return vs
}

// CustomHeaders checks the headers a load balancer adds to requests or
// answers, each written "name:value", as the Compute API does: the name is an
// HTTP field name that is not hop-by-hop, not one the load balancer writes
// itself and not used twice; the value is a field value (it may be empty).
func CustomHeaders(field string, headers []string) Violations {
	var vs Violations
	seen := map[string]bool{}
	for i, h := range headers {
		at := fmt.Sprintf("%s[%d]", field, i)
		name, value, ok := strings.Cut(h, ":")
		lower := strings.ToLower(name)
		switch {
		case !ok:
			vs = append(vs, violation(at, "%s (%q) has no colon: write a custom header as name:value.", f(at), h))
		case !httpguts.ValidHeaderFieldName(name):
			vs = append(vs, violation(at, "%s (%q): the header name %q is not an HTTP field name (letters, digits and !#$%%&'*+-.^_`|~, nothing else).", f(at), h, name))
		case slices.Contains(reservedHeaders, lower):
			vs = append(vs, violation(at, "%s (%q): the load balancer does not add %s: it is hop-by-hop or written by the load balancer itself.", f(at), h, name))
		case slices.ContainsFunc(reservedHeaderPrefixes, func(p string) bool { return strings.HasPrefix(lower, p) }):
			vs = append(vs, violation(at, "%s (%q): header names beginning with X-Google, X-Goog-, X-GFE or X-Amz- are reserved.", f(at), h))
		case seen[lower]:
			vs = append(vs, violation(at, "%s (%q): the header %s is added twice: each name may appear once.", f(at), h, name))
		case !httpguts.ValidHeaderFieldValue(strings.TrimSpace(value)):
			vs = append(vs, violation(at, "%s (%q): the value is not an HTTP field value (control characters and line breaks are not allowed).", f(at), h))
		}
		seen[lower] = true
	}
	return vs
}

// reservedHeaders are the names a custom header may not have: the hop-by-hop
// ones, and those the load balancer keeps for itself.
var reservedHeaders = []string{"keep-alive", "transfer-encoding", "te", "connection", "trailer", "upgrade",
	"x-user-ip", "cdn-loop", "host", "authority"}

var reservedHeaderPrefixes = []string{"x-google", "x-goog-", "x-gfe", "x-amz-"}

// ApplyBackendServiceDefaults fills the unset fields of a valid service.
func ApplyBackendServiceDefaults(bs *api.BackendService) {
	if bs.Protocol == "" {
		bs.Protocol = api.ProtocolHTTP
	}
	if bs.LoadBalancingScheme == "" {
		bs.LoadBalancingScheme = api.SchemeExternal
	}
}

// BackendServiceHealthCheck checks that a backend service (regional when
// region is set) may use health check hc, which lives in hcRegion ("" for a
// global check).
func BackendServiceHealthCheck(bs *api.BackendService, region string, hc *api.HealthCheck, hcRegion string) *Violation {
	field := "healthChecks[0]"
	switch {
	case region != hcRegion && region == "":
		v := violation(field, "%s (%q) is a regional health check (region %s): a global backend service takes a global health check.", f(field), hc.Name, hcRegion)
		return &v
	case region != hcRegion && hcRegion == "":
		// A regional service may use a global check, as in the Compute API
		// (Google's own examples pair regional INTERNAL_MANAGED services
		// with global checks).
	case region != hcRegion:
		v := violation(field, "%s (%q) is in region %s: a regional backend service takes a health check of its own region (%s).", f(field), hc.Name, hcRegion, region)
		return &v
	case len(hc.SourceRegions) > 0:
		v := violation(field, "%s (%q) has sourceRegions: a health check probed from source regions cannot be used by a backend service.", f(field), hc.Name)
		return &v
	case valueOrString(bs.Protocol, api.ProtocolHTTP) == api.ProtocolGRPC && !isGRPCOrTCP(hc.Type):
		v := violation(field, "%s (%q) is a %s health check: a %s backend service (%q) takes only gRPC or TCP health checks.",
			f(field), hc.Name, hc.Type, f("protocol"), api.ProtocolGRPC)
		return &v
	}
	return nil
}

// hasPort tells whether the endpoints of a group type have ports of their
// own: GCE_VM_IP and GCE_VM_IP_DEDICATED_BACKEND ones are addresses only.
func hasPort(typ string) bool {
	return typ != api.GCEVMIP && typ != api.GCEVMIPDedicated
}

// Schemes are the load-balancing schemes of backend services and
// forwarding rules, as in the Compute API.
var Schemes = []string{api.SchemeExternal, api.SchemeExternalManaged, api.SchemeInternal, api.SchemeInternalManaged,
	api.SchemeInternalSelfManaged, api.SchemeExternalPassthrough}

func isGRPCOrTCP(typ string) bool {
	return typ == api.TypeGRPC || typ == api.TypeGRPCWithTLS || typ == api.TypeTCP
}

func valueOrString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
