package httpapi_test

import (
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestUnknownFields_IgnoredAndLoggedOnce: by default a field the API does
// not define is ignored, as the Compute API ignores it: the resource is
// stored without it, and the field is logged once, with the request, however
// often it comes.
func TestUnknownFields_IgnoredAndLoggedOnce(t *testing.T) {
	_, e, logs := server(t, store.NewMemory())
	e.insert(globalHC, `{"name": "web", "checkIntervalSecs": 5, "httpHealthCheck": {"path": "/x", "port": 8080}}`)
	e.insert(globalHC, `{"name": "web-2", "checkIntervalSecs": 7, "httpHealthCheck": {}}`)
	_, body := e.do("GET", globalHC+"/web", "")
	if strings.Contains(string(body), "checkIntervalSecs") || strings.Contains(string(body), `"path"`) || !strings.Contains(string(body), `"port": 8080`) {
		t.Errorf("stored %s, want the known fields only", body)
	}
	out := logs.String()
	if n := strings.Count(out, "checkIntervalSecs"); n != 1 {
		t.Errorf("checkIntervalSecs logged %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{"unknown fields ignored", "httpHealthCheck.path", "method=POST", "path=/compute/v1/projects/p/global/healthChecks"} {
		if !strings.Contains(out, want) {
			t.Errorf("log does not say %q:\n%s", want, out)
		}
	}
}

// TestProtoFieldNames: a field may go by its proto name, as the API's
// JSON parser takes it beside the camelCase one: terraform-provider-google
// sends {"ip_address", "port", "instance"} when it updates
// google_compute_network_endpoints, and the address counts.
func TestProtoFieldNames(t *testing.T) {
	e := endpointSetup(t)
	neg := zonalNEGs + "/neg"
	e.ok("POST", neg+"/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "vm-1", "port": 80}, {"instance": "vm-2", "port": 80}]}`, nil)
	e.ok("POST", neg+"/detachNetworkEndpoints", `{"networkEndpoints": [{"ip_address": "10.0.0.2", "port": 80, "instance": "vm-1"}]}`, nil)
	if g := e.group(neg); len(g.Endpoints) != 1 || g.Endpoints[0].Instance != "vm-2" {
		t.Errorf("after detaching vm-1 by a snake_case body: %+v", g.Endpoints)
	}
	// Endpoints named by address alone, as the provider adds them to a
	// NON_GCP_PRIVATE_IP_PORT group (its own recreate test).
	e.insert(zonalNEGs, `{"name": "external", "networkEndpointType": "NON_GCP_PRIVATE_IP_PORT", "network": "global/networks/net"}`)
	e.ok("POST", zonalNEGs+"/external/attachNetworkEndpoints", `{"networkEndpoints": [{"ip_address": "1.2.3.4", "port": 8442}, {"ip_address": "5.6.7.8", "port": 8443}]}`, nil)
	if g := e.group(zonalNEGs + "/external"); len(g.Endpoints) != 2 || g.Endpoints[0].IPAddress != "1.2.3.4" || g.Endpoints[1].IPAddress != "5.6.7.8" {
		t.Errorf("endpoints attached by proto names: %+v", g.Endpoints)
	}
	// A health check's fields too; the camelCase name wins when both come.
	e.insert(globalHC, `{"name": "web", "check_interval_sec": 7, "timeout_sec": 3, "timeoutSec": 4, "http_health_check": {"request_path": "/up"}}`)
	_, body := e.do("GET", globalHC+"/web", "")
	for _, want := range []string{`"checkIntervalSec": 7`, `"timeoutSec": 4`, `"requestPath": "/up"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("stored %s, want %s", body, want)
		}
	}
}

// TestUnknownFields_StrictRefuses: with StrictFields (--strict-fields) the
// same bodies are refused, naming the field, and nothing is stored.
func TestUnknownFields_StrictRefuses(t *testing.T) {
	e := newStrictEmu(t)
	wantMessage(t, e.fail("POST", globalHC, `{"name": "web", "checkIntervalSecs": 5, "httpHealthCheck": {}}`, 400, api.ReasonInvalid),
		`Unknown field "checkIntervalSecs"`)
	e.insert(zonalNEGs, `{"name": "neg", "networkEndpointType": "GCE_VM_IP_PORT"}`)
	wantMessage(t, e.fail("POST", zonalNEGs+"/neg/attachNetworkEndpoints", `{"networkEndpoints": [{"ipAddress": "127.0.0.1", "port": 80}], "extra": 1}`,
		400, api.ReasonInvalid), `Unknown field "extra"`)
	e.fail("GET", globalHC+"/web", "", 404, api.ReasonNotFound)
}

// TestUnknownFields_LoggingIsBounded: a client sending endless new field
// names cannot make the server log (and remember) without end.
func TestUnknownFields_LoggingIsBounded(t *testing.T) {
	var logs lockedBuilder
	logs.b = &strings.Builder{}
	ts := httptest.NewUnstartedServer(nil)
	root := "http://" + ts.Listener.Addr().String()
	ts.Config.Handler = httpapi.New(store.NewMemory(), httpapi.Options{RootURL: root, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	ts.Start()
	t.Cleanup(ts.Close)
	e := &emu{t: t, url: root}
	var body strings.Builder
	body.WriteString(`{"name": "web", "tcpHealthCheck": {}`)
	for i := range 1500 {
		body.WriteString(`, "f` + strings.Repeat("x", i%7) + strconv.Itoa(i) + `": 1`)
	}
	body.WriteString("}")
	e.insert(globalHC, body.String())
	logs.mu.Lock()
	out := logs.b.String()
	logs.mu.Unlock()
	if n := len(regexp.MustCompile(`\bfx*[0-9]+\b`).FindAllString(out, -1)); n == 0 || n > 1000 {
		t.Errorf("%d unknown fields logged, want some and at most 1000", n)
	}
}

// TestUnsetValues_ReadAsUnset: terraform-provider-google sends an instance
// template's empty node_affinities as "nodeAffinities": [null] and its unset
// enums as "" ("provisioningModel", "instanceTerminationAction"); the API
// reads both as unset and stores the template without them. An enum's value
// that is not empty and not one of its values is still refused.
func TestUnsetValues_ReadAsUnset(t *testing.T) {
	e := newEmu(t)
	e.network()
	e.insert(templatesPath, `{"name": "web", "properties": {"machineType": "e2-small",
		"networkInterfaces": [{"network": "global/networks/net", "subnetwork": "sub"}],
		"scheduling": {"automaticRestart": true, "onHostMaintenance": "MIGRATE", "nodeAffinities": [null],
			"provisioningModel": "", "instanceTerminationAction": ""}}}`)
	_, body := e.do("GET", templatesPath+"/web", "")
	for _, gone := range []string{"nodeAffinities", "provisioningModel", "instanceTerminationAction"} {
		if strings.Contains(string(body), gone) {
			t.Errorf("stored %s, want it without %s", body, gone)
		}
	}
	if !strings.Contains(string(body), `"onHostMaintenance": "MIGRATE"`) {
		t.Errorf("stored %s, want onHostMaintenance kept", body)
	}
	wantMessage(t, e.fail("POST", templatesPath, `{"name": "spot", "properties": {"machineType": "e2-small",
		"networkInterfaces": [{"network": "global/networks/net"}], "scheduling": {"provisioningModel": "SPOTTY"}}}`, 400, api.ReasonInvalid),
		`properties.scheduling.provisioningModel ("SPOTTY") must be one of`)
	e.fail("GET", templatesPath+"/spot", "", 404, api.ReasonNotFound)
}
