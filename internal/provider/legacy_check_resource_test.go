package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccLegacyHTTPCheck_basic(t *testing.T) { testAccLegacyCheckBasic(t, legacyHTTP) }

func TestAccLegacyHTTPSCheck_basic(t *testing.T) { testAccLegacyCheckBasic(t, legacyHTTPS) }

// testAccLegacyCheckBasic: create with defaults (the default port known at
// plan time), update every field in place, import by id, name and
// {project}/{name}.
func testAccLegacyCheckBasic(t *testing.T, k legacyKind) {
	e := newTestEmulator(t)
	addr := "lbhealth_" + k.typeSuffix + ".test"
	value := func(attr string, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), v)
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(fmt.Sprintf("resource %q \"test\" {\n  name = \"legacy-basic\"\n}", "lbhealth_"+k.typeSuffix)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("port"), knownvalue.Int64Exact(k.defaultPort())),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("id"),
						knownvalue.StringExact("projects/test-project/global/"+k.collection+"/legacy-basic")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					value("id", knownvalue.StringExact("projects/test-project/global/"+k.collection+"/legacy-basic")),
					value("project", knownvalue.StringExact(testProject)),
					value("port", knownvalue.Int64Exact(k.defaultPort())),
					value("request_path", knownvalue.StringExact("/")),
					value("host", knownvalue.Null()),
					value("check_interval_sec", knownvalue.Int64Exact(5)),
					value("timeout_sec", knownvalue.Int64Exact(5)),
					value("healthy_threshold", knownvalue.Int64Exact(2)),
					value("unhealthy_threshold", knownvalue.Int64Exact(2)),
					value("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/global/`+k.collection+`/legacy-basic$`))),
					value("creation_timestamp", knownvalue.NotNull()),
					value("health_check_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					sameID.AddStateValue(addr, tfjsonpath.New("health_check_id")),
				},
			},
			{
				Config: e.config(fmt.Sprintf(`
resource %q "test" {
  name                = "legacy-basic"
  description         = "changed"
  host                = "www.example.com"
  port                = 8443
  request_path        = "/healthz"
  check_interval_sec  = 10
  timeout_sec         = 10
  healthy_threshold   = 3
  unhealthy_threshold = 4
}`, "lbhealth_"+k.typeSuffix)),
				ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					value("description", knownvalue.StringExact("changed")),
					value("host", knownvalue.StringExact("www.example.com")),
					value("port", knownvalue.Int64Exact(8443)),
					value("request_path", knownvalue.StringExact("/healthz")),
					value("check_interval_sec", knownvalue.Int64Exact(10)),
					value("timeout_sec", knownvalue.Int64Exact(10)),
					value("healthy_threshold", knownvalue.Int64Exact(3)),
					value("unhealthy_threshold", knownvalue.Int64Exact(4)),
					sameID.AddStateValue(addr, tfjsonpath.New("health_check_id")),
				},
			},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true},
			{ResourceName: addr, ImportState: true, ImportStateId: "legacy-basic", ImportStateVerify: true},
			{ResourceName: addr, ImportState: true, ImportStateId: "test-project/legacy-basic", ImportStateVerify: true},
			{
				ResourceName: addr, ImportState: true,
				ImportStateId: "projects/test-project/regions/us-central1/" + k.collection + "/legacy-basic",
				ExpectError:   errorRegexp("is regional, but " + k.collection + " are always global"),
			},
		},
	})
}

// TestAccLegacyCheck_validation: the rules of legacy checks refused at plan time, for both
// kinds, in the emulator's words.
func TestAccLegacyCheck_validation(t *testing.T) {
	e := newTestEmulator(t)
	tests := []struct {
		body string // inside the resource, after name
		want string
	}{
		{`request_path = "/health?full=1"`, `request_path ("/health?full=1") must not contain a query string`},
		{`request_path = "health"`, `request_path ("health") must start with "/"`},
		{`request_path = ""`, `request_path ("") must not be empty: remove it to get the default "/".`},
		{"check_interval_sec = 5\n timeout_sec = 10", "timeout_sec (10) must be less than or equal to check_interval_sec (5)."},
		{`check_interval_sec = 301`, "check_interval_sec (301) must be between 1 and 300."},
		{`healthy_threshold = 0`, "healthy_threshold (0) must be between 1 and 10."},
		{`unhealthy_threshold = 11`, "unhealthy_threshold (11) must be between 1 and 10."},
		{`port = 0`, "port (0) must be between 1 and 65535."},
		{`port = 65536`, "port (65536) must be between 1 and 65535."},
		{`project = "Bad_Project"`, `project ("Bad_Project")`},
	}
	var steps []resource.TestStep
	for _, k := range []legacyKind{legacyHTTP, legacyHTTPS} {
		steps = append(steps, resource.TestStep{
			Config:      e.config(fmt.Sprintf("resource %q \"test\" {\n name = \"Legacy\"\n}", "lbhealth_"+k.typeSuffix)),
			PlanOnly:    true,
			ExpectError: errorRegexp(`name ("Legacy") is not a valid name`),
		})
		for _, tt := range tests {
			steps = append(steps, resource.TestStep{
				Config:      e.config(fmt.Sprintf("resource %q \"test\" {\n name = \"legacy\"\n %s\n}", "lbhealth_"+k.typeSuffix, tt.body)),
				PlanOnly:    true,
				ExpectError: errorRegexp(tt.want),
			})
		}
	}
	// Nothing of a regular check: no protocol block, no port_name.
	steps = append(steps, resource.TestStep{
		Config:      e.config("resource \"lbhealth_legacy_http_check\" \"test\" {\n name = \"legacy\"\n port_name = \"http\"\n}"),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`An argument named "port_name" is not expected here`),
	})
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}
