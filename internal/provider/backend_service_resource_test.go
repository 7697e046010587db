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

const bsAddr = "lbhealth_backend_service.test"

// bsValue checks one attribute of lbhealth_backend_service.test.
func bsValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(bsAddr, tfjsonpath.New(attr), v)
}

// sameAs checks that attribute attr of bsAddr at p equals attribute other of
// resource addr.
func sameAs(p tfjsonpath.Path, addr, other string) statecheck.StateCheck {
	return statecheck.CompareValuePairs(bsAddr, p, addr, tfjsonpath.New(other), compare.ValuesSame())
}

// backendTargets declares two global checks and a zonal group, what the
// backend service tests point at.
const backendTargets = `
resource "lbhealth_health_check" "a" {
  name = "hc-a"
  http_health_check {
    port = 9000
  }
}
resource "lbhealth_health_check" "b" {
  name = "hc-b"
  tcp_health_check {
    port = 9200
  }
}
resource "lbhealth_endpoint_group" "web" {
  name = "neg-web"
  zone = "us-central1-a"
  endpoint {
    ip_address = "127.0.0.1"
    port       = 9000
  }
}
`

func TestAccBackendService_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(backendTargets + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-basic"
  description   = "web"
  health_checks = [lbhealth_health_check.a.self_link]
  named_port {
    name = "http"
    port = 9000
  }
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("id", knownvalue.StringExact("projects/test-project/global/backendServices/bs-basic")),
					bsValue("region", knownvalue.Null()),
					bsValue("project", knownvalue.StringExact(testProject)),
					bsValue("protocol", knownvalue.StringExact("HTTP")),
					bsValue("load_balancing_scheme", knownvalue.StringExact("EXTERNAL")),
					bsValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/global/backendServices/bs-basic$`))),
					bsValue("creation_timestamp", knownvalue.NotNull()),
					bsValue("backend_service_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					bsValue("named_port", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name": knownvalue.StringExact("http"), "port": knownvalue.Int64Exact(9000)})})),
					sameAs(tfjsonpath.New("health_checks").AtSliceIndex(0), "lbhealth_health_check.a", "self_link"),
					sameAs(tfjsonpath.New("backend").AtSliceIndex(0).AtMapKey("group"), "lbhealth_endpoint_group.web", "self_link"),
					sameID.AddStateValue(bsAddr, tfjsonpath.New("backend_service_id")),
				},
			},
			{
				// New named ports and the other check: an update in place.
				Config: e.config(backendTargets + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-basic"
  description   = "web"
  health_checks = [lbhealth_health_check.b.self_link]
  named_port {
    name = "http"
    port = 9001
  }
  named_port {
    name = "tcp"
    port = 9200
  }
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}`),
				ConfigPlanChecks: expectAction(bsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("named_port", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact("http"), "port": knownvalue.Int64Exact(9001)}),
						knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact("tcp"), "port": knownvalue.Int64Exact(9200)}),
					})),
					sameAs(tfjsonpath.New("health_checks").AtSliceIndex(0), "lbhealth_health_check.b", "self_link"),
					sameID.AddStateValue(bsAddr, tfjsonpath.New("backend_service_id")),
				},
			},
			{
				ResourceName:      bsAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				ResourceName:      bsAddr,
				ImportState:       true,
				ImportStateId:     "test-project/bs-basic",
				ImportStateVerify: true,
			},
		},
	})
}

// TestAccBackendService_referenceForms: references written as ids, paths
// from the scope or bare names stay as written, though the emulator
// stores URLs: no diff after apply or refresh (each step checks both), and
// rewriting a reference in another form that names the same resource plans
// nothing.
func TestAccBackendService_referenceForms(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(backendTargets + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-forms"
  health_checks = [lbhealth_health_check.a.id]
  backend {
    group = lbhealth_endpoint_group.web.id
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("health_checks", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("projects/test-project/global/healthChecks/hc-a")})),
					bsValue("backend", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"group": knownvalue.StringExact("projects/test-project/zones/us-central1-a/networkEndpointGroups/neg-web")})})),
				},
			},
			{
				// A bare name is in the service's scope; a scope path in its project.
				Config: e.config(backendTargets + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-forms"
  health_checks = [lbhealth_health_check.b.name]
  backend {
    group = "zones/us-central1-a/networkEndpointGroups/${lbhealth_endpoint_group.web.name}"
  }
}`),
				ConfigPlanChecks: expectAction(bsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("health_checks", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("hc-b")})),
				},
			},
			{
				// The same check and group written as self links: nothing to do.
				Config: e.config(backendTargets + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-forms"
  health_checks = [lbhealth_health_check.b.self_link]
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("health_checks", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("hc-b")})),
				},
			},
			{
				// A real change next to an equivalent one: only the description
				// changes; the references keep their form.
				Config: e.config(backendTargets + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-forms"
  description   = "changed"
  health_checks = ["projects/test-project/global/healthChecks/${lbhealth_health_check.b.name}"]
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}`),
				ConfigPlanChecks: expectAction(bsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("description", knownvalue.StringExact("changed")),
					bsValue("health_checks", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("hc-b")})),
				},
			},
			{
				// A regional service: bare names are in its region.
				Config: e.config(`
resource "lbhealth_health_check" "r" {
  name   = "hc-regional"
  region = "us-central1"
  tcp_health_check {}
}
resource "lbhealth_endpoint_group" "r" {
  name         = "neg-regional"
  default_port = 9000
  endpoint {
    ip_address = "127.0.0.1"
  }
}
resource "lbhealth_backend_service" "test" {
  name          = "bs-forms"
  region        = "us-central1"
  protocol      = "TCP"
  health_checks = [lbhealth_health_check.r.name]
  backend {
    group = lbhealth_endpoint_group.r.name
  }
}`),
				ConfigPlanChecks: expectAction(bsAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/backendServices/bs-forms")),
					bsValue("health_checks", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("hc-regional")})),
				},
			},
			{
				// Imported references are the URLs the emulator stores.
				ResourceName:            bsAddr,
				ImportState:             true,
				ImportStateId:           "bs-forms",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"health_checks", "backend"},
			},
		},
	})
}

// TestAccBackendService_rules: the rules about what a service references
// are the emulator's; its messages reach the user unchanged.
func TestAccBackendService_rules(t *testing.T) {
	e := newTestEmulator(t)
	const checks = `
resource "lbhealth_health_check" "http" {
  name = "hc-http"
  http_health_check {}
}
resource "lbhealth_health_check" "grpc" {
  name = "hc-grpc"
  grpc_health_check {
    port = 9300
  }
}
`
	// The service names hc-http by a literal path, not a Terraform
	// reference, so Terraform does not know it depends on the check.
	const usedCheck = `
resource "lbhealth_backend_service" "test" {
  name          = "bs-rules"
  health_checks = ["projects/test-project/global/healthChecks/hc-http"]
}`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(checks + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-rules"
  protocol      = "GRPC"
  health_checks = [lbhealth_health_check.http.self_link]
}`),
				ExpectError: errorRegexp(`healthChecks[0] ("hc-http") is a HTTP health check: a protocol backend service ("GRPC") ` +
					"takes only gRPC or TCP health checks."),
			},
			{
				Config: e.config(checks + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-rules"
  protocol      = "GRPC"
  health_checks = [lbhealth_health_check.grpc.self_link]
}`),
				ConfigStateChecks: []statecheck.StateCheck{bsValue("protocol", knownvalue.StringExact("GRPC"))},
			},
			{
				Config: e.config(checks + `
resource "lbhealth_health_check" "east" {
  name   = "hc-east"
  region = "us-east1"
  http_health_check {}
}
resource "lbhealth_backend_service" "regional" {
  name                  = "bs-rules"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.east.self_link]
}`),
				ExpectError: errorRegexp(`healthChecks[0] ("hc-east") is in region us-east1: a regional backend service ` +
					"takes a health check of its own region (us-central1)."),
			},
			{
				Config: e.config(checks + usedCheck),
				Check: func(*terraform.State) error {
					err := e.client().DeleteHealthCheck(context.Background(), client.Global, "hc-http")
					if !errors.Is(err, client.ErrInUse) {
						return fmt.Errorf("deleting a check in use: %v, want resourceInUseByAnotherResource", err)
					}
					return nil
				},
			},
			{
				// The check leaves the configuration; the service still uses it.
				Config: e.config(`
resource "lbhealth_health_check" "grpc" {
  name = "hc-grpc"
  grpc_health_check {
    port = 9300
  }
}` + usedCheck),
				ExpectError: errorRegexp("The resource 'projects/test-project/global/healthChecks/hc-http' is already being used by " +
					"'projects/test-project/global/backendServices/bs-rules'"),
			},
			{
				// The check is still there; depends_on orders the final destroy.
				Config: e.config(checks + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-rules"
  health_checks = ["projects/test-project/global/healthChecks/hc-http"]
  depends_on    = [lbhealth_health_check.http]
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

func TestAccBackendService_validation(t *testing.T) {
	e := newTestEmulator(t)
	tests := []struct {
		body string // inside the resource, after name
		want string
	}{
		{`protocol = "QUIC"`, `protocol ("QUIC") must be one of HTTP, HTTPS, HTTP2, TCP, SSL, UDP, GRPC, H2C, UNSPECIFIED.`},
		{`protocol = ""`, `protocol ("") must not be empty: remove it to get the default "HTTP".`},
		{`load_balancing_scheme = "INVALID"`,
			`load_balancing_scheme ("INVALID") must be one of EXTERNAL, EXTERNAL_MANAGED, INTERNAL, INTERNAL_MANAGED, INTERNAL_SELF_MANAGED, EXTERNAL_PASSTHROUGH.`},
		{`health_checks = ["a", "b"]`, "health_checks lists 2 health checks: a backend service takes one."},
		{"named_port {\n name = \"http\"\n port = 80\n }\n named_port {\n name = \"http\"\n port = 81\n }",
			`named_port[1].name ("http") is used twice: named ports must have different names.`},
		{"named_port {\n name = \"Web\"\n port = 80\n }", `named_port[0].name ("Web") is not a valid name`},
		{"named_port {\n name = \"web\"\n port = 0\n }", "named_port[0].port (0) must be between 1 and 65535."},
		{"backend {\n group = \"\"\n }", "backend[0].group is required: the endpoint group of the backend."},
		{`region = "Europe"`, `region ("Europe") is not a valid name`},
	}
	steps := make([]resource.TestStep, 0, len(tests))
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("resource \"lbhealth_backend_service\" \"test\" {\n name = \"bs-invalid\"\n " + tt.body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(tt.want),
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

// TestAccBackendService_legacyCheck: an EXTERNAL global service takes a
// legacy check, HTTP or HTTPS; any other service is refused at
// plan time when the reference shows its kind, else by the emulator.
func TestAccBackendService_legacyCheck(t *testing.T) {
	e := newTestEmulator(t)
	const legacy = `
resource "lbhealth_legacy_http_check" "http" {
  name = "legacy-http"
}
resource "lbhealth_legacy_https_check" "https" {
  name = "legacy-https"
}
resource "lbhealth_endpoint_group" "web" {
  name = "neg-web"
  zone = "us-central1-a"
  endpoint {
    ip_address = "127.0.0.1"
    port       = 9000
  }
}
`
	service := func(check string) string {
		return legacy + `
resource "lbhealth_backend_service" "test" {
  name          = "bs-legacy"
  health_checks = [` + check + `]
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}`
	}
	const only = "legacy checks are accepted only by EXTERNAL and EXTERNAL_MANAGED backend services"
	planOnly := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config: e.config(service("lbhealth_legacy_http_check.http.self_link") +
				"\nresource \"lbhealth_backend_service\" \"other\" {\n name = \"bs-other\"\n " + body + "\n}"),
			PlanOnly:    true,
			ExpectError: errorRegexp(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(service("lbhealth_legacy_http_check.http.self_link")),
				// The emulator enforces the rule itself, in API names.
				Check: func(*terraform.State) error {
					_, err := e.client().InsertBackendService(context.Background(), client.Global, &api.BackendService{
						Meta: api.Meta{Name: "bs-api"}, LoadBalancingScheme: api.SchemeInternalManaged,
						HealthChecks: []string{"global/httpHealthChecks/legacy-http"}})
					want := "healthChecks[0] is a legacy health check: " + only + ", and loadBalancingScheme is INTERNAL_MANAGED"
					if err == nil || !strings.Contains(err.Error(), want) {
						return fmt.Errorf("inserting an INTERNAL_MANAGED service with a legacy check: %v, want %q", err, want)
					}
					return nil
				},
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("load_balancing_scheme", knownvalue.StringExact("EXTERNAL")),
					sameAs(tfjsonpath.New("health_checks").AtSliceIndex(0), "lbhealth_legacy_http_check.http", "self_link"),
				},
			},
			{
				Config:           e.config(service("lbhealth_legacy_https_check.https.id")),
				ConfigPlanChecks: expectAction(bsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					bsValue("health_checks", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("projects/test-project/global/httpsHealthChecks/legacy-https")})),
				},
			},
			{
				// The new check's self link is unknown at plan time, but
				// Terraform validates again at apply, once it is known: the
				// same rule refuses it before the emulator is called.
				Config: e.config(service("lbhealth_legacy_http_check.http.self_link") + `
resource "lbhealth_legacy_http_check" "new" {
  name = "legacy-new"
}
resource "lbhealth_backend_service" "other" {
  name                  = "bs-internal"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_legacy_http_check.new.self_link]
}`),
				ExpectError: summaryError("Invalid backend service", "health_checks[0] is a legacy health check: "+only+
					", and load_balancing_scheme is INTERNAL_MANAGED"),
			},
			planOnly("load_balancing_scheme = \"INTERNAL_MANAGED\"\n health_checks = [lbhealth_legacy_http_check.http.self_link]",
				"health_checks[0] is a legacy health check: "+only+", and load_balancing_scheme is INTERNAL_MANAGED"),
			planOnly("load_balancing_scheme = \"INTERNAL\"\n health_checks = [\"projects/test-project/global/httpsHealthChecks/legacy-https\"]",
				only+", and load_balancing_scheme is INTERNAL"),
			planOnly("region = \"us-central1\"\n health_checks = [lbhealth_legacy_http_check.http.id]",
				"health_checks[0] is a legacy health check, which is global: a regional backend service takes a health check of its own region."),
			planOnly("health_checks = [\"projects/test-project/regions/us-central1/targetPools/pool\"]",
				`health_checks[0] ("projects/test-project/regions/us-central1/targetPools/pool") is a targetPools resource: `+
					"a health check (not a legacy one) is needed here."),
			// A valid configuration last, for the final destroy.
			{Config: e.config(service("lbhealth_legacy_https_check.https.id"))},
		},
	})
}
