package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// ForwardingRule checks a forwarding rule as a client sent it.
func ForwardingRule(fr *api.ForwardingRule) Violations {
	var vs Violations
	vs.add(Name("name", fr.Name))
	vs.add(Description("description", fr.Description))
	if fr.IPAddress != "" && !IsIPOrRange(fr.IPAddress) && !isAddressRef(fr.IPAddress) {
		vs = append(vs, violation("IPAddress", "%s (%q) must be an IPv4 or IPv6 address, an IPv6 range (2600:1234::/96), or a reference to an address resource (its URL, regions/{region}/addresses/{name} or its name).",
			f("IPAddress"), fr.IPAddress))
	}
	vs.add(oneOf("ipVersion", fr.IPVersion, api.IPv4, api.IPv6))
	vs.add(portRange("portRange", fr.PortRange))
	vs = append(vs, rulePorts(fr)...)
	vs.add(oneOf("loadBalancingScheme", fr.LoadBalancingScheme, Schemes...))
	switch {
	case fr.BackendService != "" && fr.Target != "":
		vs = append(vs, violation("target", "%s and %s are both set: a forwarding rule sends traffic to one of them; remove one.", f("backendService"), f("target")))
	case fr.BackendService == "" && fr.Target == "":
		vs = append(vs, violation("backendService", "one of %s or %s is required.", f("backendService"), f("target")))
	}
	return vs
}

// MaxRulePorts is how many ports a forwarding rule's ports may list.
const MaxRulePorts = 5

// rulePorts checks ports: at most MaxRulePorts port numbers, each once; and
// that ports, portRange and allPorts are not combined, as the API says.
func rulePorts(fr *api.ForwardingRule) Violations {
	var vs Violations
	set := 0
	for _, on := range []bool{len(fr.Ports) > 0, fr.PortRange != "", fr.AllPorts != nil && *fr.AllPorts} {
		if on {
			set++
		}
	}
	if set > 1 {
		vs = append(vs, violation("ports", "%s, %s and %s are exclusive: set one of them.", f("ports"), f("portRange"), f("allPorts")))
	}
	protocol := valueOrString(fr.IPProtocol, "TCP")
	for _, set := range []struct {
		field string
		on    bool
		takes []string
	}{
		{"ports", len(fr.Ports) > 0, []string{"TCP", "UDP", "SCTP"}},
		{"portRange", fr.PortRange != "", []string{"TCP", "UDP", "SCTP"}},
		{"allPorts", fr.AllPorts != nil && *fr.AllPorts, []string{"TCP", "UDP", "SCTP", "L3_DEFAULT"}},
	} {
		if set.on && !slices.Contains(set.takes, protocol) {
			vs = append(vs, violation(set.field, "%s is set, but %s is %s: %s is for %s rules only.",
				f(set.field), f("IPProtocol"), protocol, f(set.field), strings.Join(set.takes, ", ")))
		}
	}
	if len(fr.Ports) > MaxRulePorts {
		vs = append(vs, violation("ports", "%s lists %d ports: a forwarding rule takes at most %d; use portRange or allPorts for more.", f("ports"), len(fr.Ports), MaxRulePorts))
	}
	seen := map[int]bool{}
	for i, p := range fr.Ports {
		field := fmt.Sprintf("ports[%d]", i)
		n, err := strconv.Atoi(p)
		switch {
		case err != nil || n < MinPort || n > MaxPort || strconv.Itoa(n) != p:
			vs = append(vs, violation(field, "%s (%q) must be a port number from %d to %d.", f(field), p, MinPort, MaxPort))
		case seen[n]:
			vs = append(vs, violation(field, "%s (%q) is listed twice: each port once.", f(field), p))
		}
		seen[n] = true
	}
	return vs
}

// IsIPOrRange tells whether a rule's IPAddress is an address number (or an
// IPv6 range) rather than a reference to an address resource.
func IsIPOrRange(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	p, err := netip.ParsePrefix(s)
	return err == nil && p.Addr().Is6()
}

// isAddressRef tells whether s may name an address resource: a URL or path
// to one, or a name.
func isAddressRef(s string) bool {
	return strings.Contains(s, "/addresses/") || Name("IPAddress", s) == nil
}

// ForwardingRuleTarget checks that a rule whose target is a target pool (a
// bare name is one) is regional: target pools are. The provider runs it at plan time, since a
// forwarding rule without region is global there.
func ForwardingRuleTarget(target string, regional bool) *Violation {
	if target == "" || regional || strings.Contains(target, "/") && !strings.Contains(target, "/targetPools/") || GoogleAPIsBundles[target] {
		return nil
	}
	v := violation("target", "%s (%q) must not be set on a global forwarding rule: target pools are regional; use a regional forwarding rule.",
		f("target"), target)
	return &v
}

// GoogleAPIsBundles are the targets of a global Private Service Connect
// rule that reaches Google's APIs rather than a load balancer.
var GoogleAPIsBundles = map[string]bool{"all-apis": true, "vpc-sc": true}

// PrivateServiceConnect tells whether a rule with target is a Private
// Service Connect endpoint: to a service attachment or to a bundle of
// Google APIs. Such a rule has no load-balancing scheme.
func PrivateServiceConnect(target string) bool {
	return GoogleAPIsBundles[target] || strings.Contains(target, "/serviceAttachments/")
}

// ApplyForwardingRuleDefaults fills the unset fields of a valid rule.
func ApplyForwardingRuleDefaults(fr *api.ForwardingRule) {
	if fr.LoadBalancingScheme == "" && !PrivateServiceConnect(fr.Target) {
		fr.LoadBalancingScheme = api.SchemeExternal
	}
	if fr.IPProtocol == "" {
		fr.IPProtocol = "TCP"
	}
}

// portRange checks "80" or "80-90".
func portRange(field, value string) *Violation {
	if value == "" {
		return nil
	}
	lo, hi, found := strings.Cut(value, "-")
	if !found {
		hi = lo
	}
	a, errA := strconv.Atoi(lo)
	b, errB := strconv.Atoi(hi)
	if errA != nil || errB != nil || a < MinPort || b > MaxPort || a > b {
		v := violation(field, "%s (%q) must be a port (\"80\") or a range of ports (\"8080-8090\") between %d and %d, low to high.",
			f(field), value, MinPort, MaxPort)
		return &v
	}
	return nil
}
