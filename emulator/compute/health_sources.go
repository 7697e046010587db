package compute

import (
	"context"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthSources is the regional healthSources collection.
func (s backends) healthSources() *core.Collection[api.HealthSource, *api.HealthSource] {
	c := core.NewCollection[api.HealthSource, *api.HealthSource](s.API, api.CollectionHealthSources, rules.HealthSource, nil)
	c.Resolve = s.resolveHealthSource
	c.Refs = func(hs *api.HealthSource) []string {
		return append([]string{hs.HealthAggregationPolicy}, hs.Sources...)
	}
	c.Fingerprint = func(hs *api.HealthSource) *string { return &hs.Fingerprint }
	c.Immutable = func(prior, hs *api.HealthSource) error {
		return core.Unchanged("sourceType", prior.SourceType, hs.SourceType, "")
	}
	return c
}

// resolveHealthSource checks the backend service and the policy of a health
// source and stores both references as URLs.
func (s backends) resolveHealthSource(ctx context.Context, hs *api.HealthSource, sc core.Scope) error {
	var bs api.BackendService
	k, err := s.Lookup(ctx, "sources[0]", hs.Sources[0], sc, api.CollectionBackendServices, &bs)
	if err != nil {
		return err
	}
	types, err := s.groupTypes(ctx, &bs)
	if err != nil {
		return err
	}
	if v := rules.HealthSourceService(hs.Sources[0], &bs, core.RegionOfScope(k.Scope), sc.Region, types); v != nil {
		return googleapi.Invalid("%s", v.Error())
	}
	hs.Sources[0] = s.Link(k.Path())
	var p api.HealthAggregationPolicy
	pk, err := s.Lookup(ctx, "healthAggregationPolicy", hs.HealthAggregationPolicy, sc, api.CollectionHealthAggregationPolicies, &p)
	if err != nil {
		return err
	}
	if v := rules.SameRegion("healthAggregationPolicy", hs.HealthAggregationPolicy, "a health aggregation policy", core.RegionOfScope(pk.Scope), sc.Region); v != nil {
		return googleapi.Invalid("%s", v.Error())
	}
	hs.HealthAggregationPolicy = s.Link(pk.Path())
	return nil
}

// groupTypes lists the endpoint types of a service's backends
// (api.InstanceGroupBackend for an instance group).
func (s backends) groupTypes(ctx context.Context, bs *api.BackendService) ([]string, error) {
	types := make([]string, 0, len(bs.Backends))
	for i, b := range bs.Backends {
		if k := core.KeyOfPath(api.PathOf(b.Group)); k.Collection == api.CollectionInstanceGroups {
			types = append(types, api.InstanceGroupBackend)
			continue
		}
		var g api.NetworkEndpointGroup
		if _, err := s.Lookup(ctx, fmt.Sprintf("backends[%d].group", i), b.Group, core.Scope{}, api.CollectionNetworkEndpointGroups, &g); err != nil {
			return nil, err
		}
		types = append(types, g.NetworkEndpointType)
	}
	return types, nil
}

// healthSourceHealth answers healthSources.getHealth.
func (s backends) healthSourceHealth(r *googleapi.Call) (any, error) {
	c := s.healthSources()
	hs, sc, err := c.Load(r)
	if err != nil {
		return nil, err
	}
	out := api.HealthSourceHealth{Kind: api.KindHealthSourceHealth, HealthState: api.StateUnknown, Sources: []api.SourceHealth{}}
	if s.Aggregates == nil {
		return out, nil
	}
	rep, ok := s.Aggregates.SourceHealth(sc.Key(c.Def.Name, hs.Name).Path())
	if !ok {
		return out, nil
	}
	fr, err := s.forwardingRuleOf(r.Context(), rep.Service)
	if err != nil {
		return nil, err
	}
	src := api.SourceHealth{Source: s.Link(rep.Service), ForwardingRule: fr, Backends: []api.BackendHealth{}}
	for _, g := range rep.Groups {
		src.Backends = append(src.Backends, api.BackendHealth{Group: s.Link(g.Group), EndpointCount: g.Endpoints, HealthyEndpointCount: g.Healthy})
	}
	out.HealthState, out.Sources = rep.State, []api.SourceHealth{src}
	return out, nil
}

// forwardingRuleOf is the URL of a forwarding rule that sends traffic to
// the backend service at path, or "".
func (s backends) forwardingRuleOf(_ context.Context, service string) (string, error) {
	if rules := s.UsersIn(service, api.CollectionForwardingRules); len(rules) > 0 {
		return s.Link(rules[0]), nil
	}
	return "", nil
}
