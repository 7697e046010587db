package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// startTargets starts the target simulator's HTTP targets on free ports for
// one test, as `lbhealth-emulator targets --http n` does on fixed ones.
func startTargets(t *testing.T, n int) *targets.Set {
	t.Helper()
	set, err := targets.Start(context.Background(), targets.Config{HTTP: n})
	if err != nil {
		t.Fatalf("starting the targets: %v", err)
	}
	t.Cleanup(func() { _ = set.Close() })
	return set
}

// targetPorts are the ports of targets first..last (http-1 is 1), as a
// Terraform list variable.
func targetPorts(set *targets.Set, first, last int) config.Variable {
	var ports []config.Variable
	for i, tg := range set.Targets() {
		if i+1 >= first && i+1 <= last {
			ports = append(ports, config.IntegerVariable(tg.Port))
		}
	}
	return config.ListVariable(ports...)
}

// setTargetMode sets the mode of targets first..last.
func setTargetMode(t *testing.T, set *targets.Set, first, last int, mode targets.Mode) {
	t.Helper()
	for i := first; i <= last; i++ {
		if err := set.SetMode(fmt.Sprintf("http-%d", i), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// waitForComposite polls getHealth of a composite check until it reports
// state, and returns how long that took. The deadline is a hang guard, not
// a measurement.
func waitForComposite(t *testing.T, e *testEmulator, project, region, name, state string) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		h, err := client.New(e.Addr(), project).GetCompositeHealthCheckHealth(context.Background(), client.Scope{Region: region}, name)
		if err != nil {
			t.Fatalf("getHealth of composite %s in %s: %v", name, region, err)
		}
		if last = h.HealthState; last == state {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for composite %s in %s to be %s; last state %s", name, region, state, last)
	return 0
}

// failoverConfig is files of examples/composite-failover, which are not
// its terraform and provider blocks (versions.tf), under a provider block
// pointing at e.
func failoverConfig(t *testing.T, e *testEmulator, files ...string) string {
	t.Helper()
	return exampleDirConfig(t, e, "composite-failover", files...)
}

// exampleDirConfig is files of the example directory dir, which are not
// its terraform and provider blocks (versions.tf), under a provider block
// pointing at e.
func exampleDirConfig(t *testing.T, e *testEmulator, dir string, files ...string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "provider \"lbhealth\" {\n  endpoint = %q\n  project  = \"demo-project\"\n}\n", e.Addr())
	for _, f := range files {
		body, err := os.ReadFile(filepath.Join(examplesDir, dir, f))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(body)
	}
	return b.String()
}

// TestAccExamples_compositeFailover applies the failover example as a user
// does, over targets this test starts, and follows its walkthrough: both
// regions' composites become HEALTHY; region one's targets break and its
// composite turns UNHEALTHY while region two's stays HEALTHY, as the data
// source shows; then region one recovers.
func TestAccExamples_compositeFailover(t *testing.T) {
	e := newTestEmulator(t)
	set := startTargets(t, 6)
	vars := config.Variables{"region_one_ports": targetPorts(set, 1, 3), "region_two_ports": targetPorts(set, 4, 6)}
	// The live health the outputs show changes as probes run: a step may
	// read it only once it is settled, or the plan after apply differs.
	resources := failoverConfig(t, e, "variables.tf", "main.tf")
	cfg := failoverConfig(t, e, "variables.tf", "main.tf", "outputs.tf")
	const one, two = "us-central1", "us-east1"
	wait := func(region, state string) time.Duration {
		return waitForComposite(t, e, "demo-project", region, "shop", state)
	}
	sourceURL := func(region string) string {
		return "http://" + e.Addr() + "/compute/v1/projects/demo-project/regions/" + region + "/healthSources/shop"
	}
	states := func(stateOne, stateTwo string) []statecheck.StateCheck {
		var serving []knownvalue.Check
		for _, r := range []struct{ region, state string }{{one, stateOne}, {two, stateTwo}} {
			if r.state == "HEALTHY" {
				serving = append(serving, knownvalue.StringExact(r.region))
			}
		}
		return []statecheck.StateCheck{
			statecheck.ExpectKnownOutputValue("composite_health", knownvalue.MapExact(map[string]knownvalue.Check{
				one: knownvalue.StringExact(stateOne), two: knownvalue.StringExact(stateTwo)})),
			statecheck.ExpectKnownOutputValueAtPath("health_sources", tfjsonpath.New(one), knownvalue.MapExact(
				map[string]knownvalue.Check{sourceURL(one): knownvalue.StringExact(stateOne)})),
			statecheck.ExpectKnownOutputValueAtPath("health_sources", tfjsonpath.New(two), knownvalue.MapExact(
				map[string]knownvalue.Check{sourceURL(two): knownvalue.StringExact(stateTwo)})),
			statecheck.ExpectKnownOutputValue("serving_regions", knownvalue.ListExact(serving)),
			statecheck.ExpectKnownValue("data.lbhealth_composite_health.shop[0]", tfjsonpath.New("healthy"),
				knownvalue.Bool(stateOne == "HEALTHY")),
			statecheck.ExpectKnownValue("data.lbhealth_composite_health.shop[1]", tfjsonpath.New("sources").AtSliceIndex(0).AtMapKey("health_state"),
				knownvalue.StringExact(stateTwo)),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: resources, ConfigVariables: vars},
			{
				PreConfig:         func() { wait(one, "HEALTHY"); wait(two, "HEALTHY") },
				Config:            cfg,
				ConfigVariables:   vars,
				ConfigStateChecks: states("HEALTHY", "HEALTHY"),
			},
			{
				PreConfig: func() {
					setTargetMode(t, set, 1, 3, targets.ModeStatus500)
					took := wait(one, "UNHEALTHY")
					// The example's check: (unhealthy_threshold - 1) * check_interval_sec +
					// timeout_sec = 5s after the first failing probe, which starts at most one
					// interval (2s) after the break. Logged, not asserted: a busy machine
					// delays it by any amount (the engine's bound is tested on its injected
					// clock, TestEngine_DetectionWithinBound).
					t.Logf("region one's composite turned UNHEALTHY %v after its targets broke (bound 7s)", took.Round(10*time.Millisecond))
				},
				Config:            cfg,
				ConfigVariables:   vars,
				ConfigStateChecks: states("UNHEALTHY", "HEALTHY"),
			},
			{
				PreConfig:         func() { setTargetMode(t, set, 1, 3, targets.ModeOK); wait(one, "HEALTHY") },
				Config:            cfg,
				ConfigVariables:   vars,
				ConfigStateChecks: states("HEALTHY", "HEALTHY"),
			},
		},
	})
}

// TestAccExamples_compositeHealth applies the examples of the three
// resources and the data source together (each builds on the one before),
// then runs their import.sh commands.
func TestAccExamples_compositeHealth(t *testing.T) {
	e := newTestEmulator(t)
	files := []string{"resources/lbhealth_composite_check/resource.tf"}
	const orders = "data.lbhealth_composite_health.orders"
	// Its state changes as the first probes run (HEALTHY or UNHEALTHY,
	// depending on what answers on the simulator's ports on this machine):
	// the data source reads it once settled, so that the plan after apply
	// sees the same.
	settled := func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			h, err := client.New(e.Addr(), "demo-project").GetCompositeHealthCheckHealth(context.Background(),
				client.Scope{Region: "us-central1"}, "orders")
			if err != nil {
				t.Fatal(err)
			}
			if h.HealthState != "UNKNOWN" {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("the orders composite is still UNKNOWN after 30s")
	}
	steps := []resource.TestStep{{
		Config: exampleConfig(t, e, files...),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("lbhealth_aggregation_policy.default", tfjsonpath.New("region"), knownvalue.StringExact("us-central1")),
		},
	}}
	for _, f := range files {
		steps = append(steps, importSteps(t, strings.Replace(f, "resource.tf", "import.sh", 1))...)
	}
	steps = append(steps, resource.TestStep{
		PreConfig: settled,
		Config:    shortWait(t, exampleConfig(t, e, append(files, "data-sources/lbhealth_composite_health/data-source.tf")...), `timeout = "1m"`),
		// Its check block's data source is read at every plan.
		ExpectNonEmptyPlan: true,
		ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{onlyDataReads{}}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(orders, tfjsonpath.New("id"),
				knownvalue.StringExact("projects/demo-project/regions/us-central1/compositeHealthChecks/orders")),
			statecheck.ExpectKnownValue(orders, tfjsonpath.New("region"), knownvalue.StringExact("us-central1")),
			statecheck.ExpectKnownValue(orders, tfjsonpath.New("health_state"), knownvalue.StringRegexp(regexp.MustCompile(`^(HEALTHY|UNHEALTHY)$`))),
			statecheck.ExpectKnownValue(orders, tfjsonpath.New("sources"), knownvalue.ListSizeExact(1)),
		},
	})
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}
