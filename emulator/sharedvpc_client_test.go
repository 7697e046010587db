package emulator_test

import (
	"slices"
	"strings"
	"testing"

	compute "google.golang.org/api/compute/v1"
)

// Shared VPC through Google's Compute client: a host project, a service
// project attached to it and read back from both sides, the refusals of
// what the API refuses (a host of attached projects disabled, a project
// attached to two hosts, a host made a service project), and the way back.
func TestComputeSharedVpc_HostAndServiceProjects(t *testing.T) {
	c := newComputeEnv(t)
	const host, svc, other = "host-p", "svc-p", "other-p"
	attach := func(h, p string) (*compute.Operation, error) {
		return c.svc.Projects.EnableXpnResource(h, &compute.ProjectsEnableXpnResourceRequest{
			XpnResource: &compute.XpnResourceId{Id: p, Type: "PROJECT"}}).Context(c.ctx).Do()
	}
	detach := func(h, p string) (*compute.Operation, error) {
		return c.svc.Projects.DisableXpnResource(h, &compute.ProjectsDisableXpnResourceRequest{
			XpnResource: &compute.XpnResourceId{Id: p, Type: "PROJECT"}}).Context(c.ctx).Do()
	}

	_, err := attach(host, svc)
	if ge := ccWantError(t, "attach to a project that is no host", err, 400, "invalid"); !strings.Contains(ge.Message, "enableXpnHost") {
		t.Errorf("message %q, want it to say what to do", ge.Message)
	}
	op := c.done("enable the host", ccR(c.svc.Projects.EnableXpnHost(host).Context(c.ctx).Do()))
	if op.OperationType != "enableXpnHost" || op.TargetLink != c.link("projects/"+host) {
		t.Errorf("operation %s on %s, want enableXpnHost on the project", op.OperationType, op.TargetLink)
	}
	if p := ccMust(t, "get the host", ccR(c.svc.Projects.Get(host).Context(c.ctx).Do())); p.XpnProjectStatus != "HOST" {
		t.Errorf("host xpnProjectStatus %q, want HOST", p.XpnProjectStatus)
	}
	if p := ccMust(t, "get the service project", ccR(c.svc.Projects.Get(svc).Context(c.ctx).Do())); p.XpnProjectStatus != "UNSPECIFIED_XPN_PROJECT_STATUS" {
		t.Errorf("service project xpnProjectStatus %q", p.XpnProjectStatus)
	}
	if h := ccMust(t, "getXpnHost before", ccR(c.svc.Projects.GetXpnHost(svc).Context(c.ctx).Do())); h.Name != "" {
		t.Errorf("getXpnHost of a project attached to none: %q, want empty", h.Name)
	}

	c.done("attach", ccR(attach(host, svc)))
	c.done("attach again", ccR(attach(host, svc)))
	if h := ccMust(t, "getXpnHost", ccR(c.svc.Projects.GetXpnHost(svc).Context(c.ctx).Do())); h.Name != host || h.XpnProjectStatus != "HOST" {
		t.Errorf("getXpnHost = %q (%s), want %q", h.Name, h.XpnProjectStatus, host)
	}
	res := ccMust(t, "getXpnResources", ccR(c.svc.Projects.GetXpnResources(host).Context(c.ctx).Do()))
	if len(res.Resources) != 1 || res.Resources[0].Id != svc || res.Resources[0].Type != "PROJECT" {
		t.Errorf("getXpnResources = %+v, want %s", res.Resources, svc)
	}
	hosts := ccMust(t, "listXpnHosts", ccR(c.svc.Projects.ListXpnHosts(svc, &compute.ProjectsListXpnHostsRequest{}).Context(c.ctx).Do()))
	if len(hosts.Items) != 1 || hosts.Items[0].Name != host {
		t.Errorf("listXpnHosts = %+v, want %s", hosts.Items, host)
	}

	c.done("a second host", ccR(c.svc.Projects.EnableXpnHost(other).Context(c.ctx).Do()))
	_, err = attach(other, svc)
	if ge := ccWantError(t, "attach to a second host", err, 400, "invalid"); !strings.Contains(ge.Message, `service project of host "host-p" already`) {
		t.Errorf("message %q", ge.Message)
	}
	_, err = attach(host, other)
	ccWantError(t, "a host made a service project", err, 400, "invalid")
	_, err = c.svc.Projects.EnableXpnHost(svc).Context(c.ctx).Do()
	ccWantError(t, "a service project made a host", err, 400, "invalid")
	_, err = c.svc.Projects.DisableXpnHost(host).Context(c.ctx).Do()
	if ge := ccWantError(t, "disable a host with a service project", err, 400, "resourceInUseByAnotherResource"); !strings.Contains(ge.Message, svc) {
		t.Errorf("message %q, want it to name %s", ge.Message, svc)
	}
	_, err = c.svc.Projects.EnableXpnResource(host, &compute.ProjectsEnableXpnResourceRequest{
		XpnResource: &compute.XpnResourceId{Id: svc}}).Context(c.ctx).Do()
	if ge := ccWantError(t, "no type", err, 400, "invalid"); !strings.Contains(ge.Message, "xpnResource.type") {
		t.Errorf("message %q", ge.Message)
	}

	// The service project may use its host's subnetworks, beside its own:
	// listUsable lists both, in pages.
	c.done("host network", ccR(c.svc.Networks.Insert(host, &compute.Network{Name: "shared", AutoCreateSubnetworks: false,
		ForceSendFields: []string{"AutoCreateSubnetworks"}}).Context(c.ctx).Do()))
	for _, sn := range []struct{ project, name, cidr string }{{host, "shared-a", "10.0.0.0/24"}, {host, "shared-b", "10.0.1.0/24"}} {
		c.done("subnetwork "+sn.name, ccR(c.svc.Subnetworks.Insert(sn.project, ccRegion, &compute.Subnetwork{Name: sn.name,
			Network: "projects/" + host + "/global/networks/shared", IpCidrRange: sn.cidr}).Context(c.ctx).Do()))
	}
	c.done("own network", ccR(c.svc.Networks.Insert(svc, &compute.Network{Name: "own", AutoCreateSubnetworks: false,
		ForceSendFields: []string{"AutoCreateSubnetworks"}}).Context(c.ctx).Do()))
	c.done("own subnetwork", ccR(c.svc.Subnetworks.Insert(svc, ccRegion, &compute.Subnetwork{Name: "own-a",
		Network: "projects/" + svc + "/global/networks/own", IpCidrRange: "10.9.0.0/24"}).Context(c.ctx).Do()))
	var usable []string
	err = c.svc.Subnetworks.ListUsable(svc).MaxResults(2).Pages(c.ctx, func(l *compute.UsableSubnetworksAggregatedList) error {
		for _, u := range l.Items {
			usable = append(usable, u.Subnetwork[strings.Index(u.Subnetwork, "projects/"):]+" "+u.IpCidrRange)
		}
		return nil
	})
	want := []string{"projects/host-p/regions/us-central1/subnetworks/shared-a 10.0.0.0/24",
		"projects/host-p/regions/us-central1/subnetworks/shared-b 10.0.1.0/24", "projects/svc-p/regions/us-central1/subnetworks/own-a 10.9.0.0/24"}
	if err != nil || !slices.Equal(usable, want) {
		t.Errorf("listUsable of the service project: %v (%v), want %v", usable, err, want)
	}
	if l := ccMust(t, "listUsable of another", ccR(c.svc.Subnetworks.ListUsable(other).Context(c.ctx).Do())); len(l.Items) != 0 {
		t.Errorf("listUsable of a project with no subnetworks and no host: %+v", l.Items)
	}

	c.done("detach", ccR(detach(host, svc)))
	if l := ccMust(t, "listUsable after detach", ccR(c.svc.Subnetworks.ListUsable(svc).Context(c.ctx).Do())); len(l.Items) != 1 {
		t.Errorf("listUsable of a detached project: %d items, want its own one", len(l.Items))
	}
	_, err = detach(host, svc)
	ccWantError(t, "detach again", err, 400, "invalidResourceUsage")
	c.done("disable the host", ccR(c.svc.Projects.DisableXpnHost(host).Context(c.ctx).Do()))
	if p := ccMust(t, "get the former host", ccR(c.svc.Projects.Get(host).Context(c.ctx).Do())); p.XpnProjectStatus == "HOST" {
		t.Errorf("a disabled host still reads HOST")
	}
	hosts = ccMust(t, "listXpnHosts after", ccR(c.svc.Projects.ListXpnHosts(svc, &compute.ProjectsListXpnHostsRequest{}).Context(c.ctx).Do()))
	var names []string
	for _, h := range hosts.Items {
		names = append(names, h.Name)
	}
	if !slices.Equal(names, []string{other}) {
		t.Errorf("hosts %v, want [%s]", names, other)
	}
}
