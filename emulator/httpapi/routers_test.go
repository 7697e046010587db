package httpapi_test

import (
	"strings"
	"testing"
)

// A router's md5AuthenticationKeys sent as one object, as
// terraform-provider-google's google_compute_router sends them, is read as
// a list of that one key, as the API reads it; the key itself is never
// answered.
func TestRouters_MD5KeysAsOneObject(t *testing.T) {
	e := newEmu(t)
	e.network()
	routers := "/compute/v1/projects/p/regions/us-east1/routers"
	e.insert(routers, `{"name": "r", "network": "global/networks/net", "bgp": {"asn": 64514},
		"md5AuthenticationKeys": {"name": "k1", "key": "s3cr3t-md5"}}`)
	var r map[string]any
	e.ok("GET", routers+"/r", "", &r)
	keys, _ := r["md5AuthenticationKeys"].([]any)
	if len(keys) != 1 || keys[0].(map[string]any)["name"] != "k1" {
		t.Errorf("md5AuthenticationKeys %v, want one key named k1", r["md5AuthenticationKeys"])
	}
	if _, body := e.do("GET", routers+"/r", ""); strings.Contains(string(body), "s3cr3t-md5") {
		t.Errorf("the key was answered: %s", body)
	}
}

// A NAT that names no endpoint types translates for instances, and says
// so, as the API answers (terraform-provider-google's own test reads
// endpoint_types.0 after such an apply); the types it names are kept.
func TestRouters_NatEndpointTypesDefault(t *testing.T) {
	e := newEmu(t)
	e.network()
	routers := "/compute/v1/projects/p/regions/us-east1/routers"
	e.insert(routers, `{"name": "r", "network": "global/networks/net", "nats": [
		{"name": "vm", "natIpAllocateOption": "AUTO_ONLY", "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES"},
		{"name": "swg", "natIpAllocateOption": "AUTO_ONLY", "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES", "endpointTypes": ["ENDPOINT_TYPE_SWG"]}]}`)
	var r struct {
		Nats []struct {
			Name          string   `json:"name"`
			EndpointTypes []string `json:"endpointTypes"`
		} `json:"nats"`
	}
	e.ok("GET", routers+"/r", "", &r)
	if len(r.Nats) != 2 || strings.Join(r.Nats[0].EndpointTypes, ",") != "ENDPOINT_TYPE_VM" || strings.Join(r.Nats[1].EndpointTypes, ",") != "ENDPOINT_TYPE_SWG" {
		t.Errorf("nats %+v, want ENDPOINT_TYPE_VM where none was named and ENDPOINT_TYPE_SWG kept", r.Nats)
	}
}
