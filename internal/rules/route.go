package rules

import (
	"fmt"
	"net/netip"
	"path"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultRoutePriority is a static route's priority when it has none
// (MaxRoutePriority bounds it, as it does a BGP peer's).
const DefaultRoutePriority = 1000

// routeNextHops are the fields that name where a route sends packets.
var routeNextHops = []string{"nextHopGateway", "nextHopInstance", "nextHopIp", "nextHopVpnTunnel", "nextHopIlb"}

// Route checks a route as a client sent it: its network, its destination
// range, its priority, and exactly one next hop.
func Route(r *api.Route) Violations {
	var vs Violations
	vs.add(Name("name", r.Name))
	vs.add(Description("description", r.Description))
	vs.add(required("network", r.Network, "the network the route is in"))
	if r.DestRange == "" {
		vs = append(vs, violation("destRange", "%s is required: the destination range of the packets it routes, such as \"0.0.0.0/0\".", f("destRange")))
	} else if _, err := netip.ParsePrefix(r.DestRange); err != nil {
		vs = append(vs, violation("destRange", "%s (%q) must be an IP range in CIDR form, such as \"10.0.0.0/8\".", f("destRange"), r.DestRange))
	}
	vs.add(optionalRange("priority", r.Priority, 0, MaxRoutePriority))
	var set []string
	for i, v := range []string{r.NextHopGateway, r.NextHopInstance, r.NextHopIP, r.NextHopVPNTunnel, r.NextHopILB} {
		if v != "" {
			set = append(set, routeNextHops[i])
		}
	}
	switch {
	case len(set) == 0:
		vs = append(vs, violation("nextHopGateway", "a route needs a next hop: one of %s.", strings.Join(routeNextHops, ", ")))
	case len(set) > 1:
		vs = append(vs, violation(set[1], "%s are all set: a route has one next hop.", strings.Join(set, " and ")))
	}
	if r.NextHopGateway != "" && path.Base(r.NextHopGateway) != api.DefaultInternetGateway {
		vs = append(vs, violation("nextHopGateway", "%s (%q) must be the default internet gateway: global/gateways/%s.", f("nextHopGateway"), r.NextHopGateway, api.DefaultInternetGateway))
	}
	if r.NextHopIP != "" {
		if _, err := netip.ParseAddr(r.NextHopIP); err != nil {
			vs = append(vs, violation("nextHopIp", "%s (%q) must be an IPv4 or IPv6 address.", f("nextHopIp"), r.NextHopIP))
		}
	}
	for i, tag := range r.Tags {
		vs.add(Name(fmt.Sprintf("tags[%d]", i), tag))
	}
	return vs
}

// ApplyRouteDefaults fills the unset fields of a valid route.
func ApplyRouteDefaults(r *api.Route) {
	setDefault(&r.Priority, DefaultRoutePriority)
	r.RouteType = "STATIC"
	r.RouteStatus = "ACTIVE"
}
