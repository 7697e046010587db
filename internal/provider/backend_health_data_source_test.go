package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// switchableServer is a loopback HTTP endpoint whose status a test sets.
type switchableServer struct {
	*httptest.Server
	status atomic.Int32
}

func newSwitchableServer(t *testing.T) *switchableServer {
	t.Helper()
	s := &switchableServer{}
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(int(s.status.Load()))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *switchableServer) port(t *testing.T) int64 {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.ParseInt(u.Port(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitForHealth polls getHealth until the endpoint on port reports state.
func waitForHealth(t *testing.T, e *testEmulator, service string, port int64, state string) {
	t.Helper()
	read := func() ([]api.HealthStatus, error) {
		h, err := e.client().GetBackendServiceHealth(context.Background(), client.Global, service, "")
		if err != nil {
			return nil, err
		}
		return h.HealthStatus, nil
	}
	waitForStatus(t, fmt.Sprintf("port %d of %s to be %s", port, service, state), read,
		func(hs api.HealthStatus) bool { return hs.Port == port && hs.State() == state })
}

// waitForStatus polls read until a status matches. The deadline is a hang
// guard, not a measurement: with interval 1 and thresholds 1 a verdict
// takes about a second.
func waitForStatus(t *testing.T, what string, read func() ([]api.HealthStatus, error), match func(api.HealthStatus) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last []api.HealthStatus
	for time.Now().Before(deadline) {
		statuses, err := read()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		last = statuses
		for _, hs := range statuses {
			if match(hs) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; last answer %+v", what, last)
}

func TestAccBackendHealthDataSource_probes(t *testing.T) {
	e := newTestEmulator(t)
	target := newSwitchableServer(t)
	port := target.port(t)
	resources := fmt.Sprintf(`
resource "lbhealth_health_check" "probe" {
  name                = "hc-probe"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  http_health_check {
    port_specification = "USE_SERVING_PORT"
  }
}
resource "lbhealth_endpoint_group" "web" {
  name = "neg-web"
  zone = "us-central1-a"
  endpoint {
    ip_address = "127.0.0.1"
    port       = %d
  }
}
# A stopped endpoint is never probed and is UNHEALTHY with reason STOPPED.
resource "lbhealth_endpoint_group" "spare" {
  name = "neg-spare"
  zone = "us-central1-b"
  endpoint {
    ip_address = "127.0.0.1"
    port       = 1
    state      = "STOPPED"
  }
}
resource "lbhealth_backend_service" "web" {
  name          = "bs-web"
  health_checks = [lbhealth_health_check.probe.self_link]
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
  backend {
    group = lbhealth_endpoint_group.spare.self_link
  }
}
`, port)
	withData := resources + `
data "lbhealth_backend_health" "web" {
  backend_service = lbhealth_backend_service.web.self_link
  group           = lbhealth_endpoint_group.web.self_link
}
data "lbhealth_backend_health" "all" {
  backend_service = lbhealth_backend_service.web.name
}
check "web_healthy" {
  assert {
    condition     = data.lbhealth_backend_health.web.all_healthy
    error_message = "${data.lbhealth_backend_health.web.unhealthy_count} endpoints of bs-web are unhealthy."
  }
}
`
	const web, all = "data.lbhealth_backend_health.web", "data.lbhealth_backend_health.all"
	value := func(addr string, p tfjsonpath.Path, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, p, v)
	}
	endpoint := func(i int, attr string) tfjsonpath.Path {
		return tfjsonpath.New("endpoints").AtSliceIndex(i).AtMapKey(attr)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: e.config(resources)},
			{
				PreConfig: func() { waitForHealth(t, e, "bs-web", port, "HEALTHY") },
				Config:    e.config(withData),
				ConfigStateChecks: []statecheck.StateCheck{
					value(web, tfjsonpath.New("id"), knownvalue.StringExact("projects/test-project/global/backendServices/bs-web")),
					value(web, tfjsonpath.New("endpoints"), knownvalue.ListSizeExact(1)),
					value(web, endpoint(0, "ip_address"), knownvalue.StringExact("127.0.0.1")),
					value(web, endpoint(0, "port"), knownvalue.Int64Exact(port)),
					value(web, endpoint(0, "health_state"), knownvalue.StringExact("HEALTHY")),
					value(web, endpoint(0, "last_probe_time"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT`))),
					value(web, endpoint(0, "load_balancer"), knownvalue.StringExact("classic Application LB")),
					// The default network's rules let no prober in: a warning.
					value(web, endpoint(0, "firewall"), knownvalue.StringRegexp(regexp.MustCompile(`^every probe would be blocked: .* from 35\.191\.0\.0/16`))),
					statecheck.CompareValuePairs(web, endpoint(0, "group"),
						"lbhealth_endpoint_group.web", tfjsonpath.New("self_link"), compare.ValuesSame()),
					value(web, tfjsonpath.New("healthy_count"), knownvalue.Int64Exact(1)),
					value(web, tfjsonpath.New("unhealthy_count"), knownvalue.Int64Exact(0)),
					value(web, tfjsonpath.New("unknown_count"), knownvalue.Int64Exact(0)),
					value(web, tfjsonpath.New("all_healthy"), knownvalue.Bool(true)),
					// Every group: the stopped endpoint makes the service unhealthy.
					value(all, tfjsonpath.New("project"), knownvalue.StringExact(testProject)),
					value(all, tfjsonpath.New("region"), knownvalue.Null()),
					value(all, tfjsonpath.New("endpoints"), knownvalue.ListSizeExact(2)),
					value(all, tfjsonpath.New("healthy_count"), knownvalue.Int64Exact(1)),
					value(all, tfjsonpath.New("unhealthy_count"), knownvalue.Int64Exact(1)),
					value(all, tfjsonpath.New("all_healthy"), knownvalue.Bool(false)),
					value(all, endpoint(1, "port"), knownvalue.Int64Exact(1)),
					value(all, endpoint(1, "health_state"), knownvalue.StringExact("UNHEALTHY")),
					value(all, endpoint(1, "reason"), knownvalue.StringExact("STOPPED")),
				},
			},
			{
				PreConfig: func() {
					target.status.Store(http.StatusInternalServerError)
					waitForHealth(t, e, "bs-web", port, "UNHEALTHY")
				},
				// The check block now warns; warnings do not fail the step.
				Config: e.config(withData),
				ConfigStateChecks: []statecheck.StateCheck{
					value(web, endpoint(0, "health_state"), knownvalue.StringExact("UNHEALTHY")),
					value(web, endpoint(0, "reason"), knownvalue.StringExact("BAD_STATUS")),
					value(web, endpoint(0, "detail"), knownvalue.StringRegexp(regexp.MustCompile(`500`))),
					value(web, tfjsonpath.New("healthy_count"), knownvalue.Int64Exact(0)),
					value(web, tfjsonpath.New("unhealthy_count"), knownvalue.Int64Exact(1)),
					value(web, tfjsonpath.New("all_healthy"), knownvalue.Bool(false)),
				},
			},
		},
	})
}

func TestAccBackendHealthDataSource_errors(t *testing.T) {
	e := newTestEmulator(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.config(`
data "lbhealth_backend_health" "test" {
  backend_service = "projects/test-project/regions/us-east1/backendServices/bs"
  region          = "us-west1"
}`),
				ExpectError: errorRegexp(`backend_service is in region "us-east1", but region is "us-west1"`),
			},
			{
				Config: e.config(`
data "lbhealth_backend_health" "test" {
  backend_service = "projects/test-project/global/healthChecks/hc"
}`),
				ExpectError: errorRegexp(`backend_service "projects/test-project/global/healthChecks/hc" has none of the forms`),
			},
			{
				Config: e.config(`
data "lbhealth_backend_health" "test" {
  backend_service = "bs-missing"
}`),
				ExpectError: regexp.MustCompile(`(?s)Error reading the health of backend service.*bs-missing`),
			},
		},
	})
}
