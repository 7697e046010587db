package compute

import (
	"cmp"
	"context"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// addresses is the regional addresses collection and, under global/, the
// global one (globalAddresses in the Compute API). An address without a
// value gets one: INTERNAL ones in a subnetwork its next free address,
// IPv6 ones one of 2001:db8:1b::/64, others a loopback address, which
// probes can reach.
func (s frontends) addresses() *core.Collection[api.Address, *api.Address] {
	c := core.NewCollection[api.Address, *api.Address](s.API, api.CollectionAddresses, nil, rules.ApplyAddressDefaults)
	c.Check = func(a *api.Address, sc core.Scope) rules.Violations {
		vs := rules.Address(a)
		if sc.Region == "" && a.Subnetwork != "" {
			vs = append(vs, rules.GlobalAddressSubnetwork())
		}
		return vs
	}
	c.Resolve = s.resolveAddress
	c.Refs = func(a *api.Address) []string { return []string{a.Subnetwork, a.Network} }
	return c
}

// resolveAddress checks the address's subnetwork and network and gives it
// its value.
func (s frontends) resolveAddress(ctx context.Context, a *api.Address, sc core.Scope) error {
	pool := control.LoopbackPool
	if a.IPVersion == api.IPv6 {
		pool = control.IPv6Pool
	}
	if a.Subnetwork != "" {
		var sn api.Subnetwork
		k, err := s.Lookup(ctx, "subnetwork", a.Subnetwork, sc, api.CollectionSubnetworks, &sn)
		if err != nil {
			return err
		}
		if k.Scope != sc.Path() {
			return googleapi.Invalid("subnetwork (%q) is in %s: an address takes a subnetwork of its own region (%s).", a.Subnetwork, k.Scope, sc.Region)
		}
		switch {
		case a.IPVersion == api.IPv6 && sn.IPv6CIDRRange == "":
			return googleapi.Invalid("subnetwork (%q) has no IPv6 range (its stackType is %s): an IPv6 address is reserved in a dual-stack subnetwork, stackType IPV4_IPV6.",
				a.Subnetwork, cmp.Or(sn.StackType, "IPV4_ONLY"))
		case a.IPVersion == api.IPv6:
			prefix, err := netip.ParsePrefix(sn.IPv6CIDRRange)
			if err != nil || !prefix.Addr().Is6() {
				return googleapi.Invalid("subnetwork (%q) has an IPv6 range (%q) that is not an IPv6 range in CIDR form.", a.Subnetwork, sn.IPv6CIDRRange)
			}
			pool = control.Subnetwork6Pool(k.Project, k.Scope, k.Name, prefix)
			if ip, err := netip.ParseAddr(a.Address); a.Address != "" && (err != nil || !prefix.Contains(ip)) {
				return googleapi.Invalid("address (%q) is not in subnetwork %s's IPv6 range (%s).", a.Address, k.Name, sn.IPv6CIDRRange)
			}
		case sn.IPCIDRRange == "":
			return googleapi.Invalid("subnetwork (%q) is an IPV6_ONLY subnetwork: it has no IPv4 addresses; reserve an IPV6 address of it (ipVersion IPV6).", a.Subnetwork)
		case a.Address != "":
			if v := rules.AddressInSubnetwork("address", a.Address, k.Name, sn.IPCIDRRange); v != nil {
				return googleapi.Invalid("%s", v.Error())
			}
			pool = control.SubnetworkPool(k.Project, k.Scope, k.Name, sn.IPCIDRRange)
		default:
			pool = control.SubnetworkPool(k.Project, k.Scope, k.Name, sn.IPCIDRRange)
		}
		a.Subnetwork = s.Link(k.Path())
	}
	if a.Network != "" {
		k, err := s.Lookup(ctx, "network", a.Network, core.Scope{Project: sc.Project}, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return err
		}
		a.Network = s.Link(k.Path())
	}
	user := sc.Key(api.CollectionAddresses, a.Name).Path()
	return s.AssignAddress(ctx, "address", &a.Address, pool, user, map[netip.Addr]bool{})
}
