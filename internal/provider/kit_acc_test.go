package provider

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// kitConfig is a load balancer over the three targets at addrs: a check
// every second, one failure makes UNHEALTHY; a forwarding rule on port
// carries traffic; the health data source waits until all three are
// HEALTHY.
func kitConfig(addrs []string, port int) string {
	var eps strings.Builder
	for _, a := range addrs {
		host, p, _ := net.SplitHostPort(a)
		fmt.Fprintf(&eps, "  endpoint {\n    ip_address = %q\n    port       = %s\n  }\n", host, p)
	}
	return fmt.Sprintf(`
resource "lbhealth_health_check" "web" {
  name                = "web"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  http_health_check {
    port_specification = "USE_SERVING_PORT"
  }
}
resource "lbhealth_endpoint_group" "web" {
  name = "web"
  zone = "us-central1-a"
%s}
resource "lbhealth_backend_service" "web" {
  name          = "web"
  health_checks = [lbhealth_health_check.web.self_link]
  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}
resource "lbhealth_forwarding_rule" "web" {
  name            = "web"
  ip_address      = "127.0.0.1"
  port_range      = "%d"
  backend_service = lbhealth_backend_service.web.self_link
}
data "lbhealth_backend_health" "web" {
  backend_service = lbhealth_backend_service.web.self_link
  wait_for {
    timeout = "60s"
  }
}
`, eps.String(), port)
}

// The testing kit's whole story, as a user's CI test would tell it: apply
// a load balancer over three endpoints, wait (in the apply) until they are
// HEALTHY, break one with a scenario, and judge from the timeline and from
// traffic: the break, then that endpoint UNHEALTHY and no other, and no
// request reaches it; healed by a second scenario, it is HEALTHY again.
func TestAccTestingKit_breakOneJudgeFromTheTimeline(t *testing.T) {
	started := time.Now()
	emu := lbhealthtest.Start(t, func(c *emulator.Config) { c.Workloads = false })
	sim := lbhealthtest.StartTargets(t, targets.Config{HTTP: 3})
	var addrs []string
	for _, tg := range sim.Targets() {
		addrs = append(addrs, tg.Addr())
	}
	broken := sim.Targets()[0]
	port := lbhealthtest.FreePort(t)
	config := emu.LbhealthProvider(testProject) + kitConfig(addrs, port)

	judge := func(*terraform.State) error {
		emu.RunScenario(t, `{"name": "break", "steps": [{"at": "0s", "target": "`+sim.ControlURL()+`/targets/`+broken.Name+`", "mode": "status-500"}]}`)
		down := emu.WaitEvent(t, 0, lbhealthtest.Unhealthy(broken.Addr()), time.Minute)
		var step timeline.Event
		for _, ev := range emu.Events(timeline.Filter{}) {
			switch {
			case ev.Kind == timeline.KindScenario && ev.Group == "break":
				step = ev
			case ev.Kind == timeline.KindEndpoint && ev.To == "UNHEALTHY" && ev.Endpoint != broken.Addr():
				return fmt.Errorf("%s turned UNHEALTHY too: %+v", ev.Endpoint, ev)
			}
		}
		if step.Seq == 0 || step.Seq > down.Seq || down.Reason == "" || !strings.Contains(down.Detail, "500") {
			return fmt.Errorf("want the scenario's step, then the endpoint UNHEALTHY for its 500s; got %+v then %+v", step, down)
		}
		t.Logf("detected %s after the break (the check's bound: 1 interval of 1s + a timeout of 1s)", down.Time.Sub(step.Time))

		// Traffic through the forwarding rule avoids it.
		for range 20 {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
			if err != nil {
				return err
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || strings.Contains(string(body), broken.Name+" ") {
				return fmt.Errorf("an answer through the load balancer: %d %q, want 200 from another target than %s", resp.StatusCode, body, broken.Name)
			}
		}

		emu.RunScenario(t, `{"name": "heal", "steps": [{"at": "0s", "target": "`+sim.ControlURL()+`/targets/`+broken.Name+`", "mode": "ok"}]}`)
		emu.WaitEvent(t, down.Seq, lbhealthtest.HealthyAgain(broken.Addr()), time.Minute)
		return nil
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: config, Check: judge}},
	})
	t.Logf("the whole test took %s", time.Since(started).Round(10*time.Millisecond))
}
