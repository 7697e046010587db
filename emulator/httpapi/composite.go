package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// AggregateReader is what the getHealth of health sources and composite
// checks reads: the Aggregator.
type AggregateReader interface {
	SourceHealth(path string) (health.SourceReport, bool)
	CompositeHealth(path string) (health.CompositeReport, bool)
	// States lists the last state of each, for the status page.
	States() []health.AggregateState
}

// SetAggregates sets where those getHealth calls read. Call it before serving.
func (s *Server) SetAggregates(a AggregateReader) { s.aggregates = a }

// healthAggregationPolicies is the regional healthAggregationPolicies collection.
func (s *Server) healthAggregationPolicies() *collection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy] {
	return &collection[api.HealthAggregationPolicy, *api.HealthAggregationPolicy]{
		s: s, def: api.MustCollection(api.CollectionHealthAggregationPolicies),
		check: func(p *api.HealthAggregationPolicy, _ scope) rules.Violations {
			return rules.HealthAggregationPolicy(p)
		},
		defaults:    rules.ApplyHealthAggregationPolicyDefaults,
		fingerprint: func(p *api.HealthAggregationPolicy) *string { return &p.Fingerprint },
		immutable: func(prior, p *api.HealthAggregationPolicy) error {
			return unchanged("policyType", prior.PolicyType, p.PolicyType, api.PolicyTypeBackendService)
		},
	}
}

// healthSources is the regional healthSources collection.
func (s *Server) healthSources() *collection[api.HealthSource, *api.HealthSource] {
	return &collection[api.HealthSource, *api.HealthSource]{
		s: s, def: api.MustCollection(api.CollectionHealthSources),
		check: func(hs *api.HealthSource, _ scope) rules.Violations {
			return rules.HealthSource(hs)
		},
		defaults: func(*api.HealthSource) {},
		resolve:  s.resolveHealthSource,
		refs: func(hs *api.HealthSource) []string {
			return append([]string{hs.HealthAggregationPolicy}, hs.Sources...)
		},
		fingerprint: func(hs *api.HealthSource) *string { return &hs.Fingerprint },
		immutable: func(prior, hs *api.HealthSource) error {
			return unchanged("sourceType", prior.SourceType, hs.SourceType, "")
		},
	}
}

// compositeHealthChecks is the regional compositeHealthChecks collection.
func (s *Server) compositeHealthChecks() *collection[api.CompositeHealthCheck, *api.CompositeHealthCheck] {
	return &collection[api.CompositeHealthCheck, *api.CompositeHealthCheck]{
		s: s, def: api.MustCollection(api.CollectionCompositeHealthChecks),
		check: func(c *api.CompositeHealthCheck, _ scope) rules.Violations {
			return rules.CompositeHealthCheck(c)
		},
		defaults: func(*api.CompositeHealthCheck) {},
		resolve:  s.resolveComposite,
		refs: func(c *api.CompositeHealthCheck) []string {
			return append([]string{c.HealthDestination}, c.HealthSources...)
		},
		fingerprint: func(c *api.CompositeHealthCheck) *string { return &c.Fingerprint },
	}
}

// unchanged refuses a change of an immutable field; def is what unset means.
func unchanged(field, prior, now, def string) error {
	if now == "" {
		now = def
	}
	if now == "" || now == prior {
		return nil
	}
	return invalid("%s (%q) cannot be changed (it is %q): create a new resource instead (Terraform replaces it).", field, now, prior)
}

// resolveHealthSource checks the backend service and the policy of a health
// source (SPEC 2.5) and stores both references as URLs.
func (s *Server) resolveHealthSource(ctx context.Context, hs *api.HealthSource, sc scope) error {
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

// groupTypes lists the endpoint types of a service's backends.
func (s *Server) groupTypes(ctx context.Context, bs *api.BackendService) ([]string, error) {
	types := make([]string, 0, len(bs.Backends))
	for i, b := range bs.Backends {
		var g api.NetworkEndpointGroup
		if _, err := s.lookup(ctx, fmt.Sprintf("backends[%d].group", i), b.Group, scope{}, api.CollectionNetworkEndpointGroups, &g); err != nil {
			return nil, err
		}
		types = append(types, g.NetworkEndpointType)
	}
	return types, nil
}

// resolveComposite checks the sources and the destination of a composite
// check (SPEC 2.6) and stores the references as URLs.
func (s *Server) resolveComposite(ctx context.Context, c *api.CompositeHealthCheck, sc scope) error {
	seen := map[string]string{} // resolved path -> the field that named it first
	for i, ref := range c.HealthSources {
		field := fmt.Sprintf("healthSources[%d]", i)
		k, err := parseAnyRef(field, ref, sc, api.CollectionHealthSources)
		if err != nil {
			return err
		}
		if k.Collection == api.CollectionCompositeHealthChecks {
			v := rules.CompositeAsSource(field, ref)
			return invalid("%s", v.Error())
		}
		var hs api.HealthSource
		if k, err = s.lookup(ctx, field, ref, sc, api.CollectionHealthSources, &hs); err != nil {
			return err
		}
		if v := rules.SameRegion(field, ref, "a health source", regionOfScope(k.Scope), sc.region); v != nil {
			return invalid("%s", v.Error())
		}
		if first, dup := seen[k.Path()]; dup {
			v := rules.RepeatedSource(field, ref, first)
			return invalid("%s", v.Error())
		}
		seen[k.Path()] = field
		c.HealthSources[i] = s.link(k.Path())
	}
	return s.resolveDestination(ctx, c, sc)
}

// resolveDestination checks the forwarding rule of a composite check: it
// must fit, and no other composite may report for it.
func (s *Server) resolveDestination(ctx context.Context, c *api.CompositeHealthCheck, sc scope) error {
	var fr api.ForwardingRule
	k, err := s.lookup(ctx, "healthDestination", c.HealthDestination, sc, api.CollectionForwardingRules, &fr)
	if err != nil {
		return err
	}
	if v := rules.HealthDestination(c.HealthDestination, &fr, regionOfScope(k.Scope), sc.region); v != nil {
		return invalid("%s", v.Error())
	}
	self := sc.key(api.CollectionCompositeHealthChecks, c.Name)
	other, err := s.destinationOf(ctx, k, self)
	if err != nil {
		return err
	}
	if other != "" {
		v := rules.DestinationTaken(c.HealthDestination, other)
		return invalid("%s", v.Error())
	}
	c.HealthDestination = s.link(k.Path())
	return nil
}

// destinationOf returns the path of a composite other than self whose
// destination is the forwarding rule fr, or "": a look-up in the
// reference index (a composite references its sources and its
// destination, and only the destination can be a forwarding rule).
func (s *Server) destinationOf(_ context.Context, fr, self store.Key) (string, error) {
	for _, path := range s.usersIn(fr.Path(), api.CollectionCompositeHealthChecks) {
		if path != self.Path() {
			return path, nil
		}
	}
	return "", nil
}

// healthSourceHealth answers healthSources.getHealth.
func (s *Server) healthSourceHealth(r *http.Request) (any, error) {
	c := s.healthSources()
	hs, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	out := api.HealthSourceHealth{Kind: api.KindHealthSourceHealth, HealthState: rules.StateUnknown, Sources: []api.SourceHealth{}}
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
func (s *Server) forwardingRuleOf(_ context.Context, service string) (string, error) {
	if rules := s.usersIn(service, api.CollectionForwardingRules); len(rules) > 0 {
		return s.link(rules[0]), nil
	}
	return "", nil
}

// compositeHealth answers compositeHealthChecks.getHealth.
func (s *Server) compositeHealth(r *http.Request) (any, error) {
	c := s.compositeHealthChecks()
	chc, sc, err := c.load(r)
	if err != nil {
		return nil, err
	}
	out := api.CompositeHealthCheckHealth{Kind: api.KindCompositeHealthCheckHealth, HealthState: rules.StateUnknown, HealthSources: []api.HealthSourceState{}}
	if s.aggregates == nil {
		return out, nil
	}
	if rep, ok := s.aggregates.CompositeHealth(sc.key(c.def.Name, chc.Name).Path()); ok {
		out.HealthState = rep.State
		for _, src := range rep.Sources {
			out.HealthSources = append(out.HealthSources, api.HealthSourceState{Source: s.link(src.Source), HealthState: src.State})
		}
	}
	return out, nil
}
