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
	"github.com/lbhealth/terraform-provider-lbhealth/internal/testpg"
)

// TestAccHealthCheck_sql: a SQL check applies from Terraform with its DSN
// from a sensitive variable, logs in to a real PostgreSQL server and to
// the target simulator's POSTGRES target: HEALTHY, UNHEALTHY while the
// target refuses logins, HEALTHY again, with no drift; an unknown driver
// fails the plan.
func TestAccHealthCheck_sql(t *testing.T) {
	pg := testpg.Start(t)
	sim, err := targets.Start(t.Context(), targets.Config{Postgres: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	tg := sim.Targets()[0]
	e := newTestEmulator(t)
	config := func(driver string) string {
		return e.config(fmt.Sprintf(`
variable "dsn" {
  type      = string
  sensitive = true
  default   = %q
}
resource "lbhealth_health_check" "sql" {
  name                = "hc-sql"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  sql_health_check {
    port_specification = "USE_SERVING_PORT"
    driver             = %q
    dsn                = var.dsn
    query              = "SELECT 1"
  }
}
resource "lbhealth_endpoint_group" "db" {
  name = "neg-db"
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
resource "lbhealth_backend_service" "db" {
  name          = "bs-db"
  health_checks = [lbhealth_health_check.sql.id]
  backend {
    group = lbhealth_endpoint_group.db.id
  }
}
`, pg.DSN(), driver, pg.IP, pg.Port, tg.IP, tg.Port))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("mysql"),
				PlanOnly:    true,
				ExpectError: errorRegexp(`sql_health_check.driver ("mysql") must be one of postgres, oracle.`),
			},
			{
				Config: config("postgres"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_health_check.sql", tfjsonpath.New("type"), knownvalue.StringExact(api.TypeSQL)),
					statecheck.ExpectKnownValue("lbhealth_health_check.sql", tfjsonpath.New("sql_health_check").AtMapKey("dsn"),
						knownvalue.StringExact(pg.DSN())),
				},
			},
			{
				PreConfig: func() {
					waitForHealth(t, e, "bs-db", int64(pg.Port), "HEALTHY")
					waitForHealth(t, e, "bs-db", int64(tg.Port), "HEALTHY")
					if err := sim.SetMode(tg.Name, targets.ModeReject); err != nil {
						t.Fatal(err)
					}
					waitForHealth(t, e, "bs-db", int64(tg.Port), "UNHEALTHY")
					if err := sim.SetMode(tg.Name, targets.ModeOK); err != nil {
						t.Fatal(err)
					}
					waitForHealth(t, e, "bs-db", int64(tg.Port), "HEALTHY")
				},
				Config:   config("postgres"),
				PlanOnly: true,
			},
		},
	})
}
