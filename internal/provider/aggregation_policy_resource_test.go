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

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

const policyAddr = "lbhealth_aggregation_policy.test"

// testRegionScope is the provider's region in the tests' project.
var testRegionScope = client.Scope{Region: testRegion}

func policyValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(policyAddr, tfjsonpath.New(attr), v)
}

// planFunc is a plan check that runs f between plan and apply: what someone
// does outside Terraform after Terraform read the state.
type planFunc func(ctx context.Context) error

func (f planFunc) CheckPlan(ctx context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f(ctx)
}

// patchPolicyOutOfBand changes a policy through the API, as someone outside
// Terraform would, with its current fingerprint.
func patchPolicyOutOfBand(ctx context.Context, e *testEmulator, name string, patch api.HealthAggregationPolicy, mask ...string) error {
	c := e.client()
	p, err := c.GetHealthAggregationPolicy(ctx, testRegionScope, name)
	if err != nil {
		return err
	}
	patch.Fingerprint = p.Fingerprint
	_, err = c.PatchHealthAggregationPolicy(ctx, testRegionScope, name, &patch, mask...)
	return err
}

func TestAccAggregationPolicy_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newFingerprint := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkCompositeDestroyed(e),
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_aggregation_policy" "test" {
  name = "policy-basic"
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					policyValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/healthAggregationPolicies/policy-basic")),
					policyValue("project", knownvalue.StringExact(testProject)),
					policyValue("region", knownvalue.StringExact(testRegion)),
					policyValue("healthy_percent_threshold", knownvalue.Int64Exact(60)),
					policyValue("min_healthy_threshold", knownvalue.Int64Exact(1)),
					policyValue("policy_type", knownvalue.StringExact("BACKEND_SERVICE_POLICY")),
					policyValue("description", knownvalue.Null()),
					policyValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/regions/us-central1/healthAggregationPolicies/policy-basic$`))),
					policyValue("creation_timestamp", knownvalue.NotNull()),
					policyValue("policy_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					policyValue("fingerprint", knownvalue.StringRegexp(regexp.MustCompile(`^\S+$`))),
					sameID.AddStateValue(policyAddr, tfjsonpath.New("policy_id")),
					newFingerprint.AddStateValue(policyAddr, tfjsonpath.New("fingerprint")),
				},
			},
			{
				// New thresholds and a description: a PATCH in place.
				Config: e.config(`
resource "lbhealth_aggregation_policy" "test" {
  name                      = "policy-basic"
  description               = "75% and three"
  healthy_percent_threshold = 75
  min_healthy_threshold     = 3
}`),
				ConfigPlanChecks: expectAction(policyAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					policyValue("healthy_percent_threshold", knownvalue.Int64Exact(75)),
					policyValue("min_healthy_threshold", knownvalue.Int64Exact(3)),
					policyValue("description", knownvalue.StringExact("75% and three")),
					sameID.AddStateValue(policyAddr, tfjsonpath.New("policy_id")),
					newFingerprint.AddStateValue(policyAddr, tfjsonpath.New("fingerprint")),
				},
			},
			{
				// Removing settings brings the defaults back, in place.
				Config: e.config(`
resource "lbhealth_aggregation_policy" "test" {
  name = "policy-basic"
}`),
				ConfigPlanChecks: expectAction(policyAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					policyValue("healthy_percent_threshold", knownvalue.Int64Exact(60)),
					policyValue("min_healthy_threshold", knownvalue.Int64Exact(1)),
					policyValue("description", knownvalue.Null()),
					sameID.AddStateValue(policyAddr, tfjsonpath.New("policy_id")),
				},
			},
			{ResourceName: policyAddr, ImportState: true, ImportStateVerify: true},
			{ResourceName: policyAddr, ImportState: true, ImportStateVerify: true, ImportStateId: "test-project/policy-basic"},
			{ResourceName: policyAddr, ImportState: true, ImportStateVerify: true, ImportStateId: "policy-basic"},
			{
				ResourceName:  policyAddr,
				ImportState:   true,
				ImportStateId: "projects/test-project/global/healthAggregationPolicies/policy-basic",
				ExpectError:   errorRegexp("healthAggregationPolicies are regional only"),
			},
			{
				// Another region: a new policy.
				Config: e.config(`
resource "lbhealth_aggregation_policy" "test" {
  name   = "policy-basic"
  region = "us-east1"
}`),
				ConfigPlanChecks: expectAction(policyAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{
					policyValue("id", knownvalue.StringExact("projects/test-project/regions/us-east1/healthAggregationPolicies/policy-basic")),
				},
			},
		},
	})
}

func TestAccAggregationPolicy_validation(t *testing.T) {
	e := newTestEmulator(t)
	tests := []struct {
		body string // inside the resource, after name
		want string
	}{
		{`healthy_percent_threshold = 101`, "healthy_percent_threshold (101) must be between 0 and 100."},
		{`healthy_percent_threshold = -1`, "healthy_percent_threshold (-1) must be between 0 and 100."},
		{`min_healthy_threshold = 0`, "min_healthy_threshold (0) must be between 1 and 4294967295."},
		{`policy_type = "GLOBAL"`, `policy_type ("GLOBAL") must be one of BACKEND_SERVICE_POLICY.`},
		{`policy_type = ""`, `policy_type ("") must not be empty: remove it to get the default "BACKEND_SERVICE_POLICY".`},
		{`region = "Europe"`, `region ("Europe") is not a valid name`},
	}
	steps := make([]resource.TestStep, 0, len(tests)+2)
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("resource \"lbhealth_aggregation_policy\" \"test\" {\n name = \"policy-invalid\"\n " + tt.body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	// The boundaries are valid.
	steps = append(steps, resource.TestStep{Config: e.config(`
resource "lbhealth_aggregation_policy" "test" {
  name                      = "policy-bounds"
  healthy_percent_threshold = 0
  min_healthy_threshold     = 1000000
}
resource "lbhealth_aggregation_policy" "all" {
  name                      = "policy-all"
  healthy_percent_threshold = 100
}`)})
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccAggregationPolicy_fingerprint: a change made outside Terraform
// before a plan is seen by its refresh, and the update that follows uses
// the new fingerprint and succeeds. A change made between plan and apply
// makes the PATCH stale: the emulator refuses it (412), nothing changes,
// the message says to apply again, and applying again works.
func TestAccAggregationPolicy_fingerprint(t *testing.T) {
	e := newTestEmulator(t)
	const policy80 = `
resource "lbhealth_aggregation_policy" "test" {
  name                      = "policy-fp"
  healthy_percent_threshold = 80
}`
	const policy90 = `
resource "lbhealth_aggregation_policy" "test" {
  name                      = "policy-fp"
  healthy_percent_threshold = 90
}`
	outOfBand := func(ctx context.Context) error {
		return patchPolicyOutOfBand(ctx, e, "policy-fp", api.HealthAggregationPolicy{MinHealthyThreshold: int64p(5)}, "minHealthyThreshold")
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.config(policy80)},
			{
				// Changed outside Terraform before the plan: the refresh sees 70,
				// and Terraform sets 80 again with the fingerprint it just read.
				PreConfig: func() {
					err := patchPolicyOutOfBand(context.Background(), e, "policy-fp",
						api.HealthAggregationPolicy{HealthyPercentThreshold: int64p(70)}, "healthyPercentThreshold")
					if err != nil {
						t.Fatal(err)
					}
				},
				Config: e.config(policy80),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(policyAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(policyAddr, tfjsonpath.New("healthy_percent_threshold"), knownvalue.Int64Exact(80)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{policyValue("healthy_percent_threshold", knownvalue.Int64Exact(80))},
			},
			{
				// Changed outside Terraform after the plan read it.
				Config:           e.config(policy90),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{planFunc(outOfBand)}},
				ExpectError: inOrder(`Error updating health aggregation policy`, `is stale:`, `(HTTP 412 conditionNotMet)`,
					`The health aggregation policy was changed outside Terraform after Terraform last read it, so nothing was changed.`,
					`Run "terraform apply" again`),
			},
			{
				// Nothing changed: the policy is as the other writer left it.
				PreConfig: func() {
					p, err := e.client().GetHealthAggregationPolicy(context.Background(), testRegionScope, "policy-fp")
					if err != nil || *p.HealthyPercentThreshold != 80 || *p.MinHealthyThreshold != 5 {
						t.Fatalf("after the refused update: %+v, %v; want 80%%/5 (the other writer's change, none of Terraform's)", p, err)
					}
				},
				// Applying again refreshes, and plans both changes.
				Config: e.config(policy90),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(policyAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(policyAddr, tfjsonpath.New("min_healthy_threshold"), knownvalue.Int64Exact(1)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					policyValue("healthy_percent_threshold", knownvalue.Int64Exact(90)),
					policyValue("min_healthy_threshold", knownvalue.Int64Exact(1)),
				},
			},
		},
	})
}

// checkCompositeDestroyed checks, after the final destroy, that no policy,
// health source or composite check is left in the tests' regions.
func checkCompositeDestroyed(e *testEmulator) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		c := e.client()
		var errs []error
		for _, region := range []string{testRegion, "us-east1"} {
			scope := client.Scope{Region: region}
			policies, err := c.ListHealthAggregationPolicies(ctx, scope)
			errs = append(errs, err, leftOver("policies", region, len(policies)))
			sources, err := c.ListHealthSources(ctx, scope)
			errs = append(errs, err, leftOver("health sources", region, len(sources)))
			composites, err := c.ListCompositeHealthChecks(ctx, scope)
			errs = append(errs, err, leftOver("composite checks", region, len(composites)))
		}
		return errors.Join(errs...)
	}
}

func leftOver(what, region string, n int) error {
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d %s left in %s after destroy", n, what, region)
}

// inOrder matches Terraform output holding each message in turn, whatever
// line wrapping it has.
func inOrder(msgs ...string) *regexp.Regexp {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = errorRegexp(m).String()
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
}
