package httpapi_test

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A subnetwork with stackType IPV6_ONLY has no IPv4 range, as in the API;
// what needs an IPv4 address of it is refused with a message that says
// why, never a crash.
func TestSubnetworks_IPv6Only(t *testing.T) {
	e := newEmu(t)
	e.insert(networksPath, `{"name": "net", "autoCreateSubnetworks": false, "enableUlaInternalIpv6": true}`)
	e.insert(subnetworksPath, `{"name": "v6", "network": "global/networks/net", "stackType": "IPV6_ONLY", "ipv6AccessType": "INTERNAL"}`)
	var sn map[string]any
	e.ok("GET", subnetworksPath+"/v6", "", &sn)
	if _, ok := sn["ipCidrRange"]; ok || sn["stackType"] != "IPV6_ONLY" {
		t.Errorf("subnetwork %v, want IPV6_ONLY without ipCidrRange", sn)
	}
	wantMessage(t, e.fail("POST", subnetworksPath, `{"name": "v4", "network": "global/networks/net", "stackType": "IPV6_ONLY", "ipCidrRange": "10.0.0.0/24"}`, 400, api.ReasonInvalid),
		`ipCidrRange ("10.0.0.0/24") must not be set: an IPV6_ONLY subnetwork has no IPv4 range.`)
	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm", "networkInterfaces": [{"subnetwork": "regions/us-east1/subnetworks/v6"}]}`, 400, api.ReasonInvalid),
		"is an IPV6_ONLY subnetwork")
	wantMessage(t, e.fail("POST", addressesPath, `{"name": "a", "addressType": "INTERNAL", "subnetwork": "v6"}`, 400, api.ReasonInvalid),
		"is an IPV6_ONLY subnetwork: it has no IPv4 addresses")
}
