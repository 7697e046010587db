package provider

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// The expand, flatten and plan-time helpers of the legacy checks, target
// pools and forwarding rules, and of the target pool health data source.

func nullLegacyCheck() legacyCheckModel {
	s, n := types.StringNull(), types.Int64Null()
	return legacyCheckModel{ID: s, Name: types.StringValue("lh"), Description: s, Project: s, Host: s, Port: n,
		RequestPath: s, CheckIntervalSec: n, TimeoutSec: n, HealthyThreshold: n, UnhealthyThreshold: n,
		SelfLink: s, CreationTimestamp: s, HealthCheckID: s}
}

func TestLegacyKinds(t *testing.T) {
	for _, tt := range []struct {
		k          legacyKind
		noun       string
		port       int64
		collection string
	}{
		{legacyHTTP, "legacy HTTP health check", 80, "httpHealthChecks"},
		{legacyHTTPS, "legacy HTTPS health check", 443, "httpsHealthChecks"},
	} {
		if tt.k.noun() != tt.noun || tt.k.defaultPort() != tt.port || tt.k.collection != tt.collection {
			t.Errorf("%s: %q %d %s", tt.k.typeSuffix, tt.k.noun(), tt.k.defaultPort(), tt.k.collection)
		}
	}
}

func TestLegacyCheckModel(t *testing.T) {
	m := nullLegacyCheck()
	m.Port, m.Host, m.RequestPath = types.Int64Value(8080), types.StringValue(""), types.StringUnknown()
	hc, e := expandLegacyCheck(m)
	if got, want := toJSON(t, hc), `{"name":"lh","port":8080}`; got != want {
		t.Errorf("expand = %s, want %s", got, want)
	}
	if toJSON(t, e.unknown) != `["requestPath"]` || toJSON(t, e.empty) != `["host"]` {
		t.Errorf("unknown %q, empty %q", e.unknown, e.empty)
	}

	stored := &api.LegacyHealthCheck{Meta: api.Meta{ID: 7, Name: "lh", SelfLink: "http://h/compute/v1/projects/p/global/httpHealthChecks/lh"},
		RequestPath: "/", Port: int64p(80), CheckIntervalSec: int64p(5), TimeoutSec: int64p(5),
		HealthyThreshold: int64p(2), UnhealthyThreshold: int64p(2)}
	got := flattenLegacyCheck(stored, api.CollectionHTTPHealthChecks, client.Scope{Project: "p"}, m)
	wantString(t, "id", got.ID, "projects/p/global/httpHealthChecks/lh")
	wantString(t, "host", got.Host, "") // the "" written is kept, though the API omits it
	wantString(t, "health_check_id", got.HealthCheckID, "7")
	if got.Description.IsNull() != true || got.Port.ValueInt64() != 80 {
		t.Errorf("description %v, port %v", got.Description, got.Port)
	}
}

func TestLegacyCheckConfigViolations(t *testing.T) {
	tests := []struct {
		name  string
		build func(m *legacyCheckModel)
		want  string // "" for none
	}{
		{"defaults", func(*legacyCheckModel) {}, ""},
		{"query string", func(m *legacyCheckModel) { m.RequestPath = types.StringValue("/a?b") }, "must not contain a query string"},
		{"explicitly empty path", func(m *legacyCheckModel) { m.RequestPath = types.StringValue("") }, "must not be empty"},
		{"timeout over interval", func(m *legacyCheckModel) { m.TimeoutSec = types.Int64Value(6) }, "timeoutSec (6) must be"},
		{"unknown interval", func(m *legacyCheckModel) {
			m.TimeoutSec, m.CheckIntervalSec = types.Int64Value(6), types.Int64Unknown()
		}, ""},
	}
	for _, tt := range tests {
		m := nullLegacyCheck()
		tt.build(&m)
		vs := legacyCheckConfigViolations(m)
		if tt.want == "" && len(vs) > 0 || tt.want != "" && (len(vs) == 0 || !strings.Contains(vs[0].Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, vs, tt.want)
		}
	}
}

func nullTargetPool() targetPoolModel {
	s := types.StringNull()
	return targetPoolModel{ID: s, Name: types.StringValue("tp"), Description: s, Project: s, Region: s,
		Instances: types.ListNull(types.StringType), HealthChecks: types.ListNull(types.StringType),
		SelfLink: s, CreationTimestamp: s, TargetPoolID: s}
}

func TestTargetPoolModel(t *testing.T) {
	const base = "http://h/compute/v1/"
	stored := &api.TargetPool{Meta: api.Meta{ID: 3, Name: "tp", Region: base + "projects/p/regions/r1"},
		Instances: []string{"127.0.0.1:9000", "127.0.0.1"}, HealthChecks: []string{base + "projects/p/global/httpHealthChecks/lh"}}
	prior := nullTargetPool()
	prior.Project, prior.Region = types.StringValue("p"), types.StringValue("r1")
	prior.HealthChecks = stringList("lh") // a bare name is a global legacy HTTP check
	m, diags := flattenTargetPool(stored, client.Scope{Project: "p", Region: "r1"}, prior)
	if diags.HasError() {
		t.Fatal(diags)
	}
	wantString(t, "id", m.ID, "projects/p/regions/r1/targetPools/tp")
	if !m.HealthChecks.Equal(stringList("lh")) || !m.Instances.Equal(stringList("127.0.0.1:9000", "127.0.0.1")) {
		t.Errorf("health_checks %v, instances %v", m.HealthChecks, m.Instances)
	}
	// keepEquivalentCheckRefs: another form of the same check plans the state's.
	plan := m
	plan.HealthChecks = stringList("projects/p/global/httpHealthChecks/lh")
	keepEquivalentCheckRefs(&plan, m)
	if !plan.HealthChecks.Equal(stringList("lh")) {
		t.Errorf("planned health_checks %v, want the state's", plan.HealthChecks)
	}
}

func TestTargetPoolCheckKind(t *testing.T) {
	refs := refResolver{project: "p", scopePath: "global"}
	tests := []struct {
		checks []string
		want   string
	}{
		{nil, ""},
		{[]string{"lh"}, ""}, // a bare name: the emulator looks it up
		{[]string{"projects/p/global/httpHealthChecks/lh"}, ""},
		{[]string{"http://h/compute/v1/projects/p/global/httpsHealthChecks/s"}, "is a legacy HTTPS health check"},
		{[]string{"global/healthChecks/hc"}, "is a health check (not a legacy one)"},
		{[]string{"regions/r/healthChecks/hc"}, "is a health check (not a legacy one)"},
		{[]string{""}, ""},                           // unknown
		{[]string{"global/healthChecks/a", "b"}, ""}, // two: rules.TargetPool says so
		{[]string{"a/b"}, ""},                        // not a reference: the emulator says how to write one
	}
	for _, tt := range tests {
		vs := targetPoolCheckKind(&api.TargetPool{HealthChecks: tt.checks}, refs)
		if tt.want == "" && len(vs) > 0 || tt.want != "" && (len(vs) != 1 || !strings.Contains(vs[0].Error(), tt.want)) {
			t.Errorf("%q: %v, want %q", tt.checks, vs, tt.want)
		}
	}
}

func nullForwardingRule() forwardingRuleModel {
	s := types.StringNull()
	return forwardingRuleModel{ID: s, Name: types.StringValue("fr"), Description: s, Project: s, Region: s, IPAddress: s,
		PortRange: s, LoadBalancingScheme: s, BackendService: s, Target: s, SelfLink: s, CreationTimestamp: s, ForwardingRuleID: s}
}

func TestForwardingRuleModel(t *testing.T) {
	m := nullForwardingRule()
	m.IPAddress, m.Target, m.Region = types.StringValue("127.0.0.1"), types.StringValue("pool"), types.StringValue("r1")
	fr, _ := expandForwardingRule(m)
	if got, want := toJSON(t, fr), `{"name":"fr","IPAddress":"127.0.0.1","target":"pool"}`; got != want {
		t.Errorf("expand = %s, want %s", got, want)
	}
	const base = "http://h/compute/v1/"
	stored := &api.ForwardingRule{Meta: api.Meta{ID: 5, Name: "fr", Region: base + "projects/p/regions/r1"},
		IPAddress: "127.0.0.1", LoadBalancingScheme: "EXTERNAL", Target: base + "projects/p/regions/r1/targetPools/pool"}
	m.Project = types.StringValue("p")
	got := flattenForwardingRule(stored, client.Scope{Project: "p", Region: "r1"}, m)
	wantString(t, "id", got.ID, "projects/p/regions/r1/forwardingRules/fr")
	wantString(t, "target", got.Target, "pool") // a bare name is in the rule's region
	wantString(t, "load_balancing_scheme", got.LoadBalancingScheme, "EXTERNAL")
	if !got.BackendService.IsNull() || !got.PortRange.IsNull() {
		t.Errorf("backend_service %v, port_range %v, want null", got.BackendService, got.PortRange)
	}
	// Read after an import: no prior form, the URL.
	got = flattenForwardingRule(stored, client.Scope{Project: "p", Region: "r1"}, nullForwardingRule())
	wantString(t, "target", got.Target, stored.Target)
}

func TestForwardingRuleConfigViolations(t *testing.T) {
	tests := []struct {
		name  string
		build func(m *forwardingRuleModel)
		want  string // "" for none; API names
	}{
		{"neither", func(*forwardingRuleModel) {}, "one of backendService or target is required"},
		{"an unknown backend service", func(m *forwardingRuleModel) { m.BackendService = types.StringUnknown() }, ""},
		{"a target on a global rule", func(m *forwardingRuleModel) { m.Target = types.StringValue("pool") }, "target pools are regional"},
		{"a target, region unknown", func(m *forwardingRuleModel) {
			m.Target, m.Region = types.StringValue("pool"), types.StringUnknown()
		}, ""},
		{"IPAddress", func(m *forwardingRuleModel) {
			m.Target, m.Region, m.IPAddress = types.StringValue("pool"), types.StringValue("r"), types.StringValue("x.y")
		}, `IPAddress ("x.y")`},
	}
	for _, tt := range tests {
		m := nullForwardingRule()
		tt.build(&m)
		vs := forwardingRuleConfigViolations(m)
		if tt.want == "" && len(vs) > 0 || tt.want != "" && (len(vs) == 0 || !strings.Contains(vs[0].Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, vs, tt.want)
		}
	}
	// In Terraform names, IPAddress is ip_address.
	if got := forwardingRuleNaming("IPAddress"); got != "ip_address" {
		t.Errorf("naming(IPAddress) = %q", got)
	}
}

func TestTargetPoolHealth(t *testing.T) {
	data := &providerData{project: "dp", region: "dr"}
	model := func(ref, region string) targetPoolHealthModel {
		r := types.StringNull()
		if region != "" {
			r = types.StringValue(region)
		}
		return targetPoolHealthModel{TargetPool: types.StringValue(ref), Project: types.StringNull(), Region: r}
	}
	for _, tt := range []struct {
		m       targetPoolHealthModel
		scope   client.Scope
		wantErr string
	}{
		{m: model("tp", ""), scope: client.Scope{Project: "dp", Region: "dr"}}, // pools are regional
		{m: model("tp", "r"), scope: client.Scope{Project: "dp", Region: "r"}},
		{m: model("http://h/compute/v1/projects/p/regions/r/targetPools/tp", ""), scope: client.Scope{Project: "p", Region: "r"}},
		{m: model("projects/p/global/targetPools/tp", ""), wantErr: "target pools are regional"},
	} {
		scope, name, err := targetPoolScope(tt.m, data)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: err = %v, want %q", tt.m.TargetPool, err, tt.wantErr)
			}
			continue
		}
		if err != nil || scope != tt.scope || name != "tp" {
			t.Errorf("%v: %+v %q %v; want %+v", tt.m.TargetPool, scope, name, err, tt.scope)
		}
	}

	h := &api.TargetPoolInstanceHealth{HealthStatus: []api.HealthStatus{
		{IPAddress: "127.0.0.1", Port: 9000, Instance: "127.0.0.1:9000", HealthState: "HEALTHY", Group: "ignored"},
		{IPAddress: "127.0.0.2", Instance: "127.0.0.2", HealthState: "UNHEALTHY", Reason: "TIMEOUT"},
	}}
	m, diags := flattenTargetPoolHealth(h, client.Scope{Project: "p", Region: "r"}, "tp", model("tp", ""))
	if diags.HasError() {
		t.Fatal(diags)
	}
	wantString(t, "id", m.ID, "projects/p/regions/r/targetPools/tp")
	if m.HealthyCount.ValueInt64() != 1 || m.UnhealthyCount.ValueInt64() != 1 || m.AllHealthy.ValueBool() {
		t.Errorf("counts %v/%v all_healthy %v", m.HealthyCount, m.UnhealthyCount, m.AllHealthy)
	}
	second := m.Instances.Elements()[1].(types.Object).Attributes()
	if _, hasGroup := second["group"]; hasGroup || !second["port"].IsNull() ||
		!second["reason"].Equal(types.StringValue("TIMEOUT")) || !second["instance"].Equal(types.StringValue("127.0.0.2")) {
		t.Errorf("instance = %v, want no group, a null port, reason TIMEOUT", second)
	}
}

// TestLegacyTemplatesIdentical: the two legacy check pages say the same
// thing in the same words; tfplugindocs needs one template per resource.
func TestLegacyTemplatesIdentical(t *testing.T) {
	a, errA := os.ReadFile("../../templates/resources/legacy_http_check.md.tmpl")
	b, errB := os.ReadFile("../../templates/resources/legacy_https_check.md.tmpl")
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if string(a) != string(b) {
		t.Error("templates/resources/legacy_http_check.md.tmpl and legacy_https_check.md.tmpl differ: keep them the same text")
	}
}
