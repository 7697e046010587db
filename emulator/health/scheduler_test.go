package health

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// hanging is a fake endpoint that never answers: each probe lasts until
// its deadline, and the prober takes overrun more to give up (on a real
// machine, the time to notice and record), all on the fake clock. After
// limit probes it answers at once, so that the engine settles and sleeps.
type hanging struct {
	clock   *fakeClock
	overrun time.Duration
	limit   int

	mu     sync.Mutex
	starts []time.Time
	done   chan struct{} // closed at the limit
}

func (h *hanging) probe(ctx context.Context, _ prober.Spec, _ prober.Target) prober.Result {
	h.mu.Lock()
	if len(h.starts) == h.limit {
		h.mu.Unlock()
		return prober.Result{Healthy: true}
	}
	h.starts = append(h.starts, h.clock.Now())
	if len(h.starts) == h.limit {
		close(h.done)
	}
	h.mu.Unlock()
	deadline, _ := ctx.Deadline()
	h.clock.advance(deadline.Sub(h.clock.Now()) + h.overrun)
	return prober.Result{Reason: prober.ReasonTimeout, Detail: "hung"}
}

// run probes one hanging target until the limit and returns the starts.
func (h *hanging) run(t *testing.T, interval, timeout time.Duration, reg *prometheus.Registry) []time.Time {
	t.Helper()
	h.done = make(chan struct{})
	e := New(Config{Clock: h.clock, Probe: h.probe, Metrics: NewMetrics(reg)})
	t.Cleanup(e.Close)
	e.Update([]Target{target(interval, timeout, 2, 2)})
	// Each probe moves the clock past its deadline; when that leaves the
	// engine asleep until a slot ahead, the clock is moved there.
	guard := time.Now().Add(20 * time.Second) // a hang guard, not a measurement
	for wait := true; wait; {
		select {
		case <-h.done:
			wait = false
		default:
			if time.Now().After(guard) {
				t.Fatalf("%d of %d probes after 20 s", len(h.starts), h.limit)
			}
			if e.sched.quiet() && h.clock.sleeping() > 0 {
				h.clock.advanceToNext()
			}
			time.Sleep(20 * time.Microsecond)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Time(nil), h.starts...)
}

// gridOf maps each start to its slot, first + k*interval with the start
// at or after it, and returns k and the lag.
func gridOf(first, start time.Time, interval time.Duration) (int, time.Duration) {
	since := start.Sub(first)
	return int(since / interval), since % interval
}

// TestScheduler_HangingEndpointKeepsToTheGrid: with timeout == interval and
// an endpoint that never answers, each probe ends a little after the next
// slot. Lag must not build up from probe to probe (1.6 ms was measured
// more per probe), and no slot may be started twice or skipped.
func TestScheduler_HangingEndpointKeepsToTheGrid(t *testing.T) {
	const interval, overrun, probes = 5 * time.Second, time.Millisecond, 1000
	h := &hanging{clock: newFakeClock(), overrun: overrun, limit: probes}
	reg := prometheus.NewRegistry()
	starts := h.run(t, interval, interval, reg)
	for i, start := range starts {
		k, lag := gridOf(starts[0], start, interval)
		if k != i {
			t.Fatalf("probe %d started in slot %d: slots must follow one another, none twice, none skipped", i, k)
		}
		if lag > overrun {
			t.Fatalf("probe %d started %v after its slot, want at most %v (the overrun of one probe): lag builds up", i, lag, overrun)
		}
	}
	if c := gatherEngineCounts(t, reg); c.missed != 0 {
		t.Errorf("%v slots counted as missed, want 0", c.missed)
	}
}

// TestScheduler_ProbeEndingPastDeadlinesSkipsToTheGrid: a probe that ends
// long after its deadline (the process was frozen, say) leaves out the
// slots whose deadline has passed, counts them as missed, and carries on
// with the next live slot of the same grid.
func TestScheduler_ProbeEndingPastDeadlinesSkipsToTheGrid(t *testing.T) {
	const interval, timeout = 5 * time.Second, 2 * time.Second
	// Each probe ends 2 intervals and 1 s after its deadline, at slot+13s:
	// the slots at +5s and +10s (deadlines +7s and +12s) are gone, the one
	// at +15s is ahead.
	h := &hanging{clock: newFakeClock(), overrun: 2*interval + time.Second, limit: 50}
	reg := prometheus.NewRegistry()
	starts := h.run(t, interval, timeout, reg)
	for i, start := range starts {
		k, lag := gridOf(starts[0], start, interval)
		if k != 3*i || lag != 0 {
			t.Fatalf("probe %d started in slot %d, %v late; want slot %d on time", i, k, lag, 3*i)
		}
	}
	// The last probe may not have ended when the count is read.
	if missed, n := gatherEngineCounts(t, reg).missed, float64(len(starts)); missed != 2*n && missed != 2*(n-1) {
		t.Errorf("%v slots counted as missed, want 2 per probe (%v probes)", missed, n)
	}
}
