package control

import (
	"context"
	"path"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Reconciling a managed group, as the cloud does after every change to its
// manager and whenever an instance goes missing: the group holds
// targetSize instances, new ones made from the template and numbered after
// those kept (a regional group spreads them over its zones in turn), the
// last ones deleted first; the target pools the manager names hold exactly
// its instances.

// Instances is what reconciling needs of the API: making and deleting a
// managed group's instances through the API's own rules. Its caller holds
// the API's write lock.
type Instances interface {
	// Make makes the n-th instance (from 1) of manager m in zone from its
	// template, and returns its link.
	Make(ctx context.Context, m *api.InstanceGroupManager, n int, zone string) (string, error)
	// Delete deletes the instance at link, with its auto-delete disks; one
	// already gone is no error.
	Delete(ctx context.Context, link string) error
}

// Reconcile brings members, the links of the instances of manager m (in
// zone, or for a regional group in region), to its targetSize, and returns
// the members it keeps or made and those it deleted.
func Reconcile(ctx context.Context, in Instances, m *api.InstanceGroupManager, zone, region string, members []string) (kept, removed []string, err error) {
	target := int(valueOr(m.TargetSize))
	kept = slices.Clone(members)
	for len(kept) > target {
		last := kept[len(kept)-1]
		if err := in.Delete(ctx, last); err != nil {
			return nil, nil, err
		}
		kept, removed = kept[:len(kept)-1], append(removed, last)
	}
	for n := len(kept) + 1; n <= target; n++ {
		link, err := in.Make(ctx, m, n, InstanceZone(m, n, zone, region))
		if err != nil {
			return nil, nil, err
		}
		kept = append(kept, link)
	}
	return kept, removed, nil
}

// InstanceZone is the zone of the n-th instance (from 1) of manager m: its
// zone, or, for a regional group in region, its distribution policy's zones
// (the region's zones a, b and c when it names none) in turn.
func InstanceZone(m *api.InstanceGroupManager, n int, zone, region string) string {
	if zone != "" {
		return zone
	}
	zones := []string{region + "-a", region + "-b", region + "-c"}
	if m.DistributionPolicy != nil && len(m.DistributionPolicy.Zones) > 0 {
		zones = zones[:0]
		for _, z := range m.DistributionPolicy.Zones {
			zones = append(zones, path.Base(z.Zone))
		}
	}
	return zones[(n-1)%len(zones)]
}

// PoolMembers is a target pool's instances (members) once a managed group
// has synchronised it: those it removed taken out, those it has (instances)
// added, others kept; changed tells whether that differs from members.
// Links are compared by path, whatever their root.
func PoolMembers(members []any, instances, removed []string) (out []any, changed bool) {
	gone := map[string]bool{}
	for _, r := range removed {
		gone[api.PathOf(r)] = true
	}
	has := map[string]bool{}
	out = members[:0:0]
	for _, mb := range members {
		if ref, _ := mb.(string); !gone[api.PathOf(ref)] {
			has[api.PathOf(ref)] = true
			out = append(out, mb)
		}
	}
	changed = len(out) != len(members)
	for _, inst := range instances {
		if !has[api.PathOf(inst)] {
			has[api.PathOf(inst)] = true
			out, changed = append(out, inst), true
		}
	}
	return out, changed
}
