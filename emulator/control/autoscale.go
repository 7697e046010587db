package control

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Autoscaling: each autoscaler's group is sized by the requests the data
// plane carries to its instances, measured over a window, against what an
// instance may take.
//
//   - Load balancing utilization: the group's rate over the capacity its
//     backend services give an instance (RATE mode: maxRatePerInstance,
//     or maxRate shared by the group's instances, times capacityScaler).
//     A group whose services give no rate has no such signal.
//   - CPU utilization, which the emulator cannot see, has a stand-in: the
//     same rate, over the same capacity, or DefaultInstanceRate requests
//     per second an instance when no service gives one.
//
// The size a signal asks for is ceil(rate / (capacity × target)); the
// autoscaler takes the largest, between the policy's minimum and maximum.
// It grows the group at once, and shrinks it once every size asked for
// during the stabilization period (stabilizationPeriodSec, else the
// policy's coolDownPeriodSec: shorter than the cloud's ten minutes, so
// that tests wait less) was below the group's; mode OFF only recommends,
// ONLY_SCALE_OUT never shrinks. Rates are requests per second of real
// time; the window and the periods run faster with the time scale.

// DefaultInstanceRate is the requests per second an instance takes at
// 100% CPU in the stand-in, when no backend service gives a rate.
const DefaultInstanceRate = 100

// MeasureWindow is how far back the rate is measured (at time scale 1).
const MeasureWindow = 60 * time.Second

// Scalers is the API's side of autoscaling: what is stored, and writes
// under the write lock, like a request's.
type Scalers interface {
	// Autoscalers lists the autoscalers whose target is stored.
	Autoscalers(ctx context.Context) ([]ScaledGroup, error)
	// Resize sets the targetSize of the manager at k.
	Resize(ctx context.Context, k store.Key, size int64) error
	// Recommend writes the autoscaler's recommendedSize and status
	// details.
	Recommend(ctx context.Context, k store.Key, size int64, details []api.AutoscalerStatusDetail) error
}

// ScaledGroup is an autoscaler and the group it sizes.
type ScaledGroup struct {
	Autoscaler  store.Key
	Policy      api.AutoscalingPolicy
	Recommended int64 // the recommendedSize stored, -1 for none
	Manager     store.Key
	// Group is the path of the manager's instance group, as the data plane
	// counts its requests; Size the manager's targetSize.
	Group string
	Size  int64
	// PerInstance is the requests per second an instance may take by the
	// backend services that use the group; 0 when none says.
	PerInstance float64
}

// Autoscaler sizes the groups of autoscalers by their traffic.
type Autoscaler struct {
	scalers  Scalers
	requests func(group string) int64
	clock    Clock
	log      *slog.Logger
	timeline *timeline.Timeline

	mu    sync.Mutex
	state map[string]*scaling // by autoscaler path
}

// scaling is what an autoscaler remembers between looks.
type scaling struct {
	samples []sample
	// below is when the sizes asked for fell below the group's (zero:
	// they are not below it), and belowMax the largest asked for since.
	below    time.Time
	belowMax int64
}

type sample struct {
	at time.Time
	n  int64
}

// NewAutoscaler sizes the groups of scalers by the requests the data plane
// counted to each group (requests; nil: no traffic is measured), on clk
// (nil: the wall clock, real time), which its window and periods run on,
// scaled.
func NewAutoscaler(scalers Scalers, requests func(group string) int64, clk Clock, log *slog.Logger) *Autoscaler {
	if clk == nil {
		clk = clock.New(1)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if requests == nil {
		requests = func(string) int64 { return 0 }
	}
	return &Autoscaler{scalers: scalers, requests: requests, clock: clk, log: log, state: map[string]*scaling{}}
}

// RecordTo records each resize on tl.
func (a *Autoscaler) RecordTo(tl *timeline.Timeline) { a.timeline = tl }

// Run looks at every autoscaler every tick until ctx ends.
func (a *Autoscaler) Run(ctx context.Context, tick time.Duration) {
	every(ctx, tick, a.Once, a.log, "autoscaling")
}

// Once measures every autoscaler's group and resizes it when its policy
// says so.
func (a *Autoscaler) Once(ctx context.Context) error {
	groups, err := a.scalers.Autoscalers(ctx)
	if err != nil {
		return err
	}
	now := a.clock.Now()
	seen := map[string]bool{}
	for _, g := range groups {
		path := g.Autoscaler.Path()
		seen[path] = true
		if err := a.look(ctx, g, a.stateOf(path), now); err != nil {
			return err
		}
	}
	a.mu.Lock()
	for path := range a.state {
		if !seen[path] {
			delete(a.state, path)
		}
	}
	a.mu.Unlock()
	return nil
}

func (a *Autoscaler) stateOf(path string) *scaling {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.state[path]
	if st == nil {
		st = &scaling{}
		a.state[path] = st
	}
	return st
}

// look measures g's rate, decides its size, and resizes it.
func (a *Autoscaler) look(ctx context.Context, g ScaledGroup, st *scaling, now time.Time) error {
	rate := st.measure(now, a.requests(g.Group), a.clock.Scale(MeasureWindow))
	want, why, details := recommend(g, rate)
	if want != g.Recommended {
		if err := a.scalers.Recommend(ctx, g.Autoscaler, want, details); err != nil {
			return err
		}
	}
	p := g.Policy
	switch {
	case p.Mode == api.AutoscaleOff:
		st.below = time.Time{}
	case want > g.Size:
		st.below = time.Time{}
		return a.resize(ctx, g, want, why)
	case want < g.Size && (p.Mode == api.AutoscaleOnlyOut || p.Mode == api.AutoscaleOnlyUp):
	case want < g.Size:
		if st.below.IsZero() {
			st.below, st.belowMax = now, want
		}
		st.belowMax = max(st.belowMax, want)
		if now.Sub(st.below) >= a.clock.Scale(stabilization(p)) {
			st.below = time.Time{}
			return a.resize(ctx, g, st.belowMax, why)
		}
	default:
		st.below = time.Time{}
	}
	return nil
}

// stabilization is how long the sizes asked for must stay below the
// group's before it shrinks.
func stabilization(p api.AutoscalingPolicy) time.Duration {
	if p.StabilizationPeriodSec != nil {
		return time.Duration(*p.StabilizationPeriodSec) * time.Second
	}
	return time.Duration(valueOr(p.CoolDownPeriodSec)) * time.Second
}

func (a *Autoscaler) resize(ctx context.Context, g ScaledGroup, size int64, why string) error {
	a.log.Info("autoscaler: resizing its group", "autoscaler", g.Autoscaler.Path(), "group", g.Manager.Path(), "from", g.Size, "to", size, "why", why)
	if err := a.scalers.Resize(ctx, g.Manager, size); err != nil {
		return err
	}
	a.timeline.Add(timeline.Event{Time: a.clock.Now(), Kind: timeline.KindScaler, Resource: g.Autoscaler.Path(), Group: g.Manager.Path(),
		From: fmt.Sprint(g.Size), To: fmt.Sprint(size), Cause: why})
	return nil
}

// measure adds a count to the samples and returns the rate over window.
func (st *scaling) measure(now time.Time, n int64, window time.Duration) float64 {
	st.samples = append(st.samples, sample{now, n})
	keep := 0
	for keep < len(st.samples)-1 && now.Sub(st.samples[keep+1].at) >= window {
		keep++
	}
	st.samples = st.samples[keep:]
	first, last := st.samples[0], st.samples[len(st.samples)-1]
	span := last.at.Sub(first.at).Seconds()
	if span <= 0 || last.n < first.n {
		return 0
	}
	return float64(last.n-first.n) / span
}

// recommend is the size g's policy asks for at rate, why, and the status
// details of signals that cannot be measured.
func recommend(g ScaledGroup, rate float64) (int64, string, []api.AutoscalerStatusDetail) {
	p := g.Policy
	want, why := int64(0), fmt.Sprintf("%.1f requests/s", rate)
	var details []api.AutoscalerStatusDetail
	ask := func(capacity float64, target *float64, signal string) {
		t := api.DefaultServingTarget
		if target != nil {
			t = *target
		}
		n := int64(math.Ceil(rate / (capacity * t)))
		if n > want {
			want = n
			why = fmt.Sprintf("%.1f requests/s at %s target %g of %g requests/s an instance", rate, signal, t, capacity)
		}
	}
	measured := false
	if l := p.LoadBalancingUtilization; l != nil {
		if g.PerInstance > 0 {
			ask(g.PerInstance, l.UtilizationTarget, "load balancing utilization")
			measured = true
		} else {
			details = append(details, api.AutoscalerStatusDetail{Type: "BACKEND_SERVICE_DOES_NOT_EXIST",
				Message: "no backend service gives the group's instances a rate (balancingMode RATE): load balancing utilization is not measured"})
		}
	}
	if c := p.CPUUtilization; c != nil {
		capacity := g.PerInstance
		if capacity <= 0 {
			capacity = DefaultInstanceRate
		}
		ask(capacity, c.UtilizationTarget, "CPU utilization (stand-in: requests)")
		measured = true
	}
	if len(p.CustomMetricUtilizations) > 0 {
		details = append(details, api.AutoscalerStatusDetail{Type: "CUSTOM_METRIC_DATA_POINTS_TOO_SPARSE",
			Message: "custom metrics are not measured: the emulator has no Cloud Monitoring"})
	}
	if !measured {
		want = g.Size
	}
	minimum, maximum := p.MinReplicas(), valueOr(p.MaxNumReplicas)
	return min(max(want, minimum), maximum), why, details
}
