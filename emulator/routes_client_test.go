package emulator_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	compute "google.golang.org/api/compute/v1"
)

// A network's static routes, through Google's Compute client: insert,
// get, list (filtered as terraform-provider-google lists a network's
// default routes), delete; what a route names must exist, and its network
// stays while it does.
func TestComputeRoutes_InsertGetListDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	vm := c.insertInstance("nat-vm", network, subnetwork)
	op := c.done("insert egress route", ccR(c.svc.Routes.Insert(ccProject, &compute.Route{Name: "egress", Network: network,
		DestRange: "0.0.0.0/0", NextHopGateway: "global/gateways/default-internet-gateway"}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("routes", "egress"))
	c.done("insert instance route", ccR(c.svc.Routes.Insert(ccProject, &compute.Route{Name: "via-vm", Network: "global/networks/lb-network",
		DestRange: "10.8.0.0/16", Priority: 100, Tags: []string{"web"}, NextHopInstance: vm}).Context(c.ctx).Do()))

	r := ccMust(t, "get", ccR(c.svc.Routes.Get(ccProject, "egress").Context(c.ctx).Do()))
	c.checkMeta("compute#route", ccGlobal("routes", "egress"), r.Kind, r.Id, r.SelfLink, r.CreationTimestamp)
	if r.Network != network || r.Priority != 1000 || r.NextHopGateway != c.link("projects/"+ccProject+"/global/gateways/default-internet-gateway") ||
		r.RouteType != "STATIC" {
		t.Errorf("got %s, want its network's URL, priority 1000, the gateway's URL, routeType STATIC", ccJSON(r))
	}
	defaults := ccMust(t, "list", ccR(c.svc.Routes.List(ccProject).Filter(`(network="`+network+`") AND (destRange="0.0.0.0/0")`).Context(c.ctx).Do()))
	if got := ccNames(defaults.Items); !slices.Equal(got, []string{"egress"}) {
		t.Errorf("routes of the network to 0.0.0.0/0: %v, want [egress]", got)
	}

	_, err := c.svc.Routes.Insert(ccProject, &compute.Route{Name: "lost", Network: network, DestRange: "10.9.0.0/16",
		NextHopInstance: "zones/" + ccZone + "/instances/nope"}).Context(c.ctx).Do()
	ccWantError(t, "a route to a missing instance", err, http.StatusNotFound, "notFound")
	_, err = c.svc.Routes.Insert(ccProject, &compute.Route{Name: "nowhere", Network: network, DestRange: "10.9.0.0/16"}).Context(c.ctx).Do()
	if e := ccWantError(t, "a route without a next hop", err, http.StatusBadRequest, "invalid"); e != nil && !strings.Contains(e.Message, "a route needs a next hop") {
		t.Errorf("message %q", e.Message)
	}
	_, err = c.svc.Networks.Delete(ccProject, "lb-network").Context(c.ctx).Do()
	if e := ccWantError(t, "delete the routes' network", err, http.StatusBadRequest, "resourceInUseByAnotherResource"); e != nil && !strings.Contains(e.Message, "global/routes/") {
		t.Errorf("message %q, want it to name a route", e.Message)
	}

	c.done("delete", ccR(c.svc.Routes.Delete(ccProject, "via-vm").Context(c.ctx).Do()))
	c.done("delete", ccR(c.svc.Routes.Delete(ccProject, "egress").Context(c.ctx).Do()))
	all := ccMust(t, "list", ccR(c.svc.Routes.List(ccProject).Context(c.ctx).Do()))
	if len(all.Items) != 0 {
		t.Errorf("after deleting both: %v", ccNames(all.Items))
	}
	c.done("delete the instance", ccR(c.svc.Instances.Delete(ccProject, ccZone, "nat-vm").Context(c.ctx).Do()))
}
