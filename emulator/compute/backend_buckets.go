package compute

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// backendBuckets is the global and regional backendBuckets collection:
// Cloud Storage buckets a URL map may route to, whose objects the data
// plane serves from a local directory.
func (s backends) backendBuckets() *collection[api.BackendBucket, *api.BackendBucket] {
	c := newCollection[api.BackendBucket, *api.BackendBucket](s.Service, api.CollectionBackendBuckets, rules.BackendBucket, nil)
	c.resolve = func(ctx context.Context, b *api.BackendBucket, sc scope) error {
		return frontends{s.Service}.resolvePolicy(ctx, "edgeSecurityPolicy", &b.EdgeSecurityPolicy, true, sc)
	}
	c.refs = func(b *api.BackendBucket) []string { return []string{b.EdgeSecurityPolicy} }
	c.kept = func(prior, b *api.BackendBucket) { b.EdgeSecurityPolicy = prior.EdgeSecurityPolicy }
	return c
}

// backendBucketSetEdgeSecurityPolicy answers
// backendBuckets.setEdgeSecurityPolicy.
func (s backends) backendBucketSetEdgeSecurityPolicy(r *Call) (any, error) {
	var req api.SecurityPolicyReference
	if err := s.readJSON(r, "SecurityPolicyReference", &req); err != nil {
		return nil, err
	}
	return s.backendBuckets().modify(r, "setEdgeSecurityPolicy", func(stored *api.BackendBucket) (*api.BackendBucket, error) {
		b := cloneOf(stored)
		b.EdgeSecurityPolicy = req.SecurityPolicy
		return b, nil
	})
}
