package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestAccHealthCheckDataSource_basic(t *testing.T) {
	e := newTestEmulator(t)
	const global, regional = "data.lbhealth_health_check.global", "data.lbhealth_health_check.regional"
	same := func(dataAddr, resAddr, attr string) statecheck.StateCheck {
		return statecheck.CompareValuePairs(dataAddr, tfjsonpath.New(attr), resAddr, tfjsonpath.New(attr), compare.ValuesSame())
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
resource "lbhealth_health_check" "test" {
  name               = "hc-data"
  description        = "read me"
  check_interval_sec = 7
  https_health_check {
    request_path = "/status"
  }
}
resource "lbhealth_health_check" "regional" {
  name   = "hc-data"
  region = "us-east1"
  grpc_tls_health_check {
    port = 8443
  }
}
data "lbhealth_health_check" "global" {
  name = lbhealth_health_check.test.name
}
data "lbhealth_health_check" "regional" {
  name   = lbhealth_health_check.regional.name
  region = lbhealth_health_check.regional.region
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					same(global, hcAddr, "id"),
					same(global, hcAddr, "health_check_id"),
					same(global, hcAddr, "self_link"),
					same(global, hcAddr, "creation_timestamp"),
					same(global, hcAddr, "https_health_check"),
					same(regional, "lbhealth_health_check.regional", "id"),
					same(regional, "lbhealth_health_check.regional", "grpc_tls_health_check"),
					statecheck.ExpectKnownValue(global, tfjsonpath.New("description"), knownvalue.StringExact("read me")),
					statecheck.ExpectKnownValue(global, tfjsonpath.New("project"), knownvalue.StringExact(testProject)),
					statecheck.ExpectKnownValue(global, tfjsonpath.New("type"), knownvalue.StringExact(api.TypeHTTPS)),
					statecheck.ExpectKnownValue(global, tfjsonpath.New("check_interval_sec"), knownvalue.Int64Exact(7)),
					statecheck.ExpectKnownValue(global, tfjsonpath.New("https_health_check").AtMapKey("port"), knownvalue.Int64Exact(443)),
					statecheck.ExpectKnownValue(global, tfjsonpath.New("http_health_check"), knownvalue.Null()),
					// A data source shows every value, the default log_config included.
					statecheck.ExpectKnownValue(global, tfjsonpath.New("log_config").AtMapKey("enable"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(regional, tfjsonpath.New("type"), knownvalue.StringExact(api.TypeGRPCWithTLS)),
					statecheck.ExpectKnownValue(regional, tfjsonpath.New("region"), knownvalue.StringExact("us-east1")),
				},
			},
		},
	})
}
