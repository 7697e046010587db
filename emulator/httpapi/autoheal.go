package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Autohealing, as a managed instance group does it: the group's
// autohealing check probes its instances (its own probes, planned for the
// group as owner); an instance the check calls UNHEALTHY once its initial
// delay has passed is recreated. Its current action goes RECREATING (the
// instance STOPPING, for RecreateTime) then VERIFYING (RUNNING again, with
// a new id and creation time, until the check passes) then NONE. An
// instance recreated twice in a row without passing a check in between is
// in a recreate loop, the classic sign of an initial delay shorter than
// the instance's start-up: the group's status says so (an extension,
// status.recreateLoop), and the log.

// RecreateTime is how long a recreated instance stays STOPPING.
const RecreateTime = time.Second

// healing is the autohealing state of one managed instance.
type healing struct {
	action string    // api.ActionNone, ActionRecreating or ActionVerifying
	since  time.Time // when the action started
	// passed tells whether the check passed since the instance was (re)made;
	// recreations counts recreations in a row without a pass.
	passed      bool
	recreations int
}

// healer holds the state of every managed instance, by path.
type healer struct {
	mu    sync.Mutex
	state map[string]*healing
}

// of returns a copy of the state of the instance at path; the healer
// changes it and stores it back with set, so that readers (a
// listManagedInstances call) see one state or the next, never half of one.
func (h *healer) of(path string) healing {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st, ok := h.state[path]; ok {
		return *st
	}
	return healing{action: api.ActionNone}
}

func (h *healer) set(path string, st healing) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == nil {
		h.state = map[string]*healing{}
	}
	h.state[path] = &st
}

// action is the current action of the instance at path.
func (h *healer) action(path string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st, ok := h.state[path]; ok {
		return st.action
	}
	return api.ActionNone
}

// Autoheal runs autohealing every tick until ctx ends.
func (s *Server) Autoheal(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.healOnce(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("autohealing", "error", err)
			}
		}
	}
}

// healOnce looks at every managed group with an autohealing policy once.
func (s *Server) healOnce(ctx context.Context) error {
	managers, err := s.store.All(ctx, api.CollectionInstanceGroupManagers)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, o := range managers {
		var m api.InstanceGroupManager
		if err := json.Unmarshal(o.Body, &m); err != nil {
			return err
		}
		if err := s.keepSize(ctx, o.Key, &m); err != nil {
			return err
		}
		if len(m.AutoHealingPolicies) == 0 {
			continue
		}
		if err := s.healGroup(ctx, o.Key, &m, seen); err != nil {
			return err
		}
	}
	s.healer.forget(seen)
	return nil
}

// keepSize remakes the instances of manager m, stored at k, that were
// deleted by hand, as a managed group does: it keeps targetSize instances.
func (s *Server) keepSize(ctx context.Context, k store.Key, m *api.InstanceGroupManager) error {
	sc := scopeOfKey(k)
	var g api.InstanceGroup
	if err := s.load(ctx, "instanceGroup", m.InstanceGroup, groupOf(m, sc), &g); err != nil || int64(len(g.Instances)) >= valueOr(m.TargetSize) {
		return nil // being deleted, or whole
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	var now api.InstanceGroupManager // as stored now: the manager may have changed or gone meanwhile
	if err := s.load(ctx, "instanceGroupManager", k.Path(), k, &now); err != nil {
		return nil
	}
	m = &now
	s.log.Info("managed group: making the instances it lacks", "group", k.Path(), "instances", len(g.Instances), "targetSize", valueOr(m.TargetSize))
	return s.reconcileManager(ctx, m, sc)
}

// forget drops the state of the instances that are no longer managed with
// autohealing (deleted, or their group's policy removed).
func (h *healer) forget(keep map[string]bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for path := range h.state {
		if !keep[path] {
			delete(h.state, path)
		}
	}
}

// verdicts are the autohealing check's latest verdicts on the instances
// of manager owner, by instance generation (its path and id): a verdict on
// an instance since recreated is not its own.
func (s *Server) verdicts(owner string) map[string]health.Status {
	out := map[string]health.Status{}
	for _, st := range s.statuses(owner) {
		out[st.Group] = st // the group of a manager's target is the instance's generation
	}
	return out
}

// healGroup moves each instance of manager m, stored at k, one step, and
// marks it seen.
func (s *Server) healGroup(ctx context.Context, k store.Key, m *api.InstanceGroupManager, seen map[string]bool) error {
	sc := scopeOfKey(k)
	policy := m.AutoHealingPolicies[0]
	delay := time.Duration(valueOr(policy.InitialDelaySec)) * time.Second
	var g api.InstanceGroup
	if err := s.load(ctx, "instanceGroup", m.InstanceGroup, groupOf(m, sc), &g); err != nil {
		return nil // the manager is being deleted
	}
	verdicts := s.verdicts(k.Path())
	now := s.now()
	actions := api.ManagerActions{}
	loop := ""
	for _, inst := range g.Instances {
		path := api.PathOf(inst)
		var in api.Instance
		if err := s.load(ctx, "instance", inst, keyOfPath(path), &in); err != nil {
			continue
		}
		seen[path] = true
		state := s.healer.of(path)
		h := &state
		v, fresh := verdicts[api.Generation(path, in.ID)]
		created, _ := time.Parse(time.RFC3339Nano, in.CreationTimestamp)
		switch {
		case h.action == api.ActionRecreating && now.Sub(h.since) >= RecreateTime:
			if err := s.remake(ctx, keyOfPath(path)); err != nil {
				return err
			}
			h.action, h.since, h.passed = api.ActionVerifying, now, false
			s.log.Info("autohealing: instance recreated, verifying", "group", k.Path(), "instance", path)
			s.callHook(policy.HookURL, k, inst, in.PrimaryIP())
		case h.action == api.ActionRecreating:
		case fresh && v.State == rules.StateHealthy:
			if h.action == api.ActionVerifying {
				s.log.Info("autohealing: instance verified HEALTHY", "group", k.Path(), "instance", path)
			}
			h.action, h.passed, h.recreations = api.ActionNone, true, 0
		case fresh && v.State == rules.StateUnhealthy && now.Sub(created) >= delay:
			if !h.passed {
				h.recreations++
			}
			h.action, h.since = api.ActionRecreating, now
			s.log.Warn("autohealing: instance UNHEALTHY, recreating", "group", k.Path(), "instance", path,
				"check", policy.HealthCheck, "reason", v.Reason, "detail", v.Detail)
			if err := s.setInstanceStatus(ctx, keyOfPath(path), "STOPPING"); err != nil {
				return err
			}
		}
		if h.recreations >= 2 {
			loop = fmt.Sprintf("instance %s was recreated %d times in a row without passing %s: its initialDelaySec (%d) may be shorter than its start-up",
				in.Name, h.recreations, lastSegment(policy.HealthCheck), valueOr(policy.InitialDelaySec))
			if h.action == api.ActionRecreating && now.Equal(h.since) {
				s.log.Warn("autohealing: recreate loop", "group", k.Path(), "instance", path, "detail", loop)
			}
		}
		s.healer.set(path, state)
		switch h.action {
		case api.ActionRecreating:
			actions.Recreating++
		case api.ActionVerifying:
			actions.Verifying++
		default:
			actions.None++
		}
	}
	return s.setManagerStatus(ctx, k, actions, loop)
}

func valueOr(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// remake makes instance k again: a new id and creation time, RUNNING.
func (s *Server) remake(ctx context.Context, k store.Key) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.recreateInstance(ctx, k)
}

// setInstanceStatus sets the status of instance k.
func (s *Server) setInstanceStatus(ctx context.Context, k store.Key, status string) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	o, err := s.store.Get(ctx, k)
	if err != nil {
		return nil // deleted meanwhile
	}
	doc, _ := parseObject(o.Body) // our own JSON
	doc["status"] = status
	if err := s.store.Update(ctx, store.Object{Key: k, Body: mustJSON(doc)}); err != nil {
		return err
	}
	s.written(ctx, k)
	return nil
}

// setManagerStatus writes the group's action counts, stability and
// recreate loop, when they changed.
func (s *Server) setManagerStatus(ctx context.Context, k store.Key, actions api.ManagerActions, loop string) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	o, err := s.store.Get(ctx, k)
	if err != nil {
		return nil // deleted meanwhile
	}
	var m api.InstanceGroupManager
	if err := json.Unmarshal(o.Body, &m); err != nil {
		return err
	}
	status := api.NewManagerStatus(actions.Recreating == 0 && actions.Verifying == 0, loop)
	if m.CurrentActions != nil && *m.CurrentActions == actions && m.Status != nil && *m.Status == *status {
		return nil
	}
	doc, _ := parseObject(o.Body) // our own JSON
	doc["currentActions"], doc["status"] = actions, status
	return s.store.Update(ctx, store.Object{Key: k, Body: mustJSON(doc)})
}

// hookClient calls hooks without following redirects: a hook is a URL of
// this machine (the rules say so), and a redirect must not take the call
// anywhere else.
var hookClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// callHook tells the user's hook, if the policy names one, that instance
// inst (at ip) of group k was recreated: a POST of {"group", "instance",
// "ipAddress"}, so that a test can restart what answers at that address.
func (s *Server) callHook(url string, k store.Key, inst, ip string) {
	if url == "" {
		return
	}
	body, _ := json.Marshal(map[string]string{"group": s.link(k.Path()), "instance": inst, "ipAddress": ip})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			s.log.Warn("autohealing hook not called", "url", url, "error", err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hookClient.Do(req)
		if err != nil {
			s.log.Warn("autohealing hook failed", "url", url, "error", err)
			return
		}
		resp.Body.Close()
		s.log.Info("autohealing hook called", "url", url, "instance", inst, "status", strconv.Itoa(resp.StatusCode))
	}()
}
