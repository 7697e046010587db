package compute

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthAggregationPolicies is the regional healthAggregationPolicies collection.
func (s backends) healthAggregationPolicies() *collection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy] {
	c := newCollection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy](s.Service, api.CollectionHealthAggregationPolicies, rules.HealthAggregationPolicy, rules.ApplyHealthAggregationPolicyDefaults)
	c.fingerprint = func(p *api.HealthAggregationPolicy) *string { return &p.Fingerprint }
	c.immutable = func(prior, p *api.HealthAggregationPolicy) error {
		return unchanged("policyType", prior.PolicyType, p.PolicyType, api.PolicyTypeBackendService)
	}
	return c
}
