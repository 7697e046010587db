package control

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// fakeGroups is one managed group of one instance, whose check's verdict
// the test sets; it records what autohealing writes.
type fakeGroups struct {
	group   ManagedGroup
	verdict string // the check's state on the instance's current generation; "" none yet
	calls   []string
	actions api.ManagerActions
	loop    string
}

func (f *fakeGroups) Managers(context.Context) ([]ManagedGroup, error) {
	return []ManagedGroup{f.group}, nil
}

func (f *fakeGroups) KeepSize(_ context.Context, k store.Key) error {
	f.calls = append(f.calls, "keepSize "+k.Name)
	f.group.Size = int(*f.group.Manager.TargetSize)
	return nil
}

func (f *fakeGroups) Recreate(_ context.Context, k store.Key) error {
	f.calls = append(f.calls, "recreate "+k.Name)
	f.group.Instances[0].ID++ // a new generation, with no verdict yet
	f.verdict = ""
	return nil
}

func (f *fakeGroups) SetInstanceStatus(_ context.Context, k store.Key, status string) error {
	f.calls = append(f.calls, status+" "+k.Name)
	return nil
}

func (f *fakeGroups) SetManagerStatus(_ context.Context, _ store.Key, actions api.ManagerActions, loop string) error {
	f.actions, f.loop = actions, loop
	return nil
}

func (f *fakeGroups) Verdicts(string) map[string]health.Status {
	if f.verdict == "" {
		return nil
	}
	in := f.group.Instances[0]
	return map[string]health.Status{api.Generation(in.Key.Path(), in.ID): {State: f.verdict, Reason: "TIMEOUT"}}
}

func (f *fakeGroups) Link(path string) string { return "https://compute.example/" + path }

func newFakeGroup(start time.Time, delaySec int64, hook string) *fakeGroups {
	size := int64(1)
	k := store.Key{Project: "p", Scope: "zones/z-a", Collection: api.CollectionInstanceGroupManagers, Name: "web"}
	in := store.Key{Project: "p", Scope: "zones/z-a", Collection: api.CollectionInstances, Name: "web-1"}
	m := &api.InstanceGroupManager{TargetSize: &size, AutoHealingPolicies: []api.AutoHealingPolicy{
		{HealthCheck: "projects/p/global/healthChecks/hc", InitialDelaySec: &delaySec, HookURL: hook}}}
	return &fakeGroups{group: ManagedGroup{Key: k, Manager: m, Size: 1, Instances: []ManagedInstance{
		{Key: in, Link: in.Path(), ID: 1, Name: "web-1", Created: start, IP: "127.1.0.2"}}}}
}

// An UNHEALTHY instance is left alone during its initial delay, then goes
// RECREATING (STOPPING) and, after RecreateTime, is recreated and VERIFYING
// until its check passes; the group's action counts follow each step.
func TestAutohealer_RecreatesAfterTheInitialDelayAndVerifies(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	f := newFakeGroup(start, 30, "")
	a := NewAutohealer(f, testClock{now: func() time.Time { return now }}, nil)
	ctx := context.Background()
	step := func(at time.Duration, verdict string) {
		t.Helper()
		now, f.verdict = start.Add(at), verdict
		if err := a.Once(ctx); err != nil {
			t.Fatal(err)
		}
	}
	path := f.group.Instances[0].Key.Path()

	step(10*time.Second, api.StateUnhealthy)
	if len(f.calls) != 0 || a.Action(path) != api.ActionNone || f.actions.None != 1 {
		t.Fatalf("within the initial delay: calls %v, action %s, counts %+v; want nothing done", f.calls, a.Action(path), f.actions)
	}
	step(31*time.Second, api.StateUnhealthy)
	if a.Action(path) != api.ActionRecreating || f.actions.Recreating != 1 || strings.Join(f.calls, ",") != "STOPPING web-1" {
		t.Fatalf("after the delay: calls %v, action %s, counts %+v; want STOPPING, RECREATING", f.calls, a.Action(path), f.actions)
	}
	step(31*time.Second+RecreateTime/2, api.StateUnhealthy)
	if len(f.calls) != 1 {
		t.Fatalf("recreated before RecreateTime: %v", f.calls)
	}
	step(31*time.Second+RecreateTime, f.verdict)
	if a.Action(path) != api.ActionVerifying || f.actions.Verifying != 1 || f.calls[1] != "recreate web-1" {
		t.Fatalf("after RecreateTime: calls %v, action %s, counts %+v; want recreated, VERIFYING", f.calls, a.Action(path), f.actions)
	}
	step(40*time.Second, api.StateHealthy)
	if a.Action(path) != api.ActionNone || f.actions.None != 1 || f.loop != "" {
		t.Fatalf("once HEALTHY: action %s, counts %+v, loop %q; want NONE and no loop", a.Action(path), f.actions, f.loop)
	}
}

// An instance recreated twice without passing its check in between is in
// a recreate loop, which the group's status names; a pass ends it.
func TestAutohealer_ReportsARecreateLoop(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	f := newFakeGroup(start, 0, "")
	a := NewAutohealer(f, testClock{now: func() time.Time { return now }}, nil)
	for i := range 6 { // UNHEALTHY, recreated, UNHEALTHY again ...
		now = start.Add(time.Duration(i) * RecreateTime)
		f.verdict = api.StateUnhealthy
		f.group.Instances[0].Created = now.Add(-time.Second)
		if err := a.Once(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(f.loop, "instance web-1 was recreated 3 times in a row without passing hc") {
		t.Fatalf("loop = %q, want the recreate loop named", f.loop)
	}
	now, f.verdict = now.Add(RecreateTime), api.StateHealthy
	a.Once(context.Background())
	a.Once(context.Background())
	if f.loop != "" {
		t.Errorf("after a pass, loop = %q, want none", f.loop)
	}
}

// A group that lost instances is made whole, autohealing or not, and the
// state of instances no longer managed is forgotten.
func TestAutohealer_KeepsSizeAndForgets(t *testing.T) {
	f := newFakeGroup(time.Now(), 0, "")
	f.group.Size = 0
	f.group.Manager.AutoHealingPolicies = nil
	a := NewAutohealer(f, nil, nil)
	a.set("gone", healing{action: api.ActionRecreating})
	if err := a.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.calls, ",") != "keepSize web" || f.group.Size != 1 {
		t.Errorf("calls %v, want the group kept whole", f.calls)
	}
	if a.Action("gone") != api.ActionNone {
		t.Error("the state of an instance no longer managed was kept")
	}
}

// A recreation calls the policy's hook with the group, the instance and its
// address, and the instance is made anew only once the hook has answered:
// its verification never races what the hook restarts.
func TestAutohealer_CallsTheHookBeforeRecreating(t *testing.T) {
	got := make(chan map[string]string, 1)
	release := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		got <- body
		<-release // the restart takes its time
	}))
	t.Cleanup(hook.Close)
	answer := sync.OnceFunc(func() { close(release) })
	t.Cleanup(answer) // before hook.Close, which waits for the handler
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	f := newFakeGroup(start, 0, hook.URL)
	a := NewAutohealer(f, testClock{now: func() time.Time { return now }}, nil)
	f.verdict = api.StateUnhealthy
	a.Once(context.Background())
	now = now.Add(RecreateTime)
	a.Once(context.Background())
	select {
	case body := <-got:
		if body["group"] != "https://compute.example/projects/p/zones/z-a/instanceGroupManagers/web" ||
			body["instance"] != "projects/p/zones/z-a/instances/web-1" || body["ipAddress"] != "127.1.0.2" {
			t.Errorf("hook body %v", body)
		}
	case <-time.After(time.Minute): // a hang guard, not a measurement
		t.Fatal("the hook was never called")
	}
	recreated := func() bool { return strings.Contains(strings.Join(f.calls, ","), "recreate web-1") }
	for range 5 {
		now = now.Add(RecreateTime)
		a.Once(context.Background())
	}
	if recreated() || a.Action("projects/p/zones/z-a/instances/web-1") != api.ActionRecreating {
		t.Fatalf("recreated while the hook had not answered: %v", f.calls)
	}
	answer()
	for deadline := time.Now().Add(time.Minute); !recreated(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard, not a measurement
			t.Fatalf("never recreated after the hook answered: %v", f.calls)
		}
		a.Once(context.Background())
	}
	if n := strings.Count(strings.Join(f.calls, ","), "recreate web-1"); n != 1 {
		t.Errorf("recreated %d times, want once: %v", n, f.calls)
	}
}

// With the emulator's times scaled by 100, an initial delay of 300 s is 3 s
// and a recreation takes RecreateTime/100.
func TestAutohealer_ScaledTime(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	f := newFakeGroup(start, 300, "")
	a := NewAutohealer(f, testClock{now: func() time.Time { return now }, scale: 100}, nil)
	path := f.group.Instances[0].Key.Path()
	step := func(at time.Duration) {
		t.Helper()
		now, f.verdict = start.Add(at), api.StateUnhealthy
		if err := a.Once(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	step(2 * time.Second)
	if a.Action(path) != api.ActionNone {
		t.Fatalf("2s in: %s, want NONE (the delay is 3s)", a.Action(path))
	}
	step(3 * time.Second)
	if a.Action(path) != api.ActionRecreating {
		t.Fatalf("3s in: %s, want RECREATING", a.Action(path))
	}
	step(3*time.Second + RecreateTime/100)
	if a.Action(path) != api.ActionVerifying {
		t.Fatalf("after RecreateTime/100: %s, want VERIFYING", a.Action(path))
	}
}

// testClock is a clock the test moves, with a time scale (0 or 1: none).
type testClock struct {
	now   func() time.Time
	scale float64
}

func (c testClock) Now() time.Time { return c.now() }

func (c testClock) Scale(d time.Duration) time.Duration { return clock.New(c.scale).Scale(d) }
