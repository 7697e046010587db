package health

import (
	"container/heap"
	"context"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// grain is the resolution of the slot offsets of an interval: a hundredth
// of it, from 10 ms to 50 ms. Series whose slots share a grain start
// together, so the runtime wakes once for a few dozen probes rather than
// once per probe: at 5,000 endpoints a second 10 ms grains cut the
// engine's CPU by about a fifth, for starts spread over 100 instants a
// second instead of 5,000; at 1,000 endpoints every 5 s, 50 ms grains
// halve the engine's context switches (docs/guides/benchmarks.md). Probes
// start up to a grain's burst late, a few milliseconds.
func grain(interval time.Duration) time.Duration {
	return min(max(interval/100, minGrain), maxGrain)
}

const minGrain, maxGrain = 10 * time.Millisecond, 50 * time.Millisecond

// offset is the stable place of a probe series inside its interval, so that
// thousands of endpoints do not fire at once (like Envoy's jitter) and a
// restart keeps every endpoint on the same slots. It is a whole number of
// grains when the interval holds several.
func offset(id string, interval time.Duration) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(id))
	g := grain(interval)
	if grains := uint64(interval / g); grains > 1 {
		return time.Duration(h.Sum64()%grains) * g
	}
	return time.Duration(h.Sum64() % uint64(interval))
}

// nextSlot is the first slot at or after now: slots are the instants
// epoch + offset + k*interval.
func nextSlot(now time.Time, off, interval time.Duration) time.Time {
	since := now.UnixNano() - int64(off)
	k := since / int64(interval)
	if since%int64(interval) != 0 && since > 0 {
		k++
	}
	return time.Unix(0, k*int64(interval)+int64(off))
}

// series is one prober's probes of one endpoint: one probe per slot,
// start to start, whatever the probe lasts. Slots are a fixed grid,
// offset + k*interval, and a probe's deadline is its slot plus the timeout,
// however late it started: a late start shortens that probe, never moves
// the grid, so lag cannot build up from probe to probe (with
// timeout == interval and a hanging endpoint, deadlines taken from late
// starts pushed every later slot a little further). Its probes never
// overlap: the next slot is scheduled when a probe ends, and the deadline
// (timeout <= interval) is at or before the next slot. A series lives from
// Engine.start to Engine.halt; a change of interval or timeout halts it and
// starts another, so both are the series' own.
type series struct {
	e        *Engine
	ep       *endpoint
	p        int // which prober
	interval time.Duration
	slot     time.Time // the next slot, or the slot of the probe in flight
	key      int64     // slot in Unix ns: the heap compares it thousands of times a second
	index    int       // in the schedule's heap; -1 while probing or halted
	done     prober.Done
	pm       probeMetrics
	// halted is set once, when the series stops: it is never queued
	// again, and the result of a probe in flight belongs to nobody.
	halted atomic.Bool
	// cancel ends the blocking probe in flight (one on a goroutine): only
	// those need a context of their own, made when they start.
	cancel atomic.Pointer[context.CancelFunc]

	// The probe in flight: its settings, their generation, its start.
	target *placement
	gen    int
	start  time.Time
}

// newSeries is prober p's series of ep, whose ID is id.
func (e *Engine) newSeries(ep *endpoint, id string, t *placement, p int) *series {
	s := &series{e: e, ep: ep, p: p, interval: e.cfg.Scale(t.Check.Interval), index: -1}
	s.done = s.finish // bound once: a probe allocates no callback
	// The first slot is strictly after now: a series restarted by a change
	// at the very instant of a slot must not probe that slot twice.
	off := offset(id+"#"+strconv.Itoa(p), s.interval)
	s.slot = nextSlot(e.cfg.Clock.Now().Add(time.Nanosecond), off, s.interval)
	return s
}

// stop halts s, and the blocking probe it has in flight.
func (s *series) stop() {
	s.halted.Store(true)
	if cancel := s.cancel.Load(); cancel != nil {
		(*cancel)()
	}
}

// stopped tells whether s's results belong to nobody: it was halted, or
// the engine closed.
func (s *series) stopped() bool { return s.halted.Load() || s.e.ctx.Err() != nil }

// launch starts the probe of s's slot: on the reactor when it runs the
// protocol, else on a goroutine of its own.
func (s *series) launch() {
	e := s.e
	s.start = e.cfg.Clock.Now()
	s.target, s.gen = s.ep.current()
	t := s.target
	timeout := e.cfg.Scale(t.Check.Timeout)
	deadline := s.slot.Add(timeout)
	if !deadline.After(s.start) {
		// The scheduler is a whole timeout late (the machine is starved):
		// the probe would have no time at all, and would fail for it.
		s.slot = e.live(s.slot, s.start, s.interval, timeout)
		e.sched.add(s)
		e.sched.landed()
		return
	}
	e.metrics.observeLag(s.start.Sub(s.slot))
	pt := prober.Target{IP: t.Endpoint.IP, Port: t.Check.Port}
	if t.Check.Address != "" {
		pt.IP = t.Check.Address
	}
	if e.reactor.Start(t.Check.Probe, pt, deadline, s.done) {
		return
	}
	ctx, cancel := context.WithDeadline(e.ctx, deadline)
	s.cancel.Store(&cancel)
	if s.halted.Load() {
		cancel() // halted meanwhile, before stop could see cancel
	}
	e.wg.Go(func() {
		if t.Check.Probe.NeedsFacts() {
			ctx = prober.WithFacts(ctx, e.facts(s.ep))
		}
		res := e.cfg.Probe(ctx, t.Check.Probe, pt)
		s.cancel.Store(nil)
		cancel()
		s.done(res)
	})
}

// finish takes the result of s's probe and schedules its next slot.
func (s *series) finish(res prober.Result) {
	e := s.e
	defer e.sched.landed()
	if s.stopped() {
		return // halted mid-probe: the result belongs to nobody
	}
	end := e.cfg.Clock.Now()
	if s.pm.target != s.target {
		s.pm = e.metrics.forTarget(s.target)
	}
	s.pm.observe(res, end.Sub(s.start))
	e.record(s.ep, s.gen, s.p, res, s.start, end)
	s.slot = e.live(s.slot.Add(s.interval), end, s.interval, e.cfg.Scale(s.target.Check.Timeout))
	e.sched.add(s)
}

// live is the first grid slot from slot on (slot, slot+interval, ...) whose
// deadline, the slot plus timeout, is still ahead of now; the slots skipped
// are counted as missed. A probe that ends a little after the next slot
// (timeout == interval is allowed, and a probe ends just after its
// deadline) leaves that slot most of its time: it starts late, not never.
func (e *Engine) live(slot, now time.Time, interval, timeout time.Duration) time.Time {
	late := now.Sub(slot.Add(timeout))
	if late < 0 {
		return slot
	}
	missed := int(late/interval) + 1
	e.metrics.missed(missed)
	return slot.Add(time.Duration(missed) * interval)
}

// schedule is the engine's one scheduler: every series waiting for its
// next slot, in a heap by slot, served by one goroutine (run). Thousands
// of series cost one sleeping goroutine, not one each.
type schedule struct {
	mu       sync.Mutex
	heap     seriesHeap
	inFlight int                // probes started and not yet finished
	wake     context.CancelFunc // ends run's current sleep; nil while run is awake
	until    time.Time          // when that sleep ends; zero = until woken
}

// add queues s for its slot, waking run if s comes before its sleep ends.
// A stopped series is not queued again.
func (sc *schedule) add(s *series) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s.stopped() {
		return
	}
	s.key = s.slot.UnixNano()
	heap.Push(&sc.heap, s)
	if sc.wake != nil && (sc.until.IsZero() || s.slot.Before(sc.until)) {
		sc.wake()
		sc.wake = nil
	}
}

// halt takes s out of the schedule for good: once stopped, add cannot
// queue it again.
func (sc *schedule) halt(s *series) {
	s.stop()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s.index >= 0 {
		heap.Remove(&sc.heap, s.index)
	}
}

// landed counts a probe that ended.
func (sc *schedule) landed() {
	sc.mu.Lock()
	sc.inFlight--
	sc.mu.Unlock()
}

// due takes out the series whose slot has come.
func (sc *schedule) due(now time.Time, out []*series) []*series {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for len(sc.heap) > 0 && !sc.heap[0].slot.After(now) {
		out = append(out, heap.Pop(&sc.heap).(*series))
	}
	sc.inFlight += len(out)
	return out
}

// run launches every series at its slot until ctx ends.
func (e *Engine) run(ctx context.Context) {
	var due []*series
	for {
		due = e.sched.due(e.cfg.Clock.Now(), due[:0])
		for _, s := range due {
			s.launch()
		}
		clear(due)
		if !e.sleep(ctx) {
			return
		}
	}
}

// sleep waits for the earliest slot, or for add to bring an earlier one;
// false when ctx ends. With a reactor, the wait is the reactor's Poll: the
// scheduler's one thread also reads the answers of the probes in flight.
func (e *Engine) sleep(ctx context.Context) bool {
	sc := &e.sched
	var wctx context.Context
	sc.mu.Lock()
	if e.reactor != nil {
		sc.wake = e.interrupt
	} else {
		wctx, sc.wake = context.WithCancel(ctx)
	}
	sc.until = time.Time{}
	if len(sc.heap) > 0 {
		sc.until = sc.heap[0].slot
	}
	until, wake := sc.until, sc.wake
	sc.mu.Unlock()
	switch {
	case ctx.Err() != nil:
	case e.reactor != nil:
		e.reactor.Poll(until)
	case until.IsZero():
		<-wctx.Done()
	default:
		e.cfg.Clock.SleepUntil(wctx, until)
	}
	sc.mu.Lock()
	sc.wake = nil
	sc.mu.Unlock()
	if e.reactor == nil {
		wake()
	}
	return ctx.Err() == nil
}

// quiet tells whether nothing is probing and run sleeps: what tests on a
// fake clock wait for before they move it.
func (sc *schedule) quiet() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.inFlight == 0 && sc.wake != nil
}

// seriesHeap orders series by slot.
type seriesHeap []*series

func (h seriesHeap) Len() int           { return len(h) }
func (h seriesHeap) Less(i, j int) bool { return h[i].key < h[j].key }
func (h seriesHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *seriesHeap) Push(x any) {
	s := x.(*series)
	s.index = len(*h)
	*h = append(*h, s)
}
func (h *seriesHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	s.index = -1
	*h = old[:len(old)-1]
	return s
}
