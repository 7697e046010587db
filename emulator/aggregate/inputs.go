package aggregate

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/depindex"

	"maps"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Inputs keeps the stored resources that aggregation reads (health
// aggregation policies, health sources and composite checks), decoded once
// and updated per changed object, and turns their changes into the Sources
// and Composites an Aggregator evaluates: a policy change reaches the
// sources that use it, and nothing else. It is not safe for concurrent
// use: the emulator calls it under its write lock.
type Inputs struct {
	policies   map[string]*api.HealthAggregationPolicy
	sources    map[string]*api.HealthSource
	composites map[string]*Composite
	// policyUsers are the sources that use each policy.
	policyUsers depindex.Index
	// changed are the sources and composites to hand the Aggregator at
	// the next Flush (nil: gone, or not evaluable).
	changedSources    map[string]*Source
	changedComposites map[string]*Composite
}

// handled are the collections Inputs reads.
var handled = []string{api.CollectionHealthAggregationPolicies, api.CollectionHealthSources, api.CollectionCompositeHealthChecks}

// NewInputs returns Inputs that know nothing yet. Every collection the
// catalogue gives the Aggregated role must be one Inputs reads: one it
// does not panics here, at start, rather than be ignored.
func NewInputs() *Inputs {
	for _, c := range api.CollectionsWith(api.Aggregated) {
		if !slices.Contains(handled, c.Name) {
			panic("aggregate: the catalogue says " + c.Name + " decides aggregation, but Inputs does not read it")
		}
	}
	return &Inputs{policies: map[string]*api.HealthAggregationPolicy{}, sources: map[string]*api.HealthSource{}, composites: map[string]*Composite{},
		changedSources: map[string]*Source{}, changedComposites: map[string]*Composite{}}
}

// Set records the object stored at path (nil: deleted). obj's type is its
// collection's: *api.HealthAggregationPolicy, *api.HealthSource or
// *api.CompositeHealthCheck; Inputs keeps it and does not change it.
func (in *Inputs) Set(path string, obj any) {
	switch api.CollectionOf(path) {
	case api.CollectionHealthAggregationPolicies:
		setOrDelete(in.policies, path, obj)
		for _, src := range in.policyUsers.Users(path) {
			in.changedSources[src] = in.source(src)
		}
	case api.CollectionHealthSources:
		in.setSource(path, obj)
	case api.CollectionCompositeHealthChecks:
		c, ok := obj.(*api.CompositeHealthCheck)
		if !ok || c == nil {
			delete(in.composites, path)
			in.changedComposites[path] = nil
			return
		}
		comp := &Composite{Path: path}
		for _, s := range c.HealthSources {
			comp.Sources = append(comp.Sources, api.PathOf(s))
		}
		in.composites[path] = comp
		in.changedComposites[path] = comp
	}
}

// setSource records a health source, and which policy it uses.
func (in *Inputs) setSource(path string, obj any) {
	setOrDelete(in.sources, path, obj)
	var uses []string
	if hs, ok := in.sources[path]; ok {
		uses = []string{api.PathOf(hs.HealthAggregationPolicy)}
	}
	in.policyUsers.Set(path, uses)
	in.changedSources[path] = in.source(path)
}

// Flush returns the sources and composites changed since the last Flush,
// nil for those gone: what Aggregator.Apply takes.
func (in *Inputs) Flush() (map[string]*Source, map[string]*Composite) {
	sources, composites := in.changedSources, in.changedComposites
	in.changedSources, in.changedComposites = map[string]*Source{}, map[string]*Composite{}
	return sources, composites
}

// All returns every source that can be evaluated and every composite, in
// path order: what Aggregator.Update takes at start.
func (in *Inputs) All() ([]Source, []Composite) {
	in.Flush()
	var ss []Source
	for _, path := range slices.Sorted(maps.Keys(in.sources)) {
		if s := in.source(path); s != nil {
			ss = append(ss, *s)
		}
	}
	var cs []Composite
	for _, path := range slices.Sorted(maps.Keys(in.composites)) {
		cs = append(cs, *in.composites[path])
	}
	return ss, cs
}

// source is the health source at path as the aggregator needs it, or nil
// when it is gone or cannot be evaluated (no policy, no service).
func (in *Inputs) source(path string) *Source {
	hs, ok := in.sources[path]
	if !ok || len(hs.Sources) == 0 {
		return nil
	}
	p, ok := in.policies[api.PathOf(hs.HealthAggregationPolicy)]
	if !ok {
		return nil
	}
	return &Source{Path: path, Service: api.PathOf(hs.Sources[0]),
		HealthyPercent: deref(p.HealthyPercentThreshold), MinHealthy: deref(p.MinHealthyThreshold)}
}

func setOrDelete[T any](m map[string]*T, path string, obj any) {
	if v, ok := obj.(*T); ok && v != nil {
		m[path] = v
		return
	}
	delete(m, path)
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
