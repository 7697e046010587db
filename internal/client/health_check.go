package client

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func (c *Client) healthChecks() collection[api.HealthCheck] {
	return collection[api.HealthCheck]{c: c, name: api.CollectionHealthChecks}
}

// InsertHealthCheck creates a health check and returns it as stored, with
// every default filled.
func (c *Client) InsertHealthCheck(ctx context.Context, scope Scope, hc *api.HealthCheck) (*api.HealthCheck, error) {
	return c.healthChecks().insert(ctx, scope, hc.Name, hc)
}

// GetHealthCheck reads a health check.
func (c *Client) GetHealthCheck(ctx context.Context, scope Scope, name string) (*api.HealthCheck, error) {
	return c.healthChecks().get(ctx, scope, name)
}

// UpdateHealthCheck replaces a health check (PUT) and returns it as stored.
func (c *Client) UpdateHealthCheck(ctx context.Context, scope Scope, hc *api.HealthCheck) (*api.HealthCheck, error) {
	return c.healthChecks().update(ctx, scope, hc.Name, hc)
}

// DeleteHealthCheck deletes a health check.
func (c *Client) DeleteHealthCheck(ctx context.Context, scope Scope, name string) error {
	return c.healthChecks().delete(ctx, scope, name)
}

// ListHealthChecks lists every health check in scope.
func (c *Client) ListHealthChecks(ctx context.Context, scope Scope) ([]api.HealthCheck, error) {
	return c.healthChecks().list(ctx, scope)
}
