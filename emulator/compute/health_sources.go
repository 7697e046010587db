package compute

import (
	"context"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthSources is the regional healthSources collection.
func (s backends) healthSources() *collection[api.HealthSource, *api.HealthSource] {
	c := newCollection[api.HealthSource, *api.HealthSource](s.Service, api.CollectionHealthSources, rules.HealthSource, nil)
	c.resolve = s.resolveHealthSource
	c.refs = func(hs *api.HealthSource) []string {
		return append([]string{hs.HealthAggregationPolicy}, hs.Sources...)
	}
	c.fingerprint = func(hs *api.HealthSource) *string { return &hs.Fingerprint }
	c.immutable = func(prior, hs *api.HealthSource) error {
		return unchanged("sourceType", prior.SourceType, hs.SourceType, "")
	}
	return c
}

// resolveHealthSource checks the backend service and the policy of a health
// source and stores both references as URLs.
func (s backends) resolveHealthSource(ctx context.Context, hs *api.HealthSource, sc scope) error {
	var bs api.BackendService
	k, err := s.lookup(ctx, "sources[0]", hs.Sources[0], sc, api.CollectionBackendServices, &bs)
	if err != nil {
		return err
	}
	types, err := s.groupTypes(ctx, &bs)
	if err != nil {
		return err
	}
	if v := rules.HealthSourceService(hs.Sources[0], &bs, regionOfScope(k.Scope), sc.region, types); v != nil {
		return invalid("%s", v.Error())
	}
	hs.Sources[0] = s.link(k.Path())
	var p api.HealthAggregationPolicy
	pk, err := s.lookup(ctx, "healthAggregationPolicy", hs.HealthAggregationPolicy, sc, api.CollectionHealthAggregationPolicies, &p)
	if err != nil {
		return err
	}
	if v := rules.SameRegion("healthAggregationPolicy", hs.HealthAggregationPolicy, "a health aggregation policy", regionOfScope(pk.Scope), sc.region); v != nil {
		return invalid("%s", v.Error())
	}
	hs.HealthAggregationPolicy = s.link(pk.Path())
	return nil
}

// groupTypes lists the endpoint types of a service's backends
// (api.InstanceGroupBackend for an instance group).
func (s backends) groupTypes(ctx context.Context, bs *api.BackendService) ([]string, error) {
	types := make([]string, 0, len(bs.Backends))
	for i, b := range bs.Backends {
		if k := keyOfPath(api.PathOf(b.Group)); k.Collection == api.CollectionInstanceGroups {
			types = append(types, api.InstanceGroupBackend)
			continue
		}
		var g api.NetworkEndpointGroup
		if _, err := s.lookup(ctx, fmt.Sprintf("backends[%d].group", i), b.Group, scope{}, api.CollectionNetworkEndpointGroups, &g); err != nil {
			return nil, err
		}
		types = append(types, g.NetworkEndpointType)
	}
	return types, nil
}

// healthSourceHealth answers healthSources.getHealth.
func (s backends) healthSourceHealth(r *Call) (any, error) {
	c := s.healthSources()
	hs, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	out := api.HealthSourceHealth{Kind: api.KindHealthSourceHealth, HealthState: api.StateUnknown, Sources: []api.SourceHealth{}}
	if s.aggregates == nil {
		return out, nil
	}
	rep, ok := s.aggregates.SourceHealth(sc.key(c.def.Name, hs.Name).Path())
	if !ok {
		return out, nil
	}
	fr, err := s.forwardingRuleOf(r.Context(), rep.Service)
	if err != nil {
		return nil, err
	}
	src := api.SourceHealth{Source: s.link(rep.Service), ForwardingRule: fr, Backends: []api.BackendHealth{}}
	for _, g := range rep.Groups {
		src.Backends = append(src.Backends, api.BackendHealth{Group: s.link(g.Group), EndpointCount: g.Endpoints, HealthyEndpointCount: g.Healthy})
	}
	out.HealthState, out.Sources = rep.State, []api.SourceHealth{src}
	return out, nil
}

// forwardingRuleOf is the URL of a forwarding rule that sends traffic to
// the backend service at path, or "".
func (s backends) forwardingRuleOf(_ context.Context, service string) (string, error) {
	if rules := s.usersIn(service, api.CollectionForwardingRules); len(rules) > 0 {
		return s.link(rules[0]), nil
	}
	return "", nil
}
