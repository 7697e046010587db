package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccHealthCheck_validation proves that every rule of health checks fails
// terraform plan, with the emulator's message in Terraform names.
func TestAccHealthCheck_validation(t *testing.T) {
	e := newTestEmulator(t)
	sourceRegions := `source_regions = ["us-central1", "us-east1", "europe-west1"]`
	tests := []struct {
		body string // inside the resource, after name
		want string
	}{
		{"check_interval_sec = 0\n tcp_health_check {}", "check_interval_sec (0) must be between 1 and 300."},
		{"check_interval_sec = 301\n tcp_health_check {}", "check_interval_sec (301) must be between 1 and 300."},
		{"timeout_sec = 0\n tcp_health_check {}", "timeout_sec (0) must be between 1 and 300."},
		{"healthy_threshold = 11\n tcp_health_check {}", "healthy_threshold (11) must be between 1 and 10."},
		{"unhealthy_threshold = 0\n tcp_health_check {}", "unhealthy_threshold (0) must be between 1 and 10."},
		{"check_interval_sec = 5\n timeout_sec = 10\n tcp_health_check {}",
			"timeout_sec (10) must be less than or equal to check_interval_sec (5)."},
		{"", "exactly one protocol block must be set, found none"},
		{"tcp_health_check {}\n http_health_check {}", "exactly one protocol block must be set, found tcp_health_check and http_health_check"},
		{"http_health_check {\n port = 70000\n }", "http_health_check.port (70000) must be between 1 and 65535."},
		{"tcp_health_check {\n port_specification = \"USE_FIXED_PORT\"\n port_name = \"web\"\n }",
			`tcp_health_check.port_name ("web") must not be set when tcp_health_check.port_specification is USE_FIXED_PORT`},
		{"https_health_check {\n port_specification = \"USE_NAMED_PORT\"\n port = 443\n port_name = \"https\"\n }",
			"https_health_check.port (443) must not be set when https_health_check.port_specification is USE_NAMED_PORT"},
		{"http2_health_check {\n port_specification = \"USE_NAMED_PORT\"\n }",
			"http2_health_check.port_name is required when http2_health_check.port_specification is USE_NAMED_PORT."},
		{"ssl_health_check {\n port_specification = \"USE_SERVING_PORT\"\n port = 443\n }",
			"ssl_health_check.port (443) must not be set when ssl_health_check.port_specification is USE_SERVING_PORT"},
		{"grpc_health_check {}", "grpc_health_check.port is required: GRPC checks have no default port"},
		{"grpc_tls_health_check {\n port_specification = \"USE_NAMED_PORT\"\n }",
			`grpc_tls_health_check.port_specification ("USE_NAMED_PORT") must be one of USE_FIXED_PORT, USE_SERVING_PORT.`},
		{"tcp_health_check {\n proxy_header = \"PROXY_V2\"\n }", `tcp_health_check.proxy_header ("PROXY_V2") must be one of NONE, PROXY_V1.`},
		{"http_health_check {\n request_path = \"healthz\"\n }", `http_health_check.request_path ("healthz") must start with "/".`},
		{"http_health_check {\n request_path = \"\"\n }", `http_health_check.request_path ("") must not be empty: remove it to get the default "/".`},
		{"tcp_health_check {\n proxy_header = \"\"\n }", `tcp_health_check.proxy_header ("") must not be empty: remove it to get the default "NONE".`},
		{"tcp_health_check {\n request = \"h\u00e9llo\"\n }", "has a character that is not printable ASCII at byte 1"},
		{"http_health_check {\n response = \"" + strings.Repeat("a", 1025) + "\"\n }",
			"http_health_check.response is 1025 characters long: it must be at most 1024 characters."},
		{"check_interval_sec = 30\n source_regions = [\"us-central1\", \"us-east1\"]\n tcp_health_check {}",
			"source_regions lists 2 regions: it must list exactly 3."},
		{"check_interval_sec = 10\n " + sourceRegions + "\n tcp_health_check {}",
			"check_interval_sec (10) must be at least 30 when source_regions is set."},
		{"check_interval_sec = 30\n " + sourceRegions + "\n ssl_health_check {}",
			"ssl_health_check cannot be used with source_regions"},
		{"check_interval_sec = 30\n " + sourceRegions + "\n tcp_health_check {\n request = \"ping\"\n }",
			`tcp_health_check.request ("ping") must not be set when source_regions is set`},
		{"check_interval_sec = 30\n " + sourceRegions + "\n http_health_check {\n proxy_header = \"PROXY_V1\"\n }",
			`http_health_check.proxy_header ("PROXY_V1") must be NONE when source_regions is set.`},
		{"region = \"us-east1\"\n check_interval_sec = 30\n " + sourceRegions + "\n tcp_health_check {}",
			"source_regions can only be set on a global health check"},
	}
	steps := make([]resource.TestStep, 0, len(tests)+1)
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("resource \"lbhealth_health_check\" \"test\" {\n name = \"hc-invalid\"\n " + tt.body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	steps = append(steps, resource.TestStep{
		Config:      e.config("resource \"lbhealth_health_check\" \"test\" {\n name = \"Bad_Name\"\n tcp_health_check {}\n}"),
		PlanOnly:    true,
		ExpectError: errorRegexp(`name ("Bad_Name") is not a valid name`),
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}
