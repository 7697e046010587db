package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

const compositeAddr = "lbhealth_composite_check.test"

func compositeValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(compositeAddr, tfjsonpath.New(attr), v)
}

// compositeSources adds two health sources to compositeTargets: bs-a and
// bs-b under policy-p, whose thresholds are percent and min.
func compositeSources(percent, min int) string {
	return strings.Replace(compositeTargets, `resource "lbhealth_aggregation_policy" "p" {
  name = "policy-p"
}`, fmt.Sprintf(`resource "lbhealth_aggregation_policy" "p" {
  name                      = "policy-p"
  healthy_percent_threshold = %d
  min_healthy_threshold     = %d
}`, percent, min), 1) + `
resource "lbhealth_health_source" "a" {
  name                      = "src-a"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.a.self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.p.self_link
}
resource "lbhealth_health_source" "b" {
  name                      = "src-b"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.b.self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.p.self_link
}
`
}

// TestAccCompositeCheck_basic: create, add a source, change the policy's
// thresholds, remove the source and move the destination, all in place;
// import; and a destroy in dependency order (composite, sources, policies,
// forwarding rules, services), checked by CheckDestroy.
func TestAccCompositeCheck_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	samePolicyID := statecheck.CompareValue(compare.ValuesSame())
	composite := func(sources, destination string) string {
		return `
resource "lbhealth_composite_check" "test" {
  name               = "chc-basic"
  health_sources     = [` + sources + `]
  health_destination = ` + destination + `
}`
	}
	source := func(i int, other string) statecheck.StateCheck {
		return sameAsAttr(compositeAddr, tfjsonpath.New("health_sources").AtSliceIndex(i), other, "self_link")
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkCompositeDestroyed(e),
		Steps: []resource.TestStep{
			{
				Config: e.config(compositeSources(60, 1) + composite("lbhealth_health_source.a.self_link",
					"lbhealth_forwarding_rule.a.self_link")),
				ConfigStateChecks: []statecheck.StateCheck{
					compositeValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/compositeHealthChecks/chc-basic")),
					compositeValue("project", knownvalue.StringExact(testProject)),
					compositeValue("region", knownvalue.StringExact(testRegion)),
					compositeValue("health_sources", knownvalue.ListSizeExact(1)),
					source(0, "lbhealth_health_source.a"),
					sameAsAttr(compositeAddr, tfjsonpath.New("health_destination"), "lbhealth_forwarding_rule.a", "self_link"),
					compositeValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/regions/us-central1/compositeHealthChecks/chc-basic$`))),
					compositeValue("creation_timestamp", knownvalue.NotNull()),
					compositeValue("composite_check_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					compositeValue("fingerprint", knownvalue.NotNull()),
					sameID.AddStateValue(compositeAddr, tfjsonpath.New("composite_check_id")),
					samePolicyID.AddStateValue("lbhealth_aggregation_policy.p", tfjsonpath.New("policy_id")),
				},
			},
			{
				// A second source, and new thresholds for the policy: in place.
				Config: e.config(compositeSources(75, 3) + composite(
					"lbhealth_health_source.a.self_link, lbhealth_health_source.b.self_link", "lbhealth_forwarding_rule.a.self_link")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(compositeAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("lbhealth_aggregation_policy.p", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("lbhealth_health_source.a", plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					compositeValue("health_sources", knownvalue.ListSizeExact(2)),
					source(0, "lbhealth_health_source.a"),
					source(1, "lbhealth_health_source.b"),
					statecheck.ExpectKnownValue("lbhealth_aggregation_policy.p", tfjsonpath.New("healthy_percent_threshold"), knownvalue.Int64Exact(75)),
					statecheck.ExpectKnownValue("lbhealth_aggregation_policy.p", tfjsonpath.New("min_healthy_threshold"), knownvalue.Int64Exact(3)),
					sameID.AddStateValue(compositeAddr, tfjsonpath.New("composite_check_id")),
					samePolicyID.AddStateValue("lbhealth_aggregation_policy.p", tfjsonpath.New("policy_id")),
				},
			},
			{
				// The first source removed, and another destination: in place.
				Config: e.config(compositeSources(75, 3) + composite("lbhealth_health_source.b.self_link",
					"lbhealth_forwarding_rule.b.self_link")),
				ConfigPlanChecks: expectAction(compositeAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					compositeValue("health_sources", knownvalue.ListSizeExact(1)),
					source(0, "lbhealth_health_source.b"),
					sameAsAttr(compositeAddr, tfjsonpath.New("health_destination"), "lbhealth_forwarding_rule.b", "self_link"),
					sameID.AddStateValue(compositeAddr, tfjsonpath.New("composite_check_id")),
				},
			},
			{
				// The same source and destination written as ids and names: nothing to do.
				Config: e.config(compositeSources(75, 3) + composite("lbhealth_health_source.b.id",
					"lbhealth_forwarding_rule.b.name")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{ResourceName: compositeAddr, ImportState: true, ImportStateVerify: true},
			{ResourceName: compositeAddr, ImportState: true, ImportStateVerify: true, ImportStateId: "test-project/chc-basic"},
			{
				ResourceName:  compositeAddr,
				ImportState:   true,
				ImportStateId: "chc-missing",
				ExpectError:   errorRegexp("Cannot import non-existent remote object"),
			},
		},
	})
}

func TestAccCompositeCheck_validation(t *testing.T) {
	e := newTestEmulator(t)
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = fmt.Sprintf(`"src-%d"`, i)
	}
	tests := []struct {
		sources, destination string
		want                 string
	}{
		{``, `"fr"`, "health_sources lists 0 health sources: a composite health check takes 1 to 10."},
		{strings.Join(eleven, ", "), `"fr"`, "health_sources lists 11 health sources: a composite health check takes 1 to 10."},
		{`"src", "projects/test-project/regions/us-central1/compositeHealthChecks/other"`, `"fr"`,
			`health_sources[1] ("projects/test-project/regions/us-central1/compositeHealthChecks/other") is a composite health ` +
				"check: the composite health of one service cannot be a health source of another; list health sources (health_sources) only."},
		{`"regions/us-central1/compositeHealthChecks/other"`, `"fr"`, "is a composite health check"},
		{`"src", "src"`, `"fr"`, `health_sources[1] ("src") repeats health_sources[0]: list each health source once.`},
		{`"src"`, `""`, "health_destination is required: the forwarding rule whose health the check reports."},
	}
	steps := make([]resource.TestStep, 0, len(tests))
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config: e.config(`
resource "lbhealth_composite_check" "test" {
  name               = "chc-invalid"
  health_sources     = [` + tt.sources + `]
  health_destination = ` + tt.destination + `
}`),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccCompositeCheck_rules: a composite check as a source is refused at
// plan time, from its id; the rules that need the referenced objects are
// the emulator's, and its messages reach the user.
func TestAccCompositeCheck_rules(t *testing.T) {
	e := newTestEmulator(t)
	const others = `
resource "lbhealth_forwarding_rule" "external" {
  name            = "fr-external"
  region          = "us-central1"
  backend_service = lbhealth_backend_service.a.self_link
}
resource "lbhealth_backend_service" "global" {
  name                  = "bs-global"
  load_balancing_scheme = "INTERNAL_MANAGED"
}
resource "lbhealth_forwarding_rule" "global" {
  name                  = "fr-global"
  load_balancing_scheme = "INTERNAL_MANAGED"
  backend_service       = lbhealth_backend_service.global.self_link
}
resource "lbhealth_composite_check" "first" {
  name               = "chc-first"
  health_sources     = [lbhealth_health_source.a.self_link]
  health_destination = lbhealth_forwarding_rule.a.self_link
}
`
	base := compositeSources(60, 1) + others
	second := func(sources, destination string) string {
		return e.config(base + `
resource "lbhealth_composite_check" "test" {
  name               = "chc-second"
  health_sources     = [` + sources + `]
  health_destination = ` + destination + `
}`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkCompositeDestroyed(e),
		Steps: []resource.TestStep{
			{
				Config: e.config(base),
				// What a composite uses cannot be deleted under it.
				Check: func(*terraform.State) error {
					ctx := context.Background()
					c := e.client()
					var errs []error
					for what, del := range map[string]func() error{
						"forwardingRules/fr-a": func() error { return c.DeleteForwardingRule(ctx, testRegionScope, "fr-a") },
						"healthSources/src-a":  func() error { return c.DeleteHealthSource(ctx, testRegionScope, "src-a") },
						"healthAggregationPolicies/policy-p": func() error {
							return c.DeleteHealthAggregationPolicy(ctx, testRegionScope, "policy-p")
						},
					} {
						if err := del(); !errors.Is(err, client.ErrInUse) || !strings.Contains(err.Error(), "is already being used by") {
							errs = append(errs, fmt.Errorf("deleting %s in use: %v, want resourceInUseByAnotherResource", what, err))
						}
					}
					return errors.Join(errs...)
				},
			},
			{
				// The first composite's id is known at plan time.
				Config:   second("lbhealth_composite_check.first.id", "lbhealth_forwarding_rule.b.self_link"),
				PlanOnly: true,
				ExpectError: errorRegexp(`health_sources[0] ("projects/test-project/regions/us-central1/compositeHealthChecks/chc-first") ` +
					"is a composite health check: the composite health of one service cannot be a health source of another"),
			},
			{
				Config: second("lbhealth_health_source.b.self_link", "lbhealth_forwarding_rule.a.name"),
				ExpectError: errorRegexp(`healthDestination ("fr-a") is already the health destination of ` +
					"projects/test-project/regions/us-central1/compositeHealthChecks/chc-first: a forwarding rule is the " +
					"destination of at most one composite health check."),
			},
			{
				Config: second("lbhealth_health_source.b.self_link", "lbhealth_forwarding_rule.external.name"),
				ExpectError: errorRegexp(`healthDestination ("fr-external") has loadBalancingScheme EXTERNAL: the health ` +
					"destination must be an INTERNAL or INTERNAL_MANAGED forwarding rule."),
			},
			{
				Config: second("lbhealth_health_source.b.self_link", "lbhealth_forwarding_rule.global.id"),
				ExpectError: errorRegexp(`healthDestination ("projects/test-project/global/forwardingRules/fr-global") is ` +
					"global: it must be a regional forwarding rule of the same region (us-central1)."),
			},
			{
				Config: second(`"projects/test-project/regions/us-east1/healthSources/src-a"`, "lbhealth_forwarding_rule.b.name"),
				ExpectError: errorRegexp(`healthSources[0] ("projects/test-project/regions/us-east1/healthSources/src-a") ` +
					"refers to projects/test-project/regions/us-east1/healthSources/src-a, which does not exist."),
			},
		},
	})
}
