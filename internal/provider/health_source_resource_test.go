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

const sourceAddr = "lbhealth_health_source.test"

func sourceValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(sourceAddr, tfjsonpath.New(attr), v)
}

// sameAsAttr checks that attribute p of addr equals attribute other of
// resource otherAddr.
func sameAsAttr(addr string, p tfjsonpath.Path, otherAddr, other string) statecheck.StateCheck {
	return statecheck.CompareValuePairs(addr, p, otherAddr, tfjsonpath.New(other), compare.ValuesSame())
}

// compositeTargets declares, in the provider's region (us-central1), what
// health sources and composite checks point at: two internal backend
// services over one VM endpoint group, a forwarding rule for each, and two
// policies. Nothing listens on the endpoint: its state does not matter here.
const compositeTargets = `
resource "lbhealth_health_check" "probe" {
  name   = "hc-probe"
  region = "us-central1"
  tcp_health_check {
    port = 1
  }
}
resource "lbhealth_endpoint_group" "vm" {
  name = "neg-vm"
  endpoint {
    ip_address = "127.0.0.1"
    port       = 1
  }
}
resource "lbhealth_backend_service" "a" {
  name                  = "bs-a"
  region                = "us-central1"
  protocol              = "TCP"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.probe.self_link]
  backend {
    group = lbhealth_endpoint_group.vm.self_link
  }
}
resource "lbhealth_backend_service" "b" {
  name                  = "bs-b"
  region                = "us-central1"
  protocol              = "TCP"
  load_balancing_scheme = "INTERNAL"
  health_checks         = [lbhealth_health_check.probe.self_link]
  backend {
    group = lbhealth_endpoint_group.vm.self_link
  }
}
resource "lbhealth_forwarding_rule" "a" {
  name                  = "fr-a"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL_MANAGED"
  backend_service       = lbhealth_backend_service.a.self_link
}
resource "lbhealth_forwarding_rule" "b" {
  name                  = "fr-b"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL"
  backend_service       = lbhealth_backend_service.b.self_link
}
resource "lbhealth_aggregation_policy" "p" {
  name = "policy-p"
}
resource "lbhealth_aggregation_policy" "q" {
  name                      = "policy-q"
  healthy_percent_threshold = 100
}
`

func TestAccHealthSource_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkCompositeDestroyed(e),
		Steps: []resource.TestStep{
			{
				Config: e.config(compositeTargets + `
resource "lbhealth_health_source" "test" {
  name                      = "src-basic"
  description               = "bs-a under policy-p"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.a.self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.p.id
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					sourceValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/healthSources/src-basic")),
					sourceValue("project", knownvalue.StringExact(testProject)),
					sourceValue("region", knownvalue.StringExact(testRegion)),
					sourceValue("source_type", knownvalue.StringExact("BACKEND_SERVICE")),
					sourceValue("description", knownvalue.StringExact("bs-a under policy-p")),
					sameAsAttr(sourceAddr, tfjsonpath.New("sources").AtSliceIndex(0), "lbhealth_backend_service.a", "self_link"),
					// An id stays an id, though the emulator stores a URL.
					sourceValue("health_aggregation_policy", knownvalue.StringExact(
						"projects/test-project/regions/us-central1/healthAggregationPolicies/policy-p")),
					sourceValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/regions/us-central1/healthSources/src-basic$`))),
					sourceValue("creation_timestamp", knownvalue.NotNull()),
					sourceValue("health_source_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					sourceValue("fingerprint", knownvalue.NotNull()),
					sameID.AddStateValue(sourceAddr, tfjsonpath.New("health_source_id")),
				},
			},
			{
				// Another service (by its bare name) and another policy: in place.
				Config: e.config(compositeTargets + `
resource "lbhealth_health_source" "test" {
  name                      = "src-basic"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.b.name]
  health_aggregation_policy = lbhealth_aggregation_policy.q.self_link
}`),
				ConfigPlanChecks: expectAction(sourceAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					sourceValue("sources", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("bs-b")})),
					sameAsAttr(sourceAddr, tfjsonpath.New("health_aggregation_policy"), "lbhealth_aggregation_policy.q", "self_link"),
					sourceValue("description", knownvalue.Null()),
					sameID.AddStateValue(sourceAddr, tfjsonpath.New("health_source_id")),
				},
			},
			{
				// The same service as a self link: nothing to do.
				Config: e.config(compositeTargets + `
resource "lbhealth_health_source" "test" {
  name                      = "src-basic"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.b.self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.q.self_link
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// Back to the first service and policy, as self links.
				Config: e.config(compositeTargets + `
resource "lbhealth_health_source" "test" {
  name                      = "src-basic"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.a.self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.p.self_link
}`),
				ConfigPlanChecks: expectAction(sourceAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					sameAsAttr(sourceAddr, tfjsonpath.New("sources").AtSliceIndex(0), "lbhealth_backend_service.a", "self_link"),
					sameID.AddStateValue(sourceAddr, tfjsonpath.New("health_source_id")),
				},
			},
			{ResourceName: sourceAddr, ImportState: true, ImportStateVerify: true},
			{ResourceName: sourceAddr, ImportState: true, ImportStateVerify: true, ImportStateId: "src-basic"},
		},
	})
}

func TestAccHealthSource_validation(t *testing.T) {
	e := newTestEmulator(t)
	tests := []struct {
		body string // the resource's settings after name
		want string
	}{
		{`source_type = "BACKEND_SERVICE"
  sources = []
  health_aggregation_policy = "p"`, "sources lists 0 sources: a health source takes exactly one backend service."},
		{`source_type = "BACKEND_SERVICE"
  sources = ["a", "b"]
  health_aggregation_policy = "p"`, "sources lists 2 sources: a health source takes exactly one backend service."},
		{`source_type = "INSTANCE_GROUP"
  sources = ["a"]
  health_aggregation_policy = "p"`, `source_type ("INSTANCE_GROUP") must be one of BACKEND_SERVICE.`},
		{`source_type = ""
  sources = ["a"]
  health_aggregation_policy = "p"`, "source_type is required: set it to BACKEND_SERVICE."},
		{`source_type = "BACKEND_SERVICE"
  sources = ["a"]
  health_aggregation_policy = ""`, "health_aggregation_policy is required: the policy that says when the backend service is healthy."},
	}
	steps := make([]resource.TestStep, 0, len(tests))
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("resource \"lbhealth_health_source\" \"test\" {\n  name = \"src-invalid\"\n  " + tt.body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccHealthSource_rules: what a source references is checked by the
// emulator, whose messages reach the user unchanged.
func TestAccHealthSource_rules(t *testing.T) {
	e := newTestEmulator(t)
	const others = `
resource "lbhealth_backend_service" "external" {
  name          = "bs-external"
  region        = "us-central1"
  protocol      = "TCP"
  health_checks = [lbhealth_health_check.probe.self_link]
  backend {
    group = lbhealth_endpoint_group.vm.self_link
  }
}
resource "lbhealth_backend_service" "global" {
  name                  = "bs-global"
  load_balancing_scheme = "INTERNAL_MANAGED"
}
resource "lbhealth_endpoint_group" "hybrid" {
  name                  = "neg-hybrid"
  network_endpoint_type = "NON_GCP_PRIVATE_IP_PORT"
  endpoint {
    ip_address = "127.0.0.1"
    port       = 1
  }
}
resource "lbhealth_backend_service" "hybrid" {
  name                  = "bs-hybrid"
  region                = "us-central1"
  protocol              = "TCP"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.probe.self_link]
  backend {
    group = lbhealth_endpoint_group.hybrid.self_link
  }
}
resource "lbhealth_aggregation_policy" "east" {
  name   = "policy-east"
  region = "us-east1"
}
`
	source := func(service, policy string) string {
		return e.config(compositeTargets + others + `
resource "lbhealth_health_source" "test" {
  name                      = "src-rules"
  source_type               = "BACKEND_SERVICE"
  sources                   = [` + service + `]
  health_aggregation_policy = ` + policy + `
}`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkCompositeDestroyed(e),
		Steps: []resource.TestStep{
			{Config: e.config(compositeTargets + others)},
			{
				Config: source("lbhealth_backend_service.external.name", "lbhealth_aggregation_policy.p.name"),
				ExpectError: errorRegexp(`sources[0] ("bs-external") has loadBalancingScheme EXTERNAL: a health source ` +
					"takes an INTERNAL or INTERNAL_MANAGED backend service."),
			},
			{
				Config: source("lbhealth_backend_service.global.id", "lbhealth_aggregation_policy.p.name"),
				ExpectError: errorRegexp(`sources[0] ("projects/test-project/global/backendServices/bs-global") is global: ` +
					"a health source takes a regional backend service of its own region (us-central1)."),
			},
			{
				Config: source("lbhealth_backend_service.hybrid.name", "lbhealth_aggregation_policy.p.name"),
				ExpectError: errorRegexp(`sources[0] ("bs-hybrid") has a backend (backends[0]) whose endpoint group is ` +
					"NON_GCP_PRIVATE_IP_PORT: a health source takes backend services of instance groups or of GCE_VM_IP or GCE_VM_IP_PORT endpoint groups."),
			},
			{
				Config: source("lbhealth_backend_service.a.name", "lbhealth_aggregation_policy.east.id"),
				ExpectError: errorRegexp(`healthAggregationPolicy ("projects/test-project/regions/us-east1/healthAggregationPolicies/policy-east") ` +
					"is in region us-east1: it must be a health aggregation policy of the same region (us-central1)."),
			},
			{
				Config:      source(`"bs-missing"`, "lbhealth_aggregation_policy.p.name"),
				ExpectError: errorRegexp(`sources[0] ("bs-missing") refers to projects/test-project/regions/us-central1/backendServices/bs-missing, which does not exist.`),
			},
			{
				// A policy in use cannot be deleted; destroy deletes the source first.
				Config: source("lbhealth_backend_service.a.name", "lbhealth_aggregation_policy.p.name"),
			},
		},
	})
}
