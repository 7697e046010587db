package dataplane

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A proxy's service with outlierDetection takes an endpoint out of its
// traffic for a while when its answers fail in a row, before any health
// check notices, as the cloud's proxies do: after consecutiveErrors
// answers 5xx (ejecting with a chance of enforcingConsecutiveErrors
// percent, 0 unless set), or consecutiveGatewayFailure answers 502, 503 or
// 504 or failures to reach it (enforcingConsecutiveGatewayFailure, 100
// unless set). It stays out for baseEjectionTime times the number of times
// it has been ejected, and no more than maxEjectionPercent of the
// service's endpoints are out at once. The success-rate settings, which
// need the cloud's traffic statistics, are not applied. Without
// outlierDetection nothing is ejected.

func orDefault(v *int64, def int64) int64 {
	if v == nil {
		return def
	}
	return *v
}

// outlierRules are a service's outlier detection with its defaults
// applied.
type outlierRules struct {
	errors, enforceErrors   int64
	gateway, enforceGateway int64
	baseEjection            time.Duration
	maxPercent              int64
}

func rulesOf(od *api.OutlierDetection) outlierRules {
	r := outlierRules{
		errors: orDefault(od.ConsecutiveErrors, 5), enforceErrors: orDefault(od.EnforcingConsecutiveErrors, 0),
		gateway: orDefault(od.ConsecutiveGatewayFailure, 3), enforceGateway: orDefault(od.EnforcingConsecutiveGatewayFailure, 100),
		baseEjection: 30 * time.Second, maxPercent: orDefault(od.MaxEjectionPercent, 50),
	}
	if d := od.BaseEjectionTime; d != nil {
		r.baseEjection = d.Value()
	}
	return r
}

// outlier is what outlier detection keeps of one backend.
type outlier struct {
	errors, gateway atomic.Int64 // answers failed in a row
	ejectedUntil    atomic.Int64 // unix nanoseconds; 0: never ejected
	mu              sync.Mutex
	ejections       int64 // how many times it was ejected
}

func (o *outlier) ejected(now time.Time) bool { return o.ejectedUntil.Load() > now.UnixNano() }

// count records an answer of b (or its absence, as code) for rule and
// service: in the metrics and for outlier detection.
func (p *Plane) count(rule, service string, bs *api.BackendService, b *backend, code int) {
	p.metrics.request(rule, service, b.addr, code)
	p.observe(service, bs, b, code)
}

// observe records an answer of b with status code (502 or 504 too when b
// could not be reached or did not answer in time) for service bs, and
// ejects b when its failures in a row call for it.
func (p *Plane) observe(service string, bs *api.BackendService, b *backend, code int) {
	if bs == nil || bs.OutlierDetection == nil {
		return
	}
	o := &b.outlier
	gatewayFailure := code == 502 || code == 503 || code == 504
	if code < 500 {
		o.errors.Store(0)
		o.gateway.Store(0)
		return
	}
	errs := o.errors.Add(1)
	gw := int64(0)
	if gatewayFailure {
		gw = o.gateway.Add(1)
	} else {
		o.gateway.Store(0)
	}
	r := rulesOf(bs.OutlierDetection)
	r.baseEjection = p.opts.Clock.Scale(r.baseEjection)
	switch {
	case gw > 0 && gw >= r.gateway && chance(r.enforceGateway):
	case errs >= r.errors && chance(r.enforceErrors):
	default:
		return
	}
	p.eject(service, b, r)
}

// chance is true with the given percent chance.
func chance(percent int64) bool { return percent >= 100 || percent > 0 && rand.Int64N(100) < percent }

// eject takes b out of service's traffic, unless that would put more than
// maxEjectionPercent of the service's endpoints out, and puts it back
// when its time is up.
func (p *Plane) eject(service string, b *backend, r outlierRules) {
	now := p.opts.Clock.Now()
	if !p.pools.mayEject(service, now, r.maxPercent) {
		return
	}
	o := &b.outlier
	o.mu.Lock()
	if o.ejected(now) {
		o.mu.Unlock()
		return
	}
	o.ejections++
	d := r.baseEjection * time.Duration(o.ejections)
	o.ejectedUntil.Store(now.Add(d).UnixNano())
	o.errors.Store(0)
	o.gateway.Store(0)
	o.mu.Unlock()
	p.metrics.ejections.WithLabelValues(service, b.addr).Inc()
	p.log.Info("data plane: endpoint ejected by outlier detection", "backend_service", service, "backend", b.addr, "for", d)
	p.pools.invalidate(service)
	p.opts.Clock.AfterFunc(d, func() { p.pools.invalidate(service) })
}

// mayEject tells whether one more of owner's endpoints may be ejected:
// whether, with it, at most maxPercent of the endpoints its proxy pool
// sends to (or would, but for ejections) are out.
func (ps *pools) mayEject(owner string, now time.Time, maxPercent int64) bool {
	ps.mu.Lock()
	e := ps.byKey[poolKey{owner, modeProxy}]
	ps.mu.Unlock()
	if e == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.current.Load()
	if p == nil {
		return false
	}
	out := int64(0)
	for _, b := range e.backends {
		if b.outlier.ejected(now) {
			out++
		}
	}
	return (out+1)*100 <= maxPercent*(int64(len(p.healthy))+out)
}
