package compute

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// subnetworks is the regional subnetworks collection: ranges instances and
// internal addresses are given addresses from.
func (s networking) subnetworks() *core.Collection[api.Subnetwork, *api.Subnetwork] {
	c := core.NewCollection[api.Subnetwork, *api.Subnetwork](s.API, api.CollectionSubnetworks, rules.Subnetwork, rules.ApplySubnetworkDefaults)
	c.Resolve = s.resolveSubnetwork
	c.Refs = func(sn *api.Subnetwork) []string { return []string{sn.Network} }
	c.Fingerprint = func(sn *api.Subnetwork) *string { return &sn.Fingerprint }
	c.Outputs = func(sn, prior *api.Subnetwork) {
		if sn.StackType != api.StackIPv4IPv6 && sn.StackType != api.StackIPv6Only {
			return
		}
		// The API gives a dual-stack subnetwork a /64 of its own; here one
		// of the documentation range, which no network routes, from its id.
		switch {
		case sn.IPv6CIDRRange != "":
		case prior != nil && prior.IPv6CIDRRange != "":
			sn.IPv6CIDRRange = prior.IPv6CIDRRange
		case sn.ExternalIPv6Prefix != "":
			sn.IPv6CIDRRange = sn.ExternalIPv6Prefix
		case sn.InternalIPv6Prefix != "":
			sn.IPv6CIDRRange = sn.InternalIPv6Prefix
		default:
			sn.IPv6CIDRRange = fmt.Sprintf("2001:db8:1c:%x::/64", sn.ID&0xffff)
		}
		if sn.IPv6AccessType == api.AddressInternal {
			sn.InternalIPv6Prefix = cmp.Or(sn.InternalIPv6Prefix, sn.IPv6CIDRRange)
		} else {
			sn.ExternalIPv6Prefix = cmp.Or(sn.ExternalIPv6Prefix, sn.IPv6CIDRRange)
		}
	}
	c.Immutable = func(prior, sn *api.Subnetwork) error {
		if core.LastSegment(prior.Network) != core.LastSegment(sn.Network) {
			return googleapi.Invalid("network (%q) cannot be changed: the subnetwork is a range of %s; create a new subnetwork.", sn.Network, prior.Network)
		}
		if prior.IPCIDRRange != sn.IPCIDRRange {
			return googleapi.Invalid("ipCidrRange (%q) cannot be changed by a patch (it is %q): create a new subnetwork.", sn.IPCIDRRange, prior.IPCIDRRange)
		}
		return nil
	}
	return c
}

// subnetworkExpandIPCidrRange answers subnetworks.expandIpCidrRange: the
// subnetwork's range grows to one that holds it, if no other subnetwork of
// its network is in the new one.
func (s networking) subnetworkExpandIPCidrRange(r *googleapi.Call) (any, error) {
	var req struct {
		IPCIDRRange string `json:"ipCidrRange"`
	}
	if err := s.ReadJSON(r, "SubnetworksExpandIpCidrRangeRequest", &req); err != nil {
		return nil, err
	}
	return s.subnetworks().Modify(r, "expandIpCidrRange", func(sn *api.Subnetwork) (*api.Subnetwork, error) {
		if v := rules.SubnetworkExpansion("ipCidrRange", sn.IPCIDRRange, req.IPCIDRRange); v != nil {
			return nil, googleapi.Invalid("%s", v.Error())
		}
		sn.IPCIDRRange = req.IPCIDRRange
		return sn, nil
	})
}

// resolveSubnetwork checks the subnetwork's network: it must exist, and not
// be a legacy network, which has no subnetworks.
func (s networking) resolveSubnetwork(ctx context.Context, sn *api.Subnetwork, sc core.Scope) error {
	var n api.Network
	k, err := s.Lookup(ctx, "network", sn.Network, core.Scope{Project: sc.Project}, api.CollectionNetworks, &n)
	if err != nil {
		return err
	}
	if n.IPv4Range != "" {
		return googleapi.Invalid("network (%q) is a legacy network (IPv4Range %s): legacy networks have no subnetworks; use a VPC network (autoCreateSubnetworks set).", sn.Network, n.IPv4Range)
	}
	sn.Network = s.Link(k.Path())
	return s.checkOverlap(ctx, sn, sc, k)
}

// checkOverlap refuses a range that overlaps another subnetwork's in the
// same network, as the Compute API does. It reads the project's
// subnetworks: they are few, and created rarely.
func (s networking) checkOverlap(ctx context.Context, sn *api.Subnetwork, sc core.Scope, network store.Key) error {
	mine, err := netip.ParsePrefix(sn.IPCIDRRange)
	if err != nil {
		return nil // the rules have said why already
	}
	others, err := s.Store.All(ctx, api.CollectionSubnetworks)
	if err != nil {
		return err
	}
	for _, o := range others {
		var other api.Subnetwork
		if o.Project != sc.Project || (o.Scope == sc.Path() && o.Name == sn.Name) || json.Unmarshal(o.Body, &other) != nil {
			continue
		}
		theirs, err := netip.ParsePrefix(other.IPCIDRRange)
		if err == nil && api.PathOf(other.Network) == network.Path() && theirs.Overlaps(mine) {
			return googleapi.Invalid("ipCidrRange (%q) overlaps %s (%s) in network %s: subnetworks of one network have distinct ranges.",
				sn.IPCIDRRange, o.Path(), other.IPCIDRRange, network.Name)
		}
	}
	return nil
}
