package compute

import (
	"context"
	"encoding/json"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// ManagedGroups is what autohealing (control.Autohealer) reads and
// writes: what the feed keeps decoded, and writes under the write lock.
func (s *Service) ManagedGroups() control.Groups { return controlled{s.API} }

// controlled is the API's side of autohealing (control.Groups) and
// autoscaling (control.Scalers): they read the typed views the core keeps
// from the change feed (core.Each), never the store, and write under the
// write lock, as a request does.
type controlled struct{ s *core.API }

var (
	_ control.Groups  = controlled{}
	_ control.Scalers = controlled{}
)

// Managers lists the managed groups whose instance group is stored (a
// manager being deleted has none), with, for those that autoheal, the
// instances still there.
func (g controlled) Managers(context.Context) ([]control.ManagedGroup, error) {
	var out []control.ManagedGroup
	core.Each(g.s.Core(), api.CollectionInstanceGroupManagers, func(k store.Key, m *api.InstanceGroupManager, get func(store.Key) any) {
		group, ok := get(groupOf(m, core.ScopeOfKey(k))).(*api.InstanceGroup)
		if !ok {
			return
		}
		mg := control.ManagedGroup{Key: k, Manager: m, Size: len(group.Instances)}
		for _, link := range group.Instances {
			if len(m.AutoHealingPolicies) == 0 {
				break
			}
			ik := core.KeyOfPath(api.PathOf(link))
			in, ok := get(ik).(*api.Instance)
			if !ok {
				continue
			}
			created, _ := time.Parse(time.RFC3339Nano, in.CreationTimestamp)
			mg.Instances = append(mg.Instances, control.ManagedInstance{Key: ik, Link: link, ID: in.ID, Name: in.Name,
				Created: created, IP: in.PrimaryIP()})
		}
		out = append(out, mg)
	})
	return out, nil
}

// KeepSize remakes the instances of the manager at k that were deleted by
// hand, as a managed group does: it keeps targetSize instances.
func (g controlled) KeepSize(ctx context.Context, k store.Key) error {
	s := g.s
	s.Core().Lock()
	defer s.Core().Unlock()
	var m api.InstanceGroupManager // as stored now: it may have changed or gone meanwhile
	if err := s.Load(ctx, "instanceGroupManager", k.Path(), k, &m); err != nil {
		return nil
	}
	return fleet{s}.reconcileManager(ctx, &m, core.ScopeOfKey(k))
}

// Recreate makes instance k again: a new id and creation time, RUNNING.
func (g controlled) Recreate(ctx context.Context, k store.Key) error {
	g.s.Core().Lock()
	defer g.s.Core().Unlock()
	return fleet{g.s}.recreateInstance(ctx, k)
}

// SetInstanceStatus sets the status of instance k, unless it is gone.
func (g controlled) SetInstanceStatus(ctx context.Context, k store.Key, status string) error {
	s := g.s
	s.Core().Lock()
	defer s.Core().Unlock()
	_, err := s.UpdateLocked(ctx, k, func(doc map[string]any) bool {
		doc["status"] = status
		return true
	})
	return err
}

// SetManagerStatus writes the group's action counts, stability and
// recreate loop, when they changed.
func (g controlled) SetManagerStatus(ctx context.Context, k store.Key, actions api.ManagerActions, loop string) error {
	s := g.s
	s.Core().Lock()
	defer s.Core().Unlock()
	_, err := s.UpdateLocked(ctx, k, func(doc map[string]any) bool {
		var m api.InstanceGroupManager
		if json.Unmarshal(core.MustJSON(doc), &m) != nil {
			return false
		}
		status := api.NewManagerStatus(actions.Recreating == 0 && actions.Verifying == 0, loop)
		if m.CurrentActions != nil && *m.CurrentActions == actions && m.Status != nil && *m.Status == *status {
			return false
		}
		doc["currentActions"], doc["status"] = actions, status
		return true
	})
	return err
}

// Verdicts are the autohealing check's latest verdicts on the instances
// of manager owner, by instance generation.
func (g controlled) Verdicts(owner string) map[string]health.Status {
	return fleet{g.s}.verdicts(owner)
}

// Link is the self link of the resource at path.
func (g controlled) Link(path string) string { return g.s.Link(path) }

// verdicts are the autohealing check's latest verdicts on the instances
// of manager owner, by instance generation (its path and id): a verdict on
// an instance since recreated is not its own.
func (s fleet) verdicts(owner string) map[string]health.Status {
	out := map[string]health.Status{}
	for _, st := range (backends{s.API}).statuses(owner) {
		out[st.Group] = st // the group of a manager's target is the instance's generation
	}
	return out
}
