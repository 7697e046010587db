package client

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Network endpoint groups are zonal (Scope.Zone) or regional (Scope.Region);
// the API has no global ones.
func (c *Client) networkEndpointGroups() collection[api.NetworkEndpointGroup] {
	return collection[api.NetworkEndpointGroup]{c: c, name: api.CollectionNetworkEndpointGroups}
}

// InsertNetworkEndpointGroup creates an endpoint group and returns it as
// stored, with every default filled.
func (c *Client) InsertNetworkEndpointGroup(ctx context.Context, scope Scope, g *api.NetworkEndpointGroup) (*api.NetworkEndpointGroup, error) {
	return c.networkEndpointGroups().insert(ctx, scope, g.Name, g)
}

// GetNetworkEndpointGroup reads an endpoint group.
func (c *Client) GetNetworkEndpointGroup(ctx context.Context, scope Scope, name string) (*api.NetworkEndpointGroup, error) {
	return c.networkEndpointGroups().get(ctx, scope, name)
}

// UpdateNetworkEndpointGroup replaces an endpoint group (PUT), endpoints
// included, and returns it as stored.
func (c *Client) UpdateNetworkEndpointGroup(ctx context.Context, scope Scope, g *api.NetworkEndpointGroup) (*api.NetworkEndpointGroup, error) {
	return c.networkEndpointGroups().update(ctx, scope, g.Name, g)
}

// DeleteNetworkEndpointGroup deletes an endpoint group.
func (c *Client) DeleteNetworkEndpointGroup(ctx context.Context, scope Scope, name string) error {
	return c.networkEndpointGroups().delete(ctx, scope, name)
}
