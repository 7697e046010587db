package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccResourceExamples applies every example of the resource pages
// (examples/resources/*/resource.tf) on its own, each in a project of its
// own on one emulator: an example that needs a resource it does not
// declare, that the emulator refuses, or that plans a change after its
// apply fails here. The examples probe the target simulator's fixed ports,
// which nothing serves in the test: their endpoints are only unhealthy.
func TestAccResourceExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/resources/*/resource.tf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no resource examples found (%v)", err)
	}
	e := newTestEmulator(t)
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f))
		if appliedElsewhere[name] != "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{Config: fmt.Sprintf(`
provider "lbhealth" {
  endpoint = %q
  project  = %q
  region   = %q
}
%s`, e.Addr(), "examples-"+strings.ReplaceAll(strings.TrimPrefix(name, "lbhealth_"), "_", "-"), testRegion, body)}},
			})
		})
	}
}

// appliedElsewhere are the examples another test applies as written, with
// what this test's emulator has not: the test that does, by example.
var appliedElsewhere = map[string]string{
	// Workloads must run at the instances' addresses, which two emulators
	// running side by side cannot both serve.
	"lbhealth_workload": "TestAccWorkload_breaksAndHeals",
}
