package client

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func (c *Client) firewalls() collection[api.Firewall] {
	return collection[api.Firewall]{c: c, name: api.CollectionFirewalls}
}

// InsertFirewall creates a firewall rule and returns it as stored.
func (c *Client) InsertFirewall(ctx context.Context, scope Scope, fw *api.Firewall) (*api.Firewall, error) {
	return c.firewalls().insert(ctx, scope, fw.Name, fw)
}

// GetFirewall reads a firewall rule.
func (c *Client) GetFirewall(ctx context.Context, scope Scope, name string) (*api.Firewall, error) {
	return c.firewalls().get(ctx, scope, name)
}

// UpdateFirewall replaces a firewall rule (PUT) and returns it as stored.
func (c *Client) UpdateFirewall(ctx context.Context, scope Scope, fw *api.Firewall) (*api.Firewall, error) {
	return c.firewalls().update(ctx, scope, fw.Name, fw)
}

// DeleteFirewall deletes a firewall rule.
func (c *Client) DeleteFirewall(ctx context.Context, scope Scope, name string) error {
	return c.firewalls().delete(ctx, scope, name)
}
