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

// TestAccHealthCheck_smtp: SMTP and SMTPS checks apply from Terraform and
// probe the target simulator's SMTP targets: HEALTHY, UNHEALTHY while the
// simulator rejects sessions, HEALTHY again; a bad helo_domain fails the
// plan with the field's name.
func TestAccHealthCheck_smtp(t *testing.T) {
	sim, err := targets.Start(t.Context(), targets.Config{SMTP: 1, SMTPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	smtp, smtps := sim.Targets()[0], sim.Targets()[1]
	e := newTestEmulator(t)
	config := func(helo string) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "smtp" {
  name                = "hc-smtp"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  smtp_health_check {
    port        = %d
    helo_domain = %q
  }
}
resource "lbhealth_health_check" "smtps" {
  name                = "hc-smtps"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  smtps_health_check {
    port = %d
  }
}
resource "lbhealth_endpoint_group" "mail" {
  name = "neg-mail"
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
resource "lbhealth_backend_service" "smtp" {
  name          = "bs-smtp"
  health_checks = [lbhealth_health_check.smtp.id]
  backend {
    group = lbhealth_endpoint_group.mail.id
  }
}
resource "lbhealth_backend_service" "smtps" {
  name          = "bs-smtps"
  health_checks = [lbhealth_health_check.smtps.id]
  backend {
    group = lbhealth_endpoint_group.mail.id
  }
}
`, smtp.Port, helo, smtps.Port, smtp.IP, smtp.Port, smtps.IP, smtps.Port))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("probe host"),
				PlanOnly:    true,
				ExpectError: errorRegexp(`smtp_health_check.helo_domain ("probe host") must be a domain name or an address literal in brackets ([192.0.2.1]): what the check says in EHLO.`),
			},
			{
				Config: config("probe.example.com"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_health_check.smtp", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeSMTP)),
					statecheck.ExpectKnownValue("lbhealth_health_check.smtps", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeSMTPS)),
				},
			},
			{
				PreConfig: func() {
					for _, c := range []struct {
						service string
						target  targets.Target
					}{{"bs-smtp", smtp}, {"bs-smtps", smtps}} {
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
				Config:   config("probe.example.com"),
				PlanOnly: true,
			},
		},
	})
}
