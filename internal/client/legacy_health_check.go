package client

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Legacy HTTP and HTTPS checks live in two global collections,
// api.CollectionHTTPHealthChecks and api.CollectionHTTPSHealthChecks, of one
// shape: each method takes the collection. They have no region, so only
// the project of scope counts.
func (c *Client) legacyHealthChecks(name string) collection[api.LegacyHealthCheck] {
	return collection[api.LegacyHealthCheck]{c: c, name: name}
}

// global keeps the project of scope only: legacy checks are always global.
func global(scope Scope) Scope { return Scope{Project: scope.Project} }

// InsertLegacyHealthCheck creates a legacy check in collection and returns
// it as stored, with every default filled.
func (c *Client) InsertLegacyHealthCheck(ctx context.Context, scope Scope, collection string, hc *api.LegacyHealthCheck) (*api.LegacyHealthCheck, error) {
	return c.legacyHealthChecks(collection).insert(ctx, global(scope), hc.Name, hc)
}

// GetLegacyHealthCheck reads a legacy check of collection.
func (c *Client) GetLegacyHealthCheck(ctx context.Context, scope Scope, collection, name string) (*api.LegacyHealthCheck, error) {
	return c.legacyHealthChecks(collection).get(ctx, global(scope), name)
}

// UpdateLegacyHealthCheck replaces a legacy check (PUT) and returns it as
// stored.
func (c *Client) UpdateLegacyHealthCheck(ctx context.Context, scope Scope, collection string, hc *api.LegacyHealthCheck) (*api.LegacyHealthCheck, error) {
	return c.legacyHealthChecks(collection).update(ctx, global(scope), hc.Name, hc)
}

// DeleteLegacyHealthCheck deletes a legacy check.
func (c *Client) DeleteLegacyHealthCheck(ctx context.Context, scope Scope, collection, name string) error {
	return c.legacyHealthChecks(collection).delete(ctx, global(scope), name)
}
