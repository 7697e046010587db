package rules

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestNetworkEndpointGroup has a case that breaks each rule of an endpoint
// group (want is the exact first message, field where it is reported) and
// valid cases next to them (want empty).
func TestNetworkEndpointGroup(t *testing.T) {
	tests := []struct {
		name, body, want, field string
	}{
		{name: "empty group", body: `{}`},
		{name: "default port fills endpoints", body: `{"defaultPort": 80, "endpoints": [{"ipAddress": "127.0.0.1"}]}`},
		{name: "GCE_VM_IP without ports", body: `{"networkEndpointType": "GCE_VM_IP", "endpoints": [{"ipAddress": "10.0.0.1"}, {"ipAddress": "10.0.0.2"}]}`},
		{name: "bad type", body: `{"networkEndpointType": "FUNCTION"}`, field: "networkEndpointType",
			want: `networkEndpointType ("FUNCTION") must be one of GCE_VM_IP_PORT, GCE_VM_IP, NON_GCP_PRIVATE_IP_PORT, INTERNET_IP_PORT, INTERNET_FQDN_PORT, SERVERLESS, PRIVATE_SERVICE_CONNECT, GCE_VM_IP_PORTMAP, GCE_VM_IP_DEDICATED_BACKEND.`},
		{name: "GCE_VM_IP with a default port", body: `{"networkEndpointType": "GCE_VM_IP", "defaultPort": 80}`, field: "defaultPort",
			want: "defaultPort (80) must not be set when networkEndpointType is GCE_VM_IP: GCE_VM_IP endpoints have no port (the health check's port is probed)."},
		{name: "SERVERLESS with a default port", body: `{"networkEndpointType": "SERVERLESS", "defaultPort": 80}`, field: "defaultPort",
			want: "defaultPort (80) must not be set when networkEndpointType is SERVERLESS: the group's endpoints are services, not ports."},
		{name: "PRIVATE_SERVICE_CONNECT with a default port", body: `{"networkEndpointType": "PRIVATE_SERVICE_CONNECT", "defaultPort": 443}`, field: "defaultPort",
			want: "defaultPort (443) must not be set when networkEndpointType is PRIVATE_SERVICE_CONNECT: the group's endpoints are services, not ports."},
		{name: "fqdn outside an INTERNET_FQDN_PORT group", body: `{"endpoints": [{"ipAddress": "10.0.0.1", "port": 80, "fqdn": "www.example.com"}]}`,
			field: "endpoints[0].fqdn", want: `endpoints[0].fqdn ("www.example.com") must not be set: only INTERNET_FQDN_PORT endpoints are named by a domain name, and the group is GCE_VM_IP_PORT.`},
		{name: "fqdn in an INTERNET_FQDN_PORT group", body: `{"networkEndpointType": "INTERNET_FQDN_PORT", "endpoints": [{"fqdn": "www.example.com", "port": 443}]}`},
		{name: "GCE_VM_IP with a port", body: `{"networkEndpointType": "GCE_VM_IP", "endpoints": [{"ipAddress": "10.0.0.1", "port": 80}]}`,
			field: "endpoints[0].port", want: "endpoints[0].port (80) must not be set: GCE_VM_IP endpoints have no port (the health check's port is probed)."},
		{name: "no port, no default", body: `{"endpoints": [{"ipAddress": "10.0.0.1"}]}`, field: "endpoints[0].port",
			want: "endpoints[0].port is required: set it, or set the group's defaultPort."},
		{name: "bad address", body: `{"endpoints": [{"ipAddress": "10.0.0.256", "port": 80}]}`, field: "endpoints[0].ipAddress",
			want: `endpoints[0].ipAddress ("10.0.0.256") must be an IPv4 or IPv6 address.`},
		{name: "bad state", body: `{"endpoints": [{"ipAddress": "10.0.0.1", "port": 80, "state": "PAUSED"}]}`, field: "endpoints[0].state",
			want: `endpoints[0].state ("PAUSED") must be one of RUNNING, STOPPED.`},
		{name: "duplicate", body: `{"endpoints": [{"ipAddress": "10.0.0.1", "port": 80}, {"ipAddress": "10.0.0.1", "port": 80}]}`,
			field: "endpoints[1]", want: "endpoints[1] repeats endpoints[0] (10.0.0.1, port 80): each endpoint may be listed once."},
		{name: "same address, other port", body: `{"endpoints": [{"ipAddress": "10.0.0.1", "port": 80}, {"ipAddress": "10.0.0.1", "port": 81}]}`},
		{name: "duplicate GCE_VM_IP", body: `{"networkEndpointType": "GCE_VM_IP", "endpoints": [{"ipAddress": "10.0.0.1"}, {"ipAddress": "10.0.0.1"}]}`,
			field: "endpoints[1]", want: "endpoints[1] repeats endpoints[0] (10.0.0.1): each endpoint may be listed once."},
		// Regression: the key was address and port glued together, so
		// 10.0.0.1:23 and 10.0.0.12:3 were "the same endpoint".
		{name: "address and port are not glued", body: `{"endpoints": [{"ipAddress": "10.0.0.1", "port": 23}, {"ipAddress": "10.0.0.12", "port": 3}]}`},
		// Regression: an endpoint without a port was compared as port 0, not
		// as the default port it is stored (and probed) with.
		{name: "duplicate through the default port", body: `{"defaultPort": 80, "endpoints": [{"ipAddress": "10.0.0.1"}, {"ipAddress": "10.0.0.1", "port": 80}]}`,
			field: "endpoints[1]", want: "endpoints[1] repeats endpoints[0] (10.0.0.1, port 80 with defaultPort): each endpoint may be listed once."},
		{name: "no ports, no default: one violation per endpoint, no duplicate", body: `{"endpoints": [{"ipAddress": "10.0.0.1"}, {"ipAddress": "10.0.0.1"}]}`,
			field: "endpoints[0].port", want: "endpoints[0].port is required: set it, or set the group's defaultPort."},
		{name: "instance alone: its networkIP", body: `{"endpoints": [{"instance": "vm-1", "port": 80}, {"instance": "vm-2", "port": 80}]}`},
		{name: "instance alone, GCE_VM_IP", body: `{"networkEndpointType": "GCE_VM_IP", "endpoints": [{"instance": "vm-1"}]}`},
		{name: "instance alone twice", body: `{"endpoints": [{"instance": "vm-1", "port": 80}, {"instance": "vm-1", "port": 80}]}`,
			field: "endpoints[1]", want: `endpoints[1] repeats endpoints[0] (instance "vm-1", port 80): each endpoint may be listed once.`},
		{name: "instance alone in a NON_GCP group", body: `{"networkEndpointType": "NON_GCP_PRIVATE_IP_PORT", "endpoints": [{"instance": "vm-1", "port": 80}]}`,
			field: "endpoints[0].ipAddress",
			want:  "endpoints[0].ipAddress is required: NON_GCP_PRIVATE_IP_PORT endpoints are not instances, so endpoints[0].instance alone does not give an address."},
		{name: "neither address nor instance", body: `{"endpoints": [{"port": 80}]}`, field: "endpoints[0].ipAddress",
			want: `endpoints[0].ipAddress ("") must be an IPv4 or IPv6 address.`},
		{name: "one address, two spellings", body: `{"endpoints": [{"ipAddress": "::1", "port": 80}, {"ipAddress": "0:0::1", "port": 80}]}`,
			field: "endpoints[1]", want: "endpoints[1] repeats endpoints[0] (0:0::1, port 80): each endpoint may be listed once."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g api.NetworkEndpointGroup
			if err := json.Unmarshal([]byte(tt.body), &g); err != nil {
				t.Fatal(err)
			}
			g.Name = "neg"
			vs := NetworkEndpointGroup(&g)
			if tt.want == "" {
				if len(vs) > 0 {
					t.Fatalf("valid group refused: %v", vs.Err())
				}
				return
			}
			if len(vs) == 0 {
				t.Fatalf("accepted, want %q", tt.want)
			}
			if got := vs.Err().Error(); got != tt.want {
				t.Errorf("message:\n got  %s\n want %s", got, tt.want)
			}
			if vs[0].Field != tt.field {
				t.Errorf("Field = %q, want %q", vs[0].Field, tt.field)
			}
		})
	}
}

// TestDuplicateEndpoint_NamesTheDefaultPort: the rule reads defaultPort when
// it supplies a port, so plan-time validation can drop it while
// default_port is unknown.
func TestDuplicateEndpoint_NamesTheDefaultPort(t *testing.T) {
	p := int64(80)
	g := &api.NetworkEndpointGroup{Meta: api.Meta{Name: "neg"}, DefaultPort: &p,
		Endpoints: []api.NetworkEndpoint{{IPAddress: "10.0.0.1"}, {IPAddress: "10.0.0.1"}}}
	vs := NetworkEndpointGroup(g)
	if len(vs) != 1 {
		t.Fatalf("violations: %v", vs)
	}
	fields := vs[0].Fields()
	if len(fields) != 3 || fields[2] != "defaultPort" {
		t.Errorf("Fields() = %v, want endpoints[1], endpoints[0], defaultPort", fields)
	}
}

// TestNetworkEndpointGroup_NoPortIsNoDuplicate: endpoints with no port at
// all (none, no default) are reported as such, not also as duplicates of
// one another: the provider's plan-time check, which sees an unknown
// default_port as none, relies on it.
func TestNetworkEndpointGroup_NoPortIsNoDuplicate(t *testing.T) {
	g := &api.NetworkEndpointGroup{Meta: api.Meta{Name: "neg"},
		Endpoints: []api.NetworkEndpoint{{IPAddress: "10.0.0.1"}, {IPAddress: "10.0.0.1"}}}
	vs := NetworkEndpointGroup(g)
	if len(vs) != 2 || vs[0].Field != "endpoints[0].port" || vs[1].Field != "endpoints[1].port" {
		t.Errorf("violations = %v, want endpoints[0].port and endpoints[1].port only", vs)
	}
}

// A regional service takes a global check or one of its own region.
func TestBackendServiceHealthCheck_GlobalCheckOnARegionalService(t *testing.T) {
	hc := &api.HealthCheck{Meta: api.Meta{Name: "hc"}, Type: api.TypeTCP}
	for _, scheme := range []string{"", api.SchemeExternal, api.SchemeInternal, api.SchemeInternalManaged, api.SchemeExternalManaged} {
		if v := BackendServiceHealthCheck(&api.BackendService{LoadBalancingScheme: scheme}, "us-central1", hc, ""); v != nil {
			t.Errorf("scheme %q: %v", scheme, v)
		}
	}
	if v := BackendServiceHealthCheck(&api.BackendService{}, "us-central1", hc, "us-east1"); v == nil {
		t.Error("a check of another region was accepted")
	}
}

// TestBackendServiceLegacyCheck_TheSchemesThatTakeOne follows the health
// checks overview's table of legacy checks by load balancer mode: the
// global external Application Load Balancer (EXTERNAL_MANAGED) and the
// classic one (EXTERNAL) take them; the regional external one, and every
// other load balancer, do not.
func TestBackendServiceLegacyCheck_TheSchemesThatTakeOne(t *testing.T) {
	scheme := func(s string) *api.BackendService { return &api.BackendService{LoadBalancingScheme: s} }
	for _, s := range []string{"", api.SchemeExternal, api.SchemeExternalManaged} {
		if v := BackendServiceLegacyCheck(scheme(s), ""); v != nil {
			t.Errorf("global %q: %v, want a legacy check accepted", s, v)
		}
	}
	if v := BackendServiceLegacyCheck(scheme(api.SchemeExternalManaged), "us-east1"); v == nil || !strings.Contains(v.Error(), "regional backend service") {
		t.Errorf("regional EXTERNAL_MANAGED: %v, want it refused", v)
	}
	for _, s := range []string{api.SchemeInternal, api.SchemeInternalManaged, "INTERNAL_SELF_MANAGED"} {
		v := BackendServiceLegacyCheck(scheme(s), "")
		if v == nil || !strings.Contains(v.Error(), "accepted only by EXTERNAL and EXTERNAL_MANAGED backend services, and loadBalancingScheme is "+s) {
			t.Errorf("%s: %v, want it refused naming the scheme", s, v)
		}
	}
}

// TestBackendService_TimeoutSec: the API takes 1 to 2,147,483,647 seconds.
func TestBackendService_TimeoutSec(t *testing.T) {
	sec := func(v int64) *api.BackendService {
		return &api.BackendService{Meta: api.Meta{Name: "bs"}, TimeoutSec: &v}
	}
	for _, ok := range []int64{1, 30, 2147483647} {
		if vs := BackendService(sec(ok)); len(vs) > 0 {
			t.Errorf("timeoutSec %d: %v, want it accepted", ok, vs)
		}
	}
	for _, bad := range []int64{-30, 0, 2147483648} {
		if vs := BackendService(sec(bad)); len(vs) == 0 || !strings.Contains(vs.Err().Error(), "timeoutSec") || !strings.Contains(vs.Err().Error(), "between 1 and 2147483647") {
			t.Errorf("timeoutSec %d: %v, want it refused naming the range", bad, vs)
		}
	}
}

// TestBackendService_StrongCookieAffinityNamesItsCookie: the API requires
// strongSessionAffinityCookie with STRONG_COOKIE_AFFINITY.
func TestBackendService_StrongCookieAffinityNamesItsCookie(t *testing.T) {
	bs := &api.BackendService{Meta: api.Meta{Name: "bs"}, SessionAffinity: "STRONG_COOKIE_AFFINITY"}
	assertViolation(t, "no cookie", BackendService(bs), "strongSessionAffinityCookie.name",
		"strongSessionAffinityCookie.name is required when sessionAffinity is STRONG_COOKIE_AFFINITY")
	bs.StrongSessionAffinityCookie = &api.AffinityCookie{Name: "pin"}
	if vs := BackendService(bs); len(vs) > 0 {
		t.Errorf("a named cookie: %v", vs)
	}
}

// TestCustomHeaders: custom request and response headers follow the Compute
// API's rules for names and values.
func TestCustomHeaders(t *testing.T) {
	for _, ok := range [][]string{
		{"X-Client-Geo-Location: {client_region}, {client_city}"},
		{"X-Empty:", "x-tls:{tls_version}"},
	} {
		if vs := CustomHeaders("customRequestHeaders", ok); len(vs) > 0 {
			t.Errorf("%q: %v, want it accepted", ok, vs)
		}
	}
	for _, c := range []struct {
		headers []string
		field   string
		want    string
	}{
		{[]string{"X-Colonless"}, "customRequestHeaders[0]", `("X-Colonless") has no colon`},
		{[]string{"X Spaced:v"}, "customRequestHeaders[0]", `the header name "X Spaced" is not an HTTP field name`},
		{[]string{"A:1", "Connection:close"}, "customRequestHeaders[1]", "does not add Connection: it is hop-by-hop"},
		{[]string{"host:example.com"}, "customRequestHeaders[0]", "does not add host"},
		{[]string{"X-User-IP:1.2.3.4"}, "customRequestHeaders[0]", "does not add X-User-IP"},
		{[]string{"X-Goog-Thing:1"}, "customRequestHeaders[0]", "beginning with X-Google, X-Goog-, X-GFE or X-Amz- are reserved"},
		{[]string{"X-GFE-Backend:1"}, "customRequestHeaders[0]", "are reserved"},
		{[]string{"X-A:1", "x-a:2"}, "customRequestHeaders[1]", "the header x-a is added twice"},
		{[]string{"X-A:bad\x00value"}, "customRequestHeaders[0]", "the value is not an HTTP field value"},
	} {
		assertViolation(t, fmt.Sprint(c.headers), CustomHeaders("customRequestHeaders", c.headers), c.field, c.want)
	}
	bs := &api.BackendService{Meta: api.Meta{Name: "bs"}, CustomResponseHeaders: []string{"Upgrade:h2c"}}
	assertViolation(t, "a backend service", BackendService(bs), "customResponseHeaders[0]", "does not add Upgrade")
}

// TestBackendService_SpilloverRatio: a passthrough load balancer's zonal
// affinity spills over at a ratio in [0, 1], in the API's words.
func TestBackendService_SpilloverRatio(t *testing.T) {
	var bs api.BackendService
	if err := json.Unmarshal([]byte(`{"name": "bs", "networkPassThroughLbTrafficPolicy": {"zonalAffinity": {"spillover": "ZONAL_AFFINITY_SPILL_CROSS_ZONE", "spilloverRatio": 1.5}}}`), &bs); err != nil {
		t.Fatal(err)
	}
	assertViolation(t, "above 1", BackendService(&bs), "networkPassThroughLbTrafficPolicy.zonalAffinity.spilloverRatio",
		"networkPassThroughLbTrafficPolicy.zonalAffinity.spilloverRatio (1.5) is out of range: Must be less than or equal to 1.0")
	*bs.NetworkPassThroughLBTrafficPolicy.ZonalAffinity.SpilloverRatio = 0.5
	if vs := BackendService(&bs); len(vs) > 0 {
		t.Errorf("ratio 0.5: %v", vs)
	}
}
