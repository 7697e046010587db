package health

import (
	"context"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// slotGrain is the resolution of slot offsets. Series whose slots share a
// grain start together, so the runtime wakes once for a few dozen probes
// rather than once per probe: at 5,000 endpoints a second that cut the
// engine's CPU by about a fifth (README.md, Performance), for starts
// spread over 100 instants a second instead of 5,000.
const slotGrain = 10 * time.Millisecond

// offset is the stable place of a probe series inside its interval, so that
// thousands of endpoints do not fire at once (like Envoy's jitter) and a
// restart keeps every endpoint on the same slots. It is a whole number of
// slotGrains when the interval holds several.
func offset(id string, interval time.Duration) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(id))
	if grains := uint64(interval / slotGrain); grains > 1 {
		return time.Duration(h.Sum64()%grains) * slotGrain
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

// probeLoop runs prober p of endpoint ep until ctx ends: one probe per slot,
// start to start, whatever the probe lasts. Probes of one series never
// overlap: the next one starts after this one returns, and the timeout
// (<= interval) bounds how long that is.
func (e *Engine) probeLoop(ctx context.Context, ep *endpoint, p int) {
	id := ep.id + "#" + strconv.Itoa(p)
	t := ep.target.Load()
	// The first slot is strictly after now: a loop restarted by a change
	// at the very instant of a slot must not probe that slot twice.
	slot := nextSlot(e.cfg.Clock.Now().Add(time.Nanosecond), offset(id, t.Check.Interval), t.Check.Interval)
	var pm probeMetrics
	for e.cfg.Clock.SleepUntil(ctx, slot) {
		start := e.cfg.Clock.Now()
		t, gen := ep.current()
		e.metrics.observeLag(start.Sub(slot))
		pctx, cancel := context.WithDeadline(ctx, start.Add(t.Check.Timeout))
		res := e.cfg.Probe(pctx, t.Check.Probe, prober.Target{IP: t.Endpoint.IP, Port: t.Check.Port})
		cancel()
		if ctx.Err() != nil {
			return // stopped mid-probe: the result belongs to nobody
		}
		end := e.cfg.Clock.Now()
		if pm.target != t {
			pm = e.metrics.forTarget(t)
		}
		pm.observe(res, end.Sub(start))
		e.record(ep, gen, p, res, start)
		slot = e.following(slot, end, t.Check.Interval)
	}
}

// following is the slot after slot, skipping (and counting) the slots that
// have already passed. A change of interval restarts the loop (Engine.change),
// so the interval is the loop's own.
func (e *Engine) following(slot, now time.Time, interval time.Duration) time.Time {
	next := slot.Add(interval)
	// A probe may end a little after the next slot (timeout == interval is
	// allowed): that slot then starts late, not never. Only slots that are
	// a whole interval gone are skipped, and counted.
	if late := now.Sub(next); late >= interval {
		missed := int(late / interval)
		e.metrics.missed(missed)
		next = next.Add(time.Duration(missed) * interval)
	}
	return next
}
