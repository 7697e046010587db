package rules

import (
	"fmt"
	"math"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Defaults and limits of composite health. minHealthyThreshold is a uint32
// in the Compute API, so its largest value is that of a uint32.
const (
	DefaultHealthyPercentThreshold = 60
	DefaultMinHealthyThreshold     = 1
	MaxMinHealthyThreshold         = math.MaxUint32
	MinHealthSources               = 1
	MaxHealthSources               = 10
)

// HealthAggregationPolicy checks a policy as a client sent it.
func HealthAggregationPolicy(p *api.HealthAggregationPolicy) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	vs.add(optionalRange("healthyPercentThreshold", p.HealthyPercentThreshold, 0, 100))
	vs.add(optionalRange("minHealthyThreshold", p.MinHealthyThreshold, 1, MaxMinHealthyThreshold))
	vs.add(oneOf("policyType", p.PolicyType, api.PolicyTypeBackendService))
	return vs
}

// ApplyHealthAggregationPolicyDefaults fills the unset fields of a policy.
func ApplyHealthAggregationPolicyDefaults(p *api.HealthAggregationPolicy) {
	setDefault(&p.HealthyPercentThreshold, DefaultHealthyPercentThreshold)
	setDefault(&p.MinHealthyThreshold, DefaultMinHealthyThreshold)
	if p.PolicyType == "" {
		p.PolicyType = api.PolicyTypeBackendService
	}
}

// HealthSource checks a health source as a client sent it; what its
// references point at is checked by HealthSourceService and SameRegion.
func HealthSource(hs *api.HealthSource) Violations {
	var vs Violations
	vs.add(Name("name", hs.Name))
	vs.add(Description("description", hs.Description))
	if hs.SourceType == "" {
		vs = append(vs, violation("sourceType", "%s is required: set it to %s.", f("sourceType"), api.SourceTypeBackendService))
	}
	vs.add(oneOf("sourceType", hs.SourceType, api.SourceTypeBackendService))
	if len(hs.Sources) != 1 {
		vs = append(vs, violation("sources", "%s lists %d sources: a health source takes exactly one backend service.", f("sources"), len(hs.Sources)))
	}
	if hs.HealthAggregationPolicy == "" {
		vs = append(vs, violation("healthAggregationPolicy", "%s is required: the policy that says when the backend service is healthy.", f("healthAggregationPolicy")))
	}
	return vs
}

// HealthSourceService checks the backend service a health source uses:
// regional, in the source's region (region of the service is bsRegion),
// internal, and backed by instance groups or VM endpoint groups
// (groupTypes).
func HealthSourceService(ref string, bs *api.BackendService, bsRegion, region string, groupTypes []string) *Violation {
	field := "sources[0]"
	switch {
	case bsRegion != region:
		where := "global"
		if bsRegion != "" {
			where = "in region " + bsRegion
		}
		v := violation(field, "%s (%q) is %s: a health source takes a regional backend service of its own region (%s).", f(field), ref, where, region)
		return &v
	case bs.LoadBalancingScheme != api.SchemeInternal && bs.LoadBalancingScheme != api.SchemeInternalManaged:
		v := violation(field, "%s (%q) has loadBalancingScheme %s: a health source takes an INTERNAL or INTERNAL_MANAGED backend service.", f(field), ref, bs.LoadBalancingScheme)
		return &v
	}
	for i, t := range groupTypes {
		if t != api.GCEVMIP && t != api.GCEVMIPPort && t != api.InstanceGroupBackend {
			v := violation(field, "%s (%q) has a backend (backends[%d]) whose endpoint group is %s: a health source takes backend services of instance groups or of GCE_VM_IP or GCE_VM_IP_PORT endpoint groups.", f(field), ref, i, t)
			return &v
		}
	}
	return nil
}

// SameRegion checks that a referenced regional resource (what) is in the
// referrer's region; refRegion is "" for a global one.
func SameRegion(field, ref, what, refRegion, region string) *Violation {
	if refRegion == region {
		return nil
	}
	where := "global"
	if refRegion != "" {
		where = "in region " + refRegion
	}
	v := violation(field, "%s (%q) is %s: it must be %s of the same region (%s).", f(field), ref, where, what, region)
	return &v
}

// CompositeHealthCheck checks a composite check as a client sent it.
func CompositeHealthCheck(c *api.CompositeHealthCheck) Violations {
	var vs Violations
	vs.add(Name("name", c.Name))
	vs.add(Description("description", c.Description))
	if n := len(c.HealthSources); n < MinHealthSources || n > MaxHealthSources {
		vs = append(vs, violation("healthSources", "%s lists %d health sources: a composite health check takes %d to %d.",
			f("healthSources"), n, MinHealthSources, MaxHealthSources))
	}
	seen := map[string]int{}
	for i, s := range c.HealthSources {
		if j, dup := seen[s]; dup {
			field := fmt.Sprintf("healthSources[%d]", i)
			vs = append(vs, violation(field, "%s (%q) repeats %s: list each health source once.", f(field), s, f(fmt.Sprintf("healthSources[%d]", j))))
		}
		seen[s] = i
	}
	if c.HealthDestination == "" {
		vs = append(vs, violation("healthDestination", "%s is required: the forwarding rule whose health the check reports.", f("healthDestination")))
	}
	return vs
}

// HealthDestination checks the forwarding rule of a composite check.
func HealthDestination(ref string, fr *api.ForwardingRule, frRegion, region string) *Violation {
	if v := SameRegion("healthDestination", ref, "a regional forwarding rule", frRegion, region); v != nil {
		return v
	}
	if fr.LoadBalancingScheme != api.SchemeInternal && fr.LoadBalancingScheme != api.SchemeInternalManaged {
		v := violation("healthDestination", "%s (%q) has loadBalancingScheme %s: the health destination must be an INTERNAL or INTERNAL_MANAGED forwarding rule.",
			f("healthDestination"), ref, fr.LoadBalancingScheme)
		return &v
	}
	return nil
}

// DestinationTaken is the message for a forwarding rule that already is the
// destination of another composite check.
func DestinationTaken(ref, other string) Violation {
	return violation("healthDestination", "%s (%q) is already the health destination of %s: a forwarding rule is the destination of at most one composite health check.",
		f("healthDestination"), ref, other)
}

// RepeatedSource is the message for a health source listed twice under
// two spellings (a name and a path, say), found once references resolve.
func RepeatedSource(field, ref, first string) Violation {
	return violation(field, "%s (%q) is %s again: list each health source once.", f(field), ref, f(first))
}

// CompositeAsSource is the message for a composite check listed as a
// health source.
func CompositeAsSource(field, ref string) Violation {
	return violation(field, "%s (%q) is a composite health check: the composite health of one service cannot be a health source of another; list health sources (%s) only.",
		f(field), ref, f("healthSources"))
}
