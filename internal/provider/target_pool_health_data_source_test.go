package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// waitForPoolHealth polls targetPools.getHealth until instance reports state.
func waitForPoolHealth(t *testing.T, e *testEmulator, pool, instance, state string) {
	t.Helper()
	read := func() ([]api.HealthStatus, error) {
		h, err := e.client().GetTargetPoolHealth(context.Background(), client.Scope{Region: testRegion}, pool, "")
		if err != nil {
			return nil, err
		}
		return h.HealthStatus, nil
	}
	waitForStatus(t, fmt.Sprintf("instance %s of %s to be %s", instance, pool, state), read,
		func(hs api.HealthStatus) bool { return hs.Instance == instance && hs.State() == state })
}

// TestAccTargetPoolHealthDataSource_probes: a target pool's health follows
// its instance, probed with the legacy rules: 200 is healthy, a 301 fails
// (legacy checks accept 200 only), 200 again recovers.
func TestAccTargetPoolHealthDataSource_probes(t *testing.T) {
	e := newTestEmulator(t)
	target := newSwitchableServer(t)
	instance := fmt.Sprintf("127.0.0.1:%d", target.port(t))
	resources := fmt.Sprintf(`
resource "lbhealth_legacy_http_check" "probe" {
  name                = "legacy-probe"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
}
resource "lbhealth_target_pool" "web" {
  name          = "pool-web"
  instances     = [%q, "127.0.0.2"]
  health_checks = [lbhealth_legacy_http_check.probe.self_link]
}
`, instance)
	withData := resources + fmt.Sprintf(`
data "lbhealth_target_pool_health" "one" {
  target_pool = lbhealth_target_pool.web.self_link
  instance    = %q
}
data "lbhealth_target_pool_health" "all" {
  target_pool = lbhealth_target_pool.web.name
}
`, instance)
	const one, all = "data.lbhealth_target_pool_health.one", "data.lbhealth_target_pool_health.all"
	value := func(addr string, p tfjsonpath.Path, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, p, v)
	}
	inst := func(i int, attr string) tfjsonpath.Path {
		return tfjsonpath.New("instances").AtSliceIndex(i).AtMapKey(attr)
	}
	// state checks the one instance read through data.one.
	state := func(want string, reason knownvalue.Check, more ...statecheck.StateCheck) []statecheck.StateCheck {
		return append([]statecheck.StateCheck{
			value(one, tfjsonpath.New("instances"), knownvalue.ListSizeExact(1)),
			value(one, inst(0, "instance"), knownvalue.StringExact(instance)),
			value(one, inst(0, "health_state"), knownvalue.StringExact(want)),
			value(one, inst(0, "reason"), reason),
			value(one, tfjsonpath.New("all_healthy"), knownvalue.Bool(want == "HEALTHY")),
		}, more...)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.config(resources)},
			{
				PreConfig: func() { waitForPoolHealth(t, e, "pool-web", instance, "HEALTHY") },
				Config:    e.config(withData),
				ConfigStateChecks: state("HEALTHY", knownvalue.Null(),
					value(one, tfjsonpath.New("id"), knownvalue.StringExact("projects/test-project/regions/us-central1/targetPools/pool-web")),
					value(one, inst(0, "ip_address"), knownvalue.StringExact("127.0.0.1")),
					value(one, inst(0, "port"), knownvalue.Int64Exact(target.port(t))),
					value(one, inst(0, "last_probe_time"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT`))),
					value(one, tfjsonpath.New("healthy_count"), knownvalue.Int64Exact(1)),
					value(one, tfjsonpath.New("unknown_count"), knownvalue.Int64Exact(0)),
					// Every instance: 127.0.0.2 has no port of its own (port 80 of
					// the check is probed) and nothing listens there.
					value(all, tfjsonpath.New("project"), knownvalue.StringExact(testProject)),
					value(all, tfjsonpath.New("region"), knownvalue.StringExact(testRegion)),
					value(all, tfjsonpath.New("instances"), knownvalue.ListSizeExact(2)),
					value(all, tfjsonpath.New("all_healthy"), knownvalue.Bool(false)),
					value(all, inst(1, "instance"), knownvalue.StringExact("127.0.0.2")),
					value(all, inst(1, "port"), knownvalue.Null()),
				),
			},
			{
				PreConfig: func() {
					target.status.Store(http.StatusMovedPermanently)
					waitForPoolHealth(t, e, "pool-web", instance, "UNHEALTHY")
				},
				Config: e.config(withData),
				ConfigStateChecks: state("UNHEALTHY", knownvalue.StringExact("BAD_STATUS"),
					value(one, inst(0, "detail"), knownvalue.StringRegexp(regexp.MustCompile(`301`))),
					value(one, tfjsonpath.New("unhealthy_count"), knownvalue.Int64Exact(1))),
			},
			{
				PreConfig: func() {
					target.status.Store(http.StatusOK)
					waitForPoolHealth(t, e, "pool-web", instance, "HEALTHY")
				},
				Config: e.config(withData),
				ConfigStateChecks: state("HEALTHY", knownvalue.Null(),
					value(one, tfjsonpath.New("healthy_count"), knownvalue.Int64Exact(1))),
			},
		},
	})
}

func TestAccTargetPoolHealthDataSource_errors(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
data "lbhealth_target_pool_health" "test" {
  target_pool = "projects/test-project/global/targetPools/pool"
}`),
				ExpectError: errorRegexp(`target_pool "projects/test-project/global/targetPools/pool" is global, but target pools are regional`),
			},
			{
				Config: e.config(`
data "lbhealth_target_pool_health" "test" {
  target_pool = "projects/test-project/regions/us-east1/targetPools/pool"
  region      = "us-west1"
}`),
				ExpectError: errorRegexp(`target_pool is in region "us-east1", but region is "us-west1"`),
			},
			{
				Config: e.config(`
data "lbhealth_target_pool_health" "test" {
  target_pool = "pool-missing"
}`),
				ExpectError: regexp.MustCompile(`(?s)Error reading the health of target pool.*pool-missing`),
			},
			{
				Config: e.config(`
resource "lbhealth_target_pool" "test" {
  name      = "pool"
  instances = ["127.0.0.1:9000"]
}
data "lbhealth_target_pool_health" "test" {
  target_pool = lbhealth_target_pool.test.id
  instance    = "127.0.0.9"
}`),
				ExpectError: errorRegexp(`instance ("127.0.0.9") is not an instance of target pool pool.`),
			},
		},
	})
}
