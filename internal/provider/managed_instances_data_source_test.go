package provider

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// TestAccManagedInstancesDataSource_readsAutohealing: a managed group
// made through the API (as terraform-provider-google makes it) is read
// with its instance, the instance's status, action and the autohealing
// check's verdict; by id, or by name and zone; a bare name alone is refused.
func TestAccManagedInstancesDataSource_readsAutohealing(t *testing.T) {
	const ip = "127.1.8.1"
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}}
	srv.Start()
	t.Cleanup(srv.Close)
	port := l.Addr().(*net.TCPAddr).Port

	e := newTestEmulator(t, func(c *emulator.Config) { c.ManagedInstanceRange = netip.MustParsePrefix("127.1.8.0/30") })
	post := func(path, body string) {
		t.Helper()
		resp, err := http.Post(e.URL()+"/compute/v1/projects/"+testProject+"/"+path, "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %s", path, resp.Status)
		}
	}
	post("global/healthChecks", fmt.Sprintf(`{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
		"unhealthyThreshold": 1, "httpHealthCheck": {"port": %d}}`, port))
	post("global/instanceTemplates", `{"name": "web", "properties": {"networkInterfaces": [{}]}}`)
	post("zones/us-central1-a/instanceGroupManagers", `{"name": "mig", "baseInstanceName": "web", "instanceTemplate": "global/instanceTemplates/web",
		"targetSize": 1, "autoHealingPolicies": [{"healthCheck": "global/healthChecks/hc"}]}`)
	scope := client.Scope{Zone: "us-central1-a"}
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, err := e.client().ListManagedInstances(context.Background(), scope, "mig")
		if err == nil && len(list.ManagedInstances) == 1 && len(list.ManagedInstances[0].InstanceHealth) == 1 &&
			list.ManagedInstances[0].InstanceHealth[0].DetailedHealthState == "HEALTHY" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the managed instance did not turn HEALTHY: %+v, %v", list, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	const byID, byName = "data.lbhealth_managed_instances.by_id", "data.lbhealth_managed_instances.by_name"
	inst := func(attr string) tfjsonpath.Path { return tfjsonpath.New("instances").AtSliceIndex(0).AtMapKey(attr) }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
data "lbhealth_managed_instances" "by_id" {
  instance_group_manager = "projects/test-project/zones/us-central1-a/instanceGroupManagers/mig"
}
data "lbhealth_managed_instances" "by_name" {
  instance_group_manager = "mig"
  zone                   = "us-central1-a"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(byID, tfjsonpath.New("target_size"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(byID, tfjsonpath.New("is_stable"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(byID, tfjsonpath.New("recreate_loop"), knownvalue.StringExact("")),
					statecheck.ExpectKnownValue(byID, tfjsonpath.New("instances"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue(byID, inst("name"), knownvalue.StringRegexp(regexp.MustCompile(`^web-[0-9a-f]{4}$`))),
					statecheck.ExpectKnownValue(byID, inst("instance_status"), knownvalue.StringExact("RUNNING")),
					statecheck.ExpectKnownValue(byID, inst("current_action"), knownvalue.StringExact("NONE")),
					statecheck.ExpectKnownValue(byID, inst("health_state"), knownvalue.StringExact("HEALTHY")),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("id"),
						knownvalue.StringExact("projects/test-project/zones/us-central1-a/instanceGroupManagers/mig")),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("project"), knownvalue.StringExact(testProject)),
					statecheck.ExpectKnownValue(byName, inst("health_state"), knownvalue.StringExact("HEALTHY")),
				},
			},
			{
				Config: e.config(`
data "lbhealth_managed_instances" "bare" {
  instance_group_manager = "mig"
}
`),
				ExpectError: regexp.MustCompile(`instance_group_manager "mig" is a name: set zone \(a zonal group\) or\s+region\s+\(a\s+regional one\), or give its id`),
			},
		},
	})
}
