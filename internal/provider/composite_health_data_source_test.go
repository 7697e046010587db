package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccCompositeHealthDataSource_read reads a composite in the forms
// composite_check takes. Its only endpoint is STOPPED, so it is UNHEALTHY
// from the start, without waiting for probes (the failover example's test
// follows real probes).
func TestAccCompositeHealthDataSource_read(t *testing.T) {
	e := newTestEmulator(t)
	stopped := strings.Replace(compositeSources(60, 1), `    ip_address = "127.0.0.1"
    port       = 1
  }`, `    ip_address = "127.0.0.1"
    port       = 1
    state      = "STOPPED"
  }`, 1) + `
resource "lbhealth_composite_check" "test" {
  name               = "chc-read"
  health_sources     = [lbhealth_health_source.a.self_link, lbhealth_health_source.b.self_link]
  health_destination = lbhealth_forwarding_rule.a.self_link
}
`
	const byLink, byName, byProject = "data.lbhealth_composite_health.link", "data.lbhealth_composite_health.name",
		"data.lbhealth_composite_health.project"
	check := func(addr string, p tfjsonpath.Path, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, p, v)
	}
	source := func(i int, attr string) tfjsonpath.Path {
		return tfjsonpath.New("sources").AtSliceIndex(i).AtMapKey(attr)
	}
	const id = "projects/test-project/regions/us-central1/compositeHealthChecks/chc-read"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.config(stopped)},
			{
				Config: e.config(stopped + `
data "lbhealth_composite_health" "link" {
  composite_check = lbhealth_composite_check.test.self_link
}
data "lbhealth_composite_health" "name" {
  composite_check = "chc-read"
  region          = "us-central1"
}
data "lbhealth_composite_health" "project" {
  composite_check = "test-project/chc-read"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					check(byLink, tfjsonpath.New("id"), knownvalue.StringExact(id)),
					check(byLink, tfjsonpath.New("project"), knownvalue.StringExact(testProject)),
					check(byLink, tfjsonpath.New("region"), knownvalue.StringExact(testRegion)),
					check(byLink, tfjsonpath.New("health_state"), knownvalue.StringExact("UNHEALTHY")),
					check(byLink, tfjsonpath.New("healthy"), knownvalue.Bool(false)),
					check(byLink, tfjsonpath.New("sources"), knownvalue.ListSizeExact(2)),
					sameAsAttr(byLink, source(0, "source"), "lbhealth_health_source.a", "self_link"),
					check(byLink, source(0, "health_state"), knownvalue.StringExact("UNHEALTHY")),
					sameAsAttr(byLink, source(1, "source"), "lbhealth_health_source.b", "self_link"),
					check(byName, tfjsonpath.New("id"), knownvalue.StringExact(id)),
					check(byName, tfjsonpath.New("health_state"), knownvalue.StringExact("UNHEALTHY")),
					check(byProject, tfjsonpath.New("id"), knownvalue.StringExact(id)),
				},
			},
			{
				// Waiting for HEALTHY, which a stopped endpoint never lets
				// it be: the read fails saying what it saw.
				Config: e.config(stopped + `
data "lbhealth_composite_health" "link" {
  composite_check = lbhealth_composite_check.test.self_link
  wait_for {
    timeout = "2s"
  }
}
`),
				ExpectError: regexp.MustCompile(`(?s)waited 2s: the check is UNHEALTHY, want HEALTHY; its sources:\s+\S+/healthSources/src-a\s+UNHEALTHY`),
			},
			{Config: e.config(stopped)}, // a valid configuration to destroy
		},
	})
}

func TestAccCompositeHealthDataSource_errors(t *testing.T) {
	e := newTestEmulator(t)
	tests := []struct {
		body string
		want *regexp.Regexp
	}{
		{`composite_check = "projects/test-project/global/compositeHealthChecks/chc"`,
			errorRegexp(`composite_check "projects/test-project/global/compositeHealthChecks/chc" is global, but composite health checks are regional only`)},
		{"composite_check = \"projects/test-project/regions/us-east1/compositeHealthChecks/chc\"\n  region = \"us-west1\"",
			errorRegexp(`composite_check is in region "us-east1", but region is "us-west1"`)},
		{`composite_check = "projects/test-project/regions/us-east1/healthSources/src"`,
			errorRegexp(`composite_check "projects/test-project/regions/us-east1/healthSources/src" has none of the forms`)},
		{`composite_check = "chc-missing"`,
			regexp.MustCompile(`(?s)Error reading the health of composite health check.*chc-missing.*HTTP 404`)},
	}
	steps := make([]resource.TestStep, 0, len(tests))
	for _, tt := range tests {
		steps = append(steps, resource.TestStep{
			Config:      e.config("data \"lbhealth_composite_health\" \"test\" {\n  " + tt.body + "\n}"),
			ExpectError: tt.want,
		})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}
