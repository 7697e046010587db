package health

import (
	"log/slog"
	"maps"
	"net"
	"slices"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

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
	Statuses(owner string) []Status
	Count(owner string) Counts
}

// Aggregator turns endpoint health into health-source and composite states
// (SPEC 2.5, 2.6), re-evaluated as probe results arrive and whenever the
// topology changes, and logs every transition.
type Aggregator struct {
	endpoints StatusReader
	log       *slog.Logger

	mu         sync.Mutex
	sources    map[string]Source
	composites map[string]Composite
	states     map[string]string // last state of each source and composite
	gauge      *prometheus.GaugeVec
}

// NewAggregator returns an Aggregator reading endpoint health from r. reg
// may be nil.
func NewAggregator(r StatusReader, log *slog.Logger, reg prometheus.Registerer) *Aggregator {
	a := &Aggregator{endpoints: r, log: log, sources: map[string]Source{}, composites: map[string]Composite{}, states: map[string]string{}}
	if reg != nil {
		a.gauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lbhealth_aggregate_state",
			Help: "1 for the current state of each health source and composite health check.",
		}, []string{"resource", "kind", "state"})
		reg.MustRegister(a.gauge)
	}
	return a
}

// Update sets the health sources and composite checks, and re-evaluates
// them all at once (a changed policy or source list takes effect now).
func (a *Aggregator) Update(sources []Source, composites []Composite) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sources, a.composites = map[string]Source{}, map[string]Composite{}
	for _, s := range sources {
		a.sources[s.Path] = s
	}
	for _, c := range composites {
		a.composites[c.Path] = c
	}
	for path := range a.states {
		if _, ok := a.sources[path]; !ok {
			if _, ok := a.composites[path]; !ok {
				a.forget(path)
			}
		}
	}
	a.reevaluate(func(Source) bool { return true }, true, "configuration changed")
}

// OnTransition re-evaluates what depends on the endpoint that changed. It is
// the Engine's OnTransition hook.
func (a *Aggregator) OnTransition(tr Transition) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The port too: endpoints of one service often share an address.
	cause := "endpoint " + net.JoinHostPort(tr.Endpoint.IP, strconv.Itoa(tr.Endpoint.Port)) + " of " + tr.Owner + " " + tr.From + " -> " + tr.State
	a.reevaluate(func(s Source) bool { return s.Service == tr.Owner }, false, cause)
}

// reevaluate recomputes the sources that match, then the composites that
// list a source that changed (every composite when all is set), logging
// each change with its cause.
func (a *Aggregator) reevaluate(match func(Source) bool, all bool, cause string) {
	changed := map[string]string{}
	for _, path := range slices.Sorted(maps.Keys(a.sources)) {
		s := a.sources[path]
		if !match(s) {
			continue
		}
		if from, to, ok := a.set(path, "healthSource", a.sourceState(s)); ok {
			a.log.Info("health source transition", "resource", path, "from", from, "to", to, "cause", cause)
			changed[path] = from + " -> " + to
		}
	}
	for _, path := range slices.Sorted(maps.Keys(a.composites)) {
		c := a.composites[path]
		if !all && !slices.ContainsFunc(c.Sources, func(s string) bool { _, ok := changed[s]; return ok }) {
			continue
		}
		if from, to, ok := a.set(path, "compositeHealthCheck", a.compositeState(c)); ok {
			a.log.Info("composite health transition", "resource", path, "from", from, "to", to, "cause", compositeCause(c, changed, cause))
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
		from = rules.StateUnknown
	}
	a.states[path] = state
	if a.gauge != nil {
		a.gauge.DeletePartialMatch(prometheus.Labels{"resource": path})
		a.gauge.WithLabelValues(path, kind, state).Set(1)
	}
	// A first evaluation that says UNKNOWN changes nothing worth a log line.
	return from, state, seen || state != rules.StateUnknown
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
	var all Counts
	for _, st := range a.endpoints.Statuses(s.Service) {
		all.add(st.State)
		i := slices.IndexFunc(r.Groups, func(g GroupCount) bool { return g.Group == st.Group })
		if i < 0 {
			r.Groups = append(r.Groups, GroupCount{Group: st.Group})
			i = len(r.Groups) - 1
		}
		r.Groups[i].Endpoints++
		if st.State == Healthy {
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
		st := rules.StateUnknown
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

// state applies the source's policy to endpoint counts (SPEC 2.5).
func (s Source) state(c Counts) string {
	return rules.SourceState(s.HealthyPercent, s.MinHealthy, c.Healthy, c.Unknown, c.Total)
}

// compositeState combines the states just recorded for the composite's
// sources (SPEC 2.6); reevaluate has brought those up to date.
func (a *Aggregator) compositeState(c Composite) string {
	states := make([]string, 0, len(c.Sources))
	for _, sp := range c.Sources {
		st, ok := a.states[sp]
		if !ok {
			st = rules.StateUnknown
		}
		states = append(states, st)
	}
	return rules.CompositeState(states)
}
