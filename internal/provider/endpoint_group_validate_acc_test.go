package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccEndpointGroup_validation proves that every rule of
// rules.NetworkEndpointGroup fails terraform plan, with the emulator's
// message in Terraform names (endpoint blocks, not the API's endpoints).
func TestAccEndpointGroup_validation(t *testing.T) {
	e := newTestEmulator(t)
	tests := []struct {
		body string // inside the resource, after name
		want string
	}{
		{"network_endpoint_type = \"FUNCTION\"\n endpoint {\n ip_address = \"127.0.0.1\"\n port = 80\n }",
			`network_endpoint_type ("FUNCTION") must be one of GCE_VM_IP_PORT, GCE_VM_IP, NON_GCP_PRIVATE_IP_PORT, INTERNET_IP_PORT, INTERNET_FQDN_PORT, SERVERLESS, PRIVATE_SERVICE_CONNECT, GCE_VM_IP_PORTMAP, GCE_VM_IP_DEDICATED_BACKEND.`},
		{"network_endpoint_type = \"GCE_VM_IP\"\n endpoint {\n ip_address = \"127.0.0.1\"\n port = 80\n }",
			"endpoint[0].port (80) must not be set: GCE_VM_IP endpoints have no port (the health check's port is probed)."},
		{"network_endpoint_type = \"GCE_VM_IP\"\n default_port = 80",
			"default_port (80) must not be set when network_endpoint_type is GCE_VM_IP: GCE_VM_IP endpoints have no port"},
		{"endpoint {\n ip_address = \"127.0.0.1\"\n port = 80\n }\n endpoint {\n ip_address = \"127.0.0.2\"\n }",
			"endpoint[1].port is required: set it, or set the group's default_port."},
		{"network_endpoint_type = \"NON_GCP_PRIVATE_IP_PORT\"\n endpoint {\n ip_address = \"10.0.0.1\"\n }",
			"endpoint[0].port is required: set it, or set the group's default_port."},
		{"default_port = 80\n endpoint {\n ip_address = \"300.1.2.3\"\n }",
			`endpoint[0].ip_address ("300.1.2.3") must be an IPv4 or IPv6 address.`},
		{"default_port = 80\n endpoint {\n ip_address = \"web.internal\"\n }",
			`endpoint[0].ip_address ("web.internal") must be an IPv4 or IPv6 address.`},
		{"default_port = 80\n endpoint {\n ip_address = \"127.0.0.1\"\n }\n endpoint {\n ip_address = \"127.0.0.1\"\n port = 80\n }",
			"endpoint[1] repeats endpoint[0] (127.0.0.1, port 80 with default_port): each endpoint may be listed once."},
		{"endpoint {\n ip_address = \"::1\"\n port = 80\n }\n endpoint {\n ip_address = \"127.0.0.1\"\n port = 80\n }\n endpoint {\n ip_address = \"::1\"\n port = 80\n }",
			"endpoint[2] repeats endpoint[0] (::1, port 80): each endpoint may be listed once."},
		{"endpoint {\n ip_address = \"127.0.0.1\"\n port = 80\n state = \"PAUSED\"\n }",
			`endpoint[0].state ("PAUSED") must be one of RUNNING, STOPPED.`},
		{"endpoint {\n ip_address = \"127.0.0.1\"\n port = 80\n state = \"\"\n }",
			`endpoint[0].state ("") must not be empty: remove it to get the default "RUNNING".`},
		{"endpoint {\n ip_address = \"127.0.0.1\"\n port = 70000\n }",
			"endpoint[0].port (70000) must be between 1 and 65535."},
		{"default_port = 0", "default_port (0) must be between 1 and 65535."},
		{"zone = \"us-central1-a\"\n region = \"us-central1\"", `Attribute "region" cannot be specified when "zone" is specified`},
		{"zone = \"US_CENTRAL\"", `zone ("US_CENTRAL") is not a valid name`},
	}
	steps := make([]resource.TestStep, 0, len(tests)+1)
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("resource \"lbhealth_endpoint_group\" \"test\" {\n name = \"neg-invalid\"\n " + tt.body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	steps = append(steps, resource.TestStep{
		Config:      e.config("resource \"lbhealth_endpoint_group\" \"test\" {\n name = \"neg_invalid\"\n}"),
		PlanOnly:    true,
		ExpectError: errorRegexp(`name ("neg_invalid") is not a valid name`),
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

// TestAccEndpointGroup_dynamicEndpoints: endpoints built with dynamic from
// variables are unknown while Terraform validates; no rule may fire on
// them (two endpoints of one address with unknown ports are not duplicates).
func TestAccEndpointGroup_dynamicEndpoints(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
variable "ports" {
  type    = list(number)
  default = [9000, 9001]
}
resource "lbhealth_endpoint_group" "test" {
  name = "neg-dynamic"
  zone = "us-central1-a"
  dynamic "endpoint" {
    for_each = var.ports
    content {
      ip_address = "127.0.0.1"
      port       = endpoint.value
    }
  }
}`),
			},
		},
	})
}
