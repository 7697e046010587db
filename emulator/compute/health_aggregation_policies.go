package compute

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthAggregationPolicies is the regional healthAggregationPolicies collection.
func (s backends) healthAggregationPolicies() *core.Collection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy] {
	c := core.NewCollection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy](s.API, api.CollectionHealthAggregationPolicies, rules.HealthAggregationPolicy, rules.ApplyHealthAggregationPolicyDefaults)
	c.Fingerprint = func(p *api.HealthAggregationPolicy) *string { return &p.Fingerprint }
	c.Immutable = func(prior, p *api.HealthAggregationPolicy) error {
		return core.Unchanged("policyType", prior.PolicyType, p.PolicyType, api.PolicyTypeBackendService)
	}
	return c
}
