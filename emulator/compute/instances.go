package compute

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// instances is the zonal instances collection. An instance runs nothing:
// it is an address (the networkIP of its interfaces) that target pools and
// NEG endpoints name it by. An interface without networkIP gets the next
// free address of its subnetwork or, without a subnetwork, a loopback
// address (127.0.x.y) so that probes of the instance reach this machine.
func (s fleet) instances() *core.Collection[api.Instance, *api.Instance] {
	c := core.NewCollection[api.Instance, *api.Instance](s.API, api.CollectionInstances, rules.Instance, rules.ApplyInstanceDefaults)
	c.Resolve = s.resolveInstance
	c.Fingerprint = func(in *api.Instance) *string { return &in.Fingerprint }
	c.Refs = func(in *api.Instance) []string {
		var refs []string
		for _, ni := range in.NetworkInterfaces {
			refs = append(refs, ni.Network, ni.Subnetwork)
		}
		for _, d := range in.Disks {
			refs = append(refs, d.Source)
		}
		return refs
	}
	c.Source = s.instanceFromTemplate
	c.Attach = s.attachDisks
	c.Release = func(ctx context.Context, in *api.Instance, sc core.Scope) error {
		if err := s.releaseDisks(ctx, in, sc); err != nil {
			return err
		}
		return s.leaveGroups(ctx, in, sc)
	}
	c.InputOnly = func(doc core.Document) {
		disks, _ := doc["disks"].([]any)
		for _, d := range disks {
			if d, ok := d.(map[string]any); ok {
				delete(d, "initializeParams")
			}
		}
	}
	return c
}

// instanceFromTemplate is the body of an insert whose sourceInstanceTemplate
// names an instance template: the template's properties with the body laid
// over them, as the API makes it: a field the body sends replaces the
// template's, but for an object, whose fields are laid over the
// template's one by one (a body's scheduling that sets automaticRestart
// keeps the template's localSsdRecoveryTimeout).
func (s fleet) instanceFromTemplate(r *googleapi.Call, body core.Document) (core.Document, error) {
	ref := r.Query().Get("sourceInstanceTemplate")
	if ref == "" {
		return body, nil
	}
	sc, err := core.ScopeOf(r)
	if err != nil {
		return nil, err
	}
	var t struct {
		Properties core.Document `json:"properties"`
	}
	if _, err := s.Lookup(r.Context(), "sourceInstanceTemplate", ref, core.Scope{Project: sc.Project}, api.CollectionInstanceTemplates, &t); err != nil {
		return nil, err
	}
	return overlay(instanceOfProperties(t.Properties), body), nil
}

// overlay lays over on under, into under: an object field by field, any
// other value in place of under's.
func overlay(under, over core.Document) core.Document {
	for k, v := range over {
		u, uok := under[k].(map[string]any)
		o, ook := v.(map[string]any)
		if uok && ook {
			under[k] = map[string]any(overlay(u, o))
			continue
		}
		under[k] = v
	}
	return under
}

// resolveInstance checks the network and subnetwork of each interface and
// gives it its address, and checks the instance's disks.
func (s fleet) resolveInstance(ctx context.Context, in *api.Instance, sc core.Scope) error {
	user := sc.Key(api.CollectionInstances, in.Name).Path()
	taken := map[netip.Addr]bool{}
	for i := range in.NetworkInterfaces {
		field := fmt.Sprintf("networkInterfaces[%d]", i)
		pool, err := s.resolveInterface(ctx, field, &in.NetworkInterfaces[i], sc)
		if err != nil {
			return err
		}
		if err := s.AssignAddress(ctx, field+".networkIP", &in.NetworkInterfaces[i].NetworkIP, pool, user, taken); err != nil {
			return err
		}
	}
	return s.resolveDisks(ctx, in, sc)
}

// resolveInterface checks an interface's references, rewrites them as URLs
// and returns the pool its address comes from. Without network and
// subnetwork the interface is in the project's default network, as in the
// Compute API, if the project has one; else (an lbhealth simplification)
// in none, with a loopback address.
func (s fleet) resolveInterface(ctx context.Context, field string, ni *api.NetworkInterface, sc core.Scope) (control.Pool, error) {
	global := core.Scope{Project: sc.Project}
	if ni.Subnetwork == "" {
		switch {
		case ni.Network != "":
			k, err := s.Lookup(ctx, field+".network", ni.Network, global, api.CollectionNetworks, new(api.Network))
			if err != nil {
				return control.Pool{}, err
			}
			ni.Network = s.Link(k.Path())
		default:
			k := global.Key(api.CollectionNetworks, api.DefaultNetwork)
			if _, err := s.Store.Get(ctx, k); err == nil {
				ni.Network = s.Link(k.Path())
			} else if !errors.Is(err, store.ErrNotFound) {
				return control.Pool{}, err
			}
		}
		return control.LoopbackPool, nil
	}
	k, sn, err := s.subnetworkOf(ctx, field+".subnetwork", ni.Subnetwork, sc)
	if err != nil {
		return control.Pool{}, err
	}
	ni.Subnetwork = s.Link(k.Path())
	if ni.Network != "" {
		nk, err := s.Lookup(ctx, field+".network", ni.Network, global, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return control.Pool{}, err
		}
		if nk.Path() != api.PathOf(sn.Network) {
			return control.Pool{}, googleapi.Invalid("%s.network (%q) is not the network of %s.subnetwork (%s is a range of %s).",
				field, ni.Network, field, k.Name, api.PathOf(sn.Network))
		}
	}
	ni.Network = sn.Network
	if sn.IPCIDRRange == "" {
		return control.Pool{}, googleapi.Invalid("%s.subnetwork (%q) is an IPV6_ONLY subnetwork: the emulator gives every instance an IPv4 address of its subnetwork (probes and traffic reach it there), and has no IPv6-only instances.", field, ni.Subnetwork)
	}
	if ni.NetworkIP != "" {
		if v := rules.AddressInSubnetwork(field+".networkIP", ni.NetworkIP, k.Name, sn.IPCIDRRange); v != nil {
			return control.Pool{}, googleapi.Invalid("%s", v.Error())
		}
	}
	return control.SubnetworkPool(k.Project, k.Scope, k.Name, sn.IPCIDRRange), nil
}

// subnetworkOf loads the subnetwork ref names for an instance in zone.
func (s fleet) subnetworkOf(ctx context.Context, field, ref string, sc core.Scope) (store.Key, *api.Subnetwork, error) {
	region := rules.ZoneRegion(sc.Zone)
	if region == "" && api.PathOf(ref) == "" && core.LastSegment(ref) == ref {
		return store.Key{}, nil, googleapi.Invalid("%s (%q) must be the subnetwork's URL (regions/{region}/subnetworks/{name}): the region of zone %s cannot be told from its name.",
			field, ref, sc.Zone)
	}
	var sn api.Subnetwork
	k, err := s.Lookup(ctx, field, ref, core.Scope{Project: sc.Project, Region: region}, api.CollectionSubnetworks, &sn)
	if err != nil {
		return k, nil, err
	}
	if r := core.RegionOfScope(k.Scope); region != "" && r != region {
		return k, nil, googleapi.Invalid("%s (%q) is in region %s: an instance in zone %s takes a subnetwork of its own region (%s).", field, ref, r, sc.Zone, region)
	}
	return k, &sn, nil
}
