package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// TestAccWorkload_breaksAndHeals: the example breaks web-b's workload and
// its data source waits until the probes see it UNHEALTHY; the mode
// changes in place; destroying the resource heals the workload, which the
// probes see HEALTHY again; a bad mode or instance is refused at plan
// time.
func TestAccWorkload_breaksAndHeals(t *testing.T) {
	e := newTestEmulator(t, func(c *emulator.Config) { c.Workloads = true })
	example := exampleConfig(t, e, "resources/lbhealth_workload/resource.tf")
	// The break is what the wait is for: web-a may still be booting then.
	brokenOnly := []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.lbhealth_backend_health.web", tfjsonpath.New("unhealthy_count"), knownvalue.Int64Exact(1)),
	}
	healthy := []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.lbhealth_backend_health.web", tfjsonpath.New("healthy_count"), knownvalue.Int64Exact(2)),
		statecheck.ExpectKnownValue("data.lbhealth_backend_health.web", tfjsonpath.New("unhealthy_count"), knownvalue.Int64Exact(0)),
	}
	broken := append(brokenOnly,
		statecheck.ExpectKnownValue("lbhealth_workload.web_b", tfjsonpath.New("id"),
			knownvalue.StringExact("projects/demo-project/zones/us-central1-a/instances/web-b")),
		statecheck.ExpectKnownValue("lbhealth_workload.web_b", tfjsonpath.New("mode"), knownvalue.StringExact("status-500")),
		statecheck.ExpectKnownValue("lbhealth_workload.web_b", tfjsonpath.New("address"), knownvalue.StringExact("127.0.12.2")))
	stopped := strings.Replace(example, `mode     = "status-500"`, `mode     = "stop"`, 1)
	// Healed in place: the data source, which depends on the workload,
	// waits for both once the change is applied.
	healed := strings.Replace(strings.Replace(example, `mode     = "status-500"`, `mode     = "ok"`, 1),
		"min_unhealthy = 1", "min_healthy   = 2", 1)
	// The resource gone: the workload is healed.
	gone := example[:strings.Index(example, "# Break web-b")]
	modeIs := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			w, err := e.client().GetWorkload(t.Context(), "projects/demo-project/zones/us-central1-a/instances/web-b")
			if err != nil {
				return err
			}
			if w.Mode != want {
				return fmt.Errorf("web-b's workload is in mode %q, want %q", w.Mode, want)
			}
			return nil
		}
	}
	steps := []resource.TestStep{{Config: example, ConfigStateChecks: broken}}
	// state is live: what the workload does at each read.
	steps = append(steps, importSteps(t, "resources/lbhealth_workload/import.sh", "state")...)
	steps = append(steps,
		resource.TestStep{Config: stopped,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("lbhealth_workload.web_b", plancheck.ResourceActionUpdate)}},
			ConfigStateChecks: append(brokenOnly,
				statecheck.ExpectKnownValue("lbhealth_workload.web_b", tfjsonpath.New("mode"), knownvalue.StringExact("stop")))},
		resource.TestStep{Config: healed, ConfigStateChecks: healthy},
		resource.TestStep{Config: strings.Replace(example, `"status-500"`, `"broken"`, 1), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)mode.*value must be one of`)},
		resource.TestStep{Config: strings.Replace(example, "instance = lbhealth_instance.web_b.id", `instance = "web-b"`, 1), PlanOnly: true,
			ExpectError: errorRegexp(`instance ("web-b") must be an instance's id or self_link`)},
		resource.TestStep{Config: strings.Replace(example, "min_unhealthy = 1", "min_unhealthy = 1\n    min_healthy = 1", 1), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*min_healthy`)},
		resource.TestStep{Config: stopped, Check: modeIs("stop")},
		resource.TestStep{Config: gone, Check: modeIs("ok")},
	)
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}
