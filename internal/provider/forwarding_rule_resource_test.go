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

const frAddr = "lbhealth_forwarding_rule.test"

// frValue checks one attribute of lbhealth_forwarding_rule.test.
func frValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(frAddr, tfjsonpath.New(attr), v)
}

// internalService is a regional INTERNAL_MANAGED backend service, what a
// composite health check's destination rule points at.
const internalService = `
resource "lbhealth_health_check" "internal" {
  name   = "hc-internal"
  region = "us-central1"
  tcp_health_check {}
}
resource "lbhealth_backend_service" "internal" {
  name                  = "bs-internal"
  region                = "us-central1"
  protocol              = "TCP"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.internal.self_link]
}
`

// TestAccForwardingRule_basic: a regional INTERNAL_MANAGED rule to a
// regional backend service (the shape of a composite health destination),
// updated in place, imported by id and by bare name.
func TestAccForwardingRule_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(internalService + `
resource "lbhealth_forwarding_rule" "test" {
  name                  = "fr-basic"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL_MANAGED"
  ip_address            = "127.0.0.1"
  port_range            = "80"
  backend_service       = lbhealth_backend_service.internal.self_link
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					frValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/forwardingRules/fr-basic")),
					frValue("project", knownvalue.StringExact(testProject)),
					frValue("region", knownvalue.StringExact("us-central1")),
					frValue("load_balancing_scheme", knownvalue.StringExact("INTERNAL_MANAGED")),
					frValue("ip_address", knownvalue.StringExact("127.0.0.1")),
					frValue("port_range", knownvalue.StringExact("80")),
					frValue("target", knownvalue.Null()),
					frValue("description", knownvalue.Null()),
					frValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/regions/us-central1/forwardingRules/fr-basic$`))),
					frValue("creation_timestamp", knownvalue.NotNull()),
					frValue("forwarding_rule_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					statecheck.CompareValuePairs(frAddr, tfjsonpath.New("backend_service"),
						"lbhealth_backend_service.internal", tfjsonpath.New("self_link"), compare.ValuesSame()),
					sameID.AddStateValue(frAddr, tfjsonpath.New("forwarding_rule_id")),
				},
			},
			{
				Config: e.config(internalService + `
resource "lbhealth_forwarding_rule" "test" {
  name                  = "fr-basic"
  description           = "moved"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL_MANAGED"
  ip_address            = "127.0.0.2"
  port_range            = "8080-8090"
  backend_service       = lbhealth_backend_service.internal.self_link
}`),
				ConfigPlanChecks: expectAction(frAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					frValue("description", knownvalue.StringExact("moved")),
					frValue("ip_address", knownvalue.StringExact("127.0.0.2")),
					frValue("port_range", knownvalue.StringExact("8080-8090")),
					sameID.AddStateValue(frAddr, tfjsonpath.New("forwarding_rule_id")),
				},
			},
			{ResourceName: frAddr, ImportState: true, ImportStateVerify: true},
			// A bare name: not global, so the provider's region.
			{ResourceName: frAddr, ImportState: true, ImportStateId: "fr-basic", ImportStateVerify: true},
		},
	})
}

// TestAccForwardingRule_targets: a global rule (no region) to a global
// service; a regional rule to a target pool, switched to a backend service
// in place; references written as names stay as written.
func TestAccForwardingRule_targets(t *testing.T) {
	e := newTestEmulator(t)
	const targets = `
resource "lbhealth_legacy_http_check" "pool" {
  name = "legacy-pool"
}
resource "lbhealth_target_pool" "pool" {
  name          = "pool"
  instances     = ["127.0.0.1:9000"]
  health_checks = [lbhealth_legacy_http_check.pool.self_link]
}
resource "lbhealth_backend_service" "regional" {
  name     = "bs-regional"
  region   = "us-central1"
  protocol = "TCP"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_backend_service" "global" {
  name = "bs-global"
}
resource "lbhealth_forwarding_rule" "test" {
  name            = "fr-global"
  backend_service = lbhealth_backend_service.global.name
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					frValue("id", knownvalue.StringExact("projects/test-project/global/forwardingRules/fr-global")),
					frValue("region", knownvalue.Null()),
					frValue("load_balancing_scheme", knownvalue.StringExact("EXTERNAL")),
					frValue("backend_service", knownvalue.StringExact("bs-global")),
				},
			},
			{
				Config: e.config(targets + `
resource "lbhealth_forwarding_rule" "test" {
  name       = "fr-pool"
  region     = "us-central1"
  port_range = "80"
  target     = lbhealth_target_pool.pool.name
}`),
				ConfigPlanChecks: expectAction(frAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{
					frValue("target", knownvalue.StringExact("pool")),
					frValue("backend_service", knownvalue.Null()),
				},
			},
			{
				// The same pool written as its id: nothing to do.
				Config: e.config(targets + `
resource "lbhealth_forwarding_rule" "test" {
  name       = "fr-pool"
  region     = "us-central1"
  port_range = "80"
  target     = lbhealth_target_pool.pool.id
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				Config: e.config(targets + `
resource "lbhealth_forwarding_rule" "test" {
  name            = "fr-pool"
  region          = "us-central1"
  port_range      = "80"
  backend_service = lbhealth_backend_service.regional.id
}`),
				ConfigPlanChecks: expectAction(frAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					frValue("target", knownvalue.Null()),
					frValue("backend_service", knownvalue.StringExact("projects/test-project/regions/us-central1/backendServices/bs-regional")),
				},
			},
		},
	})
}

func TestAccForwardingRule_validation(t *testing.T) {
	e := newTestEmulator(t)
	tests := []struct {
		body string // inside the resource, after name
		want string
	}{
		{"region = \"us-central1\"\n backend_service = \"bs\"\n target = \"pool\"",
			"backend_service and target are both set: a forwarding rule sends traffic to one of them; remove one."},
		{`port_range = "80"`, "one of backend_service or target is required."},
		{"backend_service = \"bs\"\n port_range = \"90-80\"",
			`port_range ("90-80") must be a port ("80") or a range of ports ("8080-8090") between 1 and 65535, low to high.`},
		{"backend_service = \"bs\"\n ip_address = \"10.0.0.300\"", `ip_address ("10.0.0.300") must be an IPv4 or IPv6 address, an IPv6 range ` +
			"(2600:1234::/96), or a reference to an address resource (its URL, regions/{region}/addresses/{name} or its name)."},
		{"backend_service = \"bs\"\n load_balancing_scheme = \"INVALID\"",
			`load_balancing_scheme ("INVALID") must be one of EXTERNAL, EXTERNAL_MANAGED, INTERNAL, INTERNAL_MANAGED, INTERNAL_SELF_MANAGED, EXTERNAL_PASSTHROUGH.`},
		{"backend_service = \"bs\"\n load_balancing_scheme = \"\"",
			`load_balancing_scheme ("") must not be empty: remove it to get the default "EXTERNAL".`},
		{`target = "pool"`,
			`target ("pool") must not be set on a global forwarding rule: target pools are regional; use a regional forwarding rule.`},
		{"backend_service = \"bs\"\n region = \"Europe\"", `region ("Europe") is not a valid name`},
	}
	steps := make([]resource.TestStep, 0, len(tests))
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("resource \"lbhealth_forwarding_rule\" \"test\" {\n name = \"fr-invalid\"\n " + tt.body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccForwardingRule_emulatorRules: what only the emulator knows (the
// referenced objects) reaches the user in its words.
func TestAccForwardingRule_emulatorRules(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_forwarding_rule" "test" {
  name            = "fr-missing"
  backend_service = "bs-missing"
}`),
				ExpectError: errorRegexp(`backendService ("bs-missing") refers to projects/test-project/global/backendServices/bs-missing, which does not exist.`),
			},
			{
				Config: e.config(internalService + `
resource "lbhealth_forwarding_rule" "test" {
  name            = "fr-scope"
  backend_service = lbhealth_backend_service.internal.id
}`),
				ExpectError: errorRegexp(`is in regions/us-central1: a forwarding rule in global takes a backend service of its own scope.`),
			},
		},
	})
}
