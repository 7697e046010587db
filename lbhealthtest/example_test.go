package lbhealthtest_test

import (
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// A test that breaks one of three targets and asserts, from the
// timeline, that its endpoint turned UNHEALTHY. The configuration it
// applies (with terraform-plugin-testing, terraform-exec or Google's
// client) points at emu.ComputeEndpoint() or emu.URL().
func Example() {
	testFailover := func(t *testing.T) {
		emu := lbhealthtest.Start(t)
		sim := lbhealthtest.StartTargets(t, targets.Config{HTTP: 3})

		// ... apply a backend service over sim.Targets() here ...
		emu.WaitHealthy(t, lbhealthtest.BackendService("projects/my-project/global/backendServices/web"), time.Minute)

		broken := sim.Targets()[0]
		emu.RunScenario(t, `
name: break-one
steps:
  - {at: 0s, target: "`+sim.ControlURL()+`/targets/`+broken.Name+`", mode: status-500}
`)
		ev := emu.WaitEvent(t, lbhealthtest.Unhealthy(broken.Addr()), time.Minute)
		t.Logf("%s turned %s: %s %s", ev.Endpoint, ev.To, ev.Reason, ev.Detail)
	}
	_ = testFailover
}
