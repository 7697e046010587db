package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestAccHealthCheck_expression: an expression check and an ICMP check
// (blocks with no port, the ICMP one empty) apply from Terraform, their
// endpoint turns HEALTHY with no server behind it, and the plan stays empty; a JSONata syntax error fails the
// plan, naming the field.
func TestAccHealthCheck_expression(t *testing.T) {
	e := newTestEmulator(t)
	config := func(expr string) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "rule" {
  name                = "hc-expression"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  expression_health_check {
    expression = %q
  }
}
resource "lbhealth_health_check" "ping" {
  name                = "hc-icmp"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  icmp_health_check {}
}
resource "lbhealth_backend_service" "ping" {
  name          = "bs-icmp"
  health_checks = [lbhealth_health_check.ping.id]
  backend {
    group = lbhealth_endpoint_group.any.id
  }
}
resource "lbhealth_endpoint_group" "any" {
  name = "neg-any"
  zone = "us-central1-a"
  endpoint {
    ip_address = "127.0.0.1"
    port       = 9
  }
}
resource "lbhealth_backend_service" "any" {
  name          = "bs-expression"
  health_checks = [lbhealth_health_check.rule.id]
  backend {
    group = lbhealth_endpoint_group.any.id
  }
}
`, expr))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config(`node.role = `),
				PlanOnly:    true,
				ExpectError: errorRegexp(`expression_health_check.expression ("node.role = ") is not a JSONata expression`),
			},
			{
				Config: config(`node.role = "MASTER" and endpoint.port = 9`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_health_check.rule", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeExpression)),
					statecheck.ExpectKnownValue("lbhealth_health_check.ping", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeICMP)),
				},
			},
			{
				PreConfig: func() {
					waitForHealth(t, e, "bs-expression", 9, "HEALTHY")
					waitForHealth(t, e, "bs-icmp", 9, "HEALTHY")
				},
				Config:   config(`node.role = "MASTER" and endpoint.port = 9`),
				PlanOnly: true,
			},
		},
	})
}
