package client

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Forwarding rules are global or regional (Scope.Region).
func (c *Client) forwardingRules() collection[api.ForwardingRule] {
	return collection[api.ForwardingRule]{c: c, name: api.CollectionForwardingRules}
}

// InsertForwardingRule creates a forwarding rule and returns it as stored:
// defaults filled and references rewritten as URLs.
func (c *Client) InsertForwardingRule(ctx context.Context, scope Scope, fr *api.ForwardingRule) (*api.ForwardingRule, error) {
	return c.forwardingRules().insert(ctx, scope, fr.Name, fr)
}

// GetForwardingRule reads a forwarding rule.
func (c *Client) GetForwardingRule(ctx context.Context, scope Scope, name string) (*api.ForwardingRule, error) {
	return c.forwardingRules().get(ctx, scope, name)
}

// UpdateForwardingRule replaces a forwarding rule (PUT) and returns it as
// stored.
func (c *Client) UpdateForwardingRule(ctx context.Context, scope Scope, fr *api.ForwardingRule) (*api.ForwardingRule, error) {
	return c.forwardingRules().update(ctx, scope, fr.Name, fr)
}

// DeleteForwardingRule deletes a forwarding rule.
func (c *Client) DeleteForwardingRule(ctx context.Context, scope Scope, name string) error {
	return c.forwardingRules().delete(ctx, scope, name)
}
