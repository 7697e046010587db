package control

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
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
//
// A managed group also keeps its size: instances deleted by hand are made
// again, whether or not it autoheals.

// RecreateTime is how long a recreated instance stays STOPPING.
const RecreateTime = time.Second

// Groups is what autohealing needs of the API: the managed groups as
// stored, the verdicts of their checks, and the writes it makes, each
// through the API's own rules and under its write lock.
type Groups interface {
	// Managers lists every managed group; only those with an autohealing
	// policy come with their instances.
	Managers(ctx context.Context) ([]ManagedGroup, error)
	// KeepSize makes the instances the group at k lacks (deleted by hand).
	KeepSize(ctx context.Context, k store.Key) error
	// Recreate makes the instance at k again: a new id and creation time,
	// RUNNING.
	Recreate(ctx context.Context, k store.Key) error
	// SetInstanceStatus sets the status of the instance at k.
	SetInstanceStatus(ctx context.Context, k store.Key, status string) error
	// SetManagerStatus writes the group's action counts and its recreate
	// loop ("" when none), when they changed.
	SetManagerStatus(ctx context.Context, k store.Key, actions api.ManagerActions, loop string) error
	// Verdicts are the autohealing check's latest verdicts on the
	// instances of the group at path owner, by instance generation
	// (api.Generation): a verdict on an instance since recreated is not
	// its own.
	Verdicts(owner string) map[string]health.Status
	// Link is the self link of the resource at path.
	Link(path string) string
}

// ManagedGroup is a managed group as autohealing reads it: how many
// instances its instance group holds, and, when it autoheals, each of
// them still there.
type ManagedGroup struct {
	Key       store.Key
	Manager   *api.InstanceGroupManager
	Size      int
	Instances []ManagedInstance
}

// ManagedInstance is one instance of a managed group.
type ManagedInstance struct {
	Key     store.Key
	Link    string // as the group names it
	ID      uint64
	Name    string
	Created time.Time
	IP      string // its primary address
}

// healing is the autohealing state of one managed instance.
type healing struct {
	action string    // api.ActionNone, ActionRecreating or ActionVerifying
	since  time.Time // when the action started
	// passed tells whether the check passed since the instance was (re)made;
	// recreations counts recreations in a row without a pass.
	passed      bool
	recreations int
	// hooked is closed once the policy's hook answered (or gave up) for
	// the recreation under way; nil while none was called.
	hooked chan struct{}
}

// Autohealer keeps managed groups whole and recreates their unhealthy
// instances.
type Autohealer struct {
	groups Groups
	clock  Clock
	log    *slog.Logger
	hooks  *http.Client

	mu    sync.Mutex
	state map[string]healing // by instance path

	timeline *timeline.Timeline // where each step is recorded; nil records none
}

// RecordTo records each instance's change of action on tl.
func (a *Autohealer) RecordTo(tl *timeline.Timeline) { a.timeline = tl }

// record notes that the instance at path of group moved from one action to
// another.
func (a *Autohealer) record(group, path, from, to, cause string) {
	a.timeline.Add(timeline.Event{Time: a.clock.Now(), Kind: timeline.KindInstance, Resource: path, Group: group, From: from, To: to, Cause: cause})
}

// NewAutohealer heals the groups of groups, on clk (nil: the wall clock,
// real time): a policy's initial delay and the time a recreation takes run
// on it, scaled.
func NewAutohealer(groups Groups, clk Clock, log *slog.Logger) *Autohealer {
	if clk == nil {
		clk = clock.New(1)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Autohealer{groups: groups, clock: clk, log: log, state: map[string]healing{},
		// A hook is a URL of this machine (the rules say so), and a
		// redirect must not take the call anywhere else.
		hooks: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Run heals every tick until ctx ends.
func (a *Autohealer) Run(ctx context.Context, tick time.Duration) {
	every(ctx, tick, a.Once, a.log, "autohealing")
}

// every runs once every tick until ctx ends, logging its errors as what.
func every(ctx context.Context, tick time.Duration, once func(context.Context) error, log *slog.Logger, what string) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := once(ctx); err != nil && ctx.Err() == nil {
				log.Error(what, "error", err)
			}
		}
	}
}

// Action is the current action of the managed instance at path.
func (a *Autohealer) Action(path string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st, ok := a.state[path]; ok {
		return st.action
	}
	return api.ActionNone
}

// Once looks at every managed group once: it makes what a group lacks,
// and moves each instance of a group with an autohealing policy one step.
func (a *Autohealer) Once(ctx context.Context) error {
	groups, err := a.groups.Managers(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, g := range groups {
		if int64(g.Size) < valueOr(g.Manager.TargetSize) {
			a.log.Info("managed group: making the instances it lacks", "group", g.Key.Path(),
				"instances", g.Size, "targetSize", valueOr(g.Manager.TargetSize))
			if err := a.groups.KeepSize(ctx, g.Key); err != nil {
				return err
			}
		}
		if len(g.Manager.AutoHealingPolicies) == 0 {
			continue
		}
		if err := a.heal(ctx, g, seen); err != nil {
			return err
		}
	}
	a.forget(seen)
	return nil
}

// forget drops the state of the instances that are no longer managed with
// autohealing (deleted, or their group's policy removed).
func (a *Autohealer) forget(keep map[string]bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for path := range a.state {
		if !keep[path] {
			delete(a.state, path)
		}
	}
}

// of returns the state of the instance at path; heal changes its copy and
// stores it back with set, so that a reader (Action) sees one state or the
// next, never half of one.
func (a *Autohealer) of(path string) healing {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st, ok := a.state[path]; ok {
		return st
	}
	return healing{action: api.ActionNone}
}

func (a *Autohealer) set(path string, st healing) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.state[path] = st
}

// heal moves each instance of group g one step, and marks it seen.
func (a *Autohealer) heal(ctx context.Context, g ManagedGroup, seen map[string]bool) error {
	k, policy := g.Key, g.Manager.AutoHealingPolicies[0]
	check := path.Base(policy.HealthCheck)
	delay := a.clock.Scale(time.Duration(valueOr(policy.InitialDelaySec)) * time.Second)
	verdicts := a.groups.Verdicts(k.Path())
	now := a.clock.Now()
	actions := api.ManagerActions{}
	loop := ""
	for _, in := range g.Instances {
		path := in.Key.Path()
		seen[path] = true
		h := a.of(path)
		v, fresh := verdicts[api.Generation(path, in.ID)]
		switch {
		case h.action == api.ActionRecreating && now.Sub(h.since) >= a.clock.Scale(RecreateTime) && a.hookAnswered(&h, policy.HookURL, k, in):
			if err := a.groups.Recreate(ctx, in.Key); err != nil {
				return err
			}
			h.action, h.since, h.passed, h.hooked = api.ActionVerifying, now, false, nil
			a.log.Info("autohealing: instance recreated, verifying", "group", k.Path(), "instance", path)
			a.record(k.Path(), path, api.ActionRecreating, api.ActionVerifying, "recreated")
		case h.action == api.ActionRecreating:
		case fresh && v.State == api.StateHealthy:
			if h.action == api.ActionVerifying {
				a.log.Info("autohealing: instance verified HEALTHY", "group", k.Path(), "instance", path)
				a.record(k.Path(), path, api.ActionVerifying, api.ActionNone, "verified HEALTHY by "+check)
			}
			h.action, h.passed, h.recreations = api.ActionNone, true, 0
		case fresh && v.State == api.StateUnhealthy && now.Sub(in.Created) >= delay:
			if !h.passed {
				h.recreations++
			}
			a.record(k.Path(), path, h.action, api.ActionRecreating, "UNHEALTHY by "+check+": "+strings.TrimSuffix(v.Reason+" "+v.Detail, " "))
			h.action, h.since = api.ActionRecreating, now
			a.log.Warn("autohealing: instance UNHEALTHY, recreating", "group", k.Path(), "instance", path,
				"check", policy.HealthCheck, "reason", v.Reason, "detail", v.Detail)
			if err := a.groups.SetInstanceStatus(ctx, in.Key, "STOPPING"); err != nil {
				return err
			}
		}
		if h.recreations >= 2 {
			loop = fmt.Sprintf("instance %s was recreated %d times in a row without passing %s: its initialDelaySec (%d) may be shorter than its start-up",
				in.Name, h.recreations, check, valueOr(policy.InitialDelaySec))
			if h.action == api.ActionRecreating && now.Equal(h.since) {
				a.log.Warn("autohealing: recreate loop", "group", k.Path(), "instance", path, "detail", loop)
			}
		}
		a.set(path, h)
		switch h.action {
		case api.ActionRecreating:
			actions.Recreating++
		case api.ActionVerifying:
			actions.Verifying++
		default:
			actions.None++
		}
	}
	return a.groups.SetManagerStatus(ctx, k, actions, loop)
}

// hookAnswered tells whether the recreation of in may go on: the policy
// has no hook, or its hook has answered. The first time, it calls the
// hook: the new instance is made, and probed, only once the hook has
// done what it does (restart what answers at the address), so that its
// verification never races the restart.
func (a *Autohealer) hookAnswered(h *healing, url string, k store.Key, in ManagedInstance) bool {
	if url == "" {
		return true
	}
	if h.hooked == nil {
		h.hooked = a.callHook(url, k, in)
		return false
	}
	select {
	case <-h.hooked:
		return true
	default:
		return false
	}
}

// callHook tells the user's hook that instance in of group k is being
// recreated: a POST of {"group", "instance", "ipAddress"}, so that a test
// can restart what answers at that address. The channel it returns is
// closed once the hook answered, failed or timed out (5 s).
func (a *Autohealer) callHook(url string, k store.Key, in ManagedInstance) chan struct{} {
	done := make(chan struct{})
	body, _ := json.Marshal(map[string]string{"group": a.groups.Link(k.Path()), "instance": in.Link, "ipAddress": in.IP})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			a.log.Warn("autohealing hook not called", "url", url, "error", err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := a.hooks.Do(req)
		if err != nil {
			a.log.Warn("autohealing hook failed", "url", url, "error", err)
			return
		}
		resp.Body.Close()
		a.log.Info("autohealing hook called", "url", url, "instance", in.Link, "status", strconv.Itoa(resp.StatusCode))
	}()
	return done
}

func valueOr(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
