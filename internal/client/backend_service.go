package client

import (
	"context"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func (c *Client) backendServices() collection[api.BackendService] {
	return collection[api.BackendService]{c: c, name: api.CollectionBackendServices}
}

// InsertBackendService creates a backend service and returns it as stored:
// defaults filled and references rewritten as URLs.
func (c *Client) InsertBackendService(ctx context.Context, scope Scope, bs *api.BackendService) (*api.BackendService, error) {
	return c.backendServices().insert(ctx, scope, bs.Name, bs)
}

// GetBackendService reads a backend service.
func (c *Client) GetBackendService(ctx context.Context, scope Scope, name string) (*api.BackendService, error) {
	return c.backendServices().get(ctx, scope, name)
}

// UpdateBackendService replaces a backend service (PUT) and returns it as
// stored.
func (c *Client) UpdateBackendService(ctx context.Context, scope Scope, bs *api.BackendService) (*api.BackendService, error) {
	return c.backendServices().update(ctx, scope, bs.Name, bs)
}

// DeleteBackendService deletes a backend service.
func (c *Client) DeleteBackendService(ctx context.Context, scope Scope, name string) error {
	return c.backendServices().delete(ctx, scope, name)
}

// GetBackendServiceHealth reads the live health of the endpoints of a
// backend service (backendServices.getHealth). group, a reference to one of
// the service's endpoint groups (URL, path or name), narrows the answer to
// that group; "" asks for every group, an lbhealth extension.
func (c *Client) GetBackendServiceHealth(ctx context.Context, scope Scope, name, group string) (*api.BackendServiceGroupHealth, error) {
	if name == "" {
		return nil, errNoName
	}
	var in any // no body at all, not {}: the emulator reads an empty body as "every group"
	if group != "" {
		in = &api.ResourceGroupReference{Group: group}
	}
	var out api.BackendServiceGroupHealth
	path := c.backendServices().path(scope, name) + "/getHealth"
	if err := c.do(ctx, http.MethodPost, path, nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
