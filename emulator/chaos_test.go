package emulator_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/scenario"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// scenarioCall sends a request to /_emulator/scenarios[/rest].
func scenarioCall(t *testing.T, e *emulator.Emulator, method, rest, body string) (int, string) {
	t.Helper()
	code, b, err := call(method, e.URL()+"/_emulator/scenarios"+rest, body)
	if err != nil {
		t.Fatal(err)
	}
	return code, string(b)
}

// A scenario breaks an instance, then heals its whole zone, on schedule:
// the timeline holds each step and, after it, the instance's endpoint going
// UNHEALTHY then HEALTHY, and while it is broken the load balancer sends
// nothing to it. Bad scenarios are refused naming the field; a running one
// cannot be started twice, and stops when asked.
func TestScenario_BreaksAndHealsOnSchedule(t *testing.T) {
	t.Parallel()
	e, lb, _ := workloadLB(t, "127.1.203.0/29", false)
	waitFor(t, "both instances HEALTHY", func() bool {
		h := groupHealth(t, e)
		return len(h) == 2 && h[slices.Sorted(maps.Keys(h))[0]] == "HEALTHY" && h[slices.Sorted(maps.Keys(h))[1]] == "HEALTHY"
	})
	instances := slices.Sorted(maps.Keys(groupHealth(t, e)))
	broken, sound := instances[0], instances[1]
	var in api.Instance
	apiCall(t, e, "GET", "zones/us-east1-b/instances/"+broken, "", &in)
	endpoint := in.PrimaryIP() + ":8080"
	start := e.Timeline().Read(0, timeline.Filter{}, 0).Next

	code, body := scenarioCall(t, e, "POST", "", `{"name": "outage", "steps": [
		{"at": "3s", "zone": "projects/p/zones/us-east1-b", "mode": "ok"},
		{"at": "0s", "instance": "https://compute.googleapis.com/compute/v1/projects/p/zones/us-east1-b/instances/`+broken+`", "mode": "status-500"}]}`)
	if code != 200 || !strings.Contains(body, `"state": "RUNNING"`) {
		t.Fatalf("start: %d %s", code, body)
	}
	waitFor(t, broken+" UNHEALTHY", func() bool { return groupHealth(t, e)[broken] == "UNHEALTHY" })
	if got := served(t, lb, 10); got[sound] != 10 {
		t.Errorf("answers %v while %s is broken, want all 10 from %s", got, broken, sound)
	}
	waitFor(t, "the scenario DONE", func() bool {
		_, body := scenarioCall(t, e, "GET", "/outage", "")
		return strings.Contains(body, `"state": "DONE"`)
	})
	waitFor(t, broken+" HEALTHY again", func() bool { return groupHealth(t, e)[broken] == "HEALTHY" })
	if _, body := scenarioCall(t, e, "GET", "/outage", ""); !strings.Contains(body, `"stepsDone": 2`) || strings.Contains(body, "errors") {
		t.Errorf("the run: %s, want both steps done, without errors", body)
	}

	// The timeline: the break, the endpoint UNHEALTHY, the zone healed,
	// the endpoint HEALTHY, in that order.
	evs := e.Timeline().Read(start, timeline.Filter{}, 0).Events
	var order []string
	for _, ev := range evs {
		switch {
		case ev.Kind == timeline.KindScenario:
			order = append(order, "scenario "+ev.Resource[strings.LastIndex(ev.Resource, "/")+1:]+" "+ev.To)
		case ev.Kind == timeline.KindEndpoint && ev.Endpoint == endpoint:
			order = append(order, "endpoint "+ev.To)
		}
	}
	want := "scenario " + broken + " status-500, endpoint UNHEALTHY, scenario us-east1-b ok, endpoint HEALTHY"
	if got := strings.Join(order, ", "); got != want {
		t.Errorf("on the timeline:\n%s\nwant\n%s", got, want)
	}
	for _, ev := range evs {
		if ev.Kind == timeline.KindScenario && (ev.Group != "outage" || !strings.Contains(ev.Cause, "scenario outage, steps[")) {
			t.Errorf("a step %+v, want the scenario and step named", ev)
		}
	}

	// Bad scenarios change nothing, and say why.
	for doc, want := range map[string]string{
		`{"name": "x", "steps": [{"at": "0s", "instance": "projects/p/zones/us-east1-b/instances/` + broken + `", "mode": "sideways"}]}`: `steps[0].mode (\"sideways\") is not a workload mode`,
		`{"name": "x", "steps": [{"at": "soon", "zone": "projects/p/zones/z", "mode": "ok"}]}`:                                           `steps[0].at (\"soon\") is not a duration`,
		`{"name": "x", "steps": [{"at": "0s", "target": "http://192.0.2.1:8687/targets/a", "mode": "hang"}]}`:                            "is not on this machine",
		`{"name": "x", "steps": [], "extra": 1}`: `unknown field \"extra\"`,
	} {
		if code, body := scenarioCall(t, e, "POST", "", doc); code != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s, want 400 saying %s", doc, code, body, want)
		}
	}

	// One name runs once at a time; stopping keeps what was done.
	long := `{"name": "later", "steps": [{"at": "1h", "zone": "projects/p/zones/us-east1-b", "mode": "stop"}]}`
	if code, body := scenarioCall(t, e, "POST", "", long); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	if code, body := scenarioCall(t, e, "POST", "", long); code != 409 || !strings.Contains(body, `\"later\" started at`) {
		t.Errorf("the same name again: %d %s, want 409", code, body)
	}
	code, body = scenarioCall(t, e, "DELETE", "/later", "")
	var st scenario.Status
	json.Unmarshal([]byte(body), &st)
	if code != 200 || st.State != scenario.StateStopped || st.StepsDone != 0 {
		t.Errorf("stop: %d %s, want STOPPED with no step done", code, body)
	}
	if code, body := scenarioCall(t, e, "DELETE", "/never", ""); code != 404 || !strings.Contains(body, "No scenario named 'never' has run") {
		t.Errorf("stop an unknown one: %d %s", code, body)
	}
	if code, body := scenarioCall(t, e, "GET", "", ""); code != 200 || !strings.Contains(body, `"name": "later"`) || !strings.Contains(body, `"name": "outage"`) {
		t.Errorf("list: %d %s", code, body)
	}
}
