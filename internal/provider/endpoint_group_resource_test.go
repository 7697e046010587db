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

const negAddr = "lbhealth_endpoint_group.test"

// negValue checks one attribute of lbhealth_endpoint_group.test.
func negValue(attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(negAddr, tfjsonpath.New(attr), v)
}

// negEndpoint checks the endpoints of lbhealth_endpoint_group.test, in order.
func negEndpoints(endpoints ...map[string]knownvalue.Check) statecheck.StateCheck {
	checks := make([]knownvalue.Check, len(endpoints))
	for i, e := range endpoints {
		checks[i] = knownvalue.ObjectExact(e)
	}
	return negValue("endpoint", knownvalue.ListExact(checks))
}

func endpointValue(ip string, port int64, instance, state string) map[string]knownvalue.Check {
	var p, inst knownvalue.Check = knownvalue.Int64Exact(port), knownvalue.StringExact(instance)
	if port == 0 {
		p = knownvalue.Null()
	}
	if instance == "" {
		inst = knownvalue.Null()
	}
	return map[string]knownvalue.Check{"ip_address": knownvalue.StringExact(ip), "port": p,
		"instance": inst, "state": knownvalue.StringExact(state)}
}

// expectAction proves what a step does to addr before it applies.
func expectAction(addr string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)}}
}

func TestAccEndpointGroup_basic(t *testing.T) {
	e := newTestEmulator(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_endpoint_group" "test" {
  name         = "neg-basic"
  zone         = "us-central1-a"
  description  = "web tier"
  default_port = 9000
  endpoint {
    ip_address = "127.0.0.1"
  }
  endpoint {
    ip_address = "127.0.0.1"
    port       = 9001
    instance   = "web-1"
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					negValue("id", knownvalue.StringExact("projects/test-project/zones/us-central1-a/networkEndpointGroups/neg-basic")),
					negValue("zone", knownvalue.StringExact("us-central1-a")),
					negValue("region", knownvalue.Null()),
					negValue("project", knownvalue.StringExact(testProject)),
					negValue("network_endpoint_type", knownvalue.StringExact("GCE_VM_IP_PORT")),
					negValue("size", knownvalue.Int64Exact(2)),
					negValue("self_link", knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/projects/test-project/zones/us-central1-a/networkEndpointGroups/neg-basic$`))),
					negValue("creation_timestamp", knownvalue.NotNull()),
					negValue("endpoint_group_id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9]+$`))),
					negEndpoints(endpointValue("127.0.0.1", 9000, "", "RUNNING"), endpointValue("127.0.0.1", 9001, "web-1", "RUNNING")),
					sameID.AddStateValue(negAddr, tfjsonpath.New("endpoint_group_id")),
				},
			},
			{
				// Add an endpoint and stop another: an update in place, with
				// every port known at plan time (the default one too).
				Config: e.config(`
resource "lbhealth_endpoint_group" "test" {
  name         = "neg-basic"
  zone         = "us-central1-a"
  description  = "web tier"
  default_port = 9000
  endpoint {
    ip_address = "127.0.0.1"
  }
  endpoint {
    ip_address = "127.0.0.1"
    port       = 9001
    instance   = "web-1"
    state      = "STOPPED"
  }
  endpoint {
    ip_address = "::1"
    port       = 9002
  }
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(negAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(negAddr, tfjsonpath.New("endpoint").AtSliceIndex(0).AtMapKey("port"), knownvalue.Int64Exact(9000)),
					plancheck.ExpectKnownValue(negAddr, tfjsonpath.New("size"), knownvalue.Int64Exact(3)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					negValue("size", knownvalue.Int64Exact(3)),
					negEndpoints(endpointValue("127.0.0.1", 9000, "", "RUNNING"), endpointValue("127.0.0.1", 9001, "web-1", "STOPPED"),
						endpointValue("::1", 9002, "", "RUNNING")),
					sameID.AddStateValue(negAddr, tfjsonpath.New("endpoint_group_id")),
				},
			},
			{
				// A new default port moves the endpoints that set none.
				Config: e.config(`
resource "lbhealth_endpoint_group" "test" {
  name         = "neg-basic"
  zone         = "us-central1-a"
  default_port = 9100
  endpoint {
    ip_address = "127.0.0.1"
  }
}`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(negAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(negAddr, tfjsonpath.New("endpoint").AtSliceIndex(0).AtMapKey("port"), knownvalue.Int64Exact(9100)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					negValue("description", knownvalue.Null()),
					negEndpoints(endpointValue("127.0.0.1", 9100, "", "RUNNING")),
					sameID.AddStateValue(negAddr, tfjsonpath.New("endpoint_group_id")),
				},
			},
			{
				ResourceName:      negAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccEndpointGroup_regional(t *testing.T) {
	e := newTestEmulator(t)
	config := func(scope string) string {
		return e.config(`
resource "lbhealth_endpoint_group" "test" {
  name                  = "neg-regional"
  network_endpoint_type = "GCE_VM_IP"
  ` + scope + `
  endpoint {
    ip_address = "127.0.0.1"
    instance   = "vm-1"
  }
}`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Neither zone nor region: regional in the provider's region.
				Config: config(""),
				ConfigStateChecks: []statecheck.StateCheck{
					negValue("id", knownvalue.StringExact("projects/test-project/regions/us-central1/networkEndpointGroups/neg-regional")),
					negValue("region", knownvalue.StringExact(testRegion)),
					negValue("zone", knownvalue.Null()),
					negEndpoints(endpointValue("127.0.0.1", 0, "vm-1", "RUNNING")),
				},
			},
			{
				// The same region written out: nothing to do.
				Config:           config(`region = "` + testRegion + `"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// A bare name is in the provider's region: endpoint groups are never global.
				ResourceName:      negAddr,
				ImportState:       true,
				ImportStateId:     "neg-regional",
				ImportStateVerify: true,
			},
			{
				ResourceName:  negAddr,
				ImportState:   true,
				ImportStateId: "projects/test-project/global/networkEndpointGroups/neg-regional",
				ExpectError: errorRegexp("is global, but networkEndpointGroups are zonal or regional: import by " +
					"projects/{project}/zones/{zone}/networkEndpointGroups/{name}, " +
					"projects/{project}/regions/{region}/networkEndpointGroups/{name}"),
			},
			{
				Config:           config(`zone = "us-central1-b"`),
				ConfigPlanChecks: expectAction(negAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{
					negValue("id", knownvalue.StringExact("projects/test-project/zones/us-central1-b/networkEndpointGroups/neg-regional")),
					negValue("region", knownvalue.Null()),
				},
			},
			{
				ResourceName:      negAddr,
				ImportState:       true,
				ImportStateId:     "projects/test-project/zones/us-central1-b/networkEndpointGroups/neg-regional",
				ImportStateVerify: true,
			},
		},
	})
}
