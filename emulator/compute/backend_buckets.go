package compute

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// backendBuckets is the global and regional backendBuckets collection:
// Cloud Storage buckets a URL map may route to, whose objects the data
// plane serves from a local directory.
func (s backends) backendBuckets() *core.Collection[api.BackendBucket, *api.BackendBucket] {
	c := core.NewCollection[api.BackendBucket, *api.BackendBucket](s.API, api.CollectionBackendBuckets, rules.BackendBucket, nil)
	c.Resolve = func(ctx context.Context, b *api.BackendBucket, sc core.Scope) error {
		return frontends{s.API}.resolvePolicy(ctx, "edgeSecurityPolicy", &b.EdgeSecurityPolicy, true, sc)
	}
	c.Refs = func(b *api.BackendBucket) []string { return []string{b.EdgeSecurityPolicy} }
	c.Kept = func(prior, b *api.BackendBucket) { b.EdgeSecurityPolicy = prior.EdgeSecurityPolicy }
	return c
}

// backendBucketSetEdgeSecurityPolicy answers
// backendBuckets.setEdgeSecurityPolicy.
func (s backends) backendBucketSetEdgeSecurityPolicy(r *googleapi.Call) (any, error) {
	var req api.SecurityPolicyReference
	if err := s.ReadJSON(r, "SecurityPolicyReference", &req); err != nil {
		return nil, err
	}
	return s.backendBuckets().Modify(r, "setEdgeSecurityPolicy", func(stored *api.BackendBucket) (*api.BackendBucket, error) {
		b := cloneOf(stored)
		b.EdgeSecurityPolicy = req.SecurityPolicy
		return b, nil
	})
}
