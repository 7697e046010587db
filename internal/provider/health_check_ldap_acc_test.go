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

// TestAccHealthCheck_ldap: LDAP and LDAPS checks apply from Terraform and
// bind to and search the target simulator's directories: HEALTHY,
// UNHEALTHY while a directory refuses binds, HEALTHY again, with the bind
// password kept as configured; a bind DN that is not a DN fails the plan.
func TestAccHealthCheck_ldap(t *testing.T) {
	sim, err := targets.Start(t.Context(), targets.Config{LDAP: 1, LDAPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	ldap, ldaps := sim.Targets()[0], sim.Targets()[1]
	e := newTestEmulator(t)
	config := func(bindDN string) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "ldap" {
  name                = "hc-ldap"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  ldap_health_check {
    port          = %d
    bind_dn       = %q
    bind_password = "directory-secret"
    base_dn       = "ou=people,dc=example,dc=com"
    filter        = "(objectClass=person)"
  }
}
resource "lbhealth_health_check" "ldaps" {
  name                = "hc-ldaps"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  ldaps_health_check {
    port = %d
  }
}
resource "lbhealth_endpoint_group" "directory" {
  name = "neg-directory"
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
resource "lbhealth_backend_service" "ldap" {
  name          = "bs-ldap"
  health_checks = [lbhealth_health_check.ldap.id]
  backend {
    group = lbhealth_endpoint_group.directory.id
  }
}
resource "lbhealth_backend_service" "ldaps" {
  name          = "bs-ldaps"
  health_checks = [lbhealth_health_check.ldaps.id]
  backend {
    group = lbhealth_endpoint_group.directory.id
  }
}
`, ldap.Port, bindDN, ldaps.Port, ldap.IP, ldap.Port, ldaps.IP, ldaps.Port))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("monitor"),
				PlanOnly:    true,
				ExpectError: errorRegexp(`ldap_health_check.bind_dn ("monitor") is not a distinguished name such as cn=monitor,dc=example,dc=com (RFC 4514)`),
			},
			{
				Config: config("cn=monitor,dc=example,dc=com"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_health_check.ldap", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeLDAP)),
					statecheck.ExpectKnownValue("lbhealth_health_check.ldaps", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeLDAPS)),
					statecheck.ExpectKnownValue("lbhealth_health_check.ldap", tfjsonpath.New("ldap_health_check").AtMapKey("bind_password"),
						knownvalue.StringExact("directory-secret")),
				},
			},
			{
				PreConfig: func() {
					for _, c := range []struct {
						service string
						target  targets.Target
					}{{"bs-ldap", ldap}, {"bs-ldaps", ldaps}} {
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
				Config:   config("cn=monitor,dc=example,dc=com"),
				PlanOnly: true,
			},
		},
	})
}
