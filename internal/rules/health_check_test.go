package rules

import "testing"

func TestTerraformName(t *testing.T) {
	for in, want := range map[string]string{
		"checkIntervalSec":                   "check_interval_sec",
		"httpHealthCheck.requestPath":        "http_health_check.request_path",
		"grpcTlsHealthCheck.grpcServiceName": "grpc_tls_health_check.grpc_service_name",
		"http2HealthCheck.port":              "http2_health_check.port",
		"sourceRegions[1]":                   "source_regions[1]",
	} {
		if got := TerraformName(in); got != want {
			t.Errorf("TerraformName(%q) = %q, want %q", in, got, want)
		}
	}
}
