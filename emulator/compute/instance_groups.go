package compute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// instanceGroups is the zonal unmanaged instanceGroups collection: the
// instances of a backend service's backend, each probed at its networkIP,
// and the named ports USE_NAMED_PORT checks (and the service's portName)
// resolve. Deleting an instance takes it out of its groups, as in the
// Compute API.
func (s fleet) instanceGroups() *core.Collection[api.InstanceGroup, *api.InstanceGroup] {
	c := core.NewCollection[api.InstanceGroup, *api.InstanceGroup](s.API, api.CollectionInstanceGroups, rules.InstanceGroup, rules.ApplyInstanceGroupDefaults)
	c.Resolve = s.resolveInstanceGroup
	c.Fingerprint = func(g *api.InstanceGroup) *string { return &g.Fingerprint }
	c.Refs = func(g *api.InstanceGroup) []string { return []string{g.Network, g.Subnetwork} }
	return c
}

// resolveInstanceGroup checks the group's network and subnetwork and its
// instances: each exists, in the group's zone and network. A group without
// a network takes its first instance's, as in the Compute API.
func (s fleet) resolveInstanceGroup(ctx context.Context, g *api.InstanceGroup, sc core.Scope) error {
	global := core.Scope{Project: sc.Project}
	if g.Subnetwork != "" {
		k, sn, err := s.subnetworkOf(ctx, "subnetwork", g.Subnetwork, sc)
		if err != nil {
			return err
		}
		g.Subnetwork = s.Link(k.Path())
		if g.Network != "" && api.PathOf(g.Network) != api.PathOf(sn.Network) {
			nk, err := core.ParseRef("network", g.Network, global, api.CollectionNetworks)
			if err != nil || nk.Path() != api.PathOf(sn.Network) {
				return googleapi.Invalid("network (%q) is not the network of subnetwork %s (a range of %s).", g.Network, k.Name, api.PathOf(sn.Network))
			}
		}
		g.Network = sn.Network
	}
	if g.Network != "" {
		k, err := s.Lookup(ctx, "network", g.Network, global, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return err
		}
		g.Network = s.Link(k.Path())
	}
	for i, ref := range g.Instances {
		field := fmt.Sprintf("instances[%d]", i)
		var in api.Instance
		k, err := s.Lookup(ctx, field, ref, sc, api.CollectionInstances, &in)
		if err != nil {
			return err
		}
		switch zone := strings.TrimPrefix(k.Scope, "zones/"); {
		case sc.Region != "" && rules.ZoneRegion(zone) != sc.Region:
			return googleapi.Invalid("%s (%q) is in %s: a regional instance group holds instances of its own region (%s).", field, ref, k.Scope, sc.Region)
		case sc.Region == "" && zone != sc.Zone:
			return googleapi.Invalid("%s (%q) is in %s: an instance group holds instances of its own zone (%s).", field, ref, k.Scope, sc.Zone)
		}
		network := ""
		if len(in.NetworkInterfaces) > 0 {
			network = in.NetworkInterfaces[0].Network
		}
		switch {
		case g.Network == "":
			g.Network = network
		case network != "" && api.PathOf(network) != api.PathOf(g.Network):
			return googleapi.Invalid("%s (%q) is in network %s: the instances of a group are in its network (%s).", field, ref, api.PathOf(network), api.PathOf(g.Network))
		}
		g.Instances[i] = s.Link(k.Path())
	}
	return nil
}

// instanceGroupAddInstances answers instanceGroups.addInstances.
func (s fleet) instanceGroupAddInstances(r *googleapi.Call) (any, error) {
	return s.changeGroupInstances(r, "InstanceGroupsAddInstancesRequest", "addInstances", func(g *api.InstanceGroup, field, ref string, at int) (err error) {
		g.Instances, err = addMember(g.Instances, "instance group "+g.Name, field, ref, at)
		return err
	})
}

// instanceGroupRemoveInstances answers instanceGroups.removeInstances.
func (s fleet) instanceGroupRemoveInstances(r *googleapi.Call) (any, error) {
	return s.changeGroupInstances(r, "InstanceGroupsRemoveInstancesRequest", "removeInstances", func(g *api.InstanceGroup, field, ref string, at int) (err error) {
		if at < 0 {
			// A deleted instance has left its groups: removing it is 404,
			// as in the API (terraform-provider-google, which deletes an
			// instance before it updates the group, reads that as done).
			k := core.KeyOfPath(api.PathOf(ref))
			if _, err := s.Store.Get(r.Context(), k); errors.Is(err, store.ErrNotFound) {
				return core.StoreError(k, err)
			}
		}
		g.Instances, err = removeMember(g.Instances, "instance group "+g.Name, field, ref, at)
		return err
	})
}

// changeGroupInstances applies change to the group for each instance the
// body (of schema request) lists, in order: field names it in errors, at
// is its index in the group (-1: not there).
func (s fleet) changeGroupInstances(r *googleapi.Call, request, op string, change func(g *api.InstanceGroup, field, ref string, at int) error) (any, error) {
	var req api.InstanceGroupInstances
	if err := s.ReadJSON(r, request, &req); err != nil {
		return nil, err
	}
	sc, err := core.ScopeOf(r)
	if err != nil {
		return nil, err
	}
	return s.instanceGroups().Modify(r, op, func(stored *api.InstanceGroup) (*api.InstanceGroup, error) {
		g := cloneOf(stored)
		for i, ref := range req.Instances {
			field := fmt.Sprintf("instances[%d].instance", i)
			k, err := core.ParseRef(field, ref.Instance, sc, api.CollectionInstances)
			if err != nil {
				return nil, err
			}
			at := slices.IndexFunc(g.Instances, func(inst string) bool { return api.PathOf(inst) == k.Path() })
			if err := change(g, field, s.Link(k.Path()), at); err != nil {
				return nil, err
			}
		}
		return g, nil
	})
}

// instanceGroupSetNamedPorts answers instanceGroups.setNamedPorts: the
// named ports are replaced, guarded by the fingerprint when one is sent.
func (s fleet) instanceGroupSetNamedPorts(r *googleapi.Call) (any, error) {
	var req api.InstanceGroupNamedPorts
	if err := s.ReadJSON(r, "InstanceGroupsSetNamedPortsRequest", &req); err != nil {
		return nil, err
	}
	if v := rules.GroupNamedPorts("namedPorts", req.NamedPorts).Err(); v != nil {
		return nil, googleapi.Invalid("%s", v.Error())
	}
	return s.instanceGroups().Modify(r, "setNamedPorts", func(stored *api.InstanceGroup) (*api.InstanceGroup, error) {
		if req.Fingerprint != "" && req.Fingerprint != stored.Fingerprint {
			return nil, googleapi.NewError(http.StatusPreconditionFailed, api.ReasonConditionNotMet, fmt.Sprintf(
				"fingerprint (%q) is stale: group %s has changed since (its fingerprint is now %q); GET it again and set its named ports again.",
				req.Fingerprint, stored.Name, stored.Fingerprint))
		}
		g := cloneOf(stored)
		g.NamedPorts = req.NamedPorts
		return g, nil
	})
}

// instanceGroupListInstances answers instanceGroups.listInstances: the
// group's instances with their status and the group's named ports;
// instanceState RUNNING leaves out the others.
func (s fleet) instanceGroupListInstances(r *googleapi.Call) (any, error) {
	c := s.instanceGroups()
	g, _, err := c.Load(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		InstanceState string `json:"instanceState"`
	}
	if r.HasBody() {
		if err := s.ReadJSON(r, "InstanceGroupsListInstancesRequest", &req); err != nil {
			return nil, err
		}
	}
	out := api.InstanceGroupsListInstances{Kind: api.KindInstanceGroupsListInstances, ID: fmt.Sprint(g.ID), SelfLink: g.SelfLink + "/listInstances",
		Items: []api.InstanceWithNamedPorts{}}
	for _, inst := range g.Instances {
		status := ""
		var in api.Instance
		if o, err := s.Store.Get(r.Context(), core.KeyOfPath(api.PathOf(inst))); err == nil && json.Unmarshal(o.Body, &in) == nil {
			status = in.Status
		}
		if req.InstanceState == api.InstanceStateRunning && status != api.InstanceRunning {
			continue
		}
		out.Items = append(out.Items, api.InstanceWithNamedPorts{Instance: inst, Status: status, NamedPorts: g.NamedPorts})
	}
	return out, nil
}

// leaveGroups takes instance in, just deleted, out of the groups of its
// zone that hold it.
func (s fleet) leaveGroups(ctx context.Context, in *api.Instance, sc core.Scope) error {
	self := sc.Key(api.CollectionInstances, in.Name).Path()
	groups, err := s.Store.List(ctx, store.ListOptions{Project: sc.Project, Scope: sc.Path(), Collection: api.CollectionInstanceGroups})
	if err != nil {
		return err
	}
	for _, o := range groups {
		var g api.InstanceGroup
		if err := json.Unmarshal(o.Body, &g); err != nil {
			return err
		}
		if !slices.ContainsFunc(g.Instances, func(inst string) bool { return api.PathOf(inst) == self }) {
			continue
		}
		if err := editStored(ctx, s.Store, o.Key, func(g *api.InstanceGroup) {
			g.Instances = slices.DeleteFunc(g.Instances, func(inst string) bool { return api.PathOf(inst) == self })
			rules.ApplyInstanceGroupDefaults(g)
		}); err != nil {
			return err
		}
		s.Written(ctx, o.Key)
	}
	return nil
}
