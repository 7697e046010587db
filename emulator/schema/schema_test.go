package schema

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Real fields the emulator does not act on are accepted: the ones
// terraform-provider-google always sends among them.
func TestCheck_RealFieldsAreAccepted(t *testing.T) {
	for name, body := range map[string]string{
		"BackendService": `{"name": "bs", "connectionDraining": {"drainingTimeoutSec": 300}, "sessionAffinity": "NONE",
			"cdnPolicy": {"cacheMode": "CACHE_ALL_STATIC", "defaultTtl": 3600}, "circuitBreakers": {"maxRequests": 10},
			"backends": [{"group": "g", "balancingMode": "UTILIZATION", "capacityScaler": 1.0}], "affinityCookieTtlSec": 0,
			"logConfig": {"enable": true, "sampleRate": 0.5}, "fingerprint": "abc=", "id": "123", "network": "n"}`,
		"ForwardingRule":       `{"name": "fr", "IPProtocol": "TCP", "networkTier": "PREMIUM", "labels": {"a": "b"}, "allPorts": true}`,
		"NetworkEndpointGroup": `{"name": "neg", "network": "n", "subnetwork": "s", "appEngine": {"service": "x"}, "size": 3}`,
		"TargetPool":           `{"name": "tp", "sessionAffinity": "CLIENT_IP", "failoverRatio": 0.5, "instances": ["a"]}`,
		"HealthCheck":          `{"name": "hc", "checkIntervalSec": 5, "httpHealthCheck": {"port": 80, "proxyHeader": "NONE"}, "logConfig": {"enable": true}}`,
	} {
		if err := CheckEnums(name, decode(t, body)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheck_RefusesWhatTheAPIDoesNotDefine(t *testing.T) {
	tests := []struct {
		schema, body, want string
	}{
		{"BackendService", `{"name": "bs", "conectionDraining": {}}`, `Unknown field "conectionDraining"`},
		{"BackendService", `{"connectionDraining": {"timeout": 3}}`, `Unknown field "connectionDraining.timeout"`},
		{"BackendService", `{"backends": [{"group": "g"}, {"weight": 1}]}`, `Unknown field "backends[1].weight"`},
		{"HealthCheck", `{"checkIntervalSec": "five"}`, `'checkIntervalSec': expected an integer, got a JSON string`},
		{"HealthCheck", `{"checkIntervalSec": 5.5}`, `'checkIntervalSec': expected an integer, got 5.5`},
		{"HealthCheck", `{"checkIntervalSec": 3000000000}`, `out of range`},
		{"HealthCheck", `{"httpHealthCheck": []}`, `'httpHealthCheck': expected an object, got a JSON array`},
		{"ForwardingRule", `{"labels": {"a": 1}}`, `'labels.a': expected a string`},
		{"BackendService", `{"enableCDN": "yes"}`, `'enableCDN': expected a boolean`},
		{"BackendService", `{"id": "12x"}`, `'id': 12x is not an unsigned 64-bit integer`},
	}
	for _, tc := range tests {
		err := Check(tc.schema, decode(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want %q", tc.schema, tc.body, err, tc.want)
		}
	}
}

func TestCheck_EnumsOnlyWhenAsked(t *testing.T) {
	v := decode(t, `{"sessionAffinity": "STICKY"}`)
	if err := Check("BackendService", v); err != nil {
		t.Errorf("Check: %v (enums are CheckEnums' job)", err)
	}
	err := CheckEnums("BackendService", v)
	if err == nil || !strings.Contains(err.Error(), `sessionAffinity ("STICKY") must be one of`) || !strings.Contains(err.Error(), "CLIENT_IP") {
		t.Errorf("CheckEnums: %v", err)
	}
}

// A 32-bit integer in quotes is the number, as the API's JSON parsing takes
// it (terraform-provider-google sends a PSC NEG's producerPort so), and is
// kept as a number.
func TestCheck_QuotedInt32IsTheNumber(t *testing.T) {
	v := decode(t, `{"checkIntervalSec": "5", "httpHealthCheck": {"port": "8080"}}`)
	if err := Check("HealthCheck", v); err != nil {
		t.Fatal(err)
	}
	doc := v.(map[string]any)
	if doc["checkIntervalSec"] != json.Number("5") || doc["httpHealthCheck"].(map[string]any)["port"] != json.Number("8080") {
		t.Errorf("after Check: %v, want the numbers", doc)
	}
}

// 64-bit integers travel as strings in the API, and numbers are taken too.
func TestCheck_Int64AsStringOrNumber(t *testing.T) {
	for _, body := range []string{`{"id": "18446744073709551615"}`, `{"id": 42}`} {
		if err := Check("HealthCheck", decode(t, body)); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestExtensions_AreListedAndAccepted(t *testing.T) {
	if err := CheckEnums("NetworkEndpointGroup", decode(t, `{"endpoints": [{"ipAddress": "127.0.0.1", "port": 80, "state": "STOPPED"}]}`)); err != nil {
		t.Error(err)
	}
	if err := CheckEnums("NetworkEndpointGroup", decode(t, `{"endpoints": [{"state": "PAUSED"}]}`)); err == nil {
		t.Error("state PAUSED accepted")
	}
	if !Get("BackendService").Properties["namedPorts"].Extension || Get("BackendService").Properties["protocol"].Extension {
		t.Error("extensions are not marked as such")
	}
}

func TestStripOutputOnly(t *testing.T) {
	m := decode(t, `{"name": "n", "id": "1", "kind": "k", "selfLink": "s", "size": 4, "endpoints": [{"ipAddress": "a"}]}`).(map[string]any)
	StripOutputOnly("NetworkEndpointGroup", m)
	got, _ := json.Marshal(m)
	if string(got) != `{"endpoints":[{"ipAddress":"a"}],"name":"n"}` {
		t.Errorf("got %s", got)
	}
}

func TestKinds(t *testing.T) {
	for name, want := range map[string]string{"HealthCheck": "compute#healthCheck", "Address": "compute#address"} {
		if got := Kind(name); got != want {
			t.Errorf("Kind(%s) = %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]string{"HealthCheck": "compute#healthChecksAggregatedList",
		"BackendService": "compute#backendServiceAggregatedList", "HttpHealthCheck": ""} {
		if got := AggregatedKind(name); got != want {
			t.Errorf("AggregatedKind(%s) = %q, want %q", name, got, want)
		}
	}
}

// TestDropUnknown removes the fields the API does not define, at any
// depth, keeps the others, and says which it removed.
func TestDropUnknown(t *testing.T) {
	var doc map[string]any
	body := `{"name": "bs", "conectionDraining": {}, "connectionDraining": {"timeout": 3, "drainingTimeoutSec": 5},
		"backends": [{"group": "g", "weight": 1}], "customRequestHeaders": ["X-A: b"]}`
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	got := DropUnknown("BackendService", doc)
	want := []string{"backends[0].weight", "conectionDraining", "connectionDraining.timeout"}
	if !slices.Equal(got, want) {
		t.Errorf("dropped %v, want %v", got, want)
	}
	if err := Check("BackendService", doc); err != nil {
		t.Errorf("what is left does not check: %v", err)
	}
	cd, _ := doc["connectionDraining"].(map[string]any)
	if doc["name"] != "bs" || cd["drainingTimeoutSec"] == nil || len(doc["customRequestHeaders"].([]any)) != 1 {
		t.Errorf("known fields lost: %v", doc)
	}
}

// TestUndocumentedFieldsAreTheAPIs: a field the API has but its discovery
// document does not list is kept in answers for every client; an
// extension is dropped for those that did not ask.
func TestUndocumentedFieldsAreTheAPIs(t *testing.T) {
	network := map[string]any{"name": "n", "routingConfig": map[string]any{"routingMode": "GLOBAL", "deleteBgpAlwaysCompareMed": true}}
	if dropped := DropExtensions("Network", network); len(dropped) != 0 {
		t.Errorf("DropExtensions dropped %v from a network: deleteBgpAlwaysCompareMed is the API's own", dropped)
	}
	hc := map[string]any{"name": "h", "grpcHealthCheck": map[string]any{"port": 1, "proxyHeader": "NONE"}}
	if dropped := DropExtensions("HealthCheck", hc); len(dropped) != 1 || dropped[0] != "grpcHealthCheck.proxyHeader" {
		t.Errorf("DropExtensions dropped %v from a gRPC check, want grpcHealthCheck.proxyHeader (an extension)", dropped)
	}
}

// Of several wrong fields, the error names the first in order, every time,
// whatever order the quick first pass met them in; and a list's item is
// named by its index.
func TestCheck_NamesTheFirstWrongFieldInOrder(t *testing.T) {
	for range 20 {
		doc := decode(t, `{"zzz": 1, "name": 5, "aaa": true, "backends": [{"group": "g"}, {"group": 7}]}`)
		err := Check("BackendService", doc)
		if err == nil || !strings.Contains(err.Error(), `"aaa"`) {
			t.Fatalf("got %v, want the error to name aaa", err)
		}
	}
	doc := decode(t, `{"name": "bs", "backends": [{"group": "g"}, {"group": 7}]}`)
	if err := Check("BackendService", doc); err == nil || !strings.Contains(err.Error(), "backends[1].group") {
		t.Errorf("got %v, want the error to name backends[1].group", err)
	}
}
