package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultProbeNetworks are the only addresses probed unless --probe-networks
// says otherwise: like the listen address, loopback by default, so that an
// example copied from the docs never sends traffic across a network.
var DefaultProbeNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// syncState is what keeps the probe engine and the aggregator in step with
// the store: every object that decides them, decoded once and updated per
// changed key, so that a write costs what it changes. It is used under the
// API's write lock (and at start, before serving), never concurrently.
type syncState struct {
	planner *health.Planner
	// policies and sources are the health aggregation policies and health
	// sources; policyUsers maps a policy to the sources that use it.
	policies    map[string]*api.HealthAggregationPolicy
	sources     map[string]*api.HealthSource
	policyUsers map[string]map[string]struct{}
	// decoded counts the objects decoded, for tests of the cost of a write.
	decoded uint64
}

// syncedCollections are every collection sync reads: those of the
// catalogue whose resources decide probing or aggregation.
var syncedCollections = api.CollectionsWith(api.ProbeInput, api.ProbeOwner, api.Aggregated)

// sync hands the probe engine and the aggregator what the keys changed
// (nil: everything, as at start and after a reset). It runs under the
// API's write lock, after each mutation.
func (e *Emulator) sync(ctx context.Context, keys []store.Key) error {
	if keys == nil || e.state == nil {
		return e.load(ctx)
	}
	y := e.state
	sources := map[string]*health.Source{}
	composites := map[string]*health.Composite{}
	for _, k := range keys {
		if !synced(k.Collection) {
			continue
		}
		obj, err := y.read(ctx, e.store, k)
		if err != nil {
			return err
		}
		y.apply(k.Path(), k.Collection, obj, sources, composites)
	}
	if owners := y.planner.Flush(); len(owners) > 0 {
		e.engine.UpdateOwners(owners)
		e.aggregator.OwnersChanged(slices.Sorted(maps.Keys(owners)))
	}
	if len(sources) > 0 || len(composites) > 0 {
		e.aggregator.Apply(sources, composites)
	}
	return nil
}

// load reads everything anew: at start, and after a reset.
func (e *Emulator) load(ctx context.Context) error {
	y := &syncState{planner: health.NewPlanner(e.probeAllowed), policies: map[string]*api.HealthAggregationPolicy{},
		sources: map[string]*api.HealthSource{}, policyUsers: map[string]map[string]struct{}{}}
	sources := map[string]*health.Source{}
	composites := map[string]*health.Composite{}
	for _, c := range syncedCollections {
		objects, err := e.store.All(ctx, c.Name)
		if err != nil {
			return err
		}
		for _, o := range objects {
			obj, err := y.decode(o)
			if err != nil {
				return err
			}
			y.apply(o.Path(), c.Name, obj, sources, composites)
		}
	}
	var ss []health.Source
	var cs []health.Composite
	for _, s := range sources {
		if s != nil {
			ss = append(ss, *s)
		}
	}
	for _, c := range composites {
		cs = append(cs, *c)
	}
	e.state = y
	e.engine.Update(y.planner.All())
	e.aggregator.Update(ss, cs)
	return nil
}

func synced(collection string) bool {
	for _, c := range syncedCollections {
		if c.Name == collection {
			return true
		}
	}
	return false
}

// read returns the object stored at k, decoded, or nil when it is gone.
func (y *syncState) read(ctx context.Context, st store.Store, k store.Key) (any, error) {
	o, err := st.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return y.decode(o)
}

// decode reads a stored object as the typed view of its collection.
func (y *syncState) decode(o store.Object) (any, error) {
	c, ok := api.CollectionNamed(o.Collection)
	if !ok || c.Role == api.Stored {
		return nil, fmt.Errorf("decode %s: not a collection the probe engine or the aggregator reads", o.Path())
	}
	v := c.New()
	y.decoded++
	if err := json.Unmarshal(o.Body, v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", o.Path(), err)
	}
	return v, nil
}

// apply records one object (nil: deleted): in the planner, or as the health
// sources and composites to hand the aggregator (nil there: deleted).
func (y *syncState) apply(path, collection string, obj any, sources map[string]*health.Source, composites map[string]*health.Composite) {
	switch collection {
	case api.CollectionHealthAggregationPolicies:
		setOrDelete(y.policies, path, obj)
		for src := range y.policyUsers[path] {
			sources[src] = y.source(src)
		}
	case api.CollectionHealthSources:
		if old, ok := y.sources[path]; ok {
			p := api.PathOf(old.HealthAggregationPolicy)
			delete(y.policyUsers[p], path)
			if len(y.policyUsers[p]) == 0 {
				delete(y.policyUsers, p)
			}
		}
		setOrDelete(y.sources, path, obj)
		if hs, ok := y.sources[path]; ok {
			p := api.PathOf(hs.HealthAggregationPolicy)
			if y.policyUsers[p] == nil {
				y.policyUsers[p] = map[string]struct{}{}
			}
			y.policyUsers[p][path] = struct{}{}
		}
		sources[path] = y.source(path)
	case api.CollectionCompositeHealthChecks:
		c, ok := obj.(*api.CompositeHealthCheck)
		if !ok || c == nil {
			composites[path] = nil
			return
		}
		comp := &health.Composite{Path: path}
		for _, s := range c.HealthSources {
			comp.Sources = append(comp.Sources, api.PathOf(s))
		}
		composites[path] = comp
	default:
		y.planner.Set(path, obj)
	}
}

// source is the health source at path as the aggregator needs it, or nil
// when it is gone or cannot be evaluated (no policy, no service).
func (y *syncState) source(path string) *health.Source {
	hs, ok := y.sources[path]
	if !ok || len(hs.Sources) == 0 {
		return nil
	}
	p, ok := y.policies[api.PathOf(hs.HealthAggregationPolicy)]
	if !ok {
		return nil
	}
	return &health.Source{Path: path, Service: api.PathOf(hs.Sources[0]),
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

func (e *Emulator) probeAllowed(addr netip.Addr) bool {
	for _, p := range e.probeNetworks {
		if p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}
