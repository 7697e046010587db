package health

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// script is a fake probe: it records when each probe started (on the fake
// clock), optionally advances the clock to stand for the probe's duration,
// and answers with the result the test has set.
type script struct {
	clock    *fakeClock
	duration time.Duration

	mu      sync.Mutex
	healthy bool
	starts  []time.Time
}

func (s *script) probe(ctx context.Context, _ prober.Spec, _ prober.Target) prober.Result {
	s.mu.Lock()
	s.starts = append(s.starts, s.clock.Now())
	healthy := s.healthy
	s.mu.Unlock()
	if s.duration > 0 {
		s.clock.advance(s.duration)
	}
	if healthy {
		return prober.Result{Healthy: true}
	}
	return prober.Result{Reason: prober.ReasonTimeout, Detail: "scripted failure"}
}

func (s *script) set(healthy bool) {
	s.mu.Lock()
	s.healthy = healthy
	s.mu.Unlock()
}

func (s *script) startTimes() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.starts...)
}

func target(interval, timeout time.Duration, healthyT, unhealthyT int) Target {
	return Target{
		Owner:    "projects/p/global/backendServices/web",
		Group:    "projects/p/zones/z/networkEndpointGroups/neg",
		Endpoint: Endpoint{IP: "127.0.0.1", Port: 8080},
		Check: Check{Name: "projects/p/global/healthChecks/hc", Probe: prober.Spec{Protocol: "HTTP"}, Port: 8080,
			Interval: interval, Timeout: timeout, HealthyThreshold: healthyT, UnhealthyThreshold: unhealthyT},
	}
}

func newTestEngine(t *testing.T, s *script, probers int, transitions chan<- Transition) *Engine {
	e := New(Config{Probers: probers, Clock: s.clock, Probe: s.probe, OnTransition: func(tr Transition) {
		if transitions != nil {
			transitions <- tr
		}
	}})
	t.Cleanup(e.Close)
	return e
}

// step lets the engine run the probes of its next slot and settle again.
func step(t *testing.T, e *Engine, c *fakeClock) time.Time {
	t.Helper()
	waitQuiet(t, e, c)
	now := c.advanceToNext()
	waitQuiet(t, e, c)
	return now
}

// waitQuiet waits (in real time, briefly) until no probe runs and the
// scheduler sleeps: on the clock when a slot is queued, else until woken.
func waitQuiet(t *testing.T, e *Engine, c *fakeClock) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		e.sched.mu.Lock()
		queued := len(e.sched.heap)
		e.sched.mu.Unlock()
		if e.sched.quiet() && c.sleeping() == min(queued, 1) {
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
	t.Fatal("timed out waiting for the engine to finish probing and sleep")
}

func TestEngine_StartToStartWhateverTheProbeLasts(t *testing.T) {
	s := &script{clock: newFakeClock(), duration: 5 * time.Second, healthy: true}
	e := newTestEngine(t, s, 1, nil)
	e.Update([]Target{target(30*time.Second, 5*time.Second, 2, 2)})
	for range 4 {
		step(t, e, s.clock)
	}
	starts := s.startTimes()
	if len(starts) != 4 {
		t.Fatalf("%d probes, want 4", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if d := starts[i].Sub(starts[i-1]); d != 30*time.Second {
			t.Errorf("probe %d started %v after the previous one, want 30s (start to start)", i, d)
		}
	}
}

func TestEngine_SlotsAreSpreadAndStable(t *testing.T) {
	interval := time.Second
	var buckets [10]int
	for i := range 1000 {
		off := offset(string(rune('a'+i%26))+time.Duration(i).String(), interval)
		if off < 0 || off >= interval {
			t.Fatalf("offset %v outside [0, %v)", off, interval)
		}
		buckets[off*10/interval]++
	}
	for i, n := range buckets {
		if n < 50 || n > 150 {
			t.Errorf("tenth %d of the interval holds %d of 1000 probe series, want about 100", i, n)
		}
	}
	if offset("x", interval) != offset("x", interval) {
		t.Error("offset is not stable")
	}
	now := time.Unix(1000, 123)
	slot := nextSlot(now, 300*time.Millisecond, interval)
	if slot.Before(now) || slot.Sub(now) >= interval || slot.UnixNano()%int64(interval) != int64(300*time.Millisecond) {
		t.Errorf("nextSlot(%v) = %v: not the first slot at offset 300ms", now, slot)
	}
}

func TestEngine_DetectionWithinBound(t *testing.T) {
	const interval, timeout = 10 * time.Second, 4 * time.Second
	transitions := make(chan Transition, 10)
	s := &script{clock: newFakeClock(), duration: timeout, healthy: true}
	e := newTestEngine(t, s, 1, transitions)
	e.Update([]Target{target(interval, timeout, 2, 3)})
	step(t, e, s.clock)
	if tr := <-transitions; tr.State != api.StateHealthy || tr.From != api.StateUnknown {
		t.Fatalf("first transition %s -> %s, want UNKNOWN -> HEALTHY after one success", tr.From, tr.State)
	}
	s.set(false)
	firstFailure := step(t, e, s.clock)
	step(t, e, s.clock)
	select {
	case tr := <-transitions:
		t.Fatalf("transition to %s after 2 failures; threshold is 3", tr.State)
	default:
	}
	step(t, e, s.clock)
	tr := <-transitions
	// The third failing probe ends at its timeout: (3-1)*interval + timeout
	// after the first failing probe started.
	detected := s.clock.Now().Sub(firstFailure)
	if tr.State != api.StateUnhealthy || tr.Reason != prober.ReasonTimeout || detected != 2*interval+timeout {
		t.Fatalf("got %s (%s) %v after the first failure, want UNHEALTHY (TIMEOUT) after %v", tr.State, tr.Reason, detected, 2*interval+timeout)
	}
}

func TestEngine_ProbersEachProbeEveryInterval(t *testing.T) {
	s := &script{clock: newFakeClock(), healthy: true}
	e := newTestEngine(t, s, 3, nil)
	e.Update([]Target{target(time.Second, time.Second, 2, 2)})
	waitQuiet(t, e, s.clock)
	for range 10 {
		s.clock.advance(time.Second)
		waitQuiet(t, e, s.clock)
	}
	// 3 probers x 10 intervals, give or take the first partial interval.
	if n := len(s.startTimes()); n < 28 || n > 31 {
		t.Fatalf("%d probes in 10 intervals with 3 probers, want about 30", n)
	}
}

func TestEngine_UpdateStopsRemovedAndSettlesStopped(t *testing.T) {
	s := &script{clock: newFakeClock(), healthy: true}
	e := newTestEngine(t, s, 1, nil)
	tg := target(time.Second, time.Second, 2, 2)
	e.Update([]Target{tg})
	step(t, e, s.clock)
	e.Update(nil)
	before := len(s.startTimes())
	s.clock.advance(10 * time.Second)
	if after := len(s.startTimes()); after != before || len(e.All()) != 0 {
		t.Fatalf("removed target: %d probes after removal, %d statuses", after-before, len(e.All()))
	}
	tg.Endpoint.Stopped = true
	e.Update([]Target{tg})
	st := e.Statuses(tg.Owner)
	if len(st) != 1 || st[0].State != api.StateUnhealthy || st[0].Reason != ReasonStopped {
		t.Fatalf("stopped endpoint: %+v, want UNHEALTHY/STOPPED", st)
	}
	s.clock.advance(10 * time.Second)
	if len(s.startTimes()) != before {
		t.Fatal("a stopped endpoint was probed")
	}
}

// An endpoint with no health check (a target pool without one) is HEALTHY
// at once and never probed, unless it is stopped.
func TestEngine_UncheckedIsHealthyUnprobed(t *testing.T) {
	s := &script{clock: newFakeClock(), healthy: false}
	e := newTestEngine(t, s, 1, nil)
	tg := Target{Owner: "projects/p/regions/r/targetPools/pool", Endpoint: Endpoint{IP: "127.0.0.1", Port: 80},
		Check: Check{Unchecked: true}}
	e.Update([]Target{tg})
	s.clock.advance(10 * time.Second)
	if st := e.Statuses(tg.Owner); len(st) != 1 || st[0].State != api.StateHealthy || st[0].Reason != ReasonNoHealthCheck {
		t.Fatalf("unchecked endpoint: %+v, want HEALTHY/NO_HEALTH_CHECK", st)
	}
	if n := len(s.startTimes()); n != 0 {
		t.Fatalf("%d probes of an unchecked endpoint, want none", n)
	}
	tg.Endpoint.Stopped = true
	e.Update([]Target{tg})
	if st := e.Statuses(tg.Owner)[0]; st.State != api.StateUnhealthy || st.Reason != ReasonStopped {
		t.Fatalf("stopped unchecked endpoint: %s/%s, want UNHEALTHY/STOPPED", st.State, st.Reason)
	}
}

func TestEngine_ChangedCheckStartsOverAtUnknown(t *testing.T) {
	s := &script{clock: newFakeClock(), healthy: true}
	e := newTestEngine(t, s, 1, nil)
	tg := target(time.Second, time.Second, 2, 2)
	e.Update([]Target{tg})
	step(t, e, s.clock)
	if st := e.Statuses(tg.Owner)[0]; st.State != api.StateHealthy {
		t.Fatalf("state %s, want HEALTHY", st.State)
	}
	e.Update([]Target{tg}) // unchanged: keeps its verdict
	if st := e.Statuses(tg.Owner)[0]; st.State != api.StateHealthy {
		t.Fatalf("after a no-op update: %s, want HEALTHY", st.State)
	}
	tg.Check.Probe.HTTP = &prober.HTTPSpec{RequestPath: "/other"}
	e.Update([]Target{tg})
	if st := e.Statuses(tg.Owner)[0]; st.State != api.StateUnknown || !st.LastProbe.IsZero() {
		t.Fatalf("after a check change: %s, want UNKNOWN with no probe yet", st.State)
	}
	step(t, e, s.clock)
	if st := e.Statuses(tg.Owner)[0]; st.State != api.StateHealthy {
		t.Fatalf("after the next probe: %s, want HEALTHY", st.State)
	}
}

// Turning on logging or renaming an instance does not make a HEALTHY
// endpoint UNKNOWN again (regression: any change reset the verdict).
func TestEngine_LogFlagAndInstanceKeepTheVerdict(t *testing.T) {
	s := &script{clock: newFakeClock(), healthy: true}
	e := newTestEngine(t, s, 1, nil)
	tg := target(time.Second, time.Second, 2, 2)
	e.Update([]Target{tg})
	step(t, e, s.clock)
	tg.Check.Log, tg.Endpoint.Instance = true, "web-1"
	e.Update([]Target{tg})
	st := e.Statuses(tg.Owner)[0]
	if st.State != api.StateHealthy || st.Endpoint.Instance != "web-1" {
		t.Fatalf("after turning logging on: %s (instance %q), want HEALTHY with the new instance", st.State, st.Endpoint.Instance)
	}
}

// A STOPPED endpoint's verdict is a transition like any other: logged and
// handed to OnTransition (regression: it was set silently).
func TestEngine_SettledVerdictIsATransition(t *testing.T) {
	transitions := make(chan Transition, 4)
	s := &script{clock: newFakeClock(), healthy: true}
	e := newTestEngine(t, s, 1, transitions)
	tg := target(time.Second, time.Second, 2, 2)
	tg.Endpoint.Stopped = true
	e.Update([]Target{tg})
	select {
	case tr := <-transitions:
		if tr.From != api.StateUnknown || tr.State != api.StateUnhealthy || tr.Reason != ReasonStopped {
			t.Fatalf("transition %s -> %s (%s), want UNKNOWN -> UNHEALTHY (STOPPED)", tr.From, tr.State, tr.Reason)
		}
	default:
		t.Fatal("no transition for a STOPPED endpoint")
	}
	if c := e.Count(tg.Owner); c.Total != 1 || c.Healthy != 0 || c.Unknown != 0 {
		t.Fatalf("Count = %+v, want one endpoint, not healthy, not unknown", c)
	}
}

// TestJudgedAlikeComparesSpecsByValue: a check planned again (its spec's
// parts made anew) probes as before, so its endpoints keep their verdicts;
// a changed field does not.
func TestJudgedAlikeComparesSpecsByValue(t *testing.T) {
	text := func(path string) func(string) string {
		return func(field string) string {
			if field == "requestPath" {
				return path
			}
			return ""
		}
	}
	a := Target{Owner: "o", Check: Check{Name: "c", Probe: prober.NewSpec("HTTP", "NONE", text("/h")), Port: 80}}
	b := a
	b.Check.Probe = prober.NewSpec("HTTP", "NONE", text("/h"))
	alike := func() bool {
		pa, pb := place(&a, a.Owner, &a.Check), place(&b, b.Owner, &b.Check)
		return judgedAlike(&pa, &pb)
	}
	if !alike() {
		t.Errorf("the same check planned twice is judged differently")
	}
	b.Check.Probe = prober.NewSpec("HTTP", "NONE", text("/other"))
	if alike() {
		t.Errorf("a changed request path is judged alike")
	}
}

// A blocked target is reported UNHEALTHY (FIREWALL_BLOCKED) while it is
// probed behind the block; lifting the block keeps the verdict and reports
// it at once, with no new probe; blocking again reports the block.
func TestEngine_FirewallBlockIsReportedOverTheVerdict(t *testing.T) {
	transitions := make(chan Transition, 10)
	s := &script{clock: newFakeClock(), healthy: true}
	e := newTestEngine(t, s, 1, transitions)
	tg := target(time.Second, time.Second, 1, 1)
	tg.Check.Blocked, tg.Check.Firewall, tg.Check.FirewallVerdict = true, "every probe would be blocked", "BLOCKED"
	e.Update([]Target{tg})
	if tr := <-transitions; tr.State != api.StateUnhealthy || tr.Reason != ReasonFirewallBlocked || tr.Detail != tg.Check.Firewall {
		t.Fatalf("blocked: %+v, want UNHEALTHY (FIREWALL_BLOCKED) with the finding", tr)
	}
	step(t, e, s.clock)
	if len(s.startTimes()) == 0 {
		t.Fatal("no probe behind the block")
	}
	if st := e.Statuses(tg.Owner)[0]; st.State != api.StateUnhealthy || st.Reason != ReasonFirewallBlocked {
		t.Fatalf("a passing probe behind the block: %+v, want still blocked", st)
	}
	if c := e.Count(tg.Owner); c.Healthy != 0 || c.Total != 1 {
		t.Errorf("counts %+v, want the blocked endpoint not healthy", c)
	}
	probes := len(s.startTimes())
	open := tg
	open.Check.Blocked, open.Check.Firewall, open.Check.FirewallVerdict = false, "", ""
	e.Update([]Target{open})
	if tr := <-transitions; tr.State != api.StateHealthy || tr.From != api.StateUnhealthy {
		t.Fatalf("block lifted: %+v, want UNHEALTHY -> HEALTHY at once", tr)
	}
	if n := len(s.startTimes()); n != probes {
		t.Errorf("%d probes ran to report the verdict, want none", n-probes)
	}
	e.Update([]Target{tg})
	if tr := <-transitions; tr.State != api.StateUnhealthy || tr.Reason != ReasonFirewallBlocked {
		t.Fatalf("blocked again: %+v", tr)
	}
}

// TestEngine_SinceLatencyAndHistory: a status says when its state last
// changed, how long the last probe took, and the last results in order.
func TestEngine_SinceLatencyAndHistory(t *testing.T) {
	const interval, timeout = 10 * time.Second, 3 * time.Second
	s := &script{clock: newFakeClock(), duration: 2 * time.Second, healthy: true}
	e := newTestEngine(t, s, 1, nil)
	tg := target(interval, timeout, 1, 2)
	e.Update([]Target{tg})
	status := func() Status {
		t.Helper()
		sts := e.Statuses(tg.Owner)
		if len(sts) != 1 {
			t.Fatalf("%d statuses, want 1", len(sts))
		}
		return sts[0]
	}
	step(t, e, s.clock)
	healthyAt := s.clock.Now() // the first probe's end: HEALTHY from then
	step(t, e, s.clock)
	s.set(false)
	step(t, e, s.clock)
	if st := status(); st.State != api.StateHealthy || !st.Since.Equal(healthyAt) {
		t.Fatalf("after one failure: %s since %v, want HEALTHY since %v (threshold 2)", st.State, st.Since, healthyAt)
	}
	step(t, e, s.clock)
	st := status()
	if st.State != api.StateUnhealthy || !st.Since.Equal(s.clock.Now()) || st.Latency != 2*time.Second {
		t.Fatalf("after two failures: %s since %v latency %v, want UNHEALTHY since %v, latency 2s", st.State, st.Since, st.Latency, s.clock.Now())
	}
	if got, want := st.Recent(), []bool{true, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("Recent() = %v, want %v", got, want)
	}
	for range historyLen {
		step(t, e, s.clock)
	}
	if got := status().Recent(); len(got) != historyLen || slices.Contains(got, true) {
		t.Errorf("after %d more failures Recent() = %v, want %d failures", historyLen, got, historyLen)
	}
}

// With a time scale of 10, a check of a 30 s interval and a 5 s timeout is
// probed every 3 s (on the engine's clock) with 0.5 s to answer, and its
// expected rate says so; the check's own settings are unchanged.
func TestEngine_TimeScaleDividesIntervalAndTimeout(t *testing.T) {
	s := &script{clock: newFakeClock(), healthy: true}
	var deadlines []time.Duration
	var mu sync.Mutex
	e := New(Config{Probers: 1, Clock: s.clock, Scale: clock.New(10).Scale, Probe: func(ctx context.Context, sp prober.Spec, tg prober.Target) prober.Result {
		if d, ok := ctx.Deadline(); ok {
			mu.Lock()
			deadlines = append(deadlines, d.Sub(s.clock.Now()))
			mu.Unlock()
		}
		return s.probe(ctx, sp, tg)
	}})
	t.Cleanup(e.Close)
	tg := target(30*time.Second, 5*time.Second, 1, 1)
	e.Update([]Target{tg})
	for range 3 {
		step(t, e, s.clock)
	}
	starts := s.startTimes()
	for i := 1; i < len(starts); i++ {
		if d := starts[i].Sub(starts[i-1]); d != 3*time.Second {
			t.Errorf("probe %d started %v after the previous one, want 3s (30s / 10)", i, d)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(deadlines) == 0 || deadlines[0] != 500*time.Millisecond {
		t.Errorf("the probes' deadlines %v after their start, want 500ms (5s / 10)", deadlines)
	}
	st := e.Statuses(tg.Owner)
	if len(st) != 1 || st[0].ExpectedRate != 1.0/3 {
		t.Errorf("statuses %+v, want an expected rate of one probe per 3s", st)
	}
}

// FastForward runs at once, in order, the probes due in the time it skips:
// three failures in a row, due over 30 s, make the endpoint UNHEALTHY with
// no time passing on the clock; the schedule then goes on from the time
// skipped to, in its phase.
func TestEngine_FastForwardRunsTheProbesDue(t *testing.T) {
	s := &script{clock: newFakeClock(), healthy: true}
	transitions := make(chan Transition, 16)
	e := newTestEngine(t, s, 1, transitions)
	tg := target(10*time.Second, time.Second, 1, 3)
	e.Update([]Target{tg})
	step(t, e, s.clock)
	if tr := <-transitions; tr.State != api.StateHealthy {
		t.Fatalf("first verdict %s, want HEALTHY", tr.State)
	}
	waitQuiet(t, e, s.clock)
	s.set(false)
	before, probes := s.clock.Now(), len(s.startTimes())
	if ran := e.FastForward(context.Background(), 30*time.Second); ran != 3 {
		t.Errorf("%d probes ran, want 3 (one every 10s over 30s)", ran)
	}
	if n := len(s.startTimes()) - probes; n != 3 || !s.clock.Now().Equal(before) {
		t.Errorf("%d probes on a clock moved by %v, want 3 and none", n, s.clock.Now().Sub(before))
	}
	select {
	case tr := <-transitions:
		if tr.State != api.StateUnhealthy || tr.From != api.StateHealthy {
			t.Errorf("transition %s -> %s, want HEALTHY -> UNHEALTHY", tr.From, tr.State)
		}
	default:
		t.Fatal("three failures in a row made no transition")
	}
	// The next scheduled probe comes within one interval, in its phase.
	next := step(t, e, s.clock)
	if d := next.Sub(before); d <= 0 || d > 10*time.Second {
		t.Errorf("the next probe %v after the fast-forward, want within the interval (10s)", d)
	}
	if ran := e.FastForward(context.Background(), 0); ran != 0 {
		t.Errorf("a fast-forward of nothing ran %d probes", ran)
	}
}
