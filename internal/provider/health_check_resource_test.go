package provider

import (
	"context"
	"fmt"
	"regexp"
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

const hcAddr = "lbhealth_health_check.test"

// hcValue checks one attribute of lbhealth_health_check.test.
func hcValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(hcAddr, tfjsonpath.New(attr), v)
}

// hcBlockValue checks one attribute of a block of lbhealth_health_check.test.
func hcBlockValue(block, attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(hcAddr, tfjsonpath.New(block).AtMapKey(attr), v)
}

// expectUpdate proves that a step changes the check in place.
func expectUpdate() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(hcAddr, plancheck.ResourceActionUpdate)}}
}

func TestAccHealthCheck_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name        = "hc-basic"
  description = "first"
  http_health_check {
    port         = 8080
    request_path = "/healthz"
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("id", knownvalue.StringExact("projects/test-project/global/healthChecks/hc-basic")),
					hcValue("project", knownvalue.StringExact(testProject)),
					hcValue("region", knownvalue.Null()),
					hcValue("type", knownvalue.StringExact(api.TypeHTTP)),
					hcValue("check_interval_sec", knownvalue.Int64Exact(5)),
					hcValue("timeout_sec", knownvalue.Int64Exact(5)),
					hcValue("healthy_threshold", knownvalue.Int64Exact(2)),
					hcValue("unhealthy_threshold", knownvalue.Int64Exact(2)),
					hcValue("log_config", knownvalue.Null()),
					hcValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/global/healthChecks/hc-basic$`))),
					hcValue("creation_timestamp", knownvalue.NotNull()),
					hcValue("health_check_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					hcBlockValue("http_health_check", "port", knownvalue.Int64Exact(8080)),
					hcBlockValue("http_health_check", "proxy_header", knownvalue.StringExact("NONE")),
					sameID.AddStateValue(hcAddr, tfjsonpath.New("health_check_id")),
				},
			},
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name                = "hc-basic"
  description         = "second"
  check_interval_sec  = 10
  timeout_sec         = 3
  healthy_threshold   = 3
  unhealthy_threshold = 4
  http_health_check {
    port     = 8081
    host     = "example.com"
    response = "ok"
  }
  log_config {
    enable = true
  }
}`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("description", knownvalue.StringExact("second")),
					hcValue("check_interval_sec", knownvalue.Int64Exact(10)),
					hcValue("timeout_sec", knownvalue.Int64Exact(3)),
					hcValue("healthy_threshold", knownvalue.Int64Exact(3)),
					hcValue("unhealthy_threshold", knownvalue.Int64Exact(4)),
					hcBlockValue("http_health_check", "port", knownvalue.Int64Exact(8081)),
					hcBlockValue("http_health_check", "host", knownvalue.StringExact("example.com")),
					hcBlockValue("http_health_check", "request_path", knownvalue.StringExact("/")),
					hcBlockValue("log_config", "enable", knownvalue.Bool(true)),
					sameID.AddStateValue(hcAddr, tfjsonpath.New("health_check_id")),
				},
			},
			{
				ResourceName:      hcAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				ResourceName:      hcAddr,
				ImportState:       true,
				ImportStateId:     "hc-basic",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccHealthCheck_protocolSwitch(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-switch"
  http_health_check {
    port = 8080
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeHTTP)),
					sameID.AddStateValue(hcAddr, tfjsonpath.New("health_check_id")),
				},
			},
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-switch"
  tcp_health_check {
    port     = 9000
    request  = "ping"
    response = "pong"
  }
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(hcAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(hcAddr, tfjsonpath.New("type"), knownvalue.StringExact(api.TypeTCP)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeTCP)),
					hcValue("http_health_check", knownvalue.Null()),
					hcBlockValue("tcp_health_check", "port", knownvalue.Int64Exact(9000)),
					hcBlockValue("tcp_health_check", "response", knownvalue.StringExact("pong")),
					sameID.AddStateValue(hcAddr, tfjsonpath.New("health_check_id")),
				},
			},
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-switch"
  grpc_health_check {
    port              = 50051
    grpc_service_name = "health.v1"
  }
}`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeGRPC)),
					hcValue("tcp_health_check", knownvalue.Null()),
					hcBlockValue("grpc_health_check", "port", knownvalue.Int64Exact(50051)),
					hcBlockValue("grpc_health_check", "grpc_service_name", knownvalue.StringExact("health.v1")),
					sameID.AddStateValue(hcAddr, tfjsonpath.New("health_check_id")),
				},
			},
		},
	})
}

// TestAccHealthCheck_udp: a check type lbhealth adds to the Compute API
// (UDP) is a block like the API's own: planned type, no proxy_header, an
// import with nothing to change, and its rules at plan time.
func TestAccHealthCheck_udp(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-udp"
  udp_health_check {
    request = "PING"
  }
}`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`udp_health_check.port is required: UDP checks have no default port`),
			},
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-udp"
  udp_health_check {
    port     = 5353
    request  = "PING"
    response = "PONG"
  }
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(hcAddr, tfjsonpath.New("type"), knownvalue.StringExact(api.TypeUDP)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeUDP)),
					hcBlockValue("udp_health_check", "port", knownvalue.Int64Exact(5353)),
					hcBlockValue("udp_health_check", "response", knownvalue.StringExact("PONG")),
					hcValue("tcp_health_check", knownvalue.Null()),
				},
			},
			{
				ResourceName:      hcAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccHealthCheck_regional(t *testing.T) {
	e := newTestEmulator(t)
	config := func(region string) string {
		return e.config(`
resource "lbhealth_health_check" "test" {
  name   = "hc-regional"
  region = "` + region + `"
  https_health_check {}
}`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(testRegion),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/healthChecks/hc-regional")),
					hcValue("region", knownvalue.StringExact(testRegion)),
					hcBlockValue("https_health_check", "port", knownvalue.Int64Exact(443)),
				},
			},
			{
				// A bare name that is not global is found in the provider's region.
				ResourceName:      hcAddr,
				ImportState:       true,
				ImportStateId:     "hc-regional",
				ImportStateVerify: true,
			},
			{
				Config: config("europe-west1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(hcAddr, plancheck.ResourceActionReplace)}},
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("id", knownvalue.StringExact("projects/test-project/regions/europe-west1/healthChecks/hc-regional")),
				},
				Check: func(*terraform.State) error {
					_, err := e.client().GetHealthCheck(context.Background(), client.Scope{Region: testRegion}, "hc-regional")
					if err == nil {
						return fmt.Errorf("the check in %s still exists after the replacement", testRegion)
					}
					return nil
				},
			},
			{
				ResourceName:      hcAddr,
				ImportState:       true,
				ImportStateId:     "projects/test-project/regions/europe-west1/healthChecks/hc-regional",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccHealthCheck_defaultsNoDiff(t *testing.T) {
	e := newTestEmulator(t)
	noDiff := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-defaults"
  tcp_health_check {}
}`),
				ConfigPlanChecks: noDiff,
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeTCP)),
					hcBlockValue("tcp_health_check", "port", knownvalue.Int64Exact(80)),
					hcBlockValue("tcp_health_check", "proxy_header", knownvalue.StringExact("NONE")),
					hcValue("log_config", knownvalue.Null()),
				},
			},
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-defaults"
  tcp_health_check {}
  log_config {
    enable = false
  }
}`),
				ConfigPlanChecks: noDiff,
				ConfigStateChecks: []statecheck.StateCheck{
					hcBlockValue("log_config", "enable", knownvalue.Bool(false)),
				},
			},
		},
	})
}

func TestAccHealthCheck_portNameSwitch(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-port-name"
  http_health_check {
    port = 8080
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					hcBlockValue("http_health_check", "port", knownvalue.Int64Exact(8080)),
				},
			},
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-port-name"
  http_health_check {
    port_name = "http"
  }
}`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					hcBlockValue("http_health_check", "port", knownvalue.Null()),
					hcBlockValue("http_health_check", "port_name", knownvalue.StringExact("http")),
				},
			},
			{
				// Neither port nor port_name: the protocol default comes back.
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-port-name"
  http_health_check {}
}`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					hcBlockValue("http_health_check", "port", knownvalue.Int64Exact(80)),
					hcBlockValue("http_health_check", "port_name", knownvalue.Null()),
				},
			},
		},
	})
}

// TestAccHealthCheck_defaultPortPlanned proves that a default port is
// planned, not (known after apply), when an unrelated setting changes, and
// that a named or serving port plans none.
func TestAccHealthCheck_defaultPortPlanned(t *testing.T) {
	e := newTestEmulator(t)
	config := func(interval int, block string) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "test" {
  name               = "hc-default-port"
  check_interval_sec = %d
  %s
}`, interval, block))
	}
	planPort := func(block string, v knownvalue.Check) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(hcAddr, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(hcAddr, tfjsonpath.New(block).AtMapKey("port"), v),
		}}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(5, `tcp_health_check {
    request = "ping"
  }`),
				ConfigStateChecks: []statecheck.StateCheck{
					hcBlockValue("tcp_health_check", "port", knownvalue.Int64Exact(80)),
				},
			},
			{
				Config: config(10, `tcp_health_check {
    request = "ping"
  }`),
				ConfigPlanChecks: planPort("tcp_health_check", knownvalue.Int64Exact(80)),
			},
			{
				Config: config(15, `tcp_health_check {
    port_specification = "USE_SERVING_PORT"
  }`),
				ConfigPlanChecks: planPort("tcp_health_check", knownvalue.Null()),
			},
			{
				Config:           config(20, `http2_health_check {}`),
				ConfigPlanChecks: planPort("http2_health_check", knownvalue.Int64Exact(443)),
			},
			{
				Config: config(25, `grpc_health_check {
    port_specification = "USE_SERVING_PORT"
  }`),
				ConfigPlanChecks: planPort("grpc_health_check", knownvalue.Null()),
			},
		},
	})
}

func TestAccHealthCheck_dynamicBlock(t *testing.T) {
	e := newTestEmulator(t)
	// Variables are unknown while Terraform validates, so these blocks and
	// values reach ValidateConfig unknown: no rule may fire on them (without
	// the filtering, "port is required" and the timeout rule would).
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
variable "tls" {
  type    = map(object({ port = number, service = string }))
  default = { api = { port = 8443, service = "api.v1" } }
}
resource "lbhealth_health_check" "test" {
  name = "hc-dynamic"
  dynamic "grpc_tls_health_check" {
    for_each = var.tls
    content {
      port              = grpc_tls_health_check.value.port
      grpc_service_name = grpc_tls_health_check.value.service
    }
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeGRPCWithTLS)),
					hcBlockValue("grpc_tls_health_check", "port", knownvalue.Int64Exact(8443)),
				},
			},
			{
				Config: e.config(`
variable "grpc_port" {
  type    = number
  default = 50051
}
variable "interval" {
  type    = number
  default = 10
}
locals {
  protocols = toset(["grpc"])
}
resource "lbhealth_health_check" "test" {
  name               = "hc-dynamic"
  check_interval_sec = var.interval
  timeout_sec        = 10
  dynamic "grpc_health_check" {
    for_each = local.protocols
    content {
      port = var.grpc_port
    }
  }
}`),
				ConfigPlanChecks: expectUpdate(),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeGRPC)),
					hcValue("grpc_tls_health_check", knownvalue.Null()),
					hcBlockValue("grpc_health_check", "port", knownvalue.Int64Exact(50051)),
				},
			},
		},
	})
}

func TestAccHealthCheck_disappears(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-gone"
  tcp_health_check {}
}`),
				Check: func(*terraform.State) error {
					return e.client().DeleteHealthCheck(context.Background(), client.Global, "hc-gone")
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(hcAddr, plancheck.ResourceActionCreate)}},
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

func TestAccHealthCheck_alreadyExists(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					hc := &api.HealthCheck{Meta: api.Meta{Name: "hc-taken"}, TCPHealthCheck: &api.TCPHealthCheck{}}
					if _, err := e.client().InsertHealthCheck(context.Background(), client.Global, hc); err != nil {
						t.Fatalf("creating the check out of band: %v", err)
					}
				},
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name = "hc-taken"
  tcp_health_check {}
}`),
				ExpectError: errorRegexp("The resource 'projects/test-project/global/healthChecks/hc-taken' already exists (HTTP 409 alreadyExists)"),
			},
		},
	})
}
