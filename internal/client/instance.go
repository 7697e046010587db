package client

import (
	"context"
	"net/http"
	"reflect"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Instances and unmanaged instance groups are zonal (Scope.Zone); instance
// templates are global.
func (c *Client) instances() collection[api.Instance] {
	return collection[api.Instance]{c: c, name: api.CollectionInstances}
}

func (c *Client) instanceGroups() collection[api.InstanceGroup] {
	return collection[api.InstanceGroup]{c: c, name: api.CollectionInstanceGroups}
}

func (c *Client) instanceTemplates() collection[api.InstanceTemplate] {
	return collection[api.InstanceTemplate]{c: c, name: api.CollectionInstanceTemplates}
}

// InsertInstance creates an instance and returns it as stored, with the
// address it was given.
func (c *Client) InsertInstance(ctx context.Context, scope Scope, in *api.Instance) (*api.Instance, error) {
	return c.instances().insert(ctx, scope, in.Name, in)
}

// GetInstance reads an instance.
func (c *Client) GetInstance(ctx context.Context, scope Scope, name string) (*api.Instance, error) {
	return c.instances().get(ctx, scope, name)
}

// DeleteInstance deletes an instance; it leaves its groups.
func (c *Client) DeleteInstance(ctx context.Context, scope Scope, name string) error {
	return c.instances().delete(ctx, scope, name)
}

// InsertInstanceGroup creates an unmanaged instance group and returns it as
// stored.
func (c *Client) InsertInstanceGroup(ctx context.Context, scope Scope, g *api.InstanceGroup) (*api.InstanceGroup, error) {
	return c.instanceGroups().insert(ctx, scope, g.Name, g)
}

// GetInstanceGroup reads an instance group.
func (c *Client) GetInstanceGroup(ctx context.Context, scope Scope, name string) (*api.InstanceGroup, error) {
	return c.instanceGroups().get(ctx, scope, name)
}

// UpdateInstanceGroup makes the group's instances and named ports those of
// g, with the methods the API has for them (instance groups have no PUT):
// setNamedPorts when the named ports differ from the group as stored now
// (first: it sends the fingerprint read, which the other methods change),
// then removeInstances and addInstances for the instances that differ. Its
// other fields cannot change.
func (c *Client) UpdateInstanceGroup(ctx context.Context, scope Scope, g *api.InstanceGroup) (*api.InstanceGroup, error) {
	col := c.instanceGroups()
	current, err := col.get(ctx, scope, g.Name)
	if err != nil {
		return nil, err
	}
	base := col.path(scope, g.Name)
	have, want := instancePaths(current.Instances), instancePaths(g.Instances)
	var remove, add []api.InstanceReference
	for _, ref := range current.Instances {
		if !want[instanceKey(ref)] {
			remove = append(remove, api.InstanceReference{Instance: ref})
		}
	}
	for _, ref := range g.Instances { // in the order written
		if !have[instanceKey(ref)] {
			add = append(add, api.InstanceReference{Instance: ref})
		}
	}
	if !reflect.DeepEqual(current.NamedPorts, g.NamedPorts) && (len(current.NamedPorts) > 0 || len(g.NamedPorts) > 0) {
		body := api.InstanceGroupNamedPorts{NamedPorts: g.NamedPorts, Fingerprint: current.Fingerprint}
		if body.NamedPorts == nil {
			body.NamedPorts = []api.NamedPort{} // "namedPorts": [] clears them
		}
		if err := col.mutate(ctx, http.MethodPost, base+"/setNamedPorts", nil, body); err != nil {
			return nil, err
		}
	}
	if len(remove) > 0 {
		if err := col.mutate(ctx, http.MethodPost, base+"/removeInstances", nil, api.InstanceGroupInstances{Instances: remove}); err != nil {
			return nil, err
		}
	}
	if len(add) > 0 {
		if err := col.mutate(ctx, http.MethodPost, base+"/addInstances", nil, api.InstanceGroupInstances{Instances: add}); err != nil {
			return nil, err
		}
	}
	return col.get(ctx, scope, g.Name)
}

// instancePaths is the set of the references' keys.
func instancePaths(refs []string) map[string]bool {
	m := make(map[string]bool, len(refs))
	for _, ref := range refs {
		m[instanceKey(ref)] = true
	}
	return m
}

// instanceKey is a reference's "projects/..." path. A reference that is
// not a path or a URL keys as written, so that it is sent and the emulator
// says what is wrong with it.
func instanceKey(ref string) string {
	if p := api.PathOf(ref); p != "" {
		return p
	}
	return ref
}

// DeleteInstanceGroup deletes an instance group; its instances stay.
func (c *Client) DeleteInstanceGroup(ctx context.Context, scope Scope, name string) error {
	return c.instanceGroups().delete(ctx, scope, name)
}

// InsertInstanceTemplate creates an instance template and returns it as
// stored. Templates cannot change: a new one replaces it.
func (c *Client) InsertInstanceTemplate(ctx context.Context, scope Scope, t *api.InstanceTemplate) (*api.InstanceTemplate, error) {
	return c.instanceTemplates().insert(ctx, scope, t.Name, t)
}

// GetInstanceTemplate reads an instance template.
func (c *Client) GetInstanceTemplate(ctx context.Context, scope Scope, name string) (*api.InstanceTemplate, error) {
	return c.instanceTemplates().get(ctx, scope, name)
}

// DeleteInstanceTemplate deletes an instance template no managed group
// uses.
func (c *Client) DeleteInstanceTemplate(ctx context.Context, scope Scope, name string) error {
	return c.instanceTemplates().delete(ctx, scope, name)
}
