package compute

import (
	"context"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// compositeHealthChecks is the regional compositeHealthChecks collection.
func (s backends) compositeHealthChecks() *core.Collection[api.CompositeHealthCheck, *api.CompositeHealthCheck] {
	c := core.NewCollection[api.CompositeHealthCheck, *api.CompositeHealthCheck](s.API, api.CollectionCompositeHealthChecks, rules.CompositeHealthCheck, nil)
	c.Resolve = s.resolveComposite
	c.Refs = func(c *api.CompositeHealthCheck) []string {
		return append([]string{c.HealthDestination}, c.HealthSources...)
	}
	c.Fingerprint = func(c *api.CompositeHealthCheck) *string { return &c.Fingerprint }
	return c
}

// resolveComposite checks the sources and the destination of a composite
// check and stores the references as URLs.
func (s backends) resolveComposite(ctx context.Context, c *api.CompositeHealthCheck, sc core.Scope) error {
	seen := map[string]string{} // resolved path -> the field that named it first
	for i, ref := range c.HealthSources {
		field := fmt.Sprintf("healthSources[%d]", i)
		k, err := core.ParseAnyRef(field, ref, sc, api.CollectionHealthSources)
		if err != nil {
			return err
		}
		if k.Collection == api.CollectionCompositeHealthChecks {
			v := rules.CompositeAsSource(field, ref)
			return googleapi.Invalid("%s", v.Error())
		}
		var hs api.HealthSource
		if k, err = s.Lookup(ctx, field, ref, sc, api.CollectionHealthSources, &hs); err != nil {
			return err
		}
		if v := rules.SameRegion(field, ref, "a health source", core.RegionOfScope(k.Scope), sc.Region); v != nil {
			return googleapi.Invalid("%s", v.Error())
		}
		if first, dup := seen[k.Path()]; dup {
			v := rules.RepeatedSource(field, ref, first)
			return googleapi.Invalid("%s", v.Error())
		}
		seen[k.Path()] = field
		c.HealthSources[i] = s.Link(k.Path())
	}
	return s.resolveDestination(ctx, c, sc)
}

// resolveDestination checks the forwarding rule of a composite check: it
// must fit, and no other composite may report for it.
func (s backends) resolveDestination(ctx context.Context, c *api.CompositeHealthCheck, sc core.Scope) error {
	var fr api.ForwardingRule
	k, err := s.Lookup(ctx, "healthDestination", c.HealthDestination, sc, api.CollectionForwardingRules, &fr)
	if err != nil {
		return err
	}
	if v := rules.HealthDestination(c.HealthDestination, &fr, core.RegionOfScope(k.Scope), sc.Region); v != nil {
		return googleapi.Invalid("%s", v.Error())
	}
	self := sc.Key(api.CollectionCompositeHealthChecks, c.Name)
	other, err := s.destinationOf(ctx, k, self)
	if err != nil {
		return err
	}
	if other != "" {
		v := rules.DestinationTaken(c.HealthDestination, other)
		return googleapi.Invalid("%s", v.Error())
	}
	c.HealthDestination = s.Link(k.Path())
	return nil
}

// destinationOf returns the path of a composite other than self whose
// destination is the forwarding rule fr, or "": a look-up in the
// reference index (a composite references its sources and its
// destination, and only the destination can be a forwarding rule).
func (s backends) destinationOf(_ context.Context, fr, self store.Key) (string, error) {
	for _, path := range s.UsersIn(fr.Path(), api.CollectionCompositeHealthChecks) {
		if path != self.Path() {
			return path, nil
		}
	}
	return "", nil
}

// compositeHealth answers compositeHealthChecks.getHealth.
func (s backends) compositeHealth(r *googleapi.Call) (any, error) {
	c := s.compositeHealthChecks()
	chc, sc, err := c.Load(r)
	if err != nil {
		return nil, err
	}
	out := api.CompositeHealthCheckHealth{Kind: api.KindCompositeHealthCheckHealth, HealthState: api.StateUnknown, HealthSources: []api.HealthSourceState{}}
	if s.Aggregates == nil {
		return out, nil
	}
	if rep, ok := s.Aggregates.CompositeHealth(sc.Key(c.Def.Name, chc.Name).Path()); ok {
		out.HealthState = rep.State
		for _, src := range rep.Sources {
			out.HealthSources = append(out.HealthSources, api.HealthSourceState{Source: s.Link(src.Source), HealthState: src.State})
		}
	}
	return out, nil
}
