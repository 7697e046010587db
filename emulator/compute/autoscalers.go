package compute

import (
	"context"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// autoscalers is the zonal and regional autoscalers collection (the API's
// autoscalers and regionAutoscalers): each targets a managed group of its
// scope, which control.Autoscaler resizes by the data plane's traffic.
func (s fleet) autoscalers() *core.Collection[api.Autoscaler, *api.Autoscaler] {
	c := core.NewCollection[api.Autoscaler, *api.Autoscaler](s.API, api.CollectionAutoscalers, rules.Autoscaler, rules.ApplyAutoscalerDefaults)
	c.Resolve = s.resolveAutoscaler
	c.Refs = func(a *api.Autoscaler) []string { return []string{a.Target} }
	c.Outputs = func(a, _ *api.Autoscaler) { a.Status = api.AutoscalerActive }
	c.Kept = func(prior, a *api.Autoscaler) {
		a.RecommendedSize, a.StatusDetails = prior.RecommendedSize, prior.StatusDetails
	}
	return c
}

// resolveAutoscaler checks the autoscaler's target: a managed group of its
// zone or region that no other autoscaler sizes.
func (s fleet) resolveAutoscaler(ctx context.Context, a *api.Autoscaler, sc core.Scope) error {
	var m api.InstanceGroupManager
	k, err := s.Lookup(ctx, "target", a.Target, sc, api.CollectionInstanceGroupManagers, &m)
	if err != nil {
		return err
	}
	if k.Scope != sc.Path() {
		return googleapi.Invalid("target (%q) is in %s: an autoscaler in %s sizes a managed group of its own %s.", a.Target, k.Scope, sc.Path(), scopeNoun(sc))
	}
	self := sc.Key(api.CollectionAutoscalers, a.Name).Path()
	for _, user := range s.Refs.UsersOf(k.Path()) {
		if core.KeyOfPath(user).Collection == api.CollectionAutoscalers && user != self {
			return googleapi.Invalid("target (%q) is already sized by %s: a managed group has one autoscaler.", a.Target, user)
		}
	}
	a.Target = s.Link(k.Path())
	return nil
}

// scopeNoun is "zone" or "region", as sc is.
func scopeNoun(sc core.Scope) string {
	if sc.Zone != "" {
		return "zone"
	}
	return "region"
}

// ScaledGroups is what autoscaling (control.Autoscaler) reads and writes
// (controlled).
func (s *Service) ScaledGroups() control.Scalers { return controlled{s.API} }

// Autoscalers lists the autoscalers whose managed group is stored, with
// the rate an instance of the group may take by the backend services that
// use its instance group.
func (g controlled) Autoscalers(context.Context) ([]control.ScaledGroup, error) {
	var services []*api.BackendService
	core.Each(g.s.Core(), api.CollectionBackendServices, func(_ store.Key, bs *api.BackendService, _ func(store.Key) any) {
		services = append(services, bs)
	})
	var out []control.ScaledGroup
	core.Each(g.s.Core(), api.CollectionAutoscalers, func(k store.Key, a *api.Autoscaler, get func(store.Key) any) {
		if a.AutoscalingPolicy == nil {
			return
		}
		mk := core.KeyOfPath(api.PathOf(a.Target))
		m, ok := get(mk).(*api.InstanceGroupManager)
		if !ok {
			return // being deleted
		}
		group := groupOf(m, core.ScopeOfKey(mk))
		members := 0
		if ig, ok := get(group).(*api.InstanceGroup); ok {
			members = len(ig.Instances)
		}
		sg := control.ScaledGroup{Autoscaler: k, Policy: *a.AutoscalingPolicy, Recommended: -1, Manager: mk,
			Group: group.Path(), Size: valueOf(m.TargetSize), PerInstance: perInstance(services, group.Path(), members)}
		if a.RecommendedSize != nil {
			sg.Recommended = *a.RecommendedSize
		}
		out = append(out, sg)
	})
	return out, nil
}

func valueOf(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// perInstance is the requests per second the RATE backends of services
// give an instance of group (of n instances): their capacity for each
// (api.Capacity.PerEach); the largest when several do.
func perInstance(services []*api.BackendService, group string, n int) float64 {
	best := 0.0
	for _, bs := range services {
		for _, b := range bs.Backends {
			if c := b.Capacity(); api.PathOf(b.Group) == group && c.Mode == "RATE" {
				best = max(best, c.PerEach(n))
			}
		}
	}
	return best
}

// Resize sets the targetSize of the manager at k and brings its group to
// it, as instanceGroupManagers.resize does.
func (g controlled) Resize(ctx context.Context, k store.Key, size int64) error {
	s := g.s
	s.Core().Lock()
	defer s.Core().Unlock()
	if changed, err := s.UpdateLocked(ctx, k, func(doc map[string]any) bool { doc["targetSize"] = size; return true }); err != nil || !changed {
		return err
	}
	var m api.InstanceGroupManager
	if err := s.Load(ctx, "instanceGroupManager", k.Path(), k, &m); err != nil {
		return nil
	}
	return fleet{s}.reconcileManager(ctx, &m, core.ScopeOfKey(k))
}

// Recommend writes an autoscaler's recommendedSize and status details.
func (g controlled) Recommend(ctx context.Context, k store.Key, size int64, details []api.AutoscalerStatusDetail) error {
	return g.s.Update(ctx, k, func(doc map[string]any) bool {
		doc["recommendedSize"] = size
		if len(details) > 0 {
			doc["statusDetails"] = details
		} else {
			delete(doc, "statusDetails")
		}
		return true
	})
}
