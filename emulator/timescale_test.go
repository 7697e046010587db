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

// POST /_emulator/fastForward runs the probes due in the seconds it skips:
// an endpoint of a check every 30 s, broken, is UNHEALTHY (two failures in
// a row) once a minute is skipped, with no waiting; a bad body is refused.
func TestFastForward(t *testing.T) {
	t.Parallel()
	a := newSwitchable(t)
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":30,"timeoutSec":5,"healthyThreshold":1,"unhealthyThreshold":2,
		"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":`+a.port()+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"web","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	forward := func(body string) (int, string) {
		resp, err := http.Post(e.URL()+"/_emulator/fastForward", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	state := func() string {
		for _, hs := range health(t, e, "web") {
			return hs.HealthState
		}
		return ""
	}
	// The first probe comes within 30 s (by the schedule, or skipped to).
	if code, body := forward(`{"seconds": 30}`); code != 200 || state() != "HEALTHY" {
		t.Fatalf("30 s skipped: %d %s, state %s; want HEALTHY", code, body, state())
	}
	a.status.Store(500)
	if code, body := forward(`{"seconds": 60}`); code != 200 || !strings.Contains(body, `"probes": 2`) || state() != "UNHEALTHY" {
		t.Errorf("60 s skipped after the break: %d %s, state %s; want two probes and UNHEALTHY", code, body, state())
	}
	for _, bad := range []string{`{"seconds": 0}`, `{"seconds": 7200}`, `{"minutes": 1}`, `{"seconds": "30"}`} {
		if code, body := forward(bad); code != 400 || !strings.Contains(body, `The body must be {\"seconds\": N}`) {
			t.Errorf("%s: %d %s, want 400", bad, code, body)
		}
	}
}
