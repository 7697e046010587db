package health

import (
	"container/heap"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// fastForwardParallel bounds the series fast-forwarded at once.
const fastForwardParallel = 64

// FastForward runs now the probes due in the next d, as if that much time
// had passed: each probe series (an endpoint and a prober) whose slot comes
// within d runs the probes of its slots up to then, one after another and
// in order, as real probes whose results move the endpoint's state as the
// scheduled ones would. Then every series, these and the others, is moved
// d earlier on its grid, so that the schedule goes on from the time
// skipped to. A series with a probe in flight keeps its slot. It returns
// how many probes ran; it ends early, with what ran, when ctx ends.
func (e *Engine) FastForward(ctx context.Context, d time.Duration) int {
	if d <= 0 {
		return 0
	}
	horizon := e.cfg.Clock.Now().Add(d)
	sc := &e.sched
	sc.mu.Lock()
	var taken []*series
	for len(sc.heap) > 0 && !sc.heap[0].slot.After(horizon) {
		taken = append(taken, heap.Pop(&sc.heap).(*series))
	}
	// The series left keep their phase: the time skipped is skipped for
	// them too.
	for _, s := range sc.heap {
		s.slot = s.slot.Add(-d)
		s.key = s.slot.UnixNano()
	}
	heap.Init(&sc.heap)
	sc.inFlight += len(taken)
	sc.mu.Unlock()

	var ran atomic.Int64
	var wg sync.WaitGroup
	slots := make(chan struct{}, fastForwardParallel)
	for _, s := range taken {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			slot := s.slot
			for ; !slot.After(horizon) && !s.stopped() && ctx.Err() == nil; slot = slot.Add(s.interval) {
				e.probeNow(ctx, s)
				ran.Add(1)
			}
			for !slot.After(horizon) { // ended early: the rest are skipped
				slot = slot.Add(s.interval)
			}
			s.slot = slot.Add(-d)
			sc.landed()
			sc.add(s)
		})
	}
	wg.Wait()
	return int(ran.Load())
}

// probeNow runs one probe of s at once, on a goroutine of the caller's,
// and records its result.
func (e *Engine) probeNow(ctx context.Context, s *series) {
	t, gen := s.ep.current()
	pt := prober.Target{IP: t.Endpoint.IP, Port: t.Check.Port}
	if t.Check.Address != "" {
		pt.IP = t.Check.Address
	}
	start := e.cfg.Clock.Now()
	pctx, cancel := context.WithDeadline(ctx, start.Add(e.cfg.Scale(t.Check.Timeout)))
	defer cancel()
	if t.Check.Probe.NeedsFacts() {
		pctx = prober.WithFacts(pctx, e.facts(s.ep))
	}
	res := e.cfg.Probe(pctx, t.Check.Probe, pt)
	e.record(s.ep, gen, s.p, res, start, e.cfg.Clock.Now())
}
