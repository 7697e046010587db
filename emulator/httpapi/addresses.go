package httpapi

import (
	"context"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// addresses is the regional addresses collection and, under global/, the
// global one (globalAddresses in the Compute API). An address without a
// value gets one: INTERNAL ones in a subnetwork its next free address,
// IPv6 ones one of 2001:db8:1b::/64, others a loopback address, which
// probes can reach.
func (s *Server) addresses() *collection[api.Address, *api.Address] {
	c := newCollection[api.Address, *api.Address](s, api.CollectionAddresses, nil, rules.ApplyAddressDefaults)
	c.check = func(a *api.Address, sc scope) rules.Violations {
		vs := rules.Address(a)
		if sc.region == "" && a.Subnetwork != "" {
			vs = append(vs, rules.GlobalAddressSubnetwork())
		}
		return vs
	}
	c.resolve = s.resolveAddress
	c.refs = func(a *api.Address) []string { return []string{a.Subnetwork, a.Network} }
	return c
}

// resolveAddress checks the address's subnetwork and network and gives it
// its value.
func (s *Server) resolveAddress(ctx context.Context, a *api.Address, sc scope) error {
	pool := loopbackPool
	if a.IPVersion == api.IPv6 {
		pool = ipv6Pool // the rules refuse IPv6 in a subnetwork
	}
	if a.Subnetwork != "" {
		var sn api.Subnetwork
		k, err := s.lookup(ctx, "subnetwork", a.Subnetwork, sc, api.CollectionSubnetworks, &sn)
		if err != nil {
			return err
		}
		if k.Scope != sc.path() {
			return invalid("subnetwork (%q) is in %s: an address takes a subnetwork of its own region (%s).", a.Subnetwork, k.Scope, sc.region)
		}
		if a.Address != "" {
			if v := rules.AddressInSubnetwork("address", a.Address, k.Name, sn.IPCIDRRange); v != nil {
				return invalid("%s", v.Error())
			}
		}
		a.Subnetwork, pool = s.link(k.Path()), subnetworkPool(k, &sn)
	}
	if a.Network != "" {
		k, err := s.lookup(ctx, "network", a.Network, scope{project: sc.project}, api.CollectionNetworks, new(api.Network))
		if err != nil {
			return err
		}
		a.Network = s.link(k.Path())
	}
	user := sc.key(api.CollectionAddresses, a.Name).Path()
	return s.assignAddress(ctx, "address", &a.Address, pool, user, map[netip.Addr]bool{})
}
