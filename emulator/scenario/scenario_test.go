package scenario

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
)

// Parse reads YAML and JSON alike, and each rule refuses what breaks it,
// naming the field, the value and the rule.
func TestParse(t *testing.T) {
	s, err := Parse([]byte(`
name: zone-outage
steps:
  - at: 1.5s
    zone: https://compute.googleapis.com/compute/v1/projects/p/zones/us-east1-b
    mode: hang
  - {at: 0s, target: "http://127.0.0.1:8687/targets/http-1", mode: status-500}
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Steps[0].Zone != "projects/p/zones/us-east1-b" || s.Steps[0].When() != 1500*time.Millisecond || s.Steps[1].Target == "" {
		t.Errorf("parsed %+v", s.Steps)
	}
	step := func(fields string) string { return `{"name": "s", "steps": [{` + fields + `}]}` }
	for doc, want := range map[string]string{
		`{"name": "Bad_Name", "steps": [{"at": "0s", "zone": "projects/p/zones/z", "mode": "ok"}]}`: `name ("Bad_Name") must be 1 to 63 lowercase letters`,
		`{"name": "s"}`: "steps is required",
		`{"name": "s", "steps": [{"at": "0s", "zone": "projects/p/zones/z", "mode": "ok"}], "when": 1}`:              `unknown field "when"`,
		step(`"zone": "projects/p/zones/z", "mode": "ok"`):                                                           "steps[0].at is required",
		step(`"at": "soon", "zone": "projects/p/zones/z", "mode": "ok"`):                                             `steps[0].at ("soon") is not a duration`,
		step(`"at": "-1s", "zone": "projects/p/zones/z", "mode": "ok"`):                                              `steps[0].at ("-1s") must be from 0s to 24h0m0s`,
		step(`"at": "25h", "zone": "projects/p/zones/z", "mode": "ok"`):                                              `steps[0].at ("25h") must be from 0s to 24h0m0s`,
		step(`"at": "0s", "mode": "ok"`):                                                                             "steps[0] names 0 of instance, zone and target: a step names one",
		step(`"at": "0s", "zone": "projects/p/zones/z", "instance": "projects/p/zones/z/instances/i", "mode": "ok"`): "steps[0] names 2 of instance, zone and target",
		step(`"at": "0s", "instance": "web-1", "mode": "ok"`):                                                        `steps[0].instance ("web-1") is not an instance`,
		step(`"at": "0s", "zone": "us-east1-b", "mode": "ok"`):                                                       `steps[0].zone ("us-east1-b") is not a zone`,
		step(`"at": "0s", "target": "http-1", "mode": "ok"`):                                                         `steps[0].target ("http-1") is not a target's control URL`,
		step(`"at": "0s", "target": "http://127.0.0.1:8687/elsewhere", "mode": "ok"`):                                "is not a target's control URL",
		step(`"at": "0s", "target": "http://10.0.0.1:8687/targets/a", "mode": "ok"`):                                 "is not on this machine",
		step(`"at": "0s", "zone": "projects/p/zones/z"`):                                                             "steps[0].mode is required",
		step(`"at": "0s", "zone": "projects/p/zones/z", "mode": "servfail"`):                                         `steps[0].mode ("servfail") is not a workload mode`,
		"name: [": "the scenario is neither YAML nor JSON",
	} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
	many := `{"name": "s", "steps": [` + strings.Repeat(`{"at": "0s", "zone": "projects/p/zones/z", "mode": "ok"},`, MaxSteps) +
		`{"at": "0s", "zone": "projects/p/zones/z", "mode": "ok"}]}`
	if _, err := Parse([]byte(many)); err == nil || !strings.Contains(err.Error(), "steps lists 1001 steps: a scenario has at most 1000") {
		t.Errorf("too many steps: %v", err)
	}
}

// fakeWorkloads records the modes set.
type fakeWorkloads struct {
	mu  sync.Mutex
	set []string
}

func (f *fakeWorkloads) SetMode(path, mode string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.HasSuffix(path, "/gone") {
		return errors.New("no such instance")
	}
	f.set = append(f.set, path+"="+mode)
	return nil
}

func (f *fakeWorkloads) InZone(zone string) []string {
	return []string{zone + "/instances/a", zone + "/instances/b"}
}

func (f *fakeWorkloads) done() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.set, " ")
}

// A run carries out its steps in the order of their times (an instance, a
// zone's every instance, a simulator target through its control API),
// records each on the timeline, keeps the errors of the steps that failed,
// and ends DONE; a stopped run ends STOPPED.
func TestRunner(t *testing.T) {
	var mu sync.Mutex
	var targetModes []string
	sim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var body struct{ Mode string }
		json.NewDecoder(r.Body).Decode(&body)
		if r.URL.Path != "/targets/http-1/mode" || body.Mode == "sideways" {
			http.Error(w, `{"error": "no such mode"}`, http.StatusBadRequest)
			return
		}
		targetModes = append(targetModes, body.Mode)
	}))
	t.Cleanup(sim.Close)
	w := &fakeWorkloads{}
	tl := timeline.New(100)
	r := NewRunner(w, tl, clock.New(1))
	t.Cleanup(r.Close)
	s, err := Parse([]byte(`{"name": "s", "steps": [
		{"at": "20ms", "zone": "projects/p/zones/z", "mode": "ok"},
		{"at": "0s", "instance": "projects/p/zones/z/instances/a", "mode": "hang"},
		{"at": "10ms", "target": "` + sim.URL + `/targets/http-1", "mode": "status-500"},
		{"at": "10ms", "target": "` + sim.URL + `/targets/http-1", "mode": "sideways"},
		{"at": "30ms", "instance": "projects/p/zones/z/instances/gone", "mode": "ok"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := r.Start(s); err != nil || st.State != StateRunning || st.Steps != 5 {
		t.Fatalf("start: %+v %v", st, err)
	}
	if _, err := r.Start(s); !errors.Is(err, ErrRunning) {
		t.Errorf("a second start of a running scenario: %v, want ErrRunning", err)
	}
	deadline := time.Now().Add(time.Minute)
	for r.List()[0].State == StateRunning && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	st := r.List()[0]
	if st.State != StateDone || st.StepsDone != 5 || len(st.Errors) != 2 ||
		!strings.Contains(st.Errors[0], "steps[3]: the target simulator answered 400") || !strings.Contains(st.Errors[1], "steps[4]: no such instance") {
		t.Errorf("the run: %+v", st)
	}
	if got := w.done(); got != "projects/p/zones/z/instances/a=hang projects/p/zones/z/instances/a=ok projects/p/zones/z/instances/b=ok" {
		t.Errorf("workloads set: %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(targetModes, " ") != "status-500" {
		t.Errorf("target modes set: %v", targetModes)
	}
	var got []string
	for _, ev := range tl.Read(0, timeline.Filter{Kind: timeline.KindScenario}, 0).Events {
		got = append(got, ev.To)
		if ev.Group != "s" {
			t.Errorf("event %+v, want the scenario's name as its group", ev)
		}
	}
	if strings.Join(got, " ") != "hang status-500 sideways ok ok" {
		t.Errorf("on the timeline: %v", got)
	}

	later, _ := Parse([]byte(`{"name": "later", "steps": [{"at": "1h", "zone": "projects/p/zones/z", "mode": "stop"}]}`))
	r.Start(later)
	if st, ok := r.Stop("later"); !ok || st.State != StateStopped {
		t.Errorf("stop: %+v %v", st, ok)
	}
	if _, ok := r.Stop("never"); ok {
		t.Error("stopped a scenario that never ran")
	}

	off := NewRunner(nil, tl, clock.New(1))
	if _, err := off.Start(s); err == nil || !strings.Contains(err.Error(), "steps[0] changes an instance's workload, and simulated workloads are off") {
		t.Errorf("without workloads: %v", err)
	}
}
