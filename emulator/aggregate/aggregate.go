// Package aggregate turns endpoint health into the health of services and
// regions: a health source is HEALTHY when enough of its backend service's
// endpoints are (its aggregation policy's percentage and minimum), and a
// composite check combines its sources. Inputs keeps the stored resources
// that decide it; the Aggregator re-evaluates as probe verdicts change and
// logs every transition.
package aggregate

import (
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Source is a health source as the Aggregator needs it.
type Source struct {
	Path    string // projects/p/regions/r/healthSources/x
	Service string // path of its backend service
	// HealthyPercent and MinHealthy are its aggregation policy.
	HealthyPercent, MinHealthy int64
}

// Composite is a composite health check as the Aggregator needs it.
type Composite struct {
	Path    string
	Sources []string // paths of its health sources, in order
}

// StatusReader is where the Aggregator reads endpoint health: the Engine.
type StatusReader interface {
	Statuses(owner string) []health.Status
	Count(owner string) health.Counts
}

// Aggregator turns endpoint health into health-source and composite states,
// re-evaluated as probe results arrive and whenever the
// topology changes, and logs every transition.
type Aggregator struct {
	endpoints StatusReader
	log       *slog.Logger

	mu         sync.Mutex
	sources    map[string]Source
	composites map[string]Composite
	// byService and bySource index sources by their service and composites
	// by their sources: a transition or a change re-evaluates what depends
	// on it, never every source and composite.
	byService map[string]map[string]struct{}
	bySource  map[string]map[string]struct{}
	states    map[string]string // last state of each source and composite
	gauge     *prometheus.GaugeVec
	timeline  *timeline.Timeline // where each change is recorded; nil records none
	now       func() time.Time
}

// RecordTo records every change of a source or a composite on tl, at the
// time now says.
func (a *Aggregator) RecordTo(tl *timeline.Timeline, now func() time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.timeline, a.now = tl, now
}

// record notes one change on the timeline.
func (a *Aggregator) record(kind, path, from, to, cause string) {
	if a.timeline != nil {
		a.timeline.Add(timeline.Event{Time: a.now(), Kind: kind, Resource: path, From: from, To: to, Cause: cause})
	}
}

// NewAggregator returns an Aggregator reading endpoint health from r. reg
// may be nil.
func NewAggregator(r StatusReader, log *slog.Logger, reg prometheus.Registerer) *Aggregator {
	a := &Aggregator{endpoints: r, log: log, sources: map[string]Source{}, composites: map[string]Composite{},
		byService: map[string]map[string]struct{}{}, bySource: map[string]map[string]struct{}{}, states: map[string]string{}}
	if reg != nil {
		a.gauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lbhealth_aggregate_state",
			Help: "1 for the current state of each health source and composite health check.",
		}, []string{"resource", "kind", "state"})
		reg.MustRegister(a.gauge)
	}
	return a
}

// Update sets the health sources and composite checks, replacing all
// those known, and re-evaluates them.
func (a *Aggregator) Update(sources []Source, composites []Composite) {
	a.mu.Lock()
	ss := make(map[string]*Source, len(a.sources)+len(sources))
	cs := make(map[string]*Composite, len(a.composites)+len(composites))
	for path := range a.sources {
		ss[path] = nil
	}
	for path := range a.composites {
		cs[path] = nil
	}
	a.mu.Unlock()
	for i := range sources {
		ss[sources[i].Path] = &sources[i]
	}
	for i := range composites {
		cs[composites[i].Path] = &composites[i]
	}
	a.Apply(ss, cs)
}

// Apply sets (or, for nil, deletes) the health sources and composite
// checks it names, leaves the others alone, and re-evaluates those it set
// and the composites that list a source it changed: a changed policy or
// source list takes effect now.
func (a *Aggregator) Apply(sources map[string]*Source, composites map[string]*Composite) {
	a.mu.Lock()
	defer a.mu.Unlock()
	evalSources := make([]string, 0, len(sources))
	evalComposites := map[string]struct{}{}
	for path, src := range sources {
		if old, ok := a.sources[path]; ok {
			unindex(a.byService, old.Service, path)
			delete(a.sources, path)
		}
		if src == nil {
			a.forget(path)
		} else {
			a.sources[path] = *src
			index(a.byService, src.Service, path)
			evalSources = append(evalSources, path)
		}
		for c := range a.bySource[path] {
			evalComposites[c] = struct{}{}
		}
	}
	for path, c := range composites {
		if old, ok := a.composites[path]; ok {
			for _, sp := range old.Sources {
				unindex(a.bySource, sp, path)
			}
			delete(a.composites, path)
		}
		if c == nil {
			a.forget(path)
			delete(evalComposites, path)
			continue
		}
		a.composites[path] = *c
		for _, sp := range c.Sources {
			index(a.bySource, sp, path)
		}
		evalComposites[path] = struct{}{}
	}
	a.reevaluate(evalSources, evalComposites, "configuration changed")
}

func index(m map[string]map[string]struct{}, key, value string) {
	if m[key] == nil {
		m[key] = map[string]struct{}{}
	}
	m[key][value] = struct{}{}
}

func unindex(m map[string]map[string]struct{}, key, value string) {
	delete(m[key], value)
	if len(m[key]) == 0 {
		delete(m, key)
	}
}

// OwnersChanged re-evaluates the sources of the backend services whose
// targets were just replaced: an endpoint added or removed changes the
// counts without a transition.
func (a *Aggregator) OwnersChanged(owners []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, owner := range owners {
		if srcs := a.byService[owner]; len(srcs) > 0 {
			a.reevaluate(slices.Collect(maps.Keys(srcs)), nil, "endpoints of "+owner+" changed")
		}
	}
}

// OnTransition re-evaluates what depends on the endpoint that changed. It is
// the Engine's OnTransition hook.
func (a *Aggregator) OnTransition(tr health.Transition) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The port too: endpoints of one service often share an address.
	cause := "endpoint " + tr.Address() + " of " + tr.Owner + " " + tr.From + " -> " + tr.State
	a.reevaluate(slices.Collect(maps.Keys(a.byService[tr.Owner])), nil, cause)
}

// reevaluate recomputes the sources named, then the composites named and
// those that list a source whose state changed, logging each change with
// its cause.
func (a *Aggregator) reevaluate(sources []string, composites map[string]struct{}, cause string) {
	changed := map[string]string{}
	slices.Sort(sources)
	for _, path := range sources {
		s := a.sources[path]
		if from, to, ok := a.set(path, "healthSource", a.sourceState(s)); ok {
			a.log.Info("health source transition", "resource", path, "from", from, "to", to, "cause", cause)
			a.record(timeline.KindSource, path, from, to, cause)
			changed[path] = from + " -> " + to
		}
	}
	eval := maps.Clone(composites)
	if eval == nil {
		eval = map[string]struct{}{}
	}
	for sp := range changed {
		for c := range a.bySource[sp] {
			eval[c] = struct{}{}
		}
	}
	for _, path := range slices.Sorted(maps.Keys(eval)) {
		c := a.composites[path]
		if from, to, ok := a.set(path, "compositeHealthCheck", a.compositeState(c)); ok {
			why := compositeCause(c, changed, cause)
			a.log.Info("composite health transition", "resource", path, "from", from, "to", to, "cause", why)
			a.record(timeline.KindComposite, path, from, to, why)
		}
	}
}

// compositeCause names the source whose change moved a composite.
func compositeCause(c Composite, changed map[string]string, cause string) string {
	for _, s := range c.Sources {
		if ch, ok := changed[s]; ok {
			return "health source " + s + " " + ch
		}
	}
	return cause
}

// set records a new state; ok is false when it did not change.
func (a *Aggregator) set(path, kind, state string) (from, to string, ok bool) {
	from, seen := a.states[path]
	if seen && from == state {
		return from, state, false
	}
	if !seen {
		from = api.StateUnknown
	}
	a.states[path] = state
	if a.gauge != nil {
		a.gauge.DeletePartialMatch(prometheus.Labels{"resource": path})
		a.gauge.WithLabelValues(path, kind, state).Set(1)
	}
	// A first evaluation that says UNKNOWN changes nothing worth a log line.
	return from, state, seen || state != api.StateUnknown
}

func (a *Aggregator) forget(path string) {
	delete(a.states, path)
	if a.gauge != nil {
		a.gauge.DeletePartialMatch(prometheus.Labels{"resource": path})
	}
}

// GroupCount counts the endpoints of one group of a source's service.
type GroupCount struct {
	Group              string
	Endpoints, Healthy int64
}

// SourceReport is the live health of one health source.
type SourceReport struct {
	State   string
	Service string
	Groups  []GroupCount
}

// SourceHealth evaluates a health source now; false if it is unknown here.
// State and counts come from one read of the endpoints, so they agree.
func (a *Aggregator) SourceHealth(path string) (SourceReport, bool) {
	a.mu.Lock()
	s, ok := a.sources[path]
	a.mu.Unlock()
	if !ok {
		return SourceReport{}, false
	}
	r := SourceReport{Service: s.Service}
	var all health.Counts
	for _, st := range a.endpoints.Statuses(s.Service) {
		all.Add(st.State)
		i := slices.IndexFunc(r.Groups, func(g GroupCount) bool { return g.Group == st.Group })
		if i < 0 {
			r.Groups = append(r.Groups, GroupCount{Group: st.Group})
			i = len(r.Groups) - 1
		}
		r.Groups[i].Endpoints++
		if st.State == api.StateHealthy {
			r.Groups[i].Healthy++
		}
	}
	r.State = s.state(all)
	return r, true
}

// CompositeReport is the live health of one composite check.
type CompositeReport struct {
	State   string
	Sources []SourceState
}

// SourceState is the state of one source of a composite.
type SourceState struct {
	Source, State string
}

// CompositeHealth evaluates a composite check now.
func (a *Aggregator) CompositeHealth(path string) (CompositeReport, bool) {
	a.mu.Lock()
	c, ok := a.composites[path]
	a.mu.Unlock()
	if !ok {
		return CompositeReport{}, false
	}
	r := CompositeReport{}
	states := make([]string, 0, len(c.Sources))
	for _, sp := range c.Sources {
		st := api.StateUnknown
		if rep, ok := a.SourceHealth(sp); ok {
			st = rep.State
		}
		states = append(states, st)
		r.Sources = append(r.Sources, SourceState{Source: sp, State: st})
	}
	r.State = rules.CompositeState(states)
	return r, true
}

func (a *Aggregator) sourceState(s Source) string {
	return s.state(a.endpoints.Count(s.Service))
}

// state applies the source's policy to endpoint counts.
func (s Source) state(c health.Counts) string {
	return rules.SourceState(s.HealthyPercent, s.MinHealthy, c.Healthy, c.Unknown, c.Total)
}

// compositeState combines the states just recorded for the composite's
// sources; reevaluate has brought those up to date.
func (a *Aggregator) compositeState(c Composite) string {
	states := make([]string, 0, len(c.Sources))
	for _, sp := range c.Sources {
		st, ok := a.states[sp]
		if !ok {
			st = api.StateUnknown
		}
		states = append(states, st)
	}
	return rules.CompositeState(states)
}
