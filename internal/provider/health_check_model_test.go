package provider

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// nullModel is a model with every value null and the right types, the way
// the framework hands over a configuration that sets nothing.
func nullModel() healthCheckModel {
	m := healthCheckModel{
		ID: types.StringNull(), Name: types.StringNull(), Description: types.StringNull(),
		Project: types.StringNull(), Region: types.StringNull(), SelfLink: types.StringNull(),
		CreationTimestamp: types.StringNull(), HealthCheckID: types.StringNull(), Type: types.StringNull(),
		CheckIntervalSec: types.Int64Null(), TimeoutSec: types.Int64Null(),
		HealthyThreshold: types.Int64Null(), UnhealthyThreshold: types.Int64Null(),
		LogConfig: types.ObjectNull(logConfigAttrTypes), SourceRegions: types.ListNull(types.StringType),
	}
	for i, obj := range m.blocks() {
		*obj = types.ObjectNull(protocolBlocks[i].attrTypes())
	}
	return m
}

// blockObject builds the value of protocol block name; attributes not in
// set are null.
func blockObject(t *testing.T, name string, set map[string]attr.Value) types.Object {
	t.Helper()
	b := blockByName(t, name)
	attrs := map[string]attr.Value{}
	for _, a := range b.attrs {
		attrs[a] = types.StringNull()
		if a == "port" {
			attrs[a] = types.Int64Null()
		}
	}
	for k, v := range set {
		attrs[k] = v
	}
	obj, diags := types.ObjectValue(b.attrTypes(), attrs)
	if diags.HasError() {
		t.Fatalf("building %s: %v", name, diags)
	}
	return obj
}

func blockByName(t *testing.T, name string) protocolBlock {
	t.Helper()
	for _, b := range protocolBlocks {
		if b.name == name {
			return b
		}
	}
	t.Fatalf("no protocol block %q", name)
	return protocolBlock{}
}

func setBlockOf(m *healthCheckModel, name string, obj types.Object) {
	for i, b := range protocolBlocks {
		if b.name == name {
			*m.blocks()[i] = obj
		}
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExpandHealthCheck(t *testing.T) {
	tests := []struct {
		name        string
		build       func(t *testing.T, m *healthCheckModel)
		wantJSON    string
		wantUnknown []string
	}{
		{
			name: "http block with timing",
			build: func(t *testing.T, m *healthCheckModel) {
				m.Name, m.CheckIntervalSec, m.TimeoutSec = types.StringValue("hc"), types.Int64Value(10), types.Int64Value(5)
				setBlockOf(m, "http_health_check", blockObject(t, "http_health_check", map[string]attr.Value{
					"port": types.Int64Value(8080), "request_path": types.StringValue("/healthz"), "proxy_header": types.StringValue("NONE")}))
			},
			wantJSON: `{"name":"hc","checkIntervalSec":10,"timeoutSec":5,"httpHealthCheck":{"port":8080,"proxyHeader":"NONE","requestPath":"/healthz"}}`,
		},
		{
			name: "empty tcp block and log config",
			build: func(t *testing.T, m *healthCheckModel) {
				m.Name = types.StringValue("hc")
				setBlockOf(m, "tcp_health_check", blockObject(t, "tcp_health_check", nil))
				m.LogConfig = types.ObjectValueMust(logConfigAttrTypes, map[string]attr.Value{"enable": types.BoolValue(true)})
			},
			wantJSON: `{"name":"hc","tcpHealthCheck":{},"logConfig":{"enable":true}}`,
		},
		{
			name: "grpc tls has no port name",
			build: func(t *testing.T, m *healthCheckModel) {
				m.Name = types.StringValue("hc")
				setBlockOf(m, "grpc_tls_health_check", blockObject(t, "grpc_tls_health_check", map[string]attr.Value{
					"port": types.Int64Value(50051), "grpc_service_name": types.StringValue("svc")}))
			},
			wantJSON: `{"name":"hc","grpcTlsHealthCheck":{"port":50051,"grpcServiceName":"svc"}}`,
		},
		{
			name: "unknown values are unset and recorded",
			build: func(t *testing.T, m *healthCheckModel) {
				m.Name, m.TimeoutSec = types.StringValue("hc"), types.Int64Unknown()
				setBlockOf(m, "grpc_health_check", blockObject(t, "grpc_health_check", map[string]attr.Value{
					"port": types.Int64Unknown(), "port_name": types.StringUnknown()}))
				setBlockOf(m, "http_health_check", types.ObjectUnknown(blockByName(t, "http_health_check").attrTypes()))
				m.SourceRegions = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a"), types.StringUnknown()})
			},
			wantJSON:    `{"name":"hc","grpcHealthCheck":{},"sourceRegions":["a",""]}`,
			wantUnknown: []string{"timeoutSec", "sourceRegions[1]", "httpHealthCheck", "grpcHealthCheck.port", "grpcHealthCheck.portName"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nullModel()
			tt.build(t, &m)
			hc, unknown := expandHealthCheck(m)
			if got := toJSON(t, hc); got != tt.wantJSON {
				t.Errorf("expand =\n %s\nwant\n %s", got, tt.wantJSON)
			}
			if toJSON(t, unknown) != toJSON(t, tt.wantUnknown) {
				t.Errorf("unknown = %q, want %q", unknown, tt.wantUnknown)
			}
		})
	}
}

func int64p(v int64) *int64 { return &v }
func boolp(v bool) *bool    { return &v }

func TestFlattenHealthCheck(t *testing.T) {
	stored := func() *api.HealthCheck { // as the emulator stores it, defaults filled
		return &api.HealthCheck{
			Meta: api.Meta{ID: 123, Name: "hc", SelfLink: "http://h/compute/v1/projects/p/global/healthChecks/hc",
				CreationTimestamp: "2024-01-01T00:00:00Z"},
			CheckIntervalSec: int64p(5), TimeoutSec: int64p(5), HealthyThreshold: int64p(2), UnhealthyThreshold: int64p(2),
			Type: api.TypeTCP,
			TCPHealthCheck: &api.TCPHealthCheck{PortFields: api.PortFields{PortSpec: api.PortSpec{
				Port: int64p(80), ProxyHeader: api.ProxyHeaderNone}}},
			LogConfig: &api.LogConfig{Enable: boolp(false)},
		}
	}
	tests := []struct {
		name   string
		hc     func() *api.HealthCheck
		scope  client.Scope
		prior  func(t *testing.T, m *healthCheckModel)
		verify func(t *testing.T, m healthCheckModel)
	}{
		{
			name: "omitted log_config stays null", hc: stored, scope: client.Scope{Project: "p"},
			verify: func(t *testing.T, m healthCheckModel) {
				wantString(t, "id", m.ID, "projects/p/global/healthChecks/hc")
				wantString(t, "health_check_id", m.HealthCheckID, "123")
				wantString(t, "type", m.Type, "TCP")
				if !m.LogConfig.IsNull() || !m.Region.IsNull() || !m.Description.IsNull() || !m.SourceRegions.IsNull() {
					t.Errorf("log_config, region, description, source_regions = %v %v %v %v, want all null",
						m.LogConfig, m.Region, m.Description, m.SourceRegions)
				}
				tcp := m.TCPHealthCheck.Attributes()
				if tcp["port"] != types.Int64Value(80) || tcp["proxy_header"] != types.StringValue("NONE") || !tcp["request"].IsNull() {
					t.Errorf("tcp_health_check = %v", m.TCPHealthCheck)
				}
				if !m.HTTPHealthCheck.IsNull() {
					t.Errorf("http_health_check = %v, want null", m.HTTPHealthCheck)
				}
			},
		},
		{
			name: "configured log_config is shown", hc: stored, scope: client.Scope{Project: "p"},
			prior: func(t *testing.T, m *healthCheckModel) {
				m.LogConfig = types.ObjectValueMust(logConfigAttrTypes, map[string]attr.Value{"enable": types.BoolValue(false)})
			},
			verify: func(t *testing.T, m healthCheckModel) {
				if m.LogConfig.IsNull() || m.LogConfig.Attributes()["enable"] != types.BoolValue(false) {
					t.Errorf("log_config = %v, want {enable = false}", m.LogConfig)
				}
			},
		},
		{
			name: "logging turned on out of band is shown",
			hc: func() *api.HealthCheck {
				hc := stored()
				hc.LogConfig.Enable = boolp(true)
				return hc
			},
			scope: client.Scope{Project: "p"},
			verify: func(t *testing.T, m healthCheckModel) {
				if m.LogConfig.IsNull() {
					t.Errorf("log_config is null, want {enable = true} so the drift shows")
				}
			},
		},
		{
			name: "regional, empty strings the user wrote are kept",
			hc: func() *api.HealthCheck {
				hc := stored()
				hc.Region = "http://h/compute/v1/projects/p/regions/us-east1"
				return hc
			},
			scope: client.Scope{Project: "p", Region: "us-east1"},
			prior: func(t *testing.T, m *healthCheckModel) {
				m.Description = types.StringValue("")
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", map[string]attr.Value{"request": types.StringValue("")})
				m.SourceRegions = types.ListValueMust(types.StringType, nil)
			},
			verify: func(t *testing.T, m healthCheckModel) {
				wantString(t, "region", m.Region, "us-east1")
				wantString(t, "id", m.ID, "projects/p/regions/us-east1/healthChecks/hc")
				wantString(t, "description", m.Description, "")
				if m.TCPHealthCheck.Attributes()["request"] != types.StringValue("") {
					t.Errorf("request = %v, want \"\"", m.TCPHealthCheck.Attributes()["request"])
				}
				if m.SourceRegions.IsNull() {
					t.Errorf("source_regions is null, want []")
				}
			},
		},
		{
			name: "port_name without port",
			hc: func() *api.HealthCheck {
				hc := stored()
				hc.TCPHealthCheck, hc.Type = nil, api.TypeHTTP
				hc.HTTPHealthCheck = &api.HTTPHealthCheck{PortFields: api.PortFields{PortName: "http",
					PortSpec: api.PortSpec{ProxyHeader: "NONE"}}, RequestPath: "/"}
				return hc
			},
			scope: client.Scope{Project: "p"},
			verify: func(t *testing.T, m healthCheckModel) {
				http := m.HTTPHealthCheck.Attributes()
				if !http["port"].IsNull() || http["port_name"] != types.StringValue("http") || http["request_path"] != types.StringValue("/") {
					t.Errorf("http_health_check = %v", m.HTTPHealthCheck)
				}
				if !m.TCPHealthCheck.IsNull() {
					t.Errorf("tcp_health_check = %v, want null", m.TCPHealthCheck)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prior := nullModel()
			if tt.prior != nil {
				tt.prior(t, &prior)
			}
			m, diags := flattenHealthCheck(tt.hc(), tt.scope, prior)
			if diags.HasError() {
				t.Fatal(diags)
			}
			tt.verify(t, m)
		})
	}
}

func wantString(t *testing.T, name string, got types.String, want string) {
	t.Helper()
	if got != types.StringValue(want) {
		t.Errorf("%s = %v, want %q", name, got, want)
	}
}

// TestHealthCheckRoundTrip checks that flatten(expand(x)) gives back x for
// every protocol block: the two helpers agree on every field.
func TestHealthCheckRoundTrip(t *testing.T) {
	for _, b := range protocolBlocks {
		t.Run(b.name, func(t *testing.T) {
			set := map[string]attr.Value{}
			for i, a := range b.attrs {
				set[a] = types.StringValue(string(rune('a' + i)))
				switch {
				case a == "port":
					set[a] = types.Int64Value(1000)
				case b.list[a]:
					set[a] = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("hc-a"), types.StringValue("hc-b")})
				}
			}
			m := nullModel()
			m.Name, m.Project = types.StringValue("hc"), types.StringValue("p")
			setBlockOf(&m, b.name, blockObject(t, b.name, set))
			hc, _ := expandHealthCheck(m)
			hc.Type = b.typ
			got, diags := flattenHealthCheck(hc, client.Scope{Project: "p"}, m)
			if diags.HasError() {
				t.Fatal(diags)
			}
			gotBlock := *got.blocks()[indexOf(b)]
			if !gotBlock.Equal(*m.blocks()[indexOf(b)]) {
				t.Errorf("round trip of %s:\n got %v\nwant %v", b.name, gotBlock, *m.blocks()[indexOf(b)])
			}
			wantString(t, "type", got.Type, b.typ)
			wantString(t, "planType", planType(m), b.typ)
		})
	}
}

func indexOf(b protocolBlock) int {
	for i, p := range protocolBlocks {
		if p.name == b.name {
			return i
		}
	}
	return -1
}

func TestPlanType(t *testing.T) {
	m := nullModel()
	if !planType(m).IsUnknown() {
		t.Errorf("no block: planType = %v, want unknown", planType(m))
	}
	m.HTTPHealthCheck = types.ObjectUnknown(blockByName(t, "http_health_check").attrTypes())
	if !planType(m).IsUnknown() {
		t.Errorf("unknown block: planType = %v, want unknown", planType(m))
	}
}

// TestModelHasABlockPerProtocol: the model holds one block per protocol of
// the API's table, in its order, under the Terraform name of its field, so
// that a protocol added to the table cannot be left out of the provider.
func TestModelHasABlockPerProtocol(t *testing.T) {
	var m healthCheckModel
	blocks := m.blocks()
	if len(blocks) != len(api.Protocols) || len(protocolBlocks) != len(api.Protocols) {
		t.Fatalf("model has %d blocks and protocolBlocks %d, the API's table %d protocols", len(blocks), len(protocolBlocks), len(api.Protocols))
	}
	rv := reflect.ValueOf(&m.protocolBlockFields).Elem()
	for i, p := range api.Protocols {
		var tag string
		for f := range rv.NumField() {
			if rv.Field(f).Addr().Interface() == blocks[i] {
				tag = rv.Type().Field(f).Tag.Get("tfsdk")
			}
		}
		if tag != protocolBlocks[i].name || protocolBlocks[i].typ != p.Type {
			t.Errorf("block %d: model field %q, protocolBlocks %q (%s); the table has %s (%s)", i, tag, protocolBlocks[i].name, protocolBlocks[i].typ, p.Field, p.Type)
		}
	}
}
