package compute

import (
	"context"
	"fmt"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// targetPools is the regional targetPools collection.
func (s backends) targetPools() *core.Collection[api.TargetPool, *api.TargetPool] {
	c := core.NewCollection[api.TargetPool, *api.TargetPool](s.API, api.CollectionTargetPools, rules.TargetPool, nil)
	c.Resolve = s.resolveTargetPool
	c.Refs = func(tp *api.TargetPool) []string { return tp.HealthChecks }
	return c
}

// resolveTargetPool checks that the pool's check is a legacy HTTP check
// that exists, and that the instances its instance URLs name are in its
// region, and stores the references as URLs.
func (s backends) resolveTargetPool(ctx context.Context, tp *api.TargetPool, sc core.Scope) error {
	for i, inst := range tp.Instances {
		project, zone, name, ok := rules.InstanceRef(inst)
		if !ok {
			continue // "ip[:port]", the lbhealth extension
		}
		if project == "" {
			project = sc.Project
		}
		// The instance need not exist yet, as in the Compute API: it is
		// probed once it does, and reported until then.
		field := fmt.Sprintf("instances[%d]", i)
		k := store.Key{Project: project, Scope: "zones/" + zone, Collection: api.CollectionInstances, Name: name}
		if r := rules.ZoneRegion(zone); r != "" && r != sc.Region {
			return googleapi.Invalid("%s (%q) is in zone %s: a target pool takes instances of its own region (%s).", field, inst, zone, sc.Region)
		}
		tp.Instances[i] = s.Link(k.Path())
	}
	for i, ref := range tp.HealthChecks {
		field := fmt.Sprintf("healthChecks[%d]", i)
		k, err := core.ParseAnyRef(field, ref, core.Scope{Project: sc.Project}, api.CollectionHTTPHealthChecks)
		if err != nil {
			return err
		}
		if v := rules.TargetPoolHealthCheck(ref, k.Collection); v != nil {
			return googleapi.Invalid("%s", v.Error())
		}
		var hc api.LegacyHealthCheck
		if err := s.Load(ctx, field, ref, k, &hc); err != nil {
			return err
		}
		tp.HealthChecks[i] = s.Link(k.Path())
	}
	// backupPool is not followed, but written as the API writes a link,
	// as in the stored document the typed view is laid over.
	if tp.BackupPool != "" {
		tp.BackupPool = s.CanonicalRef(tp.BackupPool, sc.Project)
	}
	return nil
}

// targetPoolHealth answers targetPools.getHealth: the health of one
// instance (or of all, when the body names none: an lbhealth extension).
func (s backends) targetPoolHealth(r *googleapi.Call) (any, error) {
	c := s.targetPools()
	tp, sc, err := c.Load(r)
	if err != nil {
		return nil, err
	}
	instance, err := s.instanceFilter(r, tp)
	if err != nil {
		return nil, err
	}
	out := api.TargetPoolInstanceHealth{Kind: api.KindTargetPoolInstanceHealth, HealthStatus: []api.HealthStatus{}}
	for _, st := range s.statuses(sc.Key(c.Def.Name, tp.Name).Path()) {
		if instance == "" || st.Endpoint.Instance == instance {
			out.HealthStatus = append(out.HealthStatus, s.healthStatus(st))
		}
	}
	return out, nil
}

// instanceFilter reads the optional {"instance": ...} body.
func (s backends) instanceFilter(r *googleapi.Call, tp *api.TargetPool) (string, error) {
	if !r.HasBody() {
		return "", nil
	}
	body, err := r.Body()
	if err != nil {
		return "", err
	}
	var ref api.InstanceReference
	if err := s.DecodeBody(r, body, "InstanceReference", &ref); err != nil || ref.Instance == "" {
		return "", err
	}
	// Compared as the pool's rules compare instances: a URL under another
	// host, or a path, names the same instance.
	want, _ := rules.TargetPoolInstance("instance", ref.Instance)
	for _, inst := range tp.Instances {
		if k, _ := rules.TargetPoolInstance("instance", inst); inst == ref.Instance || (want != "" && k == want) {
			return inst, nil
		}
	}
	return "", googleapi.Invalid("instance (%q) is not an instance of target pool %s.", ref.Instance, tp.Name)
}

// The methods of targetPools and forwardingRules beyond the collection's
// verbs. Each changes one list (or field) of the stored resource and then
// goes through the collection's own checks, so a pool still takes at most
// one legacy HTTP check and each instance once.

// targetPoolAddInstance answers targetPools.addInstance.
func (s backends) targetPoolAddInstance(r *googleapi.Call) (any, error) {
	return s.changePoolInstances(r, "addInstance", func(tp *api.TargetPool, field, ref string, at int) (err error) {
		tp.Instances, err = addMember(tp.Instances, "target pool "+tp.Name, field, ref, at)
		return err
	})
}

// targetPoolRemoveInstance answers targetPools.removeInstance.
func (s backends) targetPoolRemoveInstance(r *googleapi.Call) (any, error) {
	return s.changePoolInstances(r, "removeInstance", func(tp *api.TargetPool, field, ref string, at int) (err error) {
		tp.Instances, err = removeMember(tp.Instances, "target pool "+tp.Name, field, ref, at)
		return err
	})
}

// addMember adds instance ref (named field in the request) to the members
// of owner, where it is at index at (-1: not there): an instance is a
// member once.
func addMember(members []string, owner, field, ref string, at int) ([]string, error) {
	if at >= 0 {
		return members, googleapi.Invalid("%s (%q) is already an instance of %s: each instance may be listed once.", field, ref, owner)
	}
	return append(members, ref), nil
}

// removeMember removes instance ref, at index at, from the members of
// owner; it must be one.
func removeMember(members []string, owner, field, ref string, at int) ([]string, error) {
	if at < 0 {
		return members, googleapi.Invalid("%s (%q) is not an instance of %s.", field, ref, owner)
	}
	return slices.Delete(members, at, at+1), nil
}

// changePoolInstances applies change to the pool for each instance the
// body lists, in order: field names it in errors, at is its index in the
// pool (-1: not there).
func (s backends) changePoolInstances(r *googleapi.Call, op string, change func(tp *api.TargetPool, field, ref string, at int) error) (any, error) {
	// An empty list changes nothing, as in the Compute API (the provider
	// sends one on every update of a pool).
	var req api.TargetPoolsAddInstanceRequest
	if err := s.ReadJSON(r, "TargetPoolsAddInstanceRequest", &req); err != nil {
		return nil, err
	}
	return s.targetPools().Modify(r, op, func(stored *api.TargetPool) (*api.TargetPool, error) {
		tp := cloneOf(stored)
		for i, ref := range req.Instances {
			field := fmt.Sprintf("instances[%d].instance", i)
			k, v := rules.TargetPoolInstance(field, ref.Instance)
			if v != nil {
				return nil, googleapi.Invalid("%s", v.Error())
			}
			if err := change(tp, field, ref.Instance, poolInstanceIndex(tp, k)); err != nil {
				return nil, err
			}
		}
		return tp, nil
	})
}

// poolInstanceIndex is the index of the instance with key k (as
// rules.TargetPoolInstance gives it) in tp, or -1.
func poolInstanceIndex(tp *api.TargetPool, k string) int {
	return slices.IndexFunc(tp.Instances, func(inst string) bool {
		ik, v := rules.TargetPoolInstance("", inst)
		return v == nil && ik == k
	})
}

// targetPoolAddHealthCheck answers targetPools.addHealthCheck.
func (s backends) targetPoolAddHealthCheck(r *googleapi.Call) (any, error) {
	return s.targetPoolHealthChecks(r, "addHealthCheck")
}

// targetPoolRemoveHealthCheck answers targetPools.removeHealthCheck.
func (s backends) targetPoolRemoveHealthCheck(r *googleapi.Call) (any, error) {
	return s.targetPoolHealthChecks(r, "removeHealthCheck")
}

// targetPoolHealthChecks adds (op addHealthCheck) or removes the checks the
// body lists.
func (s backends) targetPoolHealthChecks(r *googleapi.Call, op string) (any, error) {
	var req api.TargetPoolsAddHealthCheckRequest
	if err := s.ReadJSON(r, "TargetPoolsAddHealthCheckRequest", &req); err != nil {
		return nil, err
	}
	sc, err := core.ScopeOf(r)
	if err != nil {
		return nil, err
	}
	return s.targetPools().Modify(r, op, func(stored *api.TargetPool) (*api.TargetPool, error) {
		tp := cloneOf(stored)
		for i, ref := range req.HealthChecks {
			field := fmt.Sprintf("healthChecks[%d].healthCheck", i)
			k, err := core.ParseAnyRef(field, ref.HealthCheck, core.Scope{Project: sc.Project}, api.CollectionHTTPHealthChecks)
			if err != nil {
				return nil, err
			}
			j := slices.IndexFunc(tp.HealthChecks, func(hc string) bool { return api.PathOf(hc) == k.Path() })
			switch {
			case op == "addHealthCheck" && j >= 0:
				return nil, googleapi.Invalid("%s (%q) is already the health check of target pool %s.", field, ref.HealthCheck, tp.Name)
			case op == "addHealthCheck":
				tp.HealthChecks = append(tp.HealthChecks, ref.HealthCheck)
			case j < 0:
				return nil, googleapi.Invalid("%s (%q) is not a health check of target pool %s.", field, ref.HealthCheck, tp.Name)
			default:
				tp.HealthChecks = slices.Delete(tp.HealthChecks, j, j+1)
			}
		}
		return tp, nil
	})
}
