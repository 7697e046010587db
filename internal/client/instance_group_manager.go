package client

import (
	"context"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Managed instance groups are zonal (Scope.Zone) or regional (Scope.Region).
func (c *Client) instanceGroupManagers() collection[api.InstanceGroupManager] {
	return collection[api.InstanceGroupManager]{c: c, name: api.CollectionInstanceGroupManagers}
}

// GetInstanceGroupManager reads a managed instance group.
func (c *Client) GetInstanceGroupManager(ctx context.Context, scope Scope, name string) (*api.InstanceGroupManager, error) {
	return c.instanceGroupManagers().get(ctx, scope, name)
}

// ListManagedInstances lists the instances of a managed group, with their
// status, current action and the autohealing check's verdict
// (instanceGroupManagers.listManagedInstances).
func (c *Client) ListManagedInstances(ctx context.Context, scope Scope, name string) (*api.ListManagedInstancesResponse, error) {
	if name == "" {
		return nil, errNoName
	}
	var out api.ListManagedInstancesResponse
	path := c.instanceGroupManagers().path(scope, name) + "/listManagedInstances"
	if err := c.do(ctx, http.MethodPost, path, nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// InsertInstanceGroupManager creates a managed instance group and returns
// it as stored: the emulator has made its instances by then.
func (c *Client) InsertInstanceGroupManager(ctx context.Context, scope Scope, m *api.InstanceGroupManager) (*api.InstanceGroupManager, error) {
	return c.instanceGroupManagers().insert(ctx, scope, m.Name, m)
}

// PatchInstanceGroupManager changes a managed group, as
// PatchHealthAggregationPolicy does; m.Fingerprint must be the group's
// current fingerprint.
func (c *Client) PatchInstanceGroupManager(ctx context.Context, scope Scope, name string, m *api.InstanceGroupManager, mask ...string) (*api.InstanceGroupManager, error) {
	return c.instanceGroupManagers().patchMask(ctx, scope, name, m, mask)
}

// DeleteInstanceGroupManager deletes a managed group and its instances.
func (c *Client) DeleteInstanceGroupManager(ctx context.Context, scope Scope, name string) error {
	return c.instanceGroupManagers().delete(ctx, scope, name)
}
