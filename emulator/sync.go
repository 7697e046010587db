package emulator

import (
	"context"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultProbeNetworks are the only addresses probed unless --probe-networks
// says otherwise: like the listen address, loopback by default, so that an
// example copied from the docs never sends traffic across a network.
var DefaultProbeNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// sync hands the probe engine the targets the store asks for, and the
// aggregator the health sources and composite checks. It runs at start and
// after every mutation (under the API's write lock).
func (e *Emulator) sync(ctx context.Context) error {
	snap, err := snapshot(ctx, e.store)
	if err != nil {
		return err
	}
	e.engine.Update(health.Plan(snap, e.probeAllowed))
	sources, composites, err := aggregates(ctx, e.store)
	if err != nil {
		return err
	}
	e.aggregator.Update(sources, composites)
	return nil
}

// snapshot reads what decides which endpoints are probed, and how.
func snapshot(ctx context.Context, st store.Store) (s health.Snapshot, err error) {
	if s.HealthChecks, err = store.Decoded[api.HealthCheck](ctx, st, api.CollectionHealthChecks); err != nil {
		return s, err
	}
	if s.LegacyHTTP, err = store.Decoded[api.LegacyHealthCheck](ctx, st, api.CollectionHTTPHealthChecks); err != nil {
		return s, err
	}
	if s.LegacyHTTPS, err = store.Decoded[api.LegacyHealthCheck](ctx, st, api.CollectionHTTPSHealthChecks); err != nil {
		return s, err
	}
	if s.Groups, err = store.Decoded[api.NetworkEndpointGroup](ctx, st, "networkEndpointGroups"); err != nil {
		return s, err
	}
	if s.BackendServices, err = store.Decoded[api.BackendService](ctx, st, "backendServices"); err != nil {
		return s, err
	}
	s.TargetPools, err = store.Decoded[api.TargetPool](ctx, st, "targetPools")
	return s, err
}

// aggregates reads the health sources (with their policies) and composite
// checks.
func aggregates(ctx context.Context, st store.Store) ([]health.Source, []health.Composite, error) {
	policies, err := store.Decoded[api.HealthAggregationPolicy](ctx, st, api.CollectionHealthAggregationPolicies)
	if err != nil {
		return nil, nil, err
	}
	hss, err := store.Decoded[api.HealthSource](ctx, st, api.CollectionHealthSources)
	if err != nil {
		return nil, nil, err
	}
	chcs, err := store.Decoded[api.CompositeHealthCheck](ctx, st, api.CollectionCompositeHealthChecks)
	if err != nil {
		return nil, nil, err
	}
	var sources []health.Source
	for path, hs := range hss {
		p, ok := policies[api.PathOf(hs.HealthAggregationPolicy)]
		if !ok || len(hs.Sources) == 0 {
			continue
		}
		sources = append(sources, health.Source{Path: path, Service: api.PathOf(hs.Sources[0]),
			HealthyPercent: *p.HealthyPercentThreshold, MinHealthy: *p.MinHealthyThreshold})
	}
	var composites []health.Composite
	for path, c := range chcs {
		comp := health.Composite{Path: path}
		for _, s := range c.HealthSources {
			comp.Sources = append(comp.Sources, api.PathOf(s))
		}
		composites = append(composites, comp)
	}
	return sources, composites, nil
}

func (e *Emulator) probeAllowed(addr netip.Addr) bool {
	for _, p := range e.probeNetworks {
		if p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}
