package client

import (
	"context"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Target pools are regional (Scope.Region).
func (c *Client) targetPools() collection[api.TargetPool] {
	return collection[api.TargetPool]{c: c, name: api.CollectionTargetPools}
}

// InsertTargetPool creates a target pool and returns it as stored, its
// check reference rewritten as a URL.
func (c *Client) InsertTargetPool(ctx context.Context, scope Scope, tp *api.TargetPool) (*api.TargetPool, error) {
	return c.targetPools().insert(ctx, scope, tp.Name, tp)
}

// GetTargetPool reads a target pool.
func (c *Client) GetTargetPool(ctx context.Context, scope Scope, name string) (*api.TargetPool, error) {
	return c.targetPools().get(ctx, scope, name)
}

// UpdateTargetPool replaces a target pool (PUT), instances included, and
// returns it as stored.
func (c *Client) UpdateTargetPool(ctx context.Context, scope Scope, tp *api.TargetPool) (*api.TargetPool, error) {
	return c.targetPools().update(ctx, scope, tp.Name, tp)
}

// DeleteTargetPool deletes a target pool.
func (c *Client) DeleteTargetPool(ctx context.Context, scope Scope, name string) error {
	return c.targetPools().delete(ctx, scope, name)
}

// GetTargetPoolHealth reads the live health of the instances of a target
// pool (targetPools.getHealth). instance, one of the pool's instances as
// written ("ip:port" or "ip"), narrows the answer to it; "" asks for every
// instance, an lbhealth extension.
func (c *Client) GetTargetPoolHealth(ctx context.Context, scope Scope, name, instance string) (*api.TargetPoolInstanceHealth, error) {
	if name == "" {
		return nil, errNoName
	}
	var in any // no body at all, not {}: the emulator reads an empty body as "every instance"
	if instance != "" {
		in = &api.InstanceReference{Instance: instance}
	}
	var out api.TargetPoolInstanceHealth
	path := c.targetPools().path(scope, name) + "/getHealth"
	if err := c.do(ctx, http.MethodPost, path, nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
