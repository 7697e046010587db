package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const tpAddr = "lbhealth_target_pool.test"

// tpValue checks one attribute of lbhealth_target_pool.test.
func tpValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(tpAddr, tfjsonpath.New(attr), v)
}

// legacyChecks declares two legacy HTTP checks, what the pool tests point at.
const legacyChecks = `
resource "lbhealth_legacy_http_check" "a" {
  name = "legacy-a"
}
resource "lbhealth_legacy_http_check" "b" {
  name = "legacy-b"
  port = 9001
}
`

func TestAccTargetPool_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(legacyChecks + `
resource "lbhealth_target_pool" "test" {
  name          = "pool-basic"
  instances     = ["127.0.0.1:9000", "127.0.0.2"]
  health_checks = [lbhealth_legacy_http_check.a.self_link]
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// The provider's region, known at plan time.
					plancheck.ExpectKnownValue(tpAddr, tfjsonpath.New("region"), knownvalue.StringExact(testRegion)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					tpValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/targetPools/pool-basic")),
					tpValue("project", knownvalue.StringExact(testProject)),
					tpValue("region", knownvalue.StringExact(testRegion)),
					tpValue("instances", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("127.0.0.1:9000"), knownvalue.StringExact("127.0.0.2")})),
					tpValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/regions/us-central1/targetPools/pool-basic$`))),
					tpValue("creation_timestamp", knownvalue.NotNull()),
					tpValue("target_pool_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					statecheck.CompareValuePairs(tpAddr, tfjsonpath.New("health_checks").AtSliceIndex(0),
						"lbhealth_legacy_http_check.a", tfjsonpath.New("self_link"), compare.ValuesSame()),
					sameID.AddStateValue(tpAddr, tfjsonpath.New("target_pool_id")),
				},
			},
			{
				// Other instances and the other check, by id: in place.
				Config:           e.config(legacyChecks + webPool("lbhealth_legacy_http_check.b.id")),
				ConfigPlanChecks: expectAction(tpAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					tpValue("description", knownvalue.StringExact("web")),
					tpValue("instances", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("127.0.0.1:9001")})),
					tpValue("health_checks", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("projects/test-project/global/httpHealthChecks/legacy-b")})),
					sameID.AddStateValue(tpAddr, tfjsonpath.New("target_pool_id")),
				},
			},
			{
				// The same check as a self link, then as a bare name: nothing to do.
				Config:           e.config(legacyChecks + webPool("lbhealth_legacy_http_check.b.self_link")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				Config:           e.config(legacyChecks + webPool(`"legacy-b"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// No check at all: the instances are no longer probed.
				Config: e.config(legacyChecks + `
resource "lbhealth_target_pool" "test" {
  name      = "pool-basic"
  instances = ["127.0.0.1:9001", "::1"]
}`),
				ConfigPlanChecks: expectAction(tpAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					tpValue("health_checks", knownvalue.Null()),
					tpValue("description", knownvalue.Null()),
					sameID.AddStateValue(tpAddr, tfjsonpath.New("target_pool_id")),
				},
			},
			{ResourceName: tpAddr, ImportState: true, ImportStateVerify: true},
			// A bare name: never global, so the provider's region.
			{ResourceName: tpAddr, ImportState: true, ImportStateId: "pool-basic", ImportStateVerify: true},
			{
				ResourceName:  tpAddr,
				ImportState:   true,
				ImportStateId: "projects/test-project/global/targetPools/pool-basic",
				ExpectError:   errorRegexp(`is global, but targetPools are regional only`),
			},
			{
				// Another region replaces the pool.
				Config: e.config(legacyChecks + `
resource "lbhealth_target_pool" "test" {
  name      = "pool-basic"
  region    = "europe-west1"
  instances = ["127.0.0.1:9001", "::1"]
}`),
				ConfigPlanChecks: expectAction(tpAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{
					tpValue("id", knownvalue.StringExact("projects/test-project/regions/europe-west1/targetPools/pool-basic")),
				},
			},
		},
	})
}

// TestAccTargetPool_validation: what the configuration shows is refused at
// plan time, in the emulator's words.
func TestAccTargetPool_validation(t *testing.T) {
	e := newTestEmulator(t)
	const only = "target pools take one legacy HTTP health check only"
	tests := []struct {
		body string // inside the resource, after name
		want string
	}{
		{`health_checks = ["projects/test-project/global/httpsHealthChecks/secure"]`,
			`health_checks[0] ("projects/test-project/global/httpsHealthChecks/secure") is a legacy HTTPS health check: ` + only},
		{`health_checks = ["http://127.0.0.1:8686/compute/v1/projects/test-project/global/healthChecks/hc"]`,
			`is a health check (not a legacy one): ` + only},
		{`health_checks = ["regions/us-central1/healthChecks/hc"]`, `is a health check (not a legacy one): ` + only},
		{`health_checks = ["a", "b"]`, "health_checks lists 2 health checks: " + only},
		{`instances = ["127.0.0.1:0"]`, `instances[0] ("127.0.0.1:0") must be an endpoint address, "ip" or "ip:port": port 0 is not a port.`},
		{`instances = ["web-1"]`, `instances[0] ("web-1") must be an endpoint address, "ip" or "ip:port"`},
		{`instances = ["127.0.0.1", "127.0.0.1"]`, `instances[1] ("127.0.0.1") repeats instances[0]: each instance may be listed once.`},
		{`region = "Europe"`, `region ("Europe") is not a valid name`},
	}
	steps := make([]resource.TestStep, 0, len(tests))
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("resource \"lbhealth_target_pool\" \"test\" {\n name = \"pool-invalid\"\n " + tt.body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccTargetPool_emulatorRules: a reference known only at apply is
// refused by the same rule once Terraform validates it again; what only the
// emulator can know (a check named by its bare name, a missing check, a
// check or pool in use) reaches the user in the emulator's words.
func TestAccTargetPool_emulatorRules(t *testing.T) {
	e := newTestEmulator(t)
	const only = "target pools take one legacy HTTP health check only"
	const kinds = `
resource "lbhealth_legacy_https_check" "secure" {
  name = "legacy-secure"
}
resource "lbhealth_health_check" "regular" {
  name = "hc-regular"
  http_health_check {}
}
`
	// The pool and the rule name the check and the pool by literal paths,
	// so Terraform does not know they depend on them.
	const inUse = `
resource "lbhealth_target_pool" "test" {
  name          = "pool-rules"
  instances     = ["127.0.0.1:9000"]
  health_checks = ["projects/test-project/global/httpHealthChecks/legacy-used"]
}
resource "lbhealth_forwarding_rule" "test" {
  name       = "fr-rules"
  region     = "us-central1"
  target     = "projects/test-project/regions/us-central1/targetPools/pool-rules"
  depends_on = [lbhealth_target_pool.test]
}
`
	const usedCheck = `
resource "lbhealth_legacy_http_check" "used" {
  name = "legacy-used"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Self links unknown at plan time, known at apply.
				Config: e.config(kinds + `
resource "lbhealth_target_pool" "test" {
  name          = "pool-rules"
  health_checks = [lbhealth_legacy_https_check.secure.self_link]
}`),
				ExpectError: summaryError("Invalid target pool", `is a legacy HTTPS health check: `+only),
			},
			{
				Config: e.config(kinds + `
resource "lbhealth_target_pool" "test" {
  name          = "pool-rules"
  health_checks = [lbhealth_health_check.regular.self_link]
}`),
				ExpectError: summaryError("Invalid target pool", `is a health check (not a legacy one): `+only),
			},
			{
				// A bare name is a legacy HTTP check's: an HTTPS check of
				// that name is not found.
				Config: e.config(kinds + `
resource "lbhealth_target_pool" "test" {
  name          = "pool-rules"
  health_checks = [lbhealth_legacy_https_check.secure.name]
}`),
				ExpectError: summaryError("Error creating target pool", `healthChecks[0] ("legacy-secure") refers to `+
					`projects/test-project/global/httpHealthChecks/legacy-secure, which does not exist.`),
			},
			{
				Config: e.config(kinds + `
resource "lbhealth_target_pool" "test" {
  name          = "pool-rules"
  health_checks = ["projects/test-project/global/httpHealthChecks/missing"]
}`),
				ExpectError: errorRegexp(`refers to projects/test-project/global/httpHealthChecks/missing, which does not exist.`),
			},
			{Config: e.config(usedCheck)},
			{Config: e.config(usedCheck + inUse)},
			{
				// The check leaves the configuration; the pool still uses it.
				Config: e.config(inUse),
				ExpectError: errorRegexp("The resource 'projects/test-project/global/httpHealthChecks/legacy-used' is already " +
					"being used by 'projects/test-project/regions/us-central1/targetPools/pool-rules'"),
			},
			{
				// The pool leaves the configuration; the rule still uses it.
				Config: e.config(usedCheck + `
resource "lbhealth_forwarding_rule" "test" {
  name   = "fr-rules"
  region = "us-central1"
  target = "projects/test-project/regions/us-central1/targetPools/pool-rules"
}`),
				ExpectError: errorRegexp("The resource 'projects/test-project/regions/us-central1/targetPools/pool-rules' is " +
					"already being used by 'projects/test-project/regions/us-central1/forwardingRules/fr-rules'"),
			},
			{
				// Everything is still there; depends_on orders the final destroy.
				Config: e.config(usedCheck + `
resource "lbhealth_target_pool" "test" {
  name          = "pool-rules"
  instances     = ["127.0.0.1:9000"]
  health_checks = ["projects/test-project/global/httpHealthChecks/legacy-used"]
  depends_on    = [lbhealth_legacy_http_check.used]
}
resource "lbhealth_forwarding_rule" "test" {
  name       = "fr-rules"
  region     = "us-central1"
  target     = "projects/test-project/regions/us-central1/targetPools/pool-rules"
  depends_on = [lbhealth_target_pool.test]
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// webPool is the target pool "pool-basic" of the web instance, checked by
// healthCheck (an expression).
func webPool(healthCheck string) string {
	return `
resource "lbhealth_target_pool" "test" {
  name          = "pool-basic"
  description   = "web"
  instances     = ["127.0.0.1:9001"]
  health_checks = [` + healthCheck + `]
}`
}
