package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// nullBackendService is a configuration that sets nothing but the name.
func nullBackendService() backendServiceModel {
	return backendServiceModel{
		ID: types.StringNull(), Name: types.StringValue("bs"), Description: types.StringNull(),
		Project: types.StringNull(), Region: types.StringNull(), Protocol: types.StringNull(),
		LoadBalancingScheme: types.StringNull(), NamedPorts: types.ListValueMust(namedPortType, nil),
		Backends: types.ListValueMust(backendType, nil), HealthChecks: types.ListNull(types.StringType),
		SelfLink: types.StringNull(), CreationTimestamp: types.StringNull(), BackendServiceID: types.StringNull(),
	}
}

func backendList(groups ...string) types.List {
	elems := make([]attr.Value, len(groups))
	for i, g := range groups {
		elems[i] = types.ObjectValueMust(backendAttrTypes, map[string]attr.Value{"group": types.StringValue(g)})
	}
	return types.ListValueMust(backendType, elems)
}

func stringList(vs ...string) types.List {
	elems := make([]attr.Value, len(vs))
	for i, v := range vs {
		elems[i] = types.StringValue(v)
	}
	return types.ListValueMust(types.StringType, elems)
}

func TestRefResolver(t *testing.T) {
	global := refResolver{project: "p", scopePath: "global"}
	regional := refResolver{project: "p", scopePath: "regions/r1"}
	const url = "http://127.0.0.1:8686/compute/v1/projects/p/global/healthChecks/hc"
	tests := []struct {
		r         refResolver
		ref, want string
	}{
		{global, url, "projects/p/global/healthChecks/hc"},
		{global, "projects/p/global/healthChecks/hc", "projects/p/global/healthChecks/hc"},
		{global, "global/healthChecks/hc", "projects/p/global/healthChecks/hc"},
		{global, "hc", "projects/p/global/healthChecks/hc"},
		{regional, "hc", "projects/p/regions/r1/healthChecks/hc"},
		{regional, "zones/z/networkEndpointGroups/neg", "projects/p/zones/z/networkEndpointGroups/neg"},
		{global, "a/b", ""},
		{global, "", ""},
	}
	for _, tt := range tests {
		collection := api.CollectionHealthChecks
		if strings.Contains(tt.ref, "networkEndpointGroups") {
			collection = api.CollectionNetworkEndpointGroups
		}
		if got := tt.r.path(tt.ref, collection); got != tt.want {
			t.Errorf("path(%q) in %s = %q, want %q", tt.ref, tt.r.scopePath, got, tt.want)
		}
	}
	// flatten keeps what the user wrote when it names the same resource.
	for _, prior := range []string{"hc", "global/healthChecks/hc", "projects/p/global/healthChecks/hc", "http://other/compute/v1/projects/p/global/healthChecks/hc"} {
		if got := global.flatten(url, types.StringValue(prior), api.CollectionHealthChecks); got.ValueString() != prior {
			t.Errorf("flatten with prior %q = %v, want the prior kept", prior, got)
		}
	}
	for _, prior := range []types.String{types.StringValue("other"), types.StringNull(), types.StringUnknown(), types.StringValue("a/b")} {
		if got := global.flatten(url, prior, api.CollectionHealthChecks); got.ValueString() != url {
			t.Errorf("flatten with prior %v = %v, want the API's URL", prior, got)
		}
	}
}

func TestExpandBackendService(t *testing.T) {
	m := nullBackendService()
	m.Protocol = types.StringValue("GRPC")
	m.HealthChecks = types.ListValueMust(types.StringType, []attr.Value{types.StringUnknown()})
	m.NamedPorts = types.ListValueMust(namedPortType, []attr.Value{types.ObjectValueMust(namedPortAttrTypes,
		map[string]attr.Value{"name": types.StringValue("grpc"), "port": types.Int64Value(9300)})})
	m.Backends = backendList("zones/z/networkEndpointGroups/neg")
	bs, e := expandBackendService(m)
	want := `{"name":"bs","protocol":"GRPC","namedPorts":[{"name":"grpc","port":9300}],` +
		`"backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":[""]}`
	if got := toJSON(t, bs); got != want {
		t.Errorf("expand =\n %s\nwant\n %s", got, want)
	}
	if toJSON(t, e.unknown) != `["healthChecks[0]"]` {
		t.Errorf("unknown = %q", e.unknown)
	}
}

func TestFlattenBackendService(t *testing.T) {
	const base = "http://h/compute/v1/"
	stored := &api.BackendService{
		Meta: api.Meta{ID: 9, Name: "bs", SelfLink: base + "projects/p/regions/r1/backendServices/bs",
			Region: base + "projects/p/regions/r1", CreationTimestamp: "2024-01-01T00:00:00Z"},
		Protocol: "HTTP", LoadBalancingScheme: "EXTERNAL",
		NamedPorts:   []api.NamedPort{{Name: "http", Port: int64p(80)}},
		Backends:     []api.Backend{{Group: base + "projects/p/zones/z/networkEndpointGroups/a"}, {Group: base + "projects/p/regions/r1/networkEndpointGroups/b"}},
		HealthChecks: []string{base + "projects/p/regions/r1/healthChecks/hc"},
	}
	scope := client.Scope{Project: "p", Region: "r1"}

	t.Run("references keep the prior form", func(t *testing.T) {
		prior := nullBackendService()
		prior.Project, prior.Region = types.StringValue("p"), types.StringValue("r1")
		prior.Backends = backendList("projects/p/zones/z/networkEndpointGroups/a", "b")
		prior.HealthChecks = stringList("hc")
		m, diags := flattenBackendService(stored, scope, prior)
		if diags.HasError() {
			t.Fatal(diags)
		}
		wantString(t, "id", m.ID, "projects/p/regions/r1/backendServices/bs")
		wantString(t, "region", m.Region, "r1")
		wantString(t, "backend_service_id", m.BackendServiceID, "9")
		if !m.Backends.Equal(prior.Backends) || !m.HealthChecks.Equal(prior.HealthChecks) {
			t.Errorf("backend, health_checks = %v, %v; want the prior forms", m.Backends, m.HealthChecks)
		}
	})
	t.Run("import shows URLs", func(t *testing.T) {
		m, _ := flattenBackendService(stored, scope, nullBackendService())
		if !m.Backends.Equal(backendList(stored.Backends[0].Group, stored.Backends[1].Group)) ||
			!m.HealthChecks.Equal(stringList(stored.HealthChecks[0])) {
			t.Errorf("backend, health_checks = %v, %v; want URLs", m.Backends, m.HealthChecks)
		}
	})
	t.Run("a reference changed out of band shows", func(t *testing.T) {
		prior := nullBackendService()
		prior.HealthChecks = stringList("other-check")
		m, _ := flattenBackendService(stored, scope, prior)
		if !m.HealthChecks.Equal(stringList(stored.HealthChecks[0])) {
			t.Errorf("health_checks = %v, want the URL so the drift shows", m.HealthChecks)
		}
	})
	t.Run("no health check: null, or the [] written", func(t *testing.T) {
		none := *stored
		none.HealthChecks, none.NamedPorts = nil, nil
		m, _ := flattenBackendService(&none, scope, nullBackendService())
		if !m.HealthChecks.IsNull() || m.NamedPorts.IsNull() || len(m.NamedPorts.Elements()) != 0 {
			t.Errorf("health_checks, named_port = %v, %v; want null, []", m.HealthChecks, m.NamedPorts)
		}
		prior := nullBackendService()
		prior.HealthChecks = stringList()
		if m, _ = flattenBackendService(&none, scope, prior); m.HealthChecks.IsNull() {
			t.Errorf("health_checks = null, want the [] written")
		}
	})
}

func TestBackendServiceConfigViolations(t *testing.T) {
	m := nullBackendService()
	m.NamedPorts = types.ListValueMust(namedPortType, []attr.Value{
		types.ObjectValueMust(namedPortAttrTypes, map[string]attr.Value{"name": types.StringValue("web"), "port": types.Int64Value(80)}),
		types.ObjectValueMust(namedPortAttrTypes, map[string]attr.Value{"name": types.StringValue("web"), "port": types.Int64Value(81)}),
		types.ObjectValueMust(namedPortAttrTypes, map[string]attr.Value{"name": types.StringUnknown(), "port": types.Int64Value(82)}),
	})
	m.LoadBalancingScheme = types.StringValue("")
	vs := backendServiceConfigViolations(m)
	var got []string
	for _, v := range vs {
		got = append(got, v.Message(backendServiceNaming))
	}
	want := []string{
		`named_port[1].name ("web") is used twice: named ports must have different names.`,
		`load_balancing_scheme ("") must not be empty: remove it to get the default "EXTERNAL".`,
	}
	if toJSON(t, got) != toJSON(t, want) {
		t.Errorf("violations =\n %q\nwant\n %q", got, want)
	}
}

func TestBackendServiceScope(t *testing.T) {
	data := &providerData{project: "dp", region: "dr"}
	model := func(ref, project, region string) backendHealthModel {
		m := backendHealthModel{BackendService: types.StringValue(ref), Project: types.StringNull(), Region: types.StringNull()}
		if project != "" {
			m.Project = types.StringValue(project)
		}
		if region != "" {
			m.Region = types.StringValue(region)
		}
		return m
	}
	tests := []struct {
		m       backendHealthModel
		scope   client.Scope
		wantErr string
	}{
		{m: model("bs", "", ""), scope: client.Scope{Project: "dp"}},
		{m: model("bs", "p", "r"), scope: client.Scope{Project: "p", Region: "r"}},
		{m: model("p/bs", "", "r"), scope: client.Scope{Project: "p", Region: "r"}},
		{m: model("projects/p/regions/r/backendServices/bs", "", ""), scope: client.Scope{Project: "p", Region: "r"}},
		{m: model("http://h/compute/v1/projects/p/global/backendServices/bs", "p", ""), scope: client.Scope{Project: "p"}},
		{m: model("projects/p/global/backendServices/bs", "", "r"), wantErr: `backend_service is global, but region is "r"`},
		{m: model("projects/p/global/backendServices/bs", "q", ""), wantErr: `backend_service is in project "p", but project is "q"`},
		{m: model("zones/z/backendServices/bs", "", ""), wantErr: "has none of the forms"},
	}
	for _, tt := range tests {
		scope, name, err := backendServiceScope(tt.m, data)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: err = %v, want %q", tt.m.BackendService, err, tt.wantErr)
			}
			continue
		}
		if err != nil || scope != tt.scope || name != "bs" {
			t.Errorf("%v: %+v %q %v; want %+v", tt.m.BackendService, scope, name, err, tt.scope)
		}
	}
}

func TestFlattenBackendHealth(t *testing.T) {
	config := backendHealthModel{BackendService: types.StringValue("bs"), Project: types.StringNull(),
		Region: types.StringNull(), Group: types.StringNull()}
	tests := []struct {
		states                      []string
		healthy, unhealthy, unknown int64
		all                         bool
	}{
		{nil, 0, 0, 0, false}, // no endpoint serves nothing
		{[]string{"HEALTHY", "HEALTHY"}, 2, 0, 0, true},
		{[]string{"HEALTHY", "UNKNOWN"}, 1, 0, 1, false},
		{[]string{"UNHEALTHY", "HEALTHY", "UNKNOWN"}, 1, 1, 1, false},
	}
	for _, tt := range tests {
		h := &api.BackendServiceGroupHealth{}
		for i, s := range tt.states {
			h.HealthStatus = append(h.HealthStatus, api.HealthStatus{IPAddress: "127.0.0.1", Port: int64(9000 + i), HealthState: s})
		}
		m, diags := flattenBackendHealth(h, client.Scope{Project: "p"}, "bs", config)
		if diags.HasError() {
			t.Fatal(diags)
		}
		if m.HealthyCount.ValueInt64() != tt.healthy || m.UnhealthyCount.ValueInt64() != tt.unhealthy ||
			m.UnknownCount.ValueInt64() != tt.unknown || m.AllHealthy.ValueBool() != tt.all {
			t.Errorf("%v: counts %v/%v/%v all_healthy %v; want %d/%d/%d %v", tt.states, m.HealthyCount, m.UnhealthyCount,
				m.UnknownCount, m.AllHealthy, tt.healthy, tt.unhealthy, tt.unknown, tt.all)
		}
		if len(m.Endpoints.Elements()) != len(tt.states) {
			t.Errorf("%v: %d endpoints", tt.states, len(m.Endpoints.Elements()))
		}
	}
	// GCE_VM_IP endpoints have no port; empty strings are null.
	h := &api.BackendServiceGroupHealth{HealthStatus: []api.HealthStatus{{IPAddress: "10.0.0.1", HealthState: "UNKNOWN"}}}
	m, _ := flattenBackendHealth(h, client.Scope{Project: "p", Region: "r"}, "bs", config)
	attrs := m.Endpoints.Elements()[0].(types.Object).Attributes()
	if !attrs["port"].IsNull() || !attrs["reason"].IsNull() || !attrs["last_probe_time"].IsNull() {
		t.Errorf("endpoint = %v, want null port, reason and last_probe_time", attrs)
	}
	wantString(t, "id", m.ID, "projects/p/regions/r/backendServices/bs")
	wantString(t, "region", m.Region, "r")

	// getHealth reports an endpoint with no verdict yet UNHEALTHY, with
	// reason UNKNOWN (the API's enum has no UNKNOWN): it is counted and
	// shown as UNKNOWN, without a reason.
	h = &api.BackendServiceGroupHealth{HealthStatus: []api.HealthStatus{
		{IPAddress: "10.0.0.1", Port: 80, HealthState: "UNHEALTHY", Reason: api.ReasonNoVerdict}}}
	m, _ = flattenBackendHealth(h, client.Scope{Project: "p"}, "bs", config)
	attrs = m.Endpoints.Elements()[0].(types.Object).Attributes()
	if attrs["health_state"].(types.String).ValueString() != "UNKNOWN" || !attrs["reason"].IsNull() ||
		m.UnknownCount.ValueInt64() != 1 || m.UnhealthyCount.ValueInt64() != 0 {
		t.Errorf("no verdict: endpoint = %v, counts %v/%v; want UNKNOWN, no reason, 1 unknown", attrs, m.UnhealthyCount, m.UnknownCount)
	}
}

func TestKeepEquivalentRefs(t *testing.T) {
	state := nullBackendService()
	state.Project = types.StringValue("p")
	state.HealthChecks = stringList("hc")
	state.Backends = backendList("projects/p/zones/z/networkEndpointGroups/a", "zones/z/networkEndpointGroups/b")
	tests := []struct {
		name         string
		build        func(m *backendServiceModel)
		wantChecks   types.List
		wantBackends types.List
	}{
		{
			name: "other forms of the same references keep the state's",
			build: func(m *backendServiceModel) {
				m.HealthChecks = stringList("http://h/compute/v1/projects/p/global/healthChecks/hc")
				m.Backends = backendList("http://h/compute/v1/projects/p/zones/z/networkEndpointGroups/a",
					"projects/p/zones/z/networkEndpointGroups/b")
			},
			wantChecks:   state.HealthChecks,
			wantBackends: state.Backends,
		},
		{
			name: "other references are planned",
			build: func(m *backendServiceModel) {
				m.HealthChecks = stringList("hc2")
				m.Backends = backendList("projects/p/zones/z/networkEndpointGroups/a", "zones/z/networkEndpointGroups/c")
			},
			wantChecks:   stringList("hc2"),
			wantBackends: backendList("projects/p/zones/z/networkEndpointGroups/a", "zones/z/networkEndpointGroups/c"),
		},
		{
			name: "a change of scope (a replacement) plans the configuration as written",
			build: func(m *backendServiceModel) {
				m.Region = types.StringValue("r1")
				m.HealthChecks = stringList("projects/p/global/healthChecks/hc")
			},
			wantChecks:   stringList("projects/p/global/healthChecks/hc"),
			wantBackends: state.Backends,
		},
		{
			name: "unknown references stay unknown",
			build: func(m *backendServiceModel) {
				m.HealthChecks = types.ListUnknown(types.StringType)
			},
			wantChecks:   types.ListUnknown(types.StringType),
			wantBackends: state.Backends,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := state
			tt.build(&plan)
			if diags := keepEquivalentRefs(&plan, state); diags.HasError() {
				t.Fatal(diags)
			}
			if !plan.HealthChecks.Equal(tt.wantChecks) || !plan.Backends.Equal(tt.wantBackends) {
				t.Errorf("planned health_checks, backend =\n %v\n %v\nwant\n %v\n %v", plan.HealthChecks, plan.Backends,
					tt.wantChecks, tt.wantBackends)
			}
		})
	}
}
