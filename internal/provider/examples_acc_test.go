package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The examples are the docs' examples: these tests apply them as written
// (each step also proves that the plan after apply is empty) and run the
// commands of their import.sh.

const examplesDir = "../../examples"

// exampleConfig is the example files, in the project and region the
// examples assume, against e.
func exampleConfig(t *testing.T, e *testEmulator, files ...string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "provider \"lbhealth\" {\n  endpoint = %q\n  project  = \"demo-project\"\n  region   = \"us-central1\"\n}\n", e.Addr())
	for _, f := range files {
		body, err := os.ReadFile(filepath.Join(examplesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(body)
	}
	return b.String()
}

// shortWait is config with the wait_for timeout it gives (as written)
// cut to a second, so that a test does not wait for what it does not serve.
func shortWait(t *testing.T, config, timeout string) string {
	t.Helper()
	if !strings.Contains(config, timeout) {
		t.Fatalf("the example no longer has %s: update the test", timeout)
	}
	return strings.Replace(config, timeout, `timeout = "1s"`, 1)
}

// importSteps is one import step per "terraform import ADDR ID" line of an
// import.sh; ignore lists attributes import cannot know (references are
// imported as URLs, whatever form the configuration wrote).
func importSteps(t *testing.T, file string, ignore ...string) []resource.TestStep {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(examplesDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var steps []resource.TestStep
	for _, line := range strings.Split(string(body), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "terraform" || f[1] != "import" {
			continue
		}
		steps = append(steps, resource.TestStep{ResourceName: f[2], ImportStateId: f[3], ImportState: true,
			ImportStateVerify: true, ImportStateVerifyIgnore: ignore})
	}
	if len(steps) == 0 {
		t.Fatalf("%s has no terraform import command", file)
	}
	return steps
}

func TestAccExamples_healthCheck(t *testing.T) {
	e := newTestEmulator(t)
	steps := []resource.TestStep{{
		Config: exampleConfig(t, e, "resources/lbhealth_health_check/resource.tf"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("lbhealth_health_check.dns", tfjsonpath.New("type"), knownvalue.StringExact("DNS")),
			statecheck.ExpectKnownValue("lbhealth_health_check.ftps", tfjsonpath.New("ftps_health_check").AtMapKey("password"), knownvalue.StringExact("example-only")),
			statecheck.ExpectKnownValue("lbhealth_health_check.resolver", tfjsonpath.New("type"), knownvalue.StringExact("SCENARIO")),
			statecheck.ExpectKnownValue("lbhealth_health_check.ping", tfjsonpath.New("type"), knownvalue.StringExact("ICMP")),
			statecheck.ExpectKnownValue("lbhealth_health_check.tcp", tfjsonpath.New("region"), knownvalue.StringExact("us-central1")),
		},
	}}
	steps = append(steps, importSteps(t, "resources/lbhealth_health_check/import.sh")...)
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

func TestAccExamples_endpointGroup(t *testing.T) {
	e := newTestEmulator(t)
	steps := []resource.TestStep{{
		Config: exampleConfig(t, e, "resources/lbhealth_endpoint_group/resource.tf"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("lbhealth_endpoint_group.web", tfjsonpath.New("size"), knownvalue.Int64Exact(3)),
			statecheck.ExpectKnownValue("lbhealth_endpoint_group.api", tfjsonpath.New("region"), knownvalue.StringExact("us-central1")),
		},
	}}
	steps = append(steps, importSteps(t, "resources/lbhealth_endpoint_group/import.sh")...)
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

func TestAccExamples_backendService(t *testing.T) {
	e := newTestEmulator(t)
	const service = "resources/lbhealth_backend_service/resource.tf"
	steps := []resource.TestStep{{Config: exampleConfig(t, e, service)}}
	steps = append(steps, importSteps(t, "resources/lbhealth_backend_service/import.sh", "health_checks", "backend")...)
	steps = append(steps, resource.TestStep{
		// The data source example reads the services of the resource example,
		// whose endpoints nothing serves: its wait is cut short (a warning).
		Config: shortWait(t, exampleConfig(t, e, service, "data-sources/lbhealth_backend_health/data-source.tf"), `timeout     = "2m"`),
		// Its check block's data source is read at every plan.
		ExpectNonEmptyPlan: true,
		ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{onlyDataReads{}}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.lbhealth_backend_health.web", tfjsonpath.New("endpoints"), knownvalue.ListSizeExact(2)),
			statecheck.ExpectKnownValue("data.lbhealth_backend_health.grpc", tfjsonpath.New("endpoints"), knownvalue.ListSizeExact(1)),
			statecheck.ExpectKnownValue("data.lbhealth_backend_health.grpc", tfjsonpath.New("region"), knownvalue.StringExact("us-central1")),
		},
	})
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

func TestAccExamples_legacyChecks(t *testing.T) {
	for _, k := range []legacyKind{legacyHTTP, legacyHTTPS} {
		t.Run(k.typeSuffix, func(t *testing.T) {
			e := newTestEmulator(t)
			dir := "resources/lbhealth_" + k.typeSuffix
			steps := []resource.TestStep{{Config: exampleConfig(t, e, dir+"/resource.tf")}}
			steps = append(steps, importSteps(t, dir+"/import.sh")...)
			resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
		})
	}
}

func TestAccExamples_targetPool(t *testing.T) {
	e := newTestEmulator(t)
	const pool = "resources/lbhealth_target_pool/resource.tf"
	steps := []resource.TestStep{{
		Config: exampleConfig(t, e, pool),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("lbhealth_target_pool.web", tfjsonpath.New("region"), knownvalue.StringExact("us-central1")),
		},
	}}
	steps = append(steps, importSteps(t, "resources/lbhealth_target_pool/import.sh")...)
	steps = append(steps, resource.TestStep{
		// The data source example reads the pool of the resource example.
		Config: exampleConfig(t, e, pool, "data-sources/lbhealth_target_pool_health/data-source.tf"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.lbhealth_target_pool_health.web", tfjsonpath.New("instances"), knownvalue.ListSizeExact(3)),
			statecheck.ExpectKnownValue("data.lbhealth_target_pool_health.first", tfjsonpath.New("instances"), knownvalue.ListSizeExact(1)),
		},
	})
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

func TestAccExamples_forwardingRule(t *testing.T) {
	e := newTestEmulator(t)
	steps := []resource.TestStep{{
		Config: exampleConfig(t, e, "resources/lbhealth_forwarding_rule/resource.tf"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("lbhealth_forwarding_rule.global", tfjsonpath.New("region"), knownvalue.Null()),
			statecheck.ExpectKnownValue("lbhealth_forwarding_rule.internal", tfjsonpath.New("load_balancing_scheme"),
				knownvalue.StringExact("INTERNAL_MANAGED")),
		},
	}}
	// References are imported as URLs: the example writes ids for some.
	steps = append(steps, importSteps(t, "resources/lbhealth_forwarding_rule/import.sh", "backend_service")...)
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}
