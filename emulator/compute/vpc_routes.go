package compute

import (
	"context"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// vpcRoutes is the global routes collection: a network's static routes,
// stored and checked. Their network, instance and load balancer must
// exist; the network stays while a route is in it, while its next hop may
// go, as in the Compute API (the route then carries nothing). No packet
// follows them.
func (s networking) vpcRoutes() *core.Collection[api.Route, *api.Route] {
	c := core.NewCollection[api.Route, *api.Route](s.API, api.CollectionRoutes, rules.Route, rules.ApplyRouteDefaults)
	c.Resolve = s.resolveRoute
	c.Refs = func(r *api.Route) []string { return []string{r.Network} }
	return c
}

// resolveRoute follows a route's network and next hop, and writes them
// as URLs.
func (s networking) resolveRoute(ctx context.Context, r *api.Route, sc core.Scope) error {
	global := core.Scope{Project: sc.Project}
	k, err := s.Lookup(ctx, "network", r.Network, global, api.CollectionNetworks, new(api.Network))
	if err != nil {
		return err
	}
	r.Network = s.Link(k.Path())
	if r.NextHopGateway != "" {
		r.NextHopGateway = s.Link("projects/" + sc.Project + "/global/gateways/" + api.DefaultInternetGateway)
	}
	if r.NextHopInstance != "" {
		k, err := s.Lookup(ctx, "nextHopInstance", r.NextHopInstance, global, api.CollectionInstances, new(api.Instance))
		if err != nil {
			return err
		}
		r.NextHopInstance = s.Link(k.Path())
	}
	if r.NextHopILB != "" && !isAddress(r.NextHopILB) {
		k, err := s.Lookup(ctx, "nextHopIlb", r.NextHopILB, global, api.CollectionForwardingRules, new(api.ForwardingRule))
		if err != nil {
			return err
		}
		r.NextHopILB = s.Link(k.Path())
	}
	return nil
}

// isAddress tells whether ref is an IP address rather than a reference.
func isAddress(ref string) bool {
	_, err := netip.ParseAddr(ref)
	return err == nil
}
