package httpapi

import (
	"context"
	"encoding/json"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// networks is the global networks collection. The emulator routes no
// packets: a network is what subnetworks, instances, firewalls and
// addresses reference, and cannot be deleted while they do. An auto-mode
// network gets no subnetworks of its own (create them).
func (s *Server) networks() *collection[api.Network, *api.Network] {
	return &collection[api.Network, *api.Network]{
		s:        s,
		def:      api.MustCollection(api.CollectionNetworks),
		check:    func(n *api.Network, _ scope) rules.Violations { return rules.Network(n) },
		defaults: rules.ApplyNetworkDefaults,
		immutable: func(prior, n *api.Network) error {
			if boolOf(prior.AutoCreateSubnetworks) != boolOf(n.AutoCreateSubnetworks) {
				return invalid("autoCreateSubnetworks cannot be changed by a patch (it is %v): switching to custom mode is networks.switchToCustomMode, which the emulator does not have; create a new network.",
					boolOf(prior.AutoCreateSubnetworks))
			}
			if prior.IPv4Range != n.IPv4Range {
				return invalid("IPv4Range cannot be changed (it is %q): create a new network.", prior.IPv4Range)
			}
			return nil
		},
	}
}

func boolOf(b *bool) bool { return b != nil && *b }

// subnetworks is the regional subnetworks collection: ranges instances and
// internal addresses are given addresses from.
func (s *Server) subnetworks() *collection[api.Subnetwork, *api.Subnetwork] {
	return &collection[api.Subnetwork, *api.Subnetwork]{
		s:           s,
		def:         api.MustCollection(api.CollectionSubnetworks),
		check:       func(sn *api.Subnetwork, _ scope) rules.Violations { return rules.Subnetwork(sn) },
		defaults:    rules.ApplySubnetworkDefaults,
		resolve:     s.resolveSubnetwork,
		refs:        func(sn *api.Subnetwork) []string { return []string{sn.Network} },
		fingerprint: func(sn *api.Subnetwork) *string { return &sn.Fingerprint },
		immutable: func(prior, sn *api.Subnetwork) error {
			if lastSegment(prior.Network) != lastSegment(sn.Network) {
				return invalid("network (%q) cannot be changed: the subnetwork is a range of %s; create a new subnetwork.", sn.Network, prior.Network)
			}
			if prior.IPCIDRRange != sn.IPCIDRRange {
				return invalid("ipCidrRange (%q) cannot be changed by a patch (it is %q): create a new subnetwork.", sn.IPCIDRRange, prior.IPCIDRRange)
			}
			return nil
		},
	}
}

// resolveSubnetwork checks the subnetwork's network: it must exist, and not
// be a legacy network, which has no subnetworks.
func (s *Server) resolveSubnetwork(ctx context.Context, sn *api.Subnetwork, sc scope) error {
	var n api.Network
	k, err := s.lookup(ctx, "network", sn.Network, scope{project: sc.project}, api.CollectionNetworks, &n)
	if err != nil {
		return err
	}
	if n.IPv4Range != "" {
		return invalid("network (%q) is a legacy network (IPv4Range %s): legacy networks have no subnetworks; use a VPC network (autoCreateSubnetworks set).", sn.Network, n.IPv4Range)
	}
	sn.Network = s.link(k.Path())
	return s.checkOverlap(ctx, sn, sc, k)
}

// checkOverlap refuses a range that overlaps another subnetwork's in the
// same network, as the Compute API does. It reads the project's
// subnetworks: they are few, and created rarely.
func (s *Server) checkOverlap(ctx context.Context, sn *api.Subnetwork, sc scope, network store.Key) error {
	mine, err := netip.ParsePrefix(sn.IPCIDRRange)
	if err != nil {
		return nil // the rules have said why already
	}
	others, err := s.store.All(ctx, api.CollectionSubnetworks)
	if err != nil {
		return err
	}
	for _, o := range others {
		var other api.Subnetwork
		if o.Project != sc.project || (o.Scope == sc.path() && o.Name == sn.Name) || json.Unmarshal(o.Body, &other) != nil {
			continue
		}
		theirs, err := netip.ParsePrefix(other.IPCIDRRange)
		if err == nil && api.PathOf(other.Network) == network.Path() && theirs.Overlaps(mine) {
			return invalid("ipCidrRange (%q) overlaps %s (%s) in network %s: subnetworks of one network have distinct ranges.",
				sn.IPCIDRRange, o.Path(), other.IPCIDRRange, network.Name)
		}
	}
	return nil
}

// firewalls is the global firewalls collection. The emulator filters no
// traffic: a firewall rule is stored, and keeps its network in use.
func (s *Server) firewalls() *collection[api.Firewall, *api.Firewall] {
	return &collection[api.Firewall, *api.Firewall]{
		s:        s,
		def:      api.MustCollection(api.CollectionFirewalls),
		check:    func(fw *api.Firewall, _ scope) rules.Violations { return rules.Firewall(fw) },
		defaults: rules.ApplyFirewallDefaults,
		resolve: func(ctx context.Context, fw *api.Firewall, sc scope) error {
			if fw.Network == "" {
				fw.Network = "global/networks/" + api.DefaultNetwork // as in the Compute API
			}
			k, err := s.lookup(ctx, "network", fw.Network, scope{project: sc.project}, api.CollectionNetworks, new(api.Network))
			if err != nil {
				return err
			}
			fw.Network = s.link(k.Path())
			return nil
		},
		refs: func(fw *api.Firewall) []string { return []string{fw.Network} },
		immutable: func(prior, fw *api.Firewall) error {
			if fw.Network != "" && lastSegment(prior.Network) != lastSegment(fw.Network) {
				return invalid("network (%q) cannot be changed: the rule is in %s; create a new rule.", fw.Network, prior.Network)
			}
			return nil
		},
	}
}

// addresses is the regional addresses collection and, under global/, the
// global one (globalAddresses in the Compute API). An address without a
// value gets one: INTERNAL ones in a subnetwork its next free address,
// others a loopback address, which probes can reach.
func (s *Server) addresses() *collection[api.Address, *api.Address] {
	return &collection[api.Address, *api.Address]{
		s:   s,
		def: api.MustCollection(api.CollectionAddresses),
		check: func(a *api.Address, sc scope) rules.Violations {
			vs := rules.Address(a)
			if sc.region == "" && a.Subnetwork != "" {
				vs = append(vs, rules.GlobalAddressSubnetwork())
			}
			return vs
		},
		defaults: rules.ApplyAddressDefaults,
		resolve:  s.resolveAddress,
		refs:     func(a *api.Address) []string { return []string{a.Subnetwork, a.Network} },
	}
}

// resolveAddress checks the address's subnetwork and network and gives it
// its value.
func (s *Server) resolveAddress(ctx context.Context, a *api.Address, sc scope) error {
	pool := loopbackPool
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
