package httpapi_test

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const globalPrefix = "/compute/v1/projects/p/global/"

// crossRegionILB makes a cross-region internal Application Load Balancer
// in network net: its global forwarding rule is "xr-rule".
func (e *emu) crossRegionILB() {
	e.t.Helper()
	e.network()
	e.insert(subnetworksPath, `{"name": "proxy-only", "network": "global/networks/net", "ipCidrRange": "10.129.0.0/23",
		"purpose": "GLOBAL_MANAGED_PROXY", "role": "ACTIVE"}`)
	e.insert(globalPrefix+"healthChecks", `{"name": "xr-check", "httpHealthCheck": {"port": 80}}`)
	e.insert(globalPrefix+"backendServices", `{"name": "xr", "loadBalancingScheme": "INTERNAL_MANAGED", "protocol": "HTTP",
		"healthChecks": ["global/healthChecks/xr-check"]}`)
	e.insert(globalPrefix+"urlMaps", `{"name": "xr", "defaultService": "global/backendServices/xr"}`)
	e.insert(globalPrefix+"targetHttpProxies", `{"name": "xr", "urlMap": "global/urlMaps/xr"}`)
	e.insert(globalPrefix+"forwardingRules", `{"name": "xr-rule", "loadBalancingScheme": "INTERNAL_MANAGED", "target": "global/targetHttpProxies/xr",
		"network": "global/networks/net", "subnetwork": "regions/us-east1/subnetworks/sub", "portRange": "80"}`)
}

// A service attachment may publish the global forwarding rule of a
// cross-region internal load balancer, from any region.
func TestServiceAttachments_PublishACrossRegionRule(t *testing.T) {
	e := newEmu(t)
	e.crossRegionILB()
	e.insert(subnetworksPath, `{"name": "psc-nat", "network": "global/networks/net", "ipCidrRange": "10.20.0.0/24", "purpose": "PRIVATE_SERVICE_CONNECT"}`)
	attachments := "/compute/v1/projects/p/regions/us-east1/serviceAttachments"
	e.insert(attachments, `{"name": "xr", "targetService": "global/forwardingRules/xr-rule", "natSubnets": ["psc-nat"], "connectionPreference": "ACCEPT_AUTOMATIC"}`)
	var a api.ServiceAttachment
	e.ok("GET", attachments+"/xr", "", &a)
	if e.path(a.TargetService) != globalPrefix+"forwardingRules/xr-rule" {
		t.Errorf("targetService %q, want the global rule's URL", a.TargetService)
	}
}

// Private Service Connect endpoints: a regional rule to a service
// attachment and a global rule to a bundle of Google APIs have no
// load-balancing scheme, as the API stores them (terraform-provider-google
// replaces a rule whose scheme reads back otherwise); a bundle is a global
// rule's target only.
func TestForwardingRules_PrivateServiceConnectEndpoints(t *testing.T) {
	e := newEmu(t)
	e.crossRegionILB()
	e.insert(subnetworksPath, `{"name": "psc-nat", "network": "global/networks/net", "ipCidrRange": "10.20.0.0/24", "purpose": "PRIVATE_SERVICE_CONNECT"}`)
	e.insert("/compute/v1/projects/p/regions/us-east1/serviceAttachments", `{"name": "xr", "targetService": "global/forwardingRules/xr-rule",
		"natSubnets": ["psc-nat"], "connectionPreference": "ACCEPT_AUTOMATIC"}`)
	rules := "/compute/v1/projects/p/regions/us-east1/forwardingRules"
	e.insert(rules, `{"name": "endpoint", "target": "regions/us-east1/serviceAttachments/xr", "network": "global/networks/net",
		"allowPscGlobalAccess": true}`)
	e.insert(globalAddrPath, `{"name": "apis", "addressType": "INTERNAL", "purpose": "PRIVATE_SERVICE_CONNECT",
		"network": "global/networks/net", "address": "100.100.100.106"}`)
	for _, bundle := range []string{"all-apis", "vpc-sc"} {
		e.insert(globalPrefix+"forwardingRules", `{"name": "`+bundle+`", "target": "`+bundle+`", "network": "global/networks/net",
			"IPAddress": "global/addresses/apis"}`)
		var fr map[string]any
		e.ok("GET", globalPrefix+"forwardingRules/"+bundle, "", &fr)
		if _, ok := fr["loadBalancingScheme"]; ok || fr["target"] != bundle {
			t.Errorf("rule to %s: %v, want its target as sent and no loadBalancingScheme", bundle, fr)
		}
		e.ok("DELETE", globalPrefix+"forwardingRules/"+bundle, "", nil)
	}
	var fr map[string]any
	e.ok("GET", rules+"/endpoint", "", &fr)
	if _, ok := fr["loadBalancingScheme"]; ok || e.path(fr["target"].(string)) != "/compute/v1/projects/p/regions/us-east1/serviceAttachments/xr" {
		t.Errorf("rule to a service attachment: %v, want its target's URL and no loadBalancingScheme", fr)
	}
	wantMessage(t, e.fail("POST", rules, `{"name": "apis", "target": "all-apis", "network": "global/networks/net"}`, 400, api.ReasonInvalid),
		`target ("all-apis") is a bundle of Google APIs, which only a global forwarding rule reaches`)
}

// A consumer's endpoint connects to a service attachment: it gets a
// connection id and a status, and the attachment lists it. ACCEPT_MANUAL
// leaves a project in neither list PENDING; a change of the accept list
// accepts it on both sides; without reconcileConnections a change of the
// reject list leaves it ACCEPTED, with it the endpoint is REJECTED. A
// deleted endpoint leaves the list; an endpoint in another region than the
// attachment is refused.
func TestServiceAttachments_ConnectedEndpoints(t *testing.T) {
	e := newEmu(t)
	e.crossRegionILB()
	e.insert(subnetworksPath, `{"name": "psc-nat", "network": "global/networks/net", "ipCidrRange": "10.20.0.0/24", "purpose": "PRIVATE_SERVICE_CONNECT"}`)
	attachments := "/compute/v1/projects/p/regions/us-east1/serviceAttachments"
	e.insert(attachments, `{"name": "xr", "targetService": "global/forwardingRules/xr-rule", "natSubnets": ["psc-nat"],
		"connectionPreference": "ACCEPT_MANUAL", "consumerAcceptLists": [{"projectIdOrNum": "someone-else", "connectionLimit": 2}]}`)
	rules := "/compute/v1/projects/p/regions/us-east1/forwardingRules"
	e.insert(rules, `{"name": "endpoint", "target": "regions/us-east1/serviceAttachments/xr", "network": "global/networks/net"}`)
	endpoint := func() api.ForwardingRule {
		var fr api.ForwardingRule
		e.ok("GET", rules+"/endpoint", "", &fr)
		return fr
	}
	attachment := func() api.ServiceAttachment {
		var a api.ServiceAttachment
		e.ok("GET", attachments+"/xr", "", &a)
		return a
	}
	fr, a := endpoint(), attachment()
	if fr.PscConnectionStatus != "PENDING" || fr.PscConnectionID == "" {
		t.Fatalf("endpoint of a project in no list: status %q, id %q; want PENDING and an id", fr.PscConnectionStatus, fr.PscConnectionID)
	}
	if len(a.ConnectedEndpoints) != 1 || e.path(a.ConnectedEndpoints[0].Endpoint) != rules+"/endpoint" ||
		a.ConnectedEndpoints[0].Status != "PENDING" || a.ConnectedEndpoints[0].PscConnectionID != fr.PscConnectionID ||
		e.path(a.ConnectedEndpoints[0].ConsumerNetwork) != networksPath+"/net" {
		t.Fatalf("connectedEndpoints %+v, want the endpoint PENDING", a.ConnectedEndpoints)
	}

	e.ok("PATCH", attachments+"/xr", `{"consumerAcceptLists": [{"projectIdOrNum": "p", "connectionLimit": 2}]}`, nil)
	if fr, a := endpoint(), attachment(); fr.PscConnectionStatus != "ACCEPTED" || a.ConnectedEndpoints[0].Status != "ACCEPTED" {
		t.Errorf("after the accept list names p: endpoint %q, attachment %+v; want ACCEPTED on both", fr.PscConnectionStatus, a.ConnectedEndpoints)
	}
	e.ok("PATCH", attachments+"/xr", `{"consumerRejectLists": ["p"]}`, nil)
	if fr := endpoint(); fr.PscConnectionStatus != "ACCEPTED" {
		t.Errorf("a reject list without reconcileConnections moved an ACCEPTED endpoint to %q", fr.PscConnectionStatus)
	}
	e.ok("PATCH", attachments+"/xr", `{"reconcileConnections": true}`, nil)
	if fr, a := endpoint(), attachment(); fr.PscConnectionStatus != "REJECTED" || a.ConnectedEndpoints[0].Status != "REJECTED" ||
		fr.PscConnectionID != a.ConnectedEndpoints[0].PscConnectionID {
		t.Errorf("with reconcileConnections: endpoint %q, attachment %+v; want REJECTED on both, one id", fr.PscConnectionStatus, a.ConnectedEndpoints)
	}

	wantMessage(t, e.fail("POST", "/compute/v1/projects/p/regions/us-west1/forwardingRules", `{"name": "far", "target": "regions/us-east1/serviceAttachments/xr"}`,
		400, api.ReasonInvalid), "a Private Service Connect endpoint in regions/us-west1 connects to a service attachment of its own region")
	e.ok("DELETE", rules+"/endpoint", "", nil)
	if a := attachment(); len(a.ConnectedEndpoints) != 0 {
		t.Errorf("after the endpoint is deleted: %+v", a.ConnectedEndpoints)
	}
}
