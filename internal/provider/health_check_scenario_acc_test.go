package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestAccHealthCheck_scenario: a scenario over an HTTP and a TCP check,
// referenced by id, applies from Terraform with no drift, goes UNHEALTHY
// when one member's target breaks and HEALTHY again; an unknown operator
// fails the plan.
func TestAccHealthCheck_scenario(t *testing.T) {
	sim, err := targets.Start(t.Context(), targets.Config{HTTP: 1, TCP: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	web, tcp := sim.Targets()[0], sim.Targets()[1]
	e := newTestEmulator(t)
	config := func(operator string) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "web" {
  name = "hc-web"
  http_health_check {
    port = %d
  }
}
resource "lbhealth_health_check" "tcp" {
  name = "hc-tcp"
  tcp_health_check {
    port = %d
  }
}
resource "lbhealth_health_check" "both" {
  name                = "hc-both"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  scenario_health_check {
    operator      = %q
    health_checks = [lbhealth_health_check.web.id, lbhealth_health_check.tcp.name]
  }
}
resource "lbhealth_endpoint_group" "app" {
  name = "neg-app"
  zone = "us-central1-a"
  endpoint {
    ip_address = %q
    port       = %d
  }
}
resource "lbhealth_backend_service" "app" {
  name          = "bs-app"
  health_checks = [lbhealth_health_check.both.id]
  backend {
    group = lbhealth_endpoint_group.app.id
  }
}
`, web.Port, tcp.Port, operator, web.IP, web.Port))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("XOR"),
				PlanOnly:    true,
				ExpectError: errorRegexp(`scenario_health_check.operator ("XOR") must be one of AND, OR.`),
			},
			{
				Config: config("AND"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_health_check.both", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeScenario)),
					statecheck.ExpectKnownValue("lbhealth_health_check.both", tfjsonpath.New("scenario_health_check").AtMapKey("health_checks").AtSliceIndex(1),
						knownvalue.StringExact("hc-tcp")),
				},
			},
			{
				PreConfig: func() {
					port := int64(web.Port)
					waitForHealth(t, e, "bs-app", port, "HEALTHY")
					if err := sim.SetMode(tcp.Name, targets.ModeRefuse); err != nil {
						t.Fatal(err)
					}
					waitForHealth(t, e, "bs-app", port, "UNHEALTHY")
					if err := sim.SetMode(tcp.Name, targets.ModeOK); err != nil {
						t.Fatal(err)
					}
					waitForHealth(t, e, "bs-app", port, "HEALTHY")
				},
				Config:   config("AND"),
				PlanOnly: true,
			},
		},
	})
}
