package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestAccHealthCheck_ftp: FTP and implicit FTPS checks with a login apply
// from Terraform and probe the target simulator's FTP targets: HEALTHY,
// UNHEALTHY while the simulator refuses logins, HEALTHY again. The
// password, which the API never returns, stays as configured (no drift),
// changes in place, and is left out of an import; a password without a
// user fails the plan.
func TestAccHealthCheck_ftp(t *testing.T) {
	sim, err := targets.Start(t.Context(), targets.Config{FTP: 1, FTPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	ftp, ftps := sim.Targets()[0], sim.Targets()[1]
	e := newTestEmulator(t)
	config := func(user, password string) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "ftp" {
  name                = "hc-ftp"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  ftp_health_check {
    port     = %d
    username = %q
    password = %q
  }
}
resource "lbhealth_health_check" "ftps" {
  name                = "hc-ftps"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  ftps_health_check {
    port     = %d
    tls_mode = "IMPLICIT"
    username = "probe"
    password = "ftps-secret"
  }
}
resource "lbhealth_endpoint_group" "files" {
  name = "neg-files"
  zone = "us-central1-a"
  endpoint {
    ip_address = %q
    port       = %d
  }
  endpoint {
    ip_address = %q
    port       = %d
  }
}
resource "lbhealth_backend_service" "ftp" {
  name          = "bs-ftp"
  health_checks = [lbhealth_health_check.ftp.id]
  backend {
    group = lbhealth_endpoint_group.files.id
  }
}
resource "lbhealth_backend_service" "ftps" {
  name          = "bs-ftps"
  health_checks = [lbhealth_health_check.ftps.id]
  backend {
    group = lbhealth_endpoint_group.files.id
  }
}
`, ftp.Port, user, password, ftps.Port, ftp.IP, ftp.Port, ftps.IP, ftps.Port))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("", "no-user"),
				PlanOnly:    true,
				ExpectError: errorRegexp(`ftp_health_check.password is set but ftp_health_check.username is not: a check logs in only with both.`),
			},
			{
				Config: config("probe", "first-secret"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_health_check.ftp", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeFTP)),
					statecheck.ExpectKnownValue("lbhealth_health_check.ftps", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeFTPS)),
					statecheck.ExpectKnownValue("lbhealth_health_check.ftp", tfjsonpath.New("ftp_health_check").AtMapKey("password"),
						knownvalue.StringExact("first-secret")),
				},
			},
			{
				PreConfig: func() {
					for _, c := range []struct {
						service string
						target  targets.Target
					}{{"bs-ftp", ftp}, {"bs-ftps", ftps}} {
						port := int64(c.target.Port)
						waitForHealth(t, e, c.service, port, "HEALTHY")
						if err := sim.SetMode(c.target.Name, targets.ModeReject); err != nil {
							t.Fatal(err)
						}
						waitForHealth(t, e, c.service, port, "UNHEALTHY")
						if err := sim.SetMode(c.target.Name, targets.ModeOK); err != nil {
							t.Fatal(err)
						}
						waitForHealth(t, e, c.service, port, "HEALTHY")
					}
				},
				Config:   config("probe", "first-secret"),
				PlanOnly: true,
			},
			{
				Config: config("probe", "second-secret"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("lbhealth_health_check.ftp", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_health_check.ftp", tfjsonpath.New("ftp_health_check").AtMapKey("password"),
						knownvalue.StringExact("second-secret")),
				},
			},
			{
				ResourceName:            "lbhealth_health_check.ftp",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"ftp_health_check.password"},
			},
		},
	})
}
