package rules

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

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
