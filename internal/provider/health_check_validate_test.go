package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

func TestHealthCheckConfigViolations(t *testing.T) {
	tests := []struct {
		name  string
		build func(t *testing.T, m *healthCheckModel)
		want  []string // messages, in order; none for a valid configuration
	}{
		{
			name: "timeout above interval, in Terraform names",
			build: func(t *testing.T, m *healthCheckModel) {
				m.CheckIntervalSec, m.TimeoutSec = types.Int64Value(5), types.Int64Value(10)
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
			},
			want: []string{"timeout_sec (10) must be less than or equal to check_interval_sec (5)."},
		},
		{
			name: "unknown timeout drops the comparison",
			build: func(t *testing.T, m *healthCheckModel) {
				m.CheckIntervalSec, m.TimeoutSec = types.Int64Value(2), types.Int64Unknown()
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
			},
		},
		{
			name: "no block at all",
			build: func(t *testing.T, m *healthCheckModel) {
			},
			want: []string{"exactly one protocol block must be set, found none"},
		},
		{
			name: "a dynamic (unknown) block is not 'no block'",
			build: func(t *testing.T, m *healthCheckModel) {
				m.GRPCHealthCheck = types.ObjectUnknown(blockByName(t, "grpc_health_check").attrTypes())
			},
		},
		{
			name: "a known block and an unknown one are not two blocks yet",
			build: func(t *testing.T, m *healthCheckModel) {
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
				m.HTTPHealthCheck = types.ObjectUnknown(blockByName(t, "http_health_check").attrTypes())
			},
		},
		{
			name: "two known blocks",
			build: func(t *testing.T, m *healthCheckModel) {
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
				m.HTTPHealthCheck = blockObject(t, "http_health_check", nil)
			},
			want: []string{"found tcp_health_check and http_health_check"},
		},
		{
			name: "grpc port unknown",
			build: func(t *testing.T, m *healthCheckModel) {
				m.GRPCHealthCheck = blockObject(t, "grpc_health_check", map[string]attr.Value{"port": types.Int64Unknown()})
			},
		},
		{
			name: "grpc without port",
			build: func(t *testing.T, m *healthCheckModel) {
				m.GRPCHealthCheck = blockObject(t, "grpc_health_check", nil)
			},
			want: []string{"grpc_health_check.port is required"},
		},
		{
			name: "unknown source region element",
			build: func(t *testing.T, m *healthCheckModel) {
				m.CheckIntervalSec = types.Int64Value(30)
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
				m.SourceRegions = types.ListValueMust(types.StringType, []attr.Value{types.StringUnknown(),
					types.StringUnknown(), types.StringValue("us-east1")})
			},
		},
		{
			name: "source regions with unknown region",
			build: func(t *testing.T, m *healthCheckModel) {
				m.Region = types.StringUnknown()
				m.CheckIntervalSec = types.Int64Value(30)
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
				m.SourceRegions = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a"),
					types.StringValue("b"), types.StringValue("c")})
			},
		},
		{
			name: "source regions on a regional check",
			build: func(t *testing.T, m *healthCheckModel) {
				m.Region = types.StringValue("us-east1")
				m.CheckIntervalSec = types.Int64Value(30)
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
				m.SourceRegions = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("a"),
					types.StringValue("b"), types.StringValue("c")})
			},
			want: []string{"source_regions can only be set on a global health check"},
		},
		{
			name: "unknown name is not a bad name",
			build: func(t *testing.T, m *healthCheckModel) {
				m.Name = types.StringUnknown()
				m.TCPHealthCheck = blockObject(t, "tcp_health_check", nil)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := nullModel()
			m.Name = types.StringValue("hc")
			tt.build(t, &m)
			vs := healthCheckConfigViolations(m)
			if len(vs) != len(tt.want) {
				t.Fatalf("violations = %v, want %d matching %q", vs, len(tt.want), tt.want)
			}
			for i, want := range tt.want {
				if got := vs[i].Message(rules.TerraformName); !strings.Contains(got, want) {
					t.Errorf("violation %d = %q, want it to contain %q", i, got, want)
				}
			}
		})
	}
}

func TestCovers(t *testing.T) {
	for _, tt := range []struct {
		u, field string
		want     bool
	}{
		{"httpHealthCheck", "httpHealthCheck.port", true},
		{"httpHealthCheck", "httpHealthCheck", true},
		{"httpHealthCheck", "http2HealthCheck.port", false},
		{"sourceRegions", "sourceRegions[1]", true},
		{"sourceRegions[1]", "sourceRegions", false},
		{"timeoutSec", "timeoutSecX", false},
	} {
		if got := covers(tt.u, tt.field); got != tt.want {
			t.Errorf("covers(%q, %q) = %v, want %v", tt.u, tt.field, got, tt.want)
		}
	}
}

func TestAttributePath(t *testing.T) {
	for field, want := range map[string]path.Path{
		"timeoutSec":                     path.Root("timeout_sec"),
		"httpHealthCheck.port":           path.Root("http_health_check").AtName("port"),
		"grpcTlsHealthCheck.proxyHeader": path.Root("grpc_tls_health_check").AtName("proxy_header"),
		"sourceRegions[1]":               path.Root("source_regions").AtListIndex(1),
		"http2HealthCheck.requestPath":   path.Root("http2_health_check").AtName("request_path"),
		"logConfig.enable":               path.Root("log_config").AtName("enable"),
	} {
		got, ok := attributePath(field)
		if !ok || !got.Equal(want) {
			t.Errorf("attributePath(%q) = %v, %v; want %v", field, got, ok, want)
		}
	}
	for _, bad := range []string{"", "sourceRegions[x]", ".port"} {
		if _, ok := attributePath(bad); ok {
			t.Errorf("attributePath(%q) = ok, want false", bad)
		}
	}
}
