package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// nullEndpointGroup is a configuration that sets nothing but the name.
func nullEndpointGroup() endpointGroupModel {
	return endpointGroupModel{
		ID: types.StringNull(), Name: types.StringValue("neg"), Description: types.StringNull(),
		Project: types.StringNull(), Zone: types.StringNull(), Region: types.StringNull(),
		NetworkEndpointType: types.StringNull(), DefaultPort: types.Int64Null(),
		Endpoints: types.ListValueMust(endpointObjectType, nil), SelfLink: types.StringNull(),
		CreationTimestamp: types.StringNull(), EndpointGroupID: types.StringNull(), Size: types.Int64Null(),
	}
}

// endpointObj builds one endpoint block; unset attributes are null.
func endpointObj(set map[string]attr.Value) types.Object {
	attrs := map[string]attr.Value{"ip_address": types.StringNull(), "port": types.Int64Null(),
		"instance": types.StringNull(), "state": types.StringNull()}
	for k, v := range set {
		attrs[k] = v
	}
	return types.ObjectValueMust(endpointAttrTypes, attrs)
}

func endpointList(objs ...attr.Value) types.List {
	return types.ListValueMust(endpointObjectType, objs)
}

func TestExpandEndpointGroup(t *testing.T) {
	tests := []struct {
		name        string
		build       func(m *endpointGroupModel)
		wantJSON    string
		wantUnknown []string
	}{
		{
			name: "endpoints in order",
			build: func(m *endpointGroupModel) {
				m.DefaultPort = types.Int64Value(80)
				m.Endpoints = endpointList(
					endpointObj(map[string]attr.Value{"ip_address": types.StringValue("10.0.0.2"), "state": types.StringValue("STOPPED")}),
					endpointObj(map[string]attr.Value{"ip_address": types.StringValue("10.0.0.1"), "port": types.Int64Value(81),
						"instance": types.StringValue("vm")}))
			},
			wantJSON: `{"name":"neg","defaultPort":80,"size":0,"endpoints":[{"ipAddress":"10.0.0.2","state":"STOPPED"},` +
				`{"ipAddress":"10.0.0.1","port":81,"instance":"vm"}]}`,
		},
		{
			name: "unknown values are unset and recorded",
			build: func(m *endpointGroupModel) {
				m.NetworkEndpointType = types.StringUnknown()
				m.Endpoints = endpointList(
					endpointObj(map[string]attr.Value{"ip_address": types.StringValue("10.0.0.1"), "port": types.Int64Unknown()}),
					types.ObjectUnknown(endpointAttrTypes))
			},
			wantJSON:    `{"name":"neg","size":0,"endpoints":[{"ipAddress":"10.0.0.1"},{}]}`,
			wantUnknown: []string{"networkEndpointType", "endpoints[1]", "endpoints[0].port"},
		},
		{
			name:        "a dynamic block list",
			build:       func(m *endpointGroupModel) { m.Endpoints = types.ListUnknown(endpointObjectType) },
			wantJSON:    `{"name":"neg","size":0}`,
			wantUnknown: []string{"endpoints"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nullEndpointGroup()
			tt.build(&m)
			g, e := expandEndpointGroup(m)
			if got := toJSON(t, g); got != tt.wantJSON {
				t.Errorf("expand =\n %s\nwant\n %s", got, tt.wantJSON)
			}
			if toJSON(t, e.unknown) != toJSON(t, tt.wantUnknown) {
				t.Errorf("unknown = %q, want %q", e.unknown, tt.wantUnknown)
			}
		})
	}
}

func TestFlattenEndpointGroup(t *testing.T) {
	stored := &api.NetworkEndpointGroup{ // as the emulator stores it, defaults filled
		Meta: api.Meta{ID: 7, Name: "neg", SelfLink: "http://h/compute/v1/projects/p/zones/z1/networkEndpointGroups/neg",
			CreationTimestamp: "2024-01-01T00:00:00Z", Zone: "http://h/compute/v1/projects/p/zones/z1"},
		NetworkEndpointType: api.GCEVMIPPort, DefaultPort: int64p(80), Size: 2,
		Endpoints: []api.NetworkEndpoint{
			{IPAddress: "10.0.0.1", Port: int64p(80), State: "RUNNING"},
			{IPAddress: "10.0.0.2", Port: int64p(81), Instance: "vm", State: "STOPPED"},
		},
	}
	prior := nullEndpointGroup()
	prior.Description = types.StringValue("") // written as "": kept, though the API omits it
	prior.Endpoints = endpointList(endpointObj(map[string]attr.Value{"instance": types.StringValue("")}))
	m, diags := flattenEndpointGroup(stored, client.Scope{Project: "p", Zone: "z1"}, prior)
	if diags.HasError() {
		t.Fatal(diags)
	}
	wantString(t, "id", m.ID, "projects/p/zones/z1/networkEndpointGroups/neg")
	wantString(t, "zone", m.Zone, "z1")
	wantString(t, "endpoint_group_id", m.EndpointGroupID, "7")
	wantString(t, "description", m.Description, "")
	if !m.Region.IsNull() || m.Size != types.Int64Value(2) {
		t.Errorf("region, size = %v, %v; want null, 2", m.Region, m.Size)
	}
	want := endpointList(
		endpointObj(map[string]attr.Value{"ip_address": types.StringValue("10.0.0.1"), "port": types.Int64Value(80),
			"instance": types.StringValue(""), "state": types.StringValue("RUNNING")}),
		endpointObj(map[string]attr.Value{"ip_address": types.StringValue("10.0.0.2"), "port": types.Int64Value(81),
			"instance": types.StringValue("vm"), "state": types.StringValue("STOPPED")}))
	if !m.Endpoints.Equal(want) {
		t.Errorf("endpoints =\n %v\nwant\n %v", m.Endpoints, want)
	}

	// A group with no endpoint has an empty list, never null: Terraform
	// represents "no blocks" that way, and null would be a diff.
	empty := *stored
	empty.Endpoints, empty.Zone, empty.Region = nil, "", "http://h/compute/v1/projects/p/regions/r1"
	m, _ = flattenEndpointGroup(&empty, client.Scope{Project: "p", Region: "r1"}, nullEndpointGroup())
	if m.Endpoints.IsNull() || len(m.Endpoints.Elements()) != 0 {
		t.Errorf("endpoints = %v, want []", m.Endpoints)
	}
	wantString(t, "id", m.ID, "projects/p/regions/r1/networkEndpointGroups/neg")
}

func TestPlanEndpointPorts(t *testing.T) {
	ip := types.StringValue("10.0.0.1")
	tests := []struct {
		name     string
		typ      string
		def      types.Int64
		config   types.Int64 // the one endpoint's port in the configuration
		planned  types.Int64 // what the framework planned for it
		wantPort types.Int64
	}{
		{"default port fills an unset port", api.GCEVMIPPort, types.Int64Value(80), types.Int64Null(), types.Int64Unknown(), types.Int64Value(80)},
		{"a set port is kept", api.GCEVMIPPort, types.Int64Value(80), types.Int64Value(81), types.Int64Value(81), types.Int64Value(81)},
		{"GCE_VM_IP has no port", api.GCEVMIP, types.Int64Null(), types.Int64Null(), types.Int64Unknown(), types.Int64Null()},
		{"unknown default port stays unknown", api.GCEVMIPPort, types.Int64Unknown(), types.Int64Null(), types.Int64Unknown(), types.Int64Unknown()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config, plan := nullEndpointGroup(), nullEndpointGroup()
			config.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip, "port": tt.config}))
			plan.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip, "port": tt.planned,
				"state": types.StringValue("RUNNING")}))
			plan.NetworkEndpointType, plan.DefaultPort = types.StringValue(tt.typ), tt.def
			if diags := planEndpointPorts(&plan, config); diags.HasError() {
				t.Fatal(diags)
			}
			got := plan.Endpoints.Elements()[0].(types.Object).Attributes()["port"]
			if !got.Equal(tt.wantPort) {
				t.Errorf("port = %v, want %v", got, tt.wantPort)
			}
		})
	}
}

func TestEndpointGroupConfigViolations(t *testing.T) {
	ip := types.StringValue("10.0.0.1")
	tests := []struct {
		name  string
		build func(m *endpointGroupModel)
		want  []string
	}{
		{
			name: "messages and paths in Terraform names",
			build: func(m *endpointGroupModel) {
				m.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip}))
			},
			want: []string{"endpoint[0].port is required: set it, or set the group's default_port."},
		},
		{
			name: "unknown ports are not duplicates",
			build: func(m *endpointGroupModel) {
				m.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip, "port": types.Int64Unknown()}),
					endpointObj(map[string]attr.Value{"ip_address": ip, "port": types.Int64Unknown()}))
			},
		},
		{
			// The element rule reads the unknown port inside endpoint[0]:
			// the unknown port seen as unset would take the default port.
			name: "an unknown port next to the default one is not a duplicate",
			build: func(m *endpointGroupModel) {
				m.DefaultPort = types.Int64Value(80)
				m.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip, "port": types.Int64Unknown()}),
					endpointObj(map[string]attr.Value{"ip_address": ip}))
			},
		},
		{
			name: "an unknown default port decides nothing",
			build: func(m *endpointGroupModel) {
				m.DefaultPort = types.Int64Unknown()
				m.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip}),
					endpointObj(map[string]attr.Value{"ip_address": ip}))
			},
		},
		{
			name: "a known duplicate next to an unknown endpoint",
			build: func(m *endpointGroupModel) {
				port := types.Int64Value(80)
				m.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip, "port": port}),
					types.ObjectUnknown(endpointAttrTypes),
					endpointObj(map[string]attr.Value{"ip_address": ip, "port": port}))
			},
			want: []string{"endpoint[2] repeats endpoint[0] (10.0.0.1, port 80)"},
		},
		{
			name: "unknown type: the GCE_VM_IP rules wait",
			build: func(m *endpointGroupModel) {
				m.NetworkEndpointType = types.StringUnknown()
				m.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip, "port": types.Int64Value(80)}))
			},
		},
		{
			name: "explicitly empty type and state",
			build: func(m *endpointGroupModel) {
				m.NetworkEndpointType = types.StringValue("")
				m.Endpoints = endpointList(endpointObj(map[string]attr.Value{"ip_address": ip, "port": types.Int64Value(80),
					"state": types.StringValue("")}))
			},
			want: []string{`network_endpoint_type ("") must not be empty`, `endpoint[0].state ("") must not be empty`},
		},
		{
			name:  "bad zone",
			build: func(m *endpointGroupModel) { m.Zone = types.StringValue("Zone_A") },
			want:  []string{`zone ("Zone_A") is not a valid name`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nullEndpointGroup()
			tt.build(&m)
			vs := endpointGroupConfigViolations(m)
			if len(vs) != len(tt.want) {
				t.Fatalf("violations = %v, want %d matching %q", vs, len(tt.want), tt.want)
			}
			for i, want := range tt.want {
				if got := vs[i].Message(endpointGroupNaming); !strings.Contains(got, want) {
					t.Errorf("violation %d = %q, want it to contain %q", i, got, want)
				}
			}
		})
	}
}

func TestTerraformNaming(t *testing.T) {
	naming := terraformNaming(map[string]string{"endpoints": "endpoint", "namedPorts": "named_port"})
	for in, want := range map[string]string{
		"endpoints[1].ipAddress": "endpoint[1].ip_address",
		"endpoints":              "endpoint",
		"namedPorts[0].name":     "named_port[0].name",
		"networkEndpointType":    "network_endpoint_type",
		"endpointsX":             "endpoints_x",
	} {
		if got := naming(in); got != want {
			t.Errorf("naming(%q) = %q, want %q", in, got, want)
		}
	}
	p, ok := attributePath(naming("endpoints[1].ipAddress"))
	if want := path.Root("endpoint").AtListIndex(1).AtName("ip_address"); !ok || !p.Equal(want) {
		t.Errorf("attribute path = %v, want %v", p, want)
	}
}

func TestParseImportID_zonal(t *testing.T) {
	got, err := parseImportID("projects/p/zones/us-central1-a/networkEndpointGroups/neg", api.CollectionNetworkEndpointGroups)
	if want := (resourceID{Project: "p", Zone: "us-central1-a", Name: "neg"}); err != nil || got != want {
		t.Errorf("zonal id = %+v, %v; want %+v", got, err, want)
	}
	got, err = parseImportID("http://h:1/compute/v1/projects/p/zones/z/networkEndpointGroups/neg", api.CollectionNetworkEndpointGroups)
	if want := (resourceID{Project: "p", Zone: "z", Name: "neg"}); err != nil || got != want {
		t.Errorf("zonal self link = %+v, %v; want %+v", got, err, want)
	}
	if _, err := parseImportID("projects/p/zones/z/backendServices/bs", api.CollectionBackendServices); err == nil ||
		strings.Contains(err.Error(), "zones/{zone}") {
		t.Errorf("a zonal backend service: %v, want an error that does not offer zones", err)
	}
	if _, err := parseImportID("projects/p/zones/Z_1/networkEndpointGroups/neg", api.CollectionNetworkEndpointGroups); err == nil ||
		!strings.Contains(err.Error(), `zone ("Z_1")`) {
		t.Errorf("bad zone: %v", err)
	}
}
