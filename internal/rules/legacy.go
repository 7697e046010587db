package rules

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// LegacyHealthCheck checks a legacy HTTP or HTTPS check (SPEC 2.2) as a
// client sent it. Only port says which port is probed.
func LegacyHealthCheck(hc *api.LegacyHealthCheck) Violations {
	var vs Violations
	vs.add(Name("name", hc.Name))
	vs.add(Description("description", hc.Description))
	vs.add(host("host", hc.Host))
	vs.add(requestPath("requestPath", hc.RequestPath, false))
	vs.add(optionalRange("port", hc.Port, MinPort, MaxPort))
	vs = append(vs, Timing(hc.CheckIntervalSec, hc.TimeoutSec, hc.HealthyThreshold, hc.UnhealthyThreshold)...)
	return vs
}

// LegacyDefaultPort is the default port of a legacy check collection.
func LegacyDefaultPort(collection string) int64 {
	if collection == api.CollectionHTTPSHealthChecks {
		return 443
	}
	return 80
}

// ApplyLegacyHealthCheckDefaults fills the unset fields of a valid legacy
// check of collection (httpHealthChecks or httpsHealthChecks).
func ApplyLegacyHealthCheckDefaults(hc *api.LegacyHealthCheck, collection string) {
	setDefault(&hc.Port, LegacyDefaultPort(collection))
	setDefault(&hc.CheckIntervalSec, DefaultCheckIntervalSec)
	setDefault(&hc.TimeoutSec, DefaultTimeoutSec)
	setDefault(&hc.HealthyThreshold, DefaultHealthyThreshold)
	setDefault(&hc.UnhealthyThreshold, DefaultUnhealthyThreshold)
	if hc.RequestPath == "" {
		hc.RequestPath = DefaultRequestPath
	}
}

// TargetPool checks a target pool as a client sent it; which kind of check
// it references is checked by TargetPoolHealthCheck.
func TargetPool(tp *api.TargetPool) Violations {
	var vs Violations
	vs.add(Name("name", tp.Name))
	vs.add(Description("description", tp.Description))
	// Instances are compared as addresses, not as text: "::1" and "0::1"
	// are one endpoint, and the engine would probe it once.
	seen := map[string]int{}
	for i, inst := range tp.Instances {
		field := fmt.Sprintf("instances[%d]", i)
		k, v := TargetPoolInstance(field, inst)
		if v != nil {
			vs = append(vs, *v)
			continue
		}
		if j, dup := seen[k]; dup {
			vs = append(vs, violation(field, "%s (%q) repeats %s: each instance may be listed once.", f(field), inst, f(fmt.Sprintf("instances[%d]", j))))
		}
		seen[k] = i
	}
	if len(tp.HealthChecks) > 1 {
		vs = append(vs, violation("healthChecks", "%s lists %d health checks: target pools take one legacy HTTP health check only.",
			f("healthChecks"), len(tp.HealthChecks)))
	}
	return vs
}

// TargetPoolInstance checks one instance of a target pool, named field:
// the URL of an instance (probed at its networkIP) or, an lbhealth
// extension, an endpoint address "ip" or "ip:port". key is the same for two
// spellings of one instance.
func TargetPoolInstance(field, inst string) (key string, _ *Violation) {
	if _, zone, name, ok := InstanceRef(inst); ok {
		return "zones/" + zone + "/instances/" + name, nil
	}
	addr, port, err := SplitInstance(inst)
	switch {
	case errors.Is(err, errPortZero):
		v := violation(field, "%s (%q) must be an endpoint address, \"ip\" or \"ip:port\": %v.", f(field), inst, err)
		return "", &v
	case err != nil:
		v := violation(field, "%s (%q) must be an endpoint address, \"ip\" or \"ip:port\", or the URL of an instance (zones/{zone}/instances/{name}).",
			f(field), inst)
		return "", &v
	}
	return netip.AddrPortFrom(addr, uint16(port)).String(), nil
}

// TargetPoolHealthCheck checks the collection a target pool's check
// reference points into: only legacy HTTP checks are accepted.
func TargetPoolHealthCheck(ref, collection string) *Violation {
	if collection == api.CollectionHTTPHealthChecks {
		return nil
	}
	v := violation("healthChecks[0]", "%s (%q) is %s: target pools take one legacy HTTP health check only (httpHealthChecks).",
		f("healthChecks[0]"), ref, checkKind(collection))
	return &v
}

// BackendServiceLegacyCheck checks that a backend service may use a legacy
// check (collection httpHealthChecks or httpsHealthChecks).
func BackendServiceLegacyCheck(bs *api.BackendService, region string) *Violation {
	field := "healthChecks[0]"
	if scheme := valueOrString(bs.LoadBalancingScheme, api.SchemeExternal); scheme != api.SchemeExternal {
		v := violation(field, "%s is a legacy health check: legacy checks are accepted only by EXTERNAL backend services, and %s is %s; use a health check (healthChecks) instead.",
			f(field), f("loadBalancingScheme"), scheme)
		return &v
	}
	if region != "" {
		v := violation(field, "%s is a legacy health check, which is global: a regional backend service takes a health check of its own region.", f(field))
		return &v
	}
	return nil
}

// checkKind names the kind of check a collection holds, for messages.
func checkKind(collection string) string {
	switch collection {
	case api.CollectionHTTPHealthChecks:
		return "a legacy HTTP health check"
	case api.CollectionHTTPSHealthChecks:
		return "a legacy HTTPS health check"
	case api.CollectionHealthChecks:
		return "a health check (not a legacy one)"
	}
	return "a " + collection + " resource"
}

// CheckKindMismatch is the message for a reference to the wrong kind of
// health check: legacy where a regular one is needed, or the reverse.
func CheckKindMismatch(field, ref, got, want string) Violation {
	return violation(field, "%s (%q) is %s: %s is needed here.", f(field), ref, checkKind(got), checkKind(want))
}

var errPortZero = errors.New("port 0 is not a port")

// SplitInstance reads a target-pool instance, "ip" or "ip:port"; port is 0
// when absent.
func SplitInstance(inst string) (netip.Addr, int, error) {
	if addr, err := netip.ParseAddr(inst); err == nil {
		return addr, 0, nil
	}
	ap, err := netip.ParseAddrPort(inst)
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("not an IP address or address:port")
	}
	if ap.Port() == 0 {
		return netip.Addr{}, 0, errPortZero
	}
	return ap.Addr(), int(ap.Port()), nil
}

// ForwardingRule checks a forwarding rule as a client sent it.
func ForwardingRule(fr *api.ForwardingRule) Violations {
	var vs Violations
	vs.add(Name("name", fr.Name))
	vs.add(Description("description", fr.Description))
	if fr.IPAddress != "" && !IsIPOrRange(fr.IPAddress) && !isAddressRef(fr.IPAddress) {
		vs = append(vs, violation("IPAddress", "%s (%q) must be an IPv4 or IPv6 address, an IPv6 range (2600:1234::/96), or a reference to an address resource (its URL, regions/{region}/addresses/{name} or its name).",
			f("IPAddress"), fr.IPAddress))
	}
	vs.add(portRange("portRange", fr.PortRange))
	vs.add(oneOf("loadBalancingScheme", fr.LoadBalancingScheme, Schemes...))
	switch {
	case fr.BackendService != "" && fr.Target != "":
		vs = append(vs, violation("target", "%s and %s are both set: a forwarding rule sends traffic to one of them; remove one.", f("backendService"), f("target")))
	case fr.BackendService == "" && fr.Target == "":
		vs = append(vs, violation("backendService", "one of %s or %s is required.", f("backendService"), f("target")))
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

// ForwardingRuleTarget checks that a rule with a target (a target pool) is
// regional: target pools are. The provider runs it at plan time, since a
// forwarding rule without region is global there.
func ForwardingRuleTarget(target string, regional bool) *Violation {
	if target == "" || regional {
		return nil
	}
	v := violation("target", "%s (%q) must not be set on a global forwarding rule: target pools are regional; use a regional forwarding rule.",
		f("target"), target)
	return &v
}

// ApplyForwardingRuleDefaults fills the unset fields of a valid rule.
func ApplyForwardingRuleDefaults(fr *api.ForwardingRule) {
	if fr.LoadBalancingScheme == "" {
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
