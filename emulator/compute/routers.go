package compute

import (
	"context"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// routers is the regional routers collection: Cloud Routers and their NAT
// gateways (terraform-provider-google's google_compute_router_nat is a
// PATCH of its router's nats). The emulator speaks no BGP and translates
// no traffic: a router is validated and stored, and keeps its network, its
// NAT addresses and the subnetworks its NATs serve in use.
func (s networking) routers() *core.Collection[api.Router, *api.Router] {
	c := core.NewCollection[api.Router, *api.Router](s.API, api.CollectionRouters, rules.Router, rules.ApplyRouterDefaults)
	c.Resolve = s.resolveRouter
	c.Refs = func(r *api.Router) []string {
		refs := []string{r.Network}
		for _, n := range r.Nats {
			refs = append(refs, n.NatIPs...)
			refs = append(refs, n.DrainNatIPs...)
			for _, sn := range n.Subnetworks {
				refs = append(refs, sn.Name)
			}
		}
		return refs
	}
	c.Immutable = func(prior, r *api.Router) error {
		if r.Network != "" && core.LastSegment(prior.Network) != core.LastSegment(r.Network) {
			return googleapi.Invalid("network (%q) cannot be changed: the router is in %s; create a new router.", r.Network, prior.Network)
		}
		return nil
	}
	c.Outputs = func(r, _ *api.Router) {
		// Checked, then kept no more than the stored body keeps it.
		for i := range r.MD5AuthenticationKeys {
			r.MD5AuthenticationKeys[i].Key = ""
		}
	}
	c.InputOnly = func(doc core.Document) {
		// The API never returns a BGP peer's MD5 key.
		keys, _ := doc["md5AuthenticationKeys"].([]any)
		for _, k := range keys {
			if k, ok := k.(map[string]any); ok {
				delete(k, "key")
			}
		}
	}
	return c
}

// resolveRouter checks what a router names: its network, and for each NAT
// its addresses (reserved addresses of the router's region) and its
// subnetworks (of the router's region and network); each is written as
// its URL.
func (s networking) resolveRouter(ctx context.Context, r *api.Router, sc core.Scope) error {
	k, err := s.Lookup(ctx, "network", r.Network, core.Scope{Project: sc.Project}, api.CollectionNetworks, new(api.Network))
	if err != nil {
		return err
	}
	r.Network = s.Link(k.Path())
	for i := range r.Nats {
		n := &r.Nats[i]
		field := fmt.Sprintf("nats[%d]", i)
		for _, ips := range []struct {
			name string
			refs []string
		}{{"natIps", n.NatIPs}, {"drainNatIps", n.DrainNatIPs}} {
			for j, ref := range ips.refs {
				f := fmt.Sprintf("%s.%s[%d]", field, ips.name, j)
				k, err := s.Lookup(ctx, f, ref, sc, api.CollectionAddresses, new(api.Address))
				if err != nil {
					return err
				}
				if k.Scope != sc.Path() {
					return googleapi.Invalid("%s (%q) is in %s: a NAT takes addresses of its router's region (%s).", f, ref, k.Scope, sc.Region)
				}
				ips.refs[j] = s.Link(k.Path())
			}
		}
		for j := range n.Subnetworks {
			sn := &n.Subnetworks[j]
			f := fmt.Sprintf("%s.subnetworks[%d].name", field, j)
			var subnet api.Subnetwork
			k, err := s.Lookup(ctx, f, sn.Name, sc, api.CollectionSubnetworks, &subnet)
			if err != nil {
				return err
			}
			switch {
			case k.Scope != sc.Path():
				return googleapi.Invalid("%s (%q) is in %s: a NAT serves subnetworks of its router's region (%s).", f, sn.Name, k.Scope, sc.Region)
			case core.LastSegment(subnet.Network) != core.LastSegment(r.Network):
				return googleapi.Invalid("%s (%q) is in network %s: the router's NAT serves its own network (%s).", f, sn.Name, core.LastSegment(subnet.Network), core.LastSegment(r.Network))
			}
			sn.Name = s.Link(k.Path())
		}
	}
	return nil
}

// routerStatus answers getRouterStatus: the router's network and, for each
// NAT, the addresses it names; no BGP session runs, so there are no peers'
// states or learned routes, and no instance has NAT mappings.
func (s networking) routerStatus(r *googleapi.Call) (any, error) {
	rt, _, err := s.routers().Load(r)
	if err != nil {
		return nil, err
	}
	nats := []map[string]any{}
	for _, n := range rt.Nats {
		ips := []string{}
		for _, ref := range n.NatIPs {
			var a api.Address
			if s.Load(r.Context(), "natIps", ref, core.KeyOfPath(api.PathOf(ref)), &a) == nil {
				ips = append(ips, a.Address)
			}
		}
		nats = append(nats, map[string]any{"name": n.Name, "userAllocatedNatIps": ips, "minExtraNatIpsNeeded": 0,
			"numVmEndpointsWithNatMappings": 0})
	}
	return map[string]any{"kind": "compute#routerStatusResponse", "result": map[string]any{
		"network": rt.Network, "bestRoutes": []any{}, "bestRoutesForRouter": []any{}, "bgpPeerStatus": []any{}, "natStatus": nats,
	}}, nil
}
