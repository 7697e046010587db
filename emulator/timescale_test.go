package emulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/scenario"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
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

// A fast-forward moves every waiting thing of the emulator, not only the
// probes: with an autohealing initial delay of 10 minutes, a broken
// instance is not recreated until FastForward(10 minutes), and then is;
// a scenario's step 10 minutes after its first comes at once.
func TestFastForward_CarriesAutohealingAndAScenario(t *testing.T) {
	t.Parallel()
	const ip = "127.1.9.17"
	target := startManagedTarget(t, ip)
	e, mig := managedSetup(t, ip, target.port, 600, "")
	waitFor(t, "the instance HEALTHY", func() bool { return healthOf(managed(t, e, mig)) == "HEALTHY" })
	first := managed(t, e, mig)

	sim := lbhealthtest.StartTargets(t, targets.Config{HTTP: 1})
	target.status.Store(500)
	waitFor(t, "the instance UNHEALTHY", func() bool { return healthOf(managed(t, e, mig)) == "UNHEALTHY" })
	body := `{"name": "later", "steps": [{"at": "0s", "target": "` + sim.ControlURL() + `/targets/http-1", "mode": "status-500"},
		{"at": "10m", "target": "` + sim.ControlURL() + `/targets/http-1", "mode": "ok"}]}`
	resp, err := http.Post(e.URL()+"/_emulator/scenarios", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var start scenario.Status
	json.NewDecoder(resp.Body).Decode(&start)
	resp.Body.Close()
	if resp.StatusCode != 200 || start.State != "RUNNING" {
		t.Fatalf("starting the scenario: %d %+v", resp.StatusCode, start)
	}
	waitFor(t, "the scenario's first step", func() bool { return len(scenarioSteps(e, "later")) == 1 })
	// Within its initial delay, an UNHEALTHY instance is left alone.
	if mi := managed(t, e, mig); mi.CurrentAction != "NONE" || mi.ID != first.ID {
		t.Fatalf("within the initial delay: %+v, want it left alone", mi)
	}

	e.FastForward(t.Context(), 10*time.Minute)
	waitFor(t, "the instance recreated", func() bool { return managed(t, e, mig).ID != first.ID })
	waitFor(t, "the scenario's step at 10m", func() bool { return len(scenarioSteps(e, "later")) == 2 })
	if steps := scenarioSteps(e, "later"); steps[1].To != "ok" || steps[1].Time.Sub(start.StartTime) < 10*time.Minute {
		t.Errorf("the later step: %+v, want ok, 10 minutes or more (of the emulator's time) after the start", steps[1])
	}
}

// scenarioSteps are the steps of the scenario name on e's timeline.
func scenarioSteps(e *emulator.Emulator, name string) []timeline.Event {
	var out []timeline.Event
	for _, ev := range e.Timeline().Read(0, timeline.Filter{Kind: timeline.KindScenario}, 0).Events {
		if ev.Group == name {
			out = append(out, ev)
		}
	}
	return out
}

// A fast-forward carries instances' boots too: an instance that boots for
// 10 minutes serves once FastForward(10 minutes) is done.
func TestFastForward_CarriesABoot(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true, Workloads: true, WorkloadBoot: 10 * time.Minute,
		ManagedInstanceRange: netip.MustParsePrefix("127.1.205.0/29")})
	mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "httpHealthCheck": {"port": 8080}}`)
	mustCall(t, e, "POST", "global/instanceTemplates", `{"name": "web", "properties": {"networkInterfaces": [{}]}}`)
	mustCall(t, e, "POST", "zones/us-east1-b/instanceGroupManagers", `{"name": "mig", "baseInstanceName": "web",
		"instanceTemplate": "global/instanceTemplates/web", "targetSize": 1}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "healthChecks": ["global/healthChecks/hc"],
		"backends": [{"group": "zones/us-east1-b/instanceGroups/mig"}]}`)
	state := func() string {
		var list struct {
			Items []struct{ State string } `json:"items"`
		}
		resp, err := http.Get(e.URL() + "/_emulator/workloads")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(&list)
		if len(list.Items) != 1 {
			return fmt.Sprintf("%d workloads", len(list.Items))
		}
		return list.Items[0].State
	}
	waitFor(t, "the instance BOOTING", func() bool { return state() == "BOOTING" })
	e.FastForward(t.Context(), 10*time.Minute)
	waitFor(t, "the instance SERVING", func() bool { return state() == "SERVING" })
}

// And a managed certificate's provisioning: PROVISIONING for 10 minutes,
// ACTIVE once FastForward(10 minutes) is done.
func TestFastForward_CarriesCertificateProvisioning(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true, CertificateProvisioning: 10 * time.Minute})
	mustCall(t, e, "POST", "global/sslCertificates", `{"name": "managed", "type": "MANAGED", "managed": {"domains": ["www.example.com"]}}`)
	status := func() string { return certificateStatus(t, e, "managed") }
	if got := status(); got != "PROVISIONING" {
		t.Fatalf("right after insert: %s, want PROVISIONING", got)
	}
	e.FastForward(t.Context(), 10*time.Minute)
	waitFor(t, "the certificate ACTIVE", func() bool { return status() == "ACTIVE" })
}

// A certificate left PROVISIONING when the emulator stopped is provisioned
// by the next run over the same data: the loop the emulator starts takes
// it up again.
func TestRestart_ResumesCertificateProvisioning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := emulator.Start(t.Context(), emulator.Config{Listen: "127.0.0.1:0", DataDir: dir, CertificateProvisioning: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, first, "POST", "global/sslCertificates", `{"name": "managed", "type": "MANAGED", "managed": {"domains": ["www.example.com"]}}`)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	e := startEmulator(t, emulator.Config{DataDir: dir, CertificateProvisioning: 10 * time.Minute})
	status := func() string { return certificateStatus(t, e, "managed") }
	if got := status(); got != "PROVISIONING" {
		t.Fatalf("after the restart: %s, want PROVISIONING", got)
	}
	e.FastForward(t.Context(), 10*time.Minute)
	waitFor(t, "the certificate ACTIVE", func() bool { return status() == "ACTIVE" })
}

// certificateStatus is the managed status of SSL certificate name.
func certificateStatus(t *testing.T, e *emulator.Emulator, name string) string {
	t.Helper()
	var cert struct {
		Managed struct{ Status string } `json:"managed"`
	}
	apiCall(t, e, "GET", "global/sslCertificates/"+name, "", &cert)
	return cert.Managed.Status
}
