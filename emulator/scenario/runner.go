package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Workloads is what a scenario changes of the instances' simulated
// workloads (control.Workloads).
type Workloads interface {
	// SetMode sets the mode of the workload of the instance at path.
	SetMode(path, mode string) error
	// InZone lists the instances of zone (projects/p/zones/z) that run a
	// workload.
	InZone(zone string) []string
}

// States of a run.
const (
	StateRunning = api.ScenarioRunning
	StateDone    = api.ScenarioDone
	StateStopped = api.ScenarioStopped
)

// Status is what a run has done.
type Status = api.ScenarioStatus

// Runner runs scenarios, each on its own goroutine, and keeps what each
// run did until the next run of the same name.
type Runner struct {
	workloads Workloads // nil when the emulator runs no workloads
	timeline  *timeline.Timeline
	clock     Clock
	targets   *http.Client

	mu   sync.Mutex
	runs map[string]*run
	wg   sync.WaitGroup
}

type indexed struct {
	index int
	Step
}

type run struct {
	status Status
	stop   context.CancelFunc
}

// Clock is the time steps are carried out on: the emulator's (package
// clock), whose fast-forwards bring later steps forward and whose time
// scale runs the steps' times faster.
type Clock interface {
	Now() time.Time
	// SleepUntil waits until the clock reads t; false when ctx ends first.
	SleepUntil(ctx context.Context, t time.Time) bool
	// Scale is a step's time as the emulator runs it.
	Scale(d time.Duration) time.Duration
}

// NewRunner runs scenarios on workloads (nil: none run) on clk, recording
// each step on tl.
func NewRunner(workloads Workloads, tl *timeline.Timeline, clk Clock) *Runner {
	return &Runner{workloads: workloads, timeline: tl, clock: clk, runs: map[string]*run{},
		// A target is a URL of this machine (the rules say so), and a
		// redirect must not take the call anywhere else.
		targets: &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// ErrRunning is returned by Start for a scenario whose name is running.
var ErrRunning = fmt.Errorf("a scenario of that name is running")

// Start runs s from now. Steps that change instances need workloads.
func (r *Runner) Start(s *Scenario) (Status, error) {
	if r.workloads == nil {
		for i, st := range s.Steps {
			if st.Target == "" {
				return Status{}, fmt.Errorf("steps[%d] changes an instance's workload, and simulated workloads are off: start the emulator with --workloads on", i)
			}
		}
	}
	// The steps in the order of their times; each keeps its index in the
	// scenario, which messages and the timeline name.
	steps := make([]indexed, len(s.Steps))
	for i, st := range s.Steps {
		steps[i] = indexed{i, st}
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].at < steps[j].at })
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.runs[s.Name]; ok && old.status.State == StateRunning {
		return old.status, fmt.Errorf("%w: %q started at %s; stop it first", ErrRunning, s.Name, old.status.StartTime.Format(time.RFC3339))
	}
	ctx, stop := context.WithCancel(context.Background())
	rn := &run{status: Status{Name: s.Name, State: StateRunning, StartTime: r.clock.Now(), Steps: len(steps)}, stop: stop}
	r.runs[s.Name] = rn
	r.wg.Add(1)
	go r.run(ctx, rn, steps)
	return rn.status, nil
}

// run carries out the steps at their times.
func (r *Runner) run(ctx context.Context, rn *run, steps []indexed) {
	defer r.wg.Done()
	defer rn.stop()
	start := rn.status.StartTime
	for _, st := range steps {
		if !r.clock.SleepUntil(ctx, start.Add(r.clock.Scale(st.at))) {
			return
		}
		err := r.step(ctx, rn.status.Name, st.index, st.Step)
		r.mu.Lock()
		rn.status.StepsDone++
		if err != nil {
			rn.status.Errors = append(rn.status.Errors, fmt.Sprintf("steps[%d]: %v", st.index, err))
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	if rn.status.State == StateRunning {
		rn.status.State = StateDone
	}
	r.mu.Unlock()
}

// step carries out one step and records it on the timeline.
func (r *Runner) step(ctx context.Context, name string, i int, st Step) error {
	var err error
	resource := st.Instance
	switch {
	case st.Instance != "":
		err = r.workloads.SetMode(st.Instance, st.Mode)
	case st.Zone != "":
		resource = st.Zone
		for _, in := range r.workloads.InZone(st.Zone) {
			if e := r.workloads.SetMode(in, st.Mode); e != nil && err == nil {
				err = e
			}
		}
	default:
		resource = st.Target
		err = r.setTarget(ctx, st.Target, st.Mode)
	}
	ev := timeline.Event{Time: r.clock.Now(), Kind: api.TimelineScenario, Resource: resource, Group: name, To: st.Mode,
		Cause: fmt.Sprintf("scenario %s, steps[%d] at %s", name, i, st.At)}
	if err != nil {
		ev.Detail = err.Error()
	}
	r.timeline.Add(ev)
	return err
}

// setTarget asks the target simulator to set a target's mode.
func (r *Runner) setTarget(ctx context.Context, target, mode string) error {
	body, _ := json.Marshal(map[string]string{"mode": mode})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target+"/mode", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.targets.Do(req)
	if err != nil {
		return fmt.Errorf("the target simulator did not answer: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("the target simulator answered %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}

// List is every run since the emulator started (the last of each name),
// by name.
func (r *Runner) List() []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Status, 0, len(r.runs))
	for _, rn := range r.runs {
		out = append(out, rn.status)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Stop stops the run of name, if it runs; false when there is none.
func (r *Runner) Stop(name string) (Status, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rn, ok := r.runs[name]
	if !ok {
		return Status{}, false
	}
	if rn.status.State == StateRunning {
		rn.stop()
		rn.status.State = StateStopped
	}
	return rn.status, true
}

// Close stops every run and waits for them.
func (r *Runner) Close() {
	r.mu.Lock()
	for _, rn := range r.runs {
		rn.stop()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
