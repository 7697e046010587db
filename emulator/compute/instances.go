package compute

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// instances is the zonal instances collection. An instance runs nothing:
// it is an address (the networkIP of its interfaces) that target pools and
// NEG endpoints name it by. An interface without networkIP gets the next
// free address of its subnetwork or, without a subnetwork, a loopback
// address (127.0.x.y) so that probes of the instance reach this machine.
func (s fleet) instances() *collection[api.Instance, *api.Instance] {
	c := newCollection[api.Instance, *api.Instance](s.Service, api.CollectionInstances, rules.Instance, rules.ApplyInstanceDefaults)
	c.resolve = s.resolveInstance
	c.fingerprint = func(in *api.Instance) *string { return &in.Fingerprint }
	c.refs = func(in *api.Instance) []string {
		var refs []string
		for _, ni := range in.NetworkInterfaces {
			refs = append(refs, ni.Network, ni.Subnetwork)
		}
		for _, d := range in.Disks {
			refs = append(refs, d.Source)
		}
		return refs
	}
	c.attach = s.attachDisks
	c.release = func(ctx context.Context, in *api.Instance, sc scope) error {
		if err := s.releaseDisks(ctx, in, sc); err != nil {
			return err
		}
		return s.leaveGroups(ctx, in, sc)
	}
	c.inputOnly = func(doc document) {
		disks, _ := doc["disks"].([]any)
		for _, d := range disks {
			if d, ok := d.(map[string]any); ok {
				delete(d, "initializeParams")
			}
		}
	}
	return c
}

// resolveInstance checks the network and subnetwork of each interface and
// gives it its address, and checks the instance's disks.
func (s fleet) resolveInstance(ctx context.Context, in *api.Instance, sc scope) error {
	user := sc.key(api.CollectionInstances, in.Name).Path()
	taken := map[netip.Addr]bool{}
	for i := range in.NetworkInterfaces {
		field := fmt.Sprintf("networkInterfaces[%d]", i)
		pool, err := s.resolveInterface(ctx, field, &in.NetworkInterfaces[i], sc)
		if err != nil {
			return err
		}
		if err := s.assignAddress(ctx, field+".networkIP", &in.NetworkInterfaces[i].NetworkIP, pool, user, taken); err != nil {
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
func (s fleet) resolveInterface(ctx context.Context, field string, ni *api.NetworkInterface, sc scope) (control.Pool, error) {
	global := scope{project: sc.project}
	if ni.Subnetwork == "" {
		switch {
		case ni.Network != "":
			k, err := s.lookup(ctx, field+".network", ni.Network, global, api.CollectionNetworks, new(api.Network))
			if err != nil {
				return control.Pool{}, err
			}
			ni.Network = s.link(k.Path())
		default:
			k := global.key(api.CollectionNetworks, api.DefaultNetwork)
			if _, err := s.store.Get(ctx, k); err == nil {
				ni.Network = s.link(k.Path())
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
	ni.Subnetwork = s.link(k.Path())
	if ni.Network != "" {
		nk, err := s.lookup(ctx, field+".network", ni.Network, global, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return control.Pool{}, err
		}
		if nk.Path() != api.PathOf(sn.Network) {
			return control.Pool{}, invalid("%s.network (%q) is not the network of %s.subnetwork (%s is a range of %s).",
				field, ni.Network, field, k.Name, api.PathOf(sn.Network))
		}
	}
	ni.Network = sn.Network
	if ni.NetworkIP != "" {
		if v := rules.AddressInSubnetwork(field+".networkIP", ni.NetworkIP, k.Name, sn.IPCIDRRange); v != nil {
			return control.Pool{}, invalid("%s", v.Error())
		}
	}
	return control.SubnetworkPool(k.Project, k.Scope, k.Name, sn.IPCIDRRange), nil
}

// subnetworkOf loads the subnetwork ref names for an instance in zone.
func (s fleet) subnetworkOf(ctx context.Context, field, ref string, sc scope) (store.Key, *api.Subnetwork, error) {
	region := rules.ZoneRegion(sc.zone)
	if region == "" && api.PathOf(ref) == "" && lastSegment(ref) == ref {
		return store.Key{}, nil, invalid("%s (%q) must be the subnetwork's URL (regions/{region}/subnetworks/{name}): the region of zone %s cannot be told from its name.",
			field, ref, sc.zone)
	}
	var sn api.Subnetwork
	k, err := s.lookup(ctx, field, ref, scope{project: sc.project, region: region}, api.CollectionSubnetworks, &sn)
	if err != nil {
		return k, nil, err
	}
	if r := regionOfScope(k.Scope); region != "" && r != region {
		return k, nil, invalid("%s (%q) is in region %s: an instance in zone %s takes a subnetwork of its own region (%s).", field, ref, r, sc.zone, region)
	}
	return k, &sn, nil
}
