package httpapi_test

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Target gRPC proxies (global): insert, get, list, patch, delete; the URL
// map they name must exist and stays while they name it; a global
// forwarding rule may send to one, and holds it.
func TestTargetGrpcProxies(t *testing.T) {
	e := newEmu(t)
	proxies := globalPrefix + "targetGrpcProxies"
	e.insert(globalPrefix+"healthChecks", `{"name": "hc", "grpcHealthCheck": {"port": 50051}}`)
	e.insert(globalPrefix+"backendServices", `{"name": "grpc", "loadBalancingScheme": "INTERNAL_SELF_MANAGED", "protocol": "GRPC",
		"healthChecks": ["global/healthChecks/hc"]}`)
	e.insert(globalPrefix+"urlMaps", `{"name": "grpc", "defaultService": "global/backendServices/grpc"}`)
	wantMessage(t, e.fail("POST", proxies, `{"name": "p", "urlMap": "global/urlMaps/nope"}`, 404, api.ReasonNotFound),
		`urlMap ("global/urlMaps/nope") refers to projects/p/global/urlMaps/nope, which does not exist.`)
	wantMessage(t, e.fail("POST", proxies, `{"name": "Bad_Name"}`, 400, api.ReasonInvalid), `name ("Bad_Name")`)
	e.insert(proxies, `{"name": "p", "urlMap": "global/urlMaps/grpc", "validateForProxyless": true}`)
	var p api.TargetGrpcProxy
	e.ok("GET", proxies+"/p", "", &p)
	if p.Kind != api.KindTargetGrpcProxy || e.path(p.URLMap) != globalPrefix+"urlMaps/grpc" || !p.ValidateForProxyless || p.Fingerprint == "" {
		t.Errorf("got %+v, want its URL map as a URL, validateForProxyless and a fingerprint", p)
	}
	var l api.List[api.TargetGrpcProxy]
	e.ok("GET", proxies, "", &l)
	if l.Kind != api.KindTargetGrpcProxyList || len(l.Items) != 1 {
		t.Errorf("list %+v, want the one proxy", l)
	}
	e.ok("PATCH", proxies+"/p", `{"description": "proxyless", "fingerprint": "`+p.Fingerprint+`"}`, nil)
	e.ok("GET", proxies+"/p", "", &p)
	if p.Description != "proxyless" || e.path(p.URLMap) != globalPrefix+"urlMaps/grpc" {
		t.Errorf("after a patch: %+v", p)
	}
	wantMessage(t, e.fail("DELETE", globalPrefix+"urlMaps/grpc", "", 400, api.ReasonResourceInUse), "targetGrpcProxies/p")
	e.insert(globalPrefix+"forwardingRules", `{"name": "fr", "loadBalancingScheme": "INTERNAL_SELF_MANAGED", "target": "global/targetGrpcProxies/p",
		"IPAddress": "0.0.0.0", "portRange": "80"}`)
	wantMessage(t, e.fail("DELETE", proxies+"/p", "", 400, api.ReasonResourceInUse), "forwardingRules/fr")
	e.ok("DELETE", globalPrefix+"forwardingRules/fr", "", nil)
	e.ok("DELETE", proxies+"/p", "", nil)
	e.fail("GET", proxies+"/p", "", 404, api.ReasonNotFound)
}
