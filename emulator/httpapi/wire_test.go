package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A backend service with the fields terraform-provider-google always sends:
// every one is stored and returned as sent, and survives updates.
func TestSchemaTrue_RealFieldsStoredAndReturned(t *testing.T) {
	e := newEmu(t)
	e.insert("/compute/v1/projects/p/global/healthChecks", `{"name": "hc", "tcpHealthCheck": {"port": 80}}`)
	e.insert("/compute/v1/projects/p/zones/z/networkEndpointGroups", `{"name": "neg", "defaultPort": 80, "network": "global/networks/default"}`)
	const bs = "/compute/v1/projects/p/global/backendServices"
	e.insert(bs, `{"name": "web", "protocol": "HTTP", "healthChecks": ["global/healthChecks/hc"],
		"connectionDraining": {"drainingTimeoutSec": 300}, "sessionAffinity": "NONE", "timeoutSec": 30,
		"cdnPolicy": {"cacheMode": "CACHE_ALL_STATIC"}, "circuitBreakers": {"maxRequests": 10},
		"backends": [{"group": "zones/z/networkEndpointGroups/neg", "balancingMode": "RATE", "maxRatePerEndpoint": 10, "capacityScaler": 1}]}`)
	var got map[string]any
	e.ok("GET", bs+"/web", "", &got)
	for field, want := range map[string]string{
		"connectionDraining": `{"drainingTimeoutSec":300}`, "sessionAffinity": `"NONE"`, "timeoutSec": `30`,
		"cdnPolicy": `{"cacheMode":"CACHE_ALL_STATIC"}`, "circuitBreakers": `{"maxRequests":10}`,
		"backends": `[{"balancingMode":"RATE","capacityScaler":1,"group":"` + e.url + `/compute/v1/projects/p/zones/z/networkEndpointGroups/neg","maxRatePerEndpoint":10}]`,
		"kind":     `"compute#backendService"`,
	} {
		if b, _ := json.Marshal(got[field]); string(b) != want {
			t.Errorf("%s = %s, want %s", field, b, want)
		}
	}
	fp, _ := got["fingerprint"].(string)
	if fp == "" {
		t.Fatalf("no fingerprint: %v", got)
	}
	// A PATCH keeps what it does not name; a stale fingerprint is 412.
	e.ok("PATCH", bs+"/web", `{"timeoutSec": 60, "fingerprint": "`+fp+`"}`, nil)
	e.fail("PATCH", bs+"/web", `{"timeoutSec": 90, "fingerprint": "`+fp+`"}`, http.StatusPreconditionFailed, api.ReasonConditionNotMet)
	e.ok("GET", bs+"/web", "", &got)
	if got["timeoutSec"] != float64(60) || got["sessionAffinity"] != "NONE" || got["cdnPolicy"] == nil {
		t.Errorf("after PATCH: %v", got)
	}
}

func TestSchemaTrue_UnknownAndBadValuesRefused(t *testing.T) {
	e := newStrictEmu(t)
	before := e.snapshot()
	for body, want := range map[string]string{
		`{"name": "web", "conectionDraining": {}}`:                      `Unknown field "conectionDraining"`,
		`{"name": "web", "connectionDraining": {"drainingTimeout": 3}}`: `Unknown field "connectionDraining.drainingTimeout"`,
		`{"name": "web", "sessionAffinity": "STICKY"}`:                  `sessionAffinity ("STICKY") must be one of`,
		`{"name": "web", "timeoutSec": "thirty"}`:                       `'timeoutSec': expected an integer`,
	} {
		msg := e.fail("POST", "/compute/v1/projects/p/global/backendServices", body, 400, api.ReasonInvalid)
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %q does not contain %q", body, msg, want)
		}
	}
	if after := e.snapshot(); after != before {
		t.Errorf("a refused request changed the store")
	}
}

func TestRequestID_RetriedInsertGetsTheFirstOperation(t *testing.T) {
	e := newEmu(t)
	const path = "/compute/v1/projects/p/global/healthChecks?requestId=3f6e1a0c-5b7d-4c2e-9a41-2d8f0b6c7e19"
	var first, again api.Operation
	e.ok("POST", path, `{"name": "web", "tcpHealthCheck": {}}`, &first)
	e.ok("POST", path, `{"name": "web", "tcpHealthCheck": {}}`, &again)
	if first.Name == "" || again.Name != first.Name {
		t.Errorf("retry answered %q, first %q", again.Name, first.Name)
	}
	// Another id is another request: the name is taken.
	e.fail("POST", "/compute/v1/projects/p/global/healthChecks?requestId=11111111-2222-3333-4444-555555555555",
		`{"name": "web", "tcpHealthCheck": {}}`, http.StatusConflict, api.ReasonAlreadyExists)
	msg := e.fail("POST", "/compute/v1/projects/p/global/healthChecks?requestId=again", `{"name": "web2", "tcpHealthCheck": {}}`, 400, api.ReasonInvalid)
	if !strings.Contains(msg, `requestId ("again") must be a UUID`) {
		t.Errorf("message %q", msg)
	}
}

func TestZonalOperation_CarriesZone(t *testing.T) {
	e := newEmu(t)
	op := e.insert("/compute/v1/projects/p/zones/us-central1-a/networkEndpointGroups", `{"name": "neg", "defaultPort": 80}`)
	if !strings.HasSuffix(op.Zone, "/projects/p/zones/us-central1-a") || op.Region != "" {
		t.Fatalf("operation zone %q region %q", op.Zone, op.Region)
	}
	var again api.Operation
	e.ok("GET", e.path(op.SelfLink), "", &again)
	if again.Name != op.Name {
		t.Errorf("zoneOperations.get answered %+v", again)
	}
}

func TestCrossProjectReference_Refused(t *testing.T) {
	e := newEmu(t)
	e.insert("/compute/v1/projects/p/global/healthChecks", `{"name": "hc", "tcpHealthCheck": {}}`)
	msg := e.fail("POST", "/compute/v1/projects/q/global/backendServices",
		`{"name": "web", "healthChecks": ["projects/p/global/healthChecks/hc"]}`, 400, api.ReasonInvalid)
	if !strings.Contains(msg, `is in project "p"`) || !strings.Contains(msg, "cross-project") {
		t.Errorf("message %q", msg)
	}
}

func TestSetLabels_ReplacesLabelsGuardedByTheirFingerprint(t *testing.T) {
	e := newEmu(t)
	const addrs = "/compute/v1/projects/p/regions/r/addresses"
	e.insert(addrs, `{"name": "ip", "address": "127.0.5.5", "description": "kept"}`)
	var got map[string]any
	e.ok("GET", addrs+"/ip", "", &got)
	fp, _ := got["labelFingerprint"].(string)
	e.ok("POST", addrs+"/ip/setLabels", `{"labels": {"env": "test"}, "labelFingerprint": "`+fp+`"}`, nil)
	e.ok("GET", addrs+"/ip", "", &got)
	if lb, _ := json.Marshal(got["labels"]); string(lb) != `{"env":"test"}` || got["description"] != "kept" || got["address"] != "127.0.5.5" {
		t.Errorf("after setLabels: %v", got)
	}
	if got["labelFingerprint"] == fp || got["labelFingerprint"] == "" {
		t.Errorf("labelFingerprint %v did not change", got["labelFingerprint"])
	}
	e.fail("POST", addrs+"/ip/setLabels", `{"labels": {}, "labelFingerprint": "c3RhbGU="}`, http.StatusPreconditionFailed, api.ReasonConditionNotMet)
	e.fail("POST", addrs+"/ip/setLabels", `{"labels": {"a": 1}}`, 400, api.ReasonInvalid)
}

func TestPublicImages_FamilyAndNameLookups(t *testing.T) {
	e := newEmu(t)
	var img map[string]any
	e.ok("GET", "/compute/v1/projects/debian-cloud/global/images/family/debian-12", "", &img)
	if img["name"] != "debian-12-v20260101" || img["family"] != "debian-12" || img["status"] != "READY" || img["kind"] != "compute#image" {
		t.Errorf("family lookup: %v", img)
	}
	var byName map[string]any
	e.ok("GET", "/compute/v1/projects/debian-cloud/global/images/debian-12-v20260101", "", &byName)
	if byName["selfLink"] != img["selfLink"] || byName["id"] != img["id"] {
		t.Errorf("name lookup %v differs from family lookup %v", byName, img)
	}
	msg := e.fail("GET", "/compute/v1/projects/p/global/images/mine", "", 404, api.ReasonNotFound)
	if !strings.Contains(msg, "-cloud") {
		t.Errorf("message %q", msg)
	}
}

func TestGlobalNetworkEndpointGroup_InternetEndpoints(t *testing.T) {
	e := newEmu(t)
	const negs = "/compute/v1/projects/p/global/networkEndpointGroups"
	e.insert(negs, `{"name": "ext", "networkEndpointType": "INTERNET_FQDN_PORT", "defaultPort": 443}`)
	e.ok("POST", negs+"/ext/attachNetworkEndpoints", `{"networkEndpoints": [{"fqdn": "www.example.com", "port": 443}]}`, nil)
	var list struct {
		Items []struct {
			NetworkEndpoint map[string]any `json:"networkEndpoint"`
		} `json:"items"`
	}
	e.ok("POST", negs+"/ext/listNetworkEndpoints", "", &list)
	if len(list.Items) != 1 || list.Items[0].NetworkEndpoint["fqdn"] != "www.example.com" {
		t.Errorf("listNetworkEndpoints: %+v", list)
	}
	e.insert("/compute/v1/projects/p/regions/r/networkEndpointGroups", `{"name": "run", "networkEndpointType": "SERVERLESS", "cloudRun": {"service": "web"}}`)
}
