package provider

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// serveAt starts an HTTP server answering 200 at each of ips on one port
// (a free one on the first address) and returns the port.
func serveAt(t *testing.T, ips ...string) int64 {
	t.Helper()
	port := 0
	for _, ip := range ips {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, fmt.Sprint(port)))
		if err != nil {
			t.Fatal(err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		s := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}}
		s.Start()
		t.Cleanup(s.Close)
	}
	return int64(port)
}

func TestAccExamples_instanceGroup(t *testing.T) {
	e := newTestEmulator(t)
	files := []string{"resources/lbhealth_instance_group/resource.tf"}
	steps := []resource.TestStep{{
		Config: exampleConfig(t, e, files...),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("lbhealth_instance_group.web", tfjsonpath.New("size"), knownvalue.Int64Exact(2)),
			statecheck.ExpectKnownValue("lbhealth_instance.web_a", tfjsonpath.New("network_ip"), knownvalue.StringExact("127.0.11.1")),
			statecheck.ExpectKnownValue("lbhealth_instance.web_a", tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
		},
	}}
	steps = append(steps, importSteps(t, "resources/lbhealth_instance/import.sh")...)
	// Import reads references as URLs; the configuration wrote ids.
	steps = append(steps, importSteps(t, "resources/lbhealth_instance_group/import.sh", "instances")...)
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// TestAccInstanceGroup_namedPortProbesEveryInstance: a backend service over
// an unmanaged group whose check uses the group's named port probes every
// instance at its address on that port; removing an instance and moving
// the named port update the group in place, and the probes follow.
func TestAccInstanceGroup_namedPortProbesEveryInstance(t *testing.T) {
	e := newTestEmulator(t)
	port := serveAt(t, "127.0.11.1", "127.0.11.2")
	other := serveAt(t, "127.0.11.1")
	config := func(instances string, namedPort int64) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_instance" "a" {
  name       = "a"
  zone       = "us-central1-a"
  network_ip = "127.0.11.1"
}
resource "lbhealth_instance" "b" {
  name       = "b"
  zone       = "us-central1-a"
  network_ip = "127.0.11.2"
}
resource "lbhealth_instance_group" "g" {
  name      = "g"
  zone      = "us-central1-a"
  instances = [%s]
  named_port {
    name = "http"
    port = %d
  }
}
resource "lbhealth_health_check" "hc" {
  name                = "hc"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  http_health_check {
    port_specification = "USE_NAMED_PORT"
    port_name          = "http"
  }
}
resource "lbhealth_backend_service" "bs" {
  name          = "bs"
  health_checks = [lbhealth_health_check.hc.id]
  backend {
    group = lbhealth_instance_group.g.self_link
  }
}
`, instances, namedPort))
	}
	health := func() ([]api.HealthStatus, error) {
		h, err := e.client().GetBackendServiceHealth(context.Background(), client.Global, "bs",
			"projects/"+testProject+"/zones/us-central1-a/instanceGroups/g")
		if err != nil {
			return nil, err
		}
		return h.HealthStatus, nil
	}
	healthyAt := func(ip string, port int64) func(api.HealthStatus) bool {
		return func(hs api.HealthStatus) bool {
			return hs.IPAddress == ip && hs.Port == port && hs.State() == "HEALTHY"
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// One instance by self link, the other by id: both kept as written.
				Config: config("lbhealth_instance.a.self_link, lbhealth_instance.b.id", port),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_instance_group.g", tfjsonpath.New("size"), knownvalue.Int64Exact(2)),
				},
			},
			{
				PreConfig: func() {
					waitForStatus(t, "instance a HEALTHY on the named port", health, healthyAt("127.0.11.1", port))
					waitForStatus(t, "instance b HEALTHY on the named port", health, healthyAt("127.0.11.2", port))
				},
				Config: config("lbhealth_instance.a.id", other),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("lbhealth_instance_group.g", tfjsonpath.New("size"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("lbhealth_instance_group.g", tfjsonpath.New("named_port").AtSliceIndex(0).AtMapKey("port"),
						knownvalue.Int64Exact(other)),
				},
			},
			{
				PreConfig: func() {
					waitForStatus(t, "instance a HEALTHY on the moved named port", health, healthyAt("127.0.11.1", other))
					statuses, err := health()
					if err != nil {
						t.Fatal(err)
					}
					if len(statuses) != 1 {
						t.Errorf("health of the group after removing b: %+v, want instance a alone", statuses)
					}
				},
				Config:   config("lbhealth_instance.a.id", other),
				PlanOnly: true,
			},
		},
	})
}
