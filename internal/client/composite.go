package client

import (
	"context"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Composite health (health aggregation policies, health sources and
// composite health checks) is regional only: every Scope here names a
// region. Updates are PATCHes that must carry the object's current
// fingerprint (optimistic locking): a stale one fails with an error that
// matches ErrConditionNotMet, and nothing changes.

func (c *Client) healthAggregationPolicies() collection[api.HealthAggregationPolicy] {
	return collection[api.HealthAggregationPolicy]{c: c, name: api.CollectionHealthAggregationPolicies}
}

func (c *Client) healthSources() collection[api.HealthSource] {
	return collection[api.HealthSource]{c: c, name: api.CollectionHealthSources}
}

func (c *Client) compositeHealthChecks() collection[api.CompositeHealthCheck] {
	return collection[api.CompositeHealthCheck]{c: c, name: api.CollectionCompositeHealthChecks}
}

// InsertHealthAggregationPolicy creates a policy and returns it as stored,
// defaults and fingerprint filled.
func (c *Client) InsertHealthAggregationPolicy(ctx context.Context, scope Scope, p *api.HealthAggregationPolicy) (*api.HealthAggregationPolicy, error) {
	return c.healthAggregationPolicies().insert(ctx, scope, p.Name, p)
}

// GetHealthAggregationPolicy reads a policy.
func (c *Client) GetHealthAggregationPolicy(ctx context.Context, scope Scope, name string) (*api.HealthAggregationPolicy, error) {
	return c.healthAggregationPolicies().get(ctx, scope, name)
}

// PatchHealthAggregationPolicy changes a policy and returns it as stored.
// p.Fingerprint must be the policy's current fingerprint. With a mask, only
// the fields it names change (a named field p leaves unset goes back to its
// default); without, the fields set in p are merged in.
func (c *Client) PatchHealthAggregationPolicy(ctx context.Context, scope Scope, name string, p *api.HealthAggregationPolicy, mask ...string) (*api.HealthAggregationPolicy, error) {
	return c.healthAggregationPolicies().patchMask(ctx, scope, name, p, mask)
}

// DeleteHealthAggregationPolicy deletes a policy.
func (c *Client) DeleteHealthAggregationPolicy(ctx context.Context, scope Scope, name string) error {
	return c.healthAggregationPolicies().delete(ctx, scope, name)
}

// ListHealthAggregationPolicies lists every policy in scope.
func (c *Client) ListHealthAggregationPolicies(ctx context.Context, scope Scope) ([]api.HealthAggregationPolicy, error) {
	return c.healthAggregationPolicies().list(ctx, scope)
}

// InsertHealthSource creates a health source and returns it as stored,
// references rewritten as URLs.
func (c *Client) InsertHealthSource(ctx context.Context, scope Scope, hs *api.HealthSource) (*api.HealthSource, error) {
	return c.healthSources().insert(ctx, scope, hs.Name, hs)
}

// GetHealthSource reads a health source.
func (c *Client) GetHealthSource(ctx context.Context, scope Scope, name string) (*api.HealthSource, error) {
	return c.healthSources().get(ctx, scope, name)
}

// PatchHealthSource changes a health source, as PatchHealthAggregationPolicy
// does a policy.
func (c *Client) PatchHealthSource(ctx context.Context, scope Scope, name string, hs *api.HealthSource, mask ...string) (*api.HealthSource, error) {
	return c.healthSources().patchMask(ctx, scope, name, hs, mask)
}

// DeleteHealthSource deletes a health source.
func (c *Client) DeleteHealthSource(ctx context.Context, scope Scope, name string) error {
	return c.healthSources().delete(ctx, scope, name)
}

// ListHealthSources lists every health source in scope.
func (c *Client) ListHealthSources(ctx context.Context, scope Scope) ([]api.HealthSource, error) {
	return c.healthSources().list(ctx, scope)
}

// GetHealthSourceHealth reads the live state of a health source and the
// endpoint counts of its backend service (healthSources.getHealth).
func (c *Client) GetHealthSourceHealth(ctx context.Context, scope Scope, name string) (*api.HealthSourceHealth, error) {
	var out api.HealthSourceHealth
	if err := c.getHealth(ctx, c.healthSources().path(scope, name), name, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// InsertCompositeHealthCheck creates a composite health check and returns it
// as stored, references rewritten as URLs.
func (c *Client) InsertCompositeHealthCheck(ctx context.Context, scope Scope, chc *api.CompositeHealthCheck) (*api.CompositeHealthCheck, error) {
	return c.compositeHealthChecks().insert(ctx, scope, chc.Name, chc)
}

// GetCompositeHealthCheck reads a composite health check.
func (c *Client) GetCompositeHealthCheck(ctx context.Context, scope Scope, name string) (*api.CompositeHealthCheck, error) {
	return c.compositeHealthChecks().get(ctx, scope, name)
}

// PatchCompositeHealthCheck changes a composite health check, as
// PatchHealthAggregationPolicy does a policy.
func (c *Client) PatchCompositeHealthCheck(ctx context.Context, scope Scope, name string, chc *api.CompositeHealthCheck, mask ...string) (*api.CompositeHealthCheck, error) {
	return c.compositeHealthChecks().patchMask(ctx, scope, name, chc, mask)
}

// DeleteCompositeHealthCheck deletes a composite health check.
func (c *Client) DeleteCompositeHealthCheck(ctx context.Context, scope Scope, name string) error {
	return c.compositeHealthChecks().delete(ctx, scope, name)
}

// ListCompositeHealthChecks lists every composite health check in scope.
func (c *Client) ListCompositeHealthChecks(ctx context.Context, scope Scope) ([]api.CompositeHealthCheck, error) {
	return c.compositeHealthChecks().list(ctx, scope)
}

// GetCompositeHealthCheckHealth reads the live state of a composite health
// check and of each of its health sources (compositeHealthChecks.getHealth).
func (c *Client) GetCompositeHealthCheckHealth(ctx context.Context, scope Scope, name string) (*api.CompositeHealthCheckHealth, error) {
	var out api.CompositeHealthCheckHealth
	if err := c.getHealth(ctx, c.compositeHealthChecks().path(scope, name), name, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// getHealth POSTs, with no body, to the getHealth method of the resource at
// path.
func (c *Client) getHealth(ctx context.Context, path, name string, out any) error {
	if name == "" {
		return errNoName
	}
	return c.do(ctx, http.MethodPost, path+"/getHealth", nil, nil, out)
}
