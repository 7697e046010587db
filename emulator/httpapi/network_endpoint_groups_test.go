package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const (
	zonalNEGs    = "/compute/v1/projects/p/zones/us-east1-b/networkEndpointGroups"
	regionalNEGs = "/compute/v1/projects/p/regions/us-east1/networkEndpointGroups"
)

// endpointSetup creates network "net", subnetwork "sub", instances vm-1
// (10.0.0.2) and vm-2 (10.0.0.3), and zonal group "neg" with default
// port 80.
func endpointSetup(t *testing.T) *emu {
	e := newEmu(t)
	e.network()
	e.insert(instancesPath, `{"name": "vm-1", "networkInterfaces": [{"subnetwork": "sub"}]}`)
	e.insert(instancesPath, `{"name": "vm-2", "networkInterfaces": [{"subnetwork": "sub"}]}`)
	// A real client also sends network and subnetwork: see the README.
	e.insert(zonalNEGs, `{"name": "neg", "networkEndpointType": "GCE_VM_IP_PORT", "defaultPort": 80}`)
	return e
}

func (e *emu) group(path string) api.NetworkEndpointGroup {
	e.t.Helper()
	var g api.NetworkEndpointGroup
	e.ok("GET", path, "", &g)
	return g
}

func (e *emu) listEndpoints(path, query, body string) api.NetworkEndpointGroupsListNetworkEndpoints {
	e.t.Helper()
	var l api.NetworkEndpointGroupsListNetworkEndpoints
	e.ok("POST", path+"/listNetworkEndpoints"+query, body, &l)
	return l
}

func TestAttachNetworkEndpoints(t *testing.T) {
	e := endpointSetup(t)
	neg := zonalNEGs + "/neg"
	var op api.Operation
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1"}]}`, &op)
	if op.OperationType != "attachNetworkEndpoints" || op.Status != "DONE" || e.path(op.TargetLink) != neg {
		t.Errorf("operation = %+v", op)
	}
	g := e.group(neg)
	if g.Size != 1 || len(g.Endpoints) != 1 {
		t.Fatalf("group = %+v", g)
	}
	// Given by instance alone: the instance's networkIP, the default port.
	if ep := g.Endpoints[0]; ep.IPAddress != "10.0.0.2" || ep.Port == nil || *ep.Port != 80 || ep.Instance != "vm-1" {
		t.Errorf("endpoint = %+v", ep)
	}
	// Attaching what the group has changes nothing.
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1", "ipAddress": "10.0.0.2", "port": 80}]}`, nil)
	// An instance given by URL is stored by name, as the Compute API lists it.
	e.ok("POST", neg+"/attachNetworkEndpoints", fmt.Sprintf(`{"networkEndpoints": [{"instance": %q, "port": 8080}]}`,
		e.url+instancesPath+"/vm-2"), nil)
	if g := e.group(neg); g.Size != 2 || g.Endpoints[1].Instance != "vm-2" || g.Endpoints[1].IPAddress != "10.0.0.3" {
		t.Errorf("group after the repeat and vm-2 = %+v", g)
	}

	for _, tt := range []struct{ body, want string }{
		{`{"networkEndpoints": [{"instance": "vm-2", "ipAddress": "10.0.0.2"}]}`, `networkEndpoints[0].ipAddress ("10.0.0.2") is not an address of instance vm-2`},
		{`{"networkEndpoints": [{"port": 80}]}`, `networkEndpoints[0].ipAddress ("") must be an IPv4 or IPv6 address.`},
		{`{"networkEndpoints": [{"instance": "vm-1", "port": 70000}]}`, "networkEndpoints[0].port (70000) must be between 1 and 65535."},
	} {
		wantMessage(t, e.fail("POST", neg+"/attachNetworkEndpoints", tt.body, 400, api.ReasonInvalid), tt.want)
	}
	// A reference to what does not exist is 404 notFound, naming it.
	for _, tt := range []struct{ body, want string }{
		{`{"networkEndpoints": [{"instance": "vm-9"}]}`, `networkEndpoints[0].instance ("vm-9") refers to projects/p/zones/us-east1-b/instances/vm-9, which does not exist`},
		{`{"networkEndpoints": [{"instance": "zones/us-east1-c/instances/vm-1"}]}`, "does not exist"},
	} {
		wantMessage(t, e.fail("POST", neg+"/attachNetworkEndpoints", tt.body, 404, api.ReasonNotFound), tt.want)
	}
	many := strings.Repeat(`{"ipAddress": "10.0.0.9"},`, api.MaxEndpointsPerCall)
	wantMessage(t, e.fail("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [`+many+`{"ipAddress": "10.0.0.9"}]}`, 400, api.ReasonInvalid),
		"one call takes at most 500")
	e.fail("POST", zonalNEGs+"/nope/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1"}]}`, 404, api.ReasonNotFound)
	if g := e.group(neg); g.Size != 2 {
		t.Errorf("refused attaches changed the group: %+v", g)
	}
	// An empty list (the last page of a paging client) is a no-op, for
	// attach and detach alike, answered with an Operation.
	for _, method := range []string{"attachNetworkEndpoints", "detachNetworkEndpoints"} {
		var op api.Operation
		e.ok("POST", neg+"/"+method, `{"networkEndpoints": []}`, &op)
		if op.Status != "DONE" || op.OperationType != method {
			t.Errorf("%s of nothing: operation %+v", method, op)
		}
		if g := e.group(neg); g.Size != 2 {
			t.Errorf("%s of nothing changed the group: %+v", method, g)
		}
	}
	e.fail("POST", zonalNEGs+"/nope/detachNetworkEndpoints", `{"networkEndpoints": []}`, 404, api.ReasonNotFound)
}

// TestAttachNetworkEndpoints_AddressOfAnotherEndpoint: an address and port
// is one endpoint: an inline endpoint (the lbhealth extension) holding it
// keeps an instance's endpoint on the same address and port out.
func TestAttachNetworkEndpoints_AddressOfAnotherEndpoint(t *testing.T) {
	e := newEmu(t)
	e.insert(instancesPath, `{"name": "lo", "networkInterfaces": [{"networkIP": "127.0.0.5"}]}`)
	e.insert(zonalNEGs, `{"name": "neg", "endpoints": [{"ipAddress": "127.0.0.5", "port": 80}]}`)
	wantMessage(t, e.fail("POST", zonalNEGs+"/neg/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "lo", "port": 80}]}`, 400, api.ReasonInvalid),
		`networkEndpoints[0] (127.0.0.5, port 80, instance "lo") is already an endpoint of neg`)
}

func TestDetachNetworkEndpoints(t *testing.T) {
	e := endpointSetup(t)
	neg := zonalNEGs + "/neg"
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1"}, {"instance": "vm-2"}, {"instance": "vm-2", "port": 81}]}`, nil)
	var op api.Operation
	// Named by instance alone (default port), then by address and port.
	e.ok("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1"}, {"ipAddress": "10.0.0.3", "port": 81}]}`, &op)
	if op.OperationType != "detachNetworkEndpoints" {
		t.Errorf("operation = %+v", op)
	}
	g := e.group(neg)
	if g.Size != 1 || g.Endpoints[0].Instance != "vm-2" || *g.Endpoints[0].Port != 80 {
		t.Errorf("group = %+v", g)
	}
	// A missing endpoint is notFound, and the whole call changes nothing.
	msg := e.fail("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-2"}, {"instance": "vm-1"}]}`, 404, api.ReasonNotFound)
	wantMessage(t, msg, `networkEndpoints[1] (port 80, instance "vm-1") is not an endpoint of network endpoint group neg`)
	if g := e.group(neg); g.Size != 1 {
		t.Errorf("a refused detach changed the group: %+v", g)
	}
	wantMessage(t, e.fail("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{}]}`, 400, api.ReasonInvalid),
		"networkEndpoints[0] names no endpoint: give its ipAddress, its instance, its fqdn or its port.")
	// By port alone: fine when the port names one endpoint, refused when it
	// names several; by address (its proto name, ip_address, as
	// terraform-provider-google's update sends it) and port.
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1", "port": 81}, {"instance": "vm-2", "port": 81}, {"instance": "vm-1", "port": 82}]}`, nil)
	wantMessage(t, e.fail("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{"port": 81}]}`, 400, api.ReasonInvalid),
		"networkEndpoints[0] (port 81) matches 2 endpoints of network endpoint group neg: give its ipAddress or its instance too.")
	e.ok("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{"ip_address": "10.0.0.2", "port": 82, "instance": ""}]}`, nil)
	if g := e.group(neg); g.Size != 3 || slices.ContainsFunc(g.Endpoints, func(ep api.NetworkEndpoint) bool { return *ep.Port == 82 }) {
		t.Errorf("after detaching port 82 alone: %+v", g.Endpoints)
	}
	e.fail("POST", zonalNEGs+"/nope/detachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1"}]}`, 404, api.ReasonNotFound)
	// Replacing google_compute_network_endpoints whose endpoints name
	// instances alone: its delete sends ipAddress "" beside the instance,
	// its create the same endpoint again; both find their endpoint.
	e.ok("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-2", "port": 80, "ipAddress": ""}]}`, nil)
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-2", "port": 80, "ipAddress": ""}]}`, nil)
	if g := e.group(neg); g.Size != 3 || !slices.ContainsFunc(g.Endpoints, func(ep api.NetworkEndpoint) bool {
		return ep.Instance == "vm-2" && *ep.Port == 80 && ep.IPAddress == "10.0.0.3"
	}) {
		t.Errorf("after replacing vm-2:80 named by instance alone: %+v", g.Endpoints)
	}
}

func TestListNetworkEndpoints(t *testing.T) {
	e := endpointSetup(t)
	neg := zonalNEGs + "/neg"
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1"}, {"instance": "vm-2"}, {"instance": "vm-2", "port": 81}]}`, nil)
	// No body (Terraform sends none) and SKIP: no healths.
	for _, body := range []string{"", `{}`, `{"healthStatus": "SKIP"}`} {
		l := e.listEndpoints(neg, "", body)
		if l.Kind != api.KindNetworkEndpointGroupsListNetworkEndpoints || len(l.Items) != 3 || l.NextPageToken != "" || l.Items[0].Healths != nil {
			t.Errorf("list with %q = %+v", body, l)
		}
		if ep := l.Items[2].NetworkEndpoint; ep.IPAddress != "10.0.0.3" || *ep.Port != 81 || ep.Instance != "vm-2" {
			t.Errorf("item 2 = %+v", ep)
		}
	}
	// SHOW with no backend service using the group: no health to show
	// (TestListNetworkEndpoints_Health has some).
	if l := e.listEndpoints(neg, "", `{"healthStatus": "SHOW"}`); len(l.Items) != 3 || len(l.Items[0].Healths) != 0 {
		t.Errorf("SHOW, unused group: %+v", l)
	}
	wantMessage(t, e.fail("POST", neg+"/listNetworkEndpoints", `{"healthStatus": "ALL"}`, 400, api.ReasonInvalid),
		`healthStatus ("ALL") must be one of SHOW, SKIP.`)

	// Pages.
	first := e.listEndpoints(neg, "?maxResults=2", "")
	if len(first.Items) != 2 || first.NextPageToken == "" {
		t.Fatalf("first page = %+v", first)
	}
	second := e.listEndpoints(neg, "?maxResults=2&pageToken="+first.NextPageToken, "")
	if len(second.Items) != 1 || second.NextPageToken != "" || *second.Items[0].NetworkEndpoint.Port != 81 {
		t.Errorf("second page = %+v", second)
	}
	e.fail("POST", neg+"/listNetworkEndpoints?pageToken=bm9wZQ", "", 400, api.ReasonInvalid)
	e.fail("POST", zonalNEGs+"/nope/listNetworkEndpoints", "", 404, api.ReasonNotFound)
}

// TestNetworkEndpoints_Regional: a regional group takes instances by URL,
// in a zone of its region.
func TestNetworkEndpoints_Regional(t *testing.T) {
	e := endpointSetup(t)
	e.insert(regionalNEGs, `{"name": "rneg", "defaultPort": 80}`)
	neg := regionalNEGs + "/rneg"
	wantMessage(t, e.fail("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1"}]}`, 400, api.ReasonInvalid),
		"a regional group cannot tell its zone")
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "zones/us-east1-b/instances/vm-1"}]}`, nil)
	if g := e.group(neg); g.Size != 1 || g.Endpoints[0].IPAddress != "10.0.0.2" {
		t.Errorf("group = %+v", g)
	}
	if l := e.listEndpoints(neg, "", ""); len(l.Items) != 1 {
		t.Errorf("list = %+v", l)
	}
	e.ok("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{"ipAddress": "10.0.0.2"}]}`, nil)
	if g := e.group(neg); g.Size != 0 {
		t.Errorf("group after detach = %+v", g)
	}
}

// TestNetworkEndpointGroup_InlineEndpointByInstance: an inline endpoint
// (the lbhealth extension) may name its instance alone too.
func TestNetworkEndpointGroup_InlineEndpointByInstance(t *testing.T) {
	e := endpointSetup(t)
	e.insert(zonalNEGs, `{"name": "inline", "defaultPort": 80, "endpoints": [{"instance": "vm-2"}]}`)
	if g := e.group(zonalNEGs + "/inline"); g.Endpoints[0].IPAddress != "10.0.0.3" {
		t.Errorf("group = %+v", g)
	}
	wantMessage(t, e.fail("POST", zonalNEGs, `{"name": "bad", "defaultPort": 80, "endpoints": [{"instance": "vm-9"}]}`, 404, api.ReasonNotFound),
		"instances/vm-9, which does not exist")
	wantMessage(t, e.fail("POST", zonalNEGs, `{"name": "bad", "defaultPort": 80, "endpoints": [{"instance": "vm-1"}, {"ipAddress": "10.0.0.2"}]}`, 400, api.ReasonInvalid),
		"endpoints[1] repeats endpoints[0]")
}
