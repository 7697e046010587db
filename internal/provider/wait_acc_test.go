package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// waitConfig is a service over two endpoints, the one at port serving and
// one where nothing listens, and its health data source with wait, in
// one configuration: the data source is read right after the apply made
// them, before any probe has answered.
func waitConfig(port int64, wait string) string {
	return fmt.Sprintf(`
resource "lbhealth_health_check" "probe" {
  name                = "hc-wait"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 2
  unhealthy_threshold = 2
  http_health_check {
    port_specification = "USE_SERVING_PORT"
  }
}
resource "lbhealth_endpoint_group" "web" {
  name = "neg-wait"
  zone = "us-central1-a"
  endpoint {
    ip_address = "127.0.0.1"
    port       = %d
  }
  endpoint {
    ip_address = "127.0.0.1"
    port       = 1
  }
}
resource "lbhealth_backend_service" "web" {
  name          = "bs-wait"
  health_checks = [lbhealth_health_check.probe.self_link]
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}
data "lbhealth_backend_health" "web" {
  backend_service = lbhealth_backend_service.web.self_link
  %s
}
`, port, wait)
}

// A wait_for block makes the read right after the apply wait for the
// probes' verdicts: at least min_healthy HEALTHY; past its timeout the
// read fails saying what it saw. Its settings are checked.
func TestAccBackendHealthDataSource_waitFor(t *testing.T) {
	e := newTestEmulator(t)
	target := newSwitchableServer(t)
	port := target.port(t)
	const web = "data.lbhealth_backend_health.web"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(waitConfig(port, `wait_for {
    min_healthy = 1
    timeout     = "60s"
  }`)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(web, tfjsonpath.New("healthy_count"), knownvalue.Int64Exact(1)),
				},
			},
			{
				// Every endpoint: the one where nothing listens never is.
				Config: e.config(waitConfig(port, `wait_for {
    timeout = "3s"
  }`)),
				ExpectError: regexp.MustCompile(`waited 3s: 1 of 2 endpoints HEALTHY, want every one; 127\.0\.0\.1:1 UNHEALTHY`),
			},
			{
				Config:      e.config(waitConfig(port, `wait_for { timeout = "banana" }`)),
				ExpectError: regexp.MustCompile(`wait_for\.timeout \("banana"\) must be a positive duration, such as 30s or 2m`),
			},
			{
				Config:      e.config(waitConfig(port, `wait_for { min_healthy = 0 }`)),
				ExpectError: regexp.MustCompile(`(?s)wait_for\.min_healthy.*must be at least 1, got: 0`),
			},
			{Config: e.config(waitConfig(port, ""))}, // a valid configuration to destroy
		},
	})
}
