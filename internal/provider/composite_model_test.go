package provider

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// messages renders violations in Terraform names, one a line.
func messages(vs rules.Violations) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Message(rules.TerraformName))
	}
	return strings.Join(out, "\n")
}

func TestUpdateMask(t *testing.T) {
	base := api.HealthAggregationPolicy{Meta: api.Meta{Name: "p", Description: "d"},
		HealthyPercentThreshold: int64p(60), MinHealthyThreshold: int64p(1), PolicyType: api.PolicyTypeBackendService}
	tests := []struct {
		name string
		plan func(p *api.HealthAggregationPolicy)
		want []string
	}{
		{"one threshold", func(p *api.HealthAggregationPolicy) { p.HealthyPercentThreshold = int64p(75) }, []string{"healthyPercentThreshold"}},
		{"description removed: in the mask, absent from the body, so cleared", func(p *api.HealthAggregationPolicy) { p.Description = "" }, []string{"description"}},
		{"both thresholds", func(p *api.HealthAggregationPolicy) {
			p.HealthyPercentThreshold, p.MinHealthyThreshold = int64p(0), int64p(3)
		},
			[]string{"healthyPercentThreshold", "minHealthyThreshold"}},
		{"an immutable field is never masked", func(p *api.HealthAggregationPolicy) { p.PolicyType = "OTHER" }, aggregationPolicyMutable},
		{"nothing: every mutable field, so that the fingerprint is still checked", func(*api.HealthAggregationPolicy) {}, aggregationPolicyMutable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := base
			tt.plan(&plan)
			if got := updateMask(&plan, &base, aggregationPolicyMutable...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("updateMask = %v, want %v", got, tt.want)
			}
		})
	}
	// Lists compare by value: a source added, or reordered.
	s1 := api.CompositeHealthCheck{HealthSources: []string{"a"}, HealthDestination: "fr"}
	s2 := api.CompositeHealthCheck{HealthSources: []string{"a", "b"}, HealthDestination: "fr"}
	if got := updateMask(&s2, &s1, compositeCheckMutable...); !reflect.DeepEqual(got, []string{"healthSources"}) {
		t.Errorf("a source added: %v, want [healthSources]", got)
	}
}

func nullPolicy() aggregationPolicyModel {
	return aggregationPolicyModel{ID: types.StringNull(), Name: types.StringValue("pol"), Description: types.StringNull(),
		Project: types.StringNull(), Region: types.StringNull(), HealthyPercentThreshold: types.Int64Null(),
		MinHealthyThreshold: types.Int64Null(), PolicyType: types.StringNull(), SelfLink: types.StringNull(),
		CreationTimestamp: types.StringNull(), PolicyID: types.StringNull(), Fingerprint: types.StringNull()}
}

func TestAggregationPolicyConfigViolations(t *testing.T) {
	tests := []struct {
		name string
		edit func(m *aggregationPolicyModel)
		want string
	}{
		{"defaults", func(*aggregationPolicyModel) {}, ""},
		{"percent above 100", func(m *aggregationPolicyModel) { m.HealthyPercentThreshold = types.Int64Value(101) },
			"healthy_percent_threshold (101) must be between 0 and 100."},
		{"min 0", func(m *aggregationPolicyModel) { m.MinHealthyThreshold = types.Int64Value(0) },
			"min_healthy_threshold (0) must be between 1 and 4294967295."},
		{"unknown thresholds are the emulator's to check", func(m *aggregationPolicyModel) {
			m.HealthyPercentThreshold, m.MinHealthyThreshold = types.Int64Unknown(), types.Int64Unknown()
		}, ""},
		{"explicitly empty policy type", func(m *aggregationPolicyModel) { m.PolicyType = types.StringValue("") },
			`policy_type ("") must not be empty: remove it to get the default "BACKEND_SERVICE_POLICY".`},
		{"bad name", func(m *aggregationPolicyModel) { m.Name = types.StringValue("Pol") }, `name ("Pol") is not a valid name`},
		{"unknown name", func(m *aggregationPolicyModel) { m.Name = types.StringUnknown() }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nullPolicy()
			tt.edit(&m)
			got := messages(aggregationPolicyConfigViolations(m))
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("violations = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFlattenAggregationPolicy(t *testing.T) {
	p := &api.HealthAggregationPolicy{Meta: api.Meta{Name: "pol", ID: 42, SelfLink: "http://e/compute/v1/projects/p/regions/r/healthAggregationPolicies/pol",
		CreationTimestamp: "2025-01-01T00:00:00Z"}, HealthyPercentThreshold: int64p(75), MinHealthyThreshold: int64p(3),
		PolicyType: api.PolicyTypeBackendService, Fingerprint: "fp"}
	prior := nullPolicy()
	prior.Description = types.StringValue("") // the user wrote description = ""
	m := flattenAggregationPolicy(p, client.Scope{Project: "p", Region: "r"}, prior)
	want := map[string]attr.Value{
		"id":          types.StringValue("projects/p/regions/r/healthAggregationPolicies/pol"),
		"policy_id":   types.StringValue("42"),
		"region":      types.StringValue("r"),
		"fingerprint": types.StringValue("fp"),
		"description": types.StringValue(""),
		"percent":     types.Int64Value(75),
	}
	got := map[string]attr.Value{"id": m.ID, "policy_id": m.PolicyID, "region": m.Region, "fingerprint": m.Fingerprint,
		"description": m.Description, "percent": m.HealthyPercentThreshold}
	for k, w := range want {
		if !got[k].Equal(w) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
}

func nullHealthSource() healthSourceModel {
	return healthSourceModel{ID: types.StringNull(), Name: types.StringValue("src"), Description: types.StringNull(),
		Project: types.StringValue("p"), Region: types.StringValue("r"), SourceType: types.StringValue(api.SourceTypeBackendService),
		Sources: stringList("bs"), HealthAggregationPolicy: types.StringValue("pol"), SelfLink: types.StringNull(),
		CreationTimestamp: types.StringNull(), HealthSourceID: types.StringNull(), Fingerprint: types.StringNull()}
}

func TestHealthSourceConfigViolations(t *testing.T) {
	tests := []struct {
		name string
		edit func(m *healthSourceModel)
		want string
	}{
		{"valid", func(*healthSourceModel) {}, ""},
		{"two services", func(m *healthSourceModel) { m.Sources = stringList("a", "b") },
			"sources lists 2 sources: a health source takes exactly one backend service."},
		{"no service", func(m *healthSourceModel) { m.Sources = stringList() }, "sources lists 0 sources"},
		// An unknown element still counts: the list's length is known.
		{"two services, one unknown", func(m *healthSourceModel) {
			m.Sources = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a"), types.StringUnknown()})
		}, "sources lists 2 sources"},
		{"unknown list", func(m *healthSourceModel) { m.Sources = types.ListUnknown(types.StringType) }, ""},
		{"unknown policy", func(m *healthSourceModel) { m.HealthAggregationPolicy = types.StringUnknown() }, ""},
		{"other type", func(m *healthSourceModel) { m.SourceType = types.StringValue("X") }, `source_type ("X") must be one of BACKEND_SERVICE.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nullHealthSource()
			tt.edit(&m)
			got := messages(healthSourceConfigViolations(m))
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("violations = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFlattenHealthSource_keepsReferenceForms(t *testing.T) {
	const base = "http://127.0.0.1:8686/compute/v1/"
	hs := &api.HealthSource{Meta: api.Meta{Name: "src", ID: 7}, SourceType: api.SourceTypeBackendService,
		Sources:                 []string{base + "projects/p/regions/r/backendServices/bs"},
		HealthAggregationPolicy: base + "projects/p/regions/r/healthAggregationPolicies/pol"}
	scope := client.Scope{Project: "p", Region: "r"}
	m, diags := flattenHealthSource(hs, scope, nullHealthSource())
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !m.Sources.Equal(stringList("bs")) || m.HealthAggregationPolicy.ValueString() != "pol" {
		t.Errorf("bare names written: sources %v, policy %v; want them kept", m.Sources, m.HealthAggregationPolicy)
	}
	prior := nullHealthSource()
	prior.Sources, prior.HealthAggregationPolicy = stringList("other"), types.StringNull()
	m, _ = flattenHealthSource(hs, scope, prior)
	if !m.Sources.Equal(stringList(hs.Sources[0])) || m.HealthAggregationPolicy.ValueString() != hs.HealthAggregationPolicy {
		t.Errorf("other or no prior: sources %v, policy %v; want the API's URLs", m.Sources, m.HealthAggregationPolicy)
	}
	if m.HealthSourceID.ValueString() != "7" || m.ID.ValueString() != "projects/p/regions/r/healthSources/src" {
		t.Errorf("ids: %v, %v", m.HealthSourceID, m.ID)
	}
}

func nullComposite(sources types.List) compositeCheckModel {
	return compositeCheckModel{ID: types.StringNull(), Name: types.StringValue("chc"), Description: types.StringNull(),
		Project: types.StringNull(), Region: types.StringNull(), HealthSources: sources,
		HealthDestination: types.StringValue("fr"), SelfLink: types.StringNull(), CreationTimestamp: types.StringNull(),
		CompositeCheckID: types.StringNull(), Fingerprint: types.StringNull()}
}

func TestCompositeCheckConfigViolations(t *testing.T) {
	unknownSecond := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a"), types.StringUnknown()})
	tests := []struct {
		name    string
		sources types.List
		want    string
	}{
		{"one", stringList("a"), ""},
		{"ten", stringList("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), ""},
		{"none", stringList(), "health_sources lists 0 health sources: a composite health check takes 1 to 10."},
		{"eleven", stringList("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"), "health_sources lists 11 health sources"},
		{"a repeat", stringList("a", "a"), `health_sources[1] ("a") repeats health_sources[0]`},
		// An unknown source may or may not repeat another: the emulator decides.
		{"one unknown", unknownSecond, ""},
		{"unknown list", types.ListUnknown(types.StringType), ""},
		{"composite by id", stringList("projects/p/regions/r/compositeHealthChecks/other"),
			`health_sources[0] ("projects/p/regions/r/compositeHealthChecks/other") is a composite health check: ` +
				"the composite health of one service cannot be a health source of another; list health sources (health_sources) only."},
		{"composite by self link", stringList("a", "http://127.0.0.1:8686/compute/v1/projects/p/regions/r/compositeHealthChecks/x"),
			"health_sources[1]"},
		{"composite by scope path", stringList("regions/r/compositeHealthChecks/x"), "is a composite health check"},
		{"health sources by every form", stringList("a", "regions/r/healthSources/b", "projects/p/regions/r/healthSources/c"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := messages(compositeCheckConfigViolations(nullComposite(tt.sources)))
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("violations = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompositeCheckScope(t *testing.T) {
	data := &providerData{project: "dp", region: "dr"}
	tests := []struct {
		check, project, region string
		want                   client.Scope
		wantName, wantErr      string
	}{
		{check: "chc", want: client.Scope{Project: "dp", Region: "dr"}, wantName: "chc"},
		{check: "chc", project: "p", region: "r", want: client.Scope{Project: "p", Region: "r"}, wantName: "chc"},
		{check: "p/chc", want: client.Scope{Project: "p", Region: "dr"}, wantName: "chc"},
		{check: "projects/p/regions/r/compositeHealthChecks/chc", want: client.Scope{Project: "p", Region: "r"}, wantName: "chc"},
		{check: "http://e/compute/v1/projects/p/regions/r/compositeHealthChecks/chc", region: "r",
			want: client.Scope{Project: "p", Region: "r"}, wantName: "chc"},
		{check: "projects/p/regions/r/compositeHealthChecks/chc", region: "s", wantErr: `is in region "r", but region is "s"`},
		{check: "projects/p/regions/r/compositeHealthChecks/chc", project: "q", wantErr: `is in project "p", but project is "q"`},
		{check: "projects/p/global/compositeHealthChecks/chc", wantErr: "regional only"},
		{check: "projects/p/regions/r/healthSources/chc", wantErr: "none of the forms"},
	}
	for _, tt := range tests {
		m := compositeHealthModel{CompositeCheck: types.StringValue(tt.check), Project: types.StringNull(), Region: types.StringNull()}
		if tt.project != "" {
			m.Project = types.StringValue(tt.project)
		}
		if tt.region != "" {
			m.Region = types.StringValue(tt.region)
		}
		scope, name, err := compositeCheckScope(m, data)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.check, err, tt.wantErr)
			}
			continue
		}
		if err != nil || scope != tt.want || name != tt.wantName {
			t.Errorf("%s: %+v %q %v, want %+v %q", tt.check, scope, name, err, tt.want, tt.wantName)
		}
	}
}

func TestFlattenCompositeHealth(t *testing.T) {
	h := &api.CompositeHealthCheckHealth{HealthState: "UNKNOWN", HealthSources: []api.HealthSourceState{
		{Source: "s1", HealthState: "HEALTHY"}, {Source: "s2", HealthState: "UNKNOWN"}}}
	m, diags := flattenCompositeHealth(h, client.Scope{Project: "p", Region: "r"}, "chc",
		compositeHealthModel{CompositeCheck: types.StringValue("chc")})
	if diags.HasError() {
		t.Fatal(diags)
	}
	if m.Healthy.ValueBool() || m.HealthState.ValueString() != "UNKNOWN" || len(m.Sources.Elements()) != 2 ||
		m.ID.ValueString() != "projects/p/regions/r/compositeHealthChecks/chc" {
		t.Errorf("flattened %+v: UNKNOWN is not healthy, and both sources are listed", m)
	}
	h.HealthState = "HEALTHY"
	if m, _ = flattenCompositeHealth(h, client.Scope{Project: "p", Region: "r"}, "chc", m); !m.Healthy.ValueBool() {
		t.Error("HEALTHY is healthy")
	}
}
