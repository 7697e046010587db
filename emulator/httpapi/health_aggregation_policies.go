package httpapi

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthAggregationPolicies is the regional healthAggregationPolicies collection.
func (s *Server) healthAggregationPolicies() *collection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy] {
	return &collection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy]{
		s: s, def: api.MustCollection(api.CollectionHealthAggregationPolicies),
		rule:        rules.HealthAggregationPolicy,
		defaults:    rules.ApplyHealthAggregationPolicyDefaults,
		fingerprint: func(p *api.HealthAggregationPolicy) *string { return &p.Fingerprint },
		immutable: func(prior, p *api.HealthAggregationPolicy) error {
			return unchanged("policyType", prior.PolicyType, p.PolicyType, api.PolicyTypeBackendService)
		},
	}
}
