package emulator_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// With --time-scale 10, a check of a 10 s interval is probed once a
// second (its expected rate on the page), every answer carries the factor,
// and the status page says time is scaled; a factor out of range is
// refused naming the flag.
func TestTimeScale(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, TimeScale: 10})
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":10,"timeoutSec":10,"healthyThreshold":1,"unhealthyThreshold":1,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":`+a.port()+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"web","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	waitFor(t, "the endpoint HEALTHY", func() bool {
		for _, hs := range health(t, e, "web") {
			return hs.HealthState == "HEALTHY"
		}
		return false
	})

	resp, err := http.Get(e.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := resp.Header.Get("X-Lbhealth-Time-Scale"); got != "10" {
		t.Errorf("X-Lbhealth-Time-Scale %q, want 10", got)
	}
	for _, want := range []string{"Time runs 10 times faster", "1.00 / "} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the status page lacks %q", want)
		}
	}

	for _, scale := range []float64{-1, 101} {
		_, err := emulator.Start(context.Background(), emulator.Config{InMemory: true, Listen: "127.0.0.1:0", TimeScale: scale})
		if err == nil || !strings.Contains(err.Error(), "--time-scale") || !strings.Contains(err.Error(), "want 1 (real time) to 100") {
			t.Errorf("time scale %g: %v", scale, err)
		}
	}
}
