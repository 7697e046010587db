package health

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Target is one endpoint to probe for one owner (a backend service or a
// target pool) with one check's settings.
type Target struct {
	Owner    string // path of the backend service or target pool
	Group    string // path of the endpoint group; "" for target pools
	Endpoint Endpoint
	Check    Check
}

// Endpoint is a probed address.
type Endpoint struct {
	IP       string
	Port     int // the endpoint's own port; 0 when it has none
	Instance string
	Stopped  bool
}

// Check is what probing needs of a health check, resolved for one endpoint.
type Check struct {
	Name  string // path of the health check
	Probe prober.Spec
	// Port is the port probed; 0 when it cannot be resolved (Unresolved
	// then says why) and the endpoint is not probed.
	Port       int
	Unresolved string
	// Address, when set, is where the endpoint is probed instead of its
	// own address: a probe map sends a real configuration's private
	// addresses to local ones.
	Address  string
	Interval time.Duration
	Timeout  time.Duration
	// HealthyThreshold and UnhealthyThreshold are consecutive counts.
	HealthyThreshold, UnhealthyThreshold int
	// Log turns on one log line per state transition.
	Log bool
	// LoadBalancer is the type of load balancer the probes are for ("" for
	// autohealing), as the cloud's prober-range tables name it.
	LoadBalancer string
	// Firewall, when set, says what the network's firewall rules do to the
	// cloud's probes of the endpoint (FirewallVerdict BLOCKED or PARTIAL):
	// a finding, which does not change how it is probed; FirewallFix the
	// rule that would let the probes in.
	Firewall, FirewallVerdict, FirewallFix string
	// Multiplicity is how many times each prober probes the endpoint per
	// interval: the forwarding rules or target proxies that use its owner
	// (--probe-multiplicity); 0 and 1 mean once.
	Multiplicity int
	// Blocked: every probe would be blocked, and the emulator enforces its
	// rules: the endpoint is reported UNHEALTHY (FIREWALL_BLOCKED). It is
	// still probed behind the block, so that its real verdict shows as
	// soon as a rule lets the probers in.
	Blocked bool
	// Unchecked: the owner has no health check (a target pool without
	// one): the endpoint is reported HEALTHY (NO_HEALTH_CHECK) at once and
	// never probed; the other fields are unset.
	Unchecked bool
}

// ID identifies a target across updates: one endpoint of one group probed
// for one owner (an endpoint in several services is probed once
// per service).
func (t *Target) ID() string { return t.key().id(t.Owner) }

// placement is how the engine keeps a Target: the same fields, but the
// check by reference, shared by the owner's endpoints probed alike (a
// service's 100,000 endpoints keep one check, not 100,000 copies).
type placement struct {
	Owner, Group string
	Endpoint     Endpoint
	Check        *Check
}

// place is t kept with check, which must equal t.Check.
func place(t *Target, owner string, check *Check) placement {
	return placement{Owner: owner, Group: t.Group, Endpoint: t.Endpoint, Check: check}
}

// sameAs tells whether p holds the settings of t.
func (p *placement) sameAs(t *Target) bool {
	return p.Group == t.Group && p.Endpoint == t.Endpoint && *p.Check == t.Check
}

// endpointKey tells an owner's endpoints apart: its group and address
// (see ID), sharing the strings of the settings rather than joining them.
type endpointKey struct {
	group, ip, instance string // instance only when the address is unknown
	port                int
}

func keyOf(group string, ep Endpoint) endpointKey {
	k := endpointKey{group: group, ip: ep.IP, port: ep.Port}
	if ep.IP == "" {
		// An instance whose address is unknown: its name tells it apart.
		k.instance = ep.Instance
	}
	return k
}

func (t *Target) key() endpointKey    { return keyOf(t.Group, t.Endpoint) }
func (p *placement) key() endpointKey { return keyOf(p.Group, p.Endpoint) }

// id is the ID of the endpoint k of owner.
func (k endpointKey) id(owner string) string {
	addr := k.ip
	if addr == "" {
		addr = "instance " + k.instance
	}
	return owner + "|" + k.group + "|" + net.JoinHostPort(addr, strconv.Itoa(k.port))
}

// interner hands out one *Check per distinct check of an update: the
// endpoints of an owner nearly always share theirs, so the last one given
// answers most lookups.
type interner struct {
	last  *Check
	known map[Check]*Check
}

// of is the shared copy of c: kept, the check an endpoint already has,
// when it is the same.
func (in *interner) of(c, kept *Check) *Check {
	if in.last != nil && *in.last == *c {
		return in.last
	}
	if kept == nil || *kept != *c {
		if kept = in.known[*c]; kept == nil {
			kept = new(Check)
			*kept = *c
		}
	}
	if in.known == nil {
		in.known = map[Check]*Check{}
	}
	in.known[*c] = kept
	in.last = kept
	return kept
}

// Status is the health of one target, as getHealth reports it.
type Status struct {
	Owner, Group string
	Endpoint     Endpoint
	Check        string
	ProbedAt     string // the address probed, when a probe map moved it
	// Port is the port probed: the endpoint's own, else its check's (an
	// instance or a target pool's bare address); 0 when unresolved.
	Port      int
	State     string
	Reason    string // why it is not healthy (TIMEOUT, STOPPED, ...)
	Detail    string
	LastProbe time.Time     // zero before the first probe
	Latency   time.Duration // of the last probe
	Since     time.Time     // when State last changed
	// History holds the last Recorded results (at most 32), newest in
	// bit 0, 1 for a probe that passed: Recent reads them.
	History  uint32
	Recorded int
	// LoadBalancer, Firewall, FirewallVerdict and FirewallFix are the
	// target's (Check).
	LoadBalancer, Firewall, FirewallVerdict, FirewallFix string
	// Probes counts the results recorded since the target (re)started.
	// ExpectedRate is the probes per second its settings ask for (0 when
	// it is not probed), DeliveredRate the mean rate since its first
	// probe (0 before the second).
	Probes                      uint64
	ExpectedRate, DeliveredRate float64
}

// Recent is the last results, oldest first: true for a probe that passed.
func (s Status) Recent() []bool {
	out := make([]bool, s.Recorded)
	for i := range out {
		out[i] = s.History&(1<<(s.Recorded-1-i)) != 0
	}
	return out
}

// Address is the endpoint as people read it: its address and the port it
// is probed on (the address alone while the port is unresolved).
func (s Status) Address() string {
	port := s.Endpoint.Port
	if port == 0 {
		port = s.Port
	}
	if port == 0 {
		return s.Endpoint.IP
	}
	return net.JoinHostPort(s.Endpoint.IP, strconv.Itoa(port))
}

// Transition is one change of an endpoint's state.
type Transition struct {
	Status
	From string
	log  bool // the check asks for transitions to be logged
}

// Config configures an Engine.
type Config struct {
	// Probers is how many independent probers probe each endpoint (>= 1).
	Probers int
	Clock   Clock
	Probe   prober.Func
	Log     *slog.Logger
	Metrics *Metrics
	// Node is who this emulator is, for the probes that ask (expressions).
	Node prober.Node
	// OnTransition, if set, is called (outside any lock of the engine) on
	// every state change.
	OnTransition func(Transition)
	// Scale is a check's interval or timeout as the emulator runs it: the
	// emulator's clock's (its time scale divides them where the scheduler
	// reads them; the probes stay real probes, and the stored settings
	// compare as they are). nil: real time.
	Scale func(time.Duration) time.Duration
}

// Engine probes targets and keeps their health.
type Engine struct {
	cfg     Config
	metrics *Metrics
	ctx     context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup // the scheduler and the probes on goroutines
	sched   schedule
	// reactor runs the probes of every protocol but HTTP2 and gRPC when
	// the engine uses the real probers and clock (TLS ones from the end
	// of their handshake); nil when Config replaces them, or off Linux.
	reactor   *prober.Reactor
	interrupt func() // reactor.Interrupt, bound once

	mu sync.Mutex
	// byOwner holds the endpoints by owner: health sources read one
	// service's endpoints on every transition, which must not scan all.
	byOwner map[string]map[endpointKey]*endpoint
}

// endpoint is the live state of one target.
type endpoint struct {
	target atomic.Pointer[placement]
	series []*series // one per prober while probed

	mu         sync.Mutex
	generation int // bumped when the check changes: older results are dropped
	verdict    verdict
	reason     string
	detail     string
	lastProbe  time.Time
	latency    time.Duration // of the last probe
	// since is when the state reported last changed (or the target
	// started over).
	since time.Time
	// history holds the last results, newest in bit 0 (1 passed);
	// recorded says how many of its bits are results.
	history  uint32
	recorded int
	// probes and firstProbe count the results recorded since the target
	// (re)started, for the rate delivered.
	probes     uint64
	firstProbe time.Time
}

// New returns an Engine that probes nothing until Update.
func New(cfg Config) *Engine {
	if cfg.Probers < 1 {
		cfg.Probers = 1
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	var reactor *prober.Reactor
	if cfg.Probe == nil && cfg.Clock == nil {
		var err error
		if reactor, err = prober.NewReactor(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			cfg.Log.Warn("every probe runs on a goroutine of its own", "reason", err)
		}
	}
	if cfg.Probe == nil {
		cfg.Probe = prober.Probe
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Scale == nil {
		cfg.Scale = func(d time.Duration) time.Duration { return d }
	}
	ctx, stop := context.WithCancel(context.Background())
	e := &Engine{cfg: cfg, metrics: cfg.Metrics, ctx: ctx, stop: stop, reactor: reactor,
		byOwner: map[string]map[endpointKey]*endpoint{}}
	e.interrupt = reactor.Interrupt
	e.wg.Go(func() { e.run(ctx) })
	return e
}

// Update makes targets the whole set being probed.
func (e *Engine) Update(targets []Target) {
	byOwner := map[string][]Target{}
	e.mu.Lock()
	for owner := range e.byOwner {
		byOwner[owner] = nil // probed now, and not in targets: stops
	}
	e.mu.Unlock()
	// An owner's targets usually come together (a plan lists them so):
	// each is then a part of targets, not a copy of 300 bytes a target.
	// A part ends at its capacity: an owner that comes again is appended
	// in a copy, never over targets.
	start := 0
	for i := range targets {
		if i+1 < len(targets) && targets[i+1].Owner == targets[i].Owner {
			continue
		}
		owner := targets[i].Owner
		if byOwner[owner] != nil {
			byOwner[owner] = append(byOwner[owner], targets[start:i+1]...)
		} else {
			byOwner[owner] = targets[start : i+1 : i+1]
		}
		start = i + 1
	}
	e.UpdateOwners(byOwner)
}

// UpdateOwners makes targets[owner] the targets of each owner it names
// (none: the owner is no longer probed), and leaves every other owner's
// targets alone: a write re-plans only the owners it affects. Each
// target's Owner must be the key it is listed under. Verdicts settled here
// (stopped or unprobeable endpoints) are reported once the engine's lock
// is released, since OnTransition may read the engine.
func (e *Engine) UpdateOwners(targets map[string][]Target) {
	var settled []Transition
	findings := map[finding]int{}
	defer func() {
		e.logFindings(findings)
		for _, tr := range settled {
			e.transition(tr)
		}
	}()
	e.mu.Lock()
	defer e.mu.Unlock()
	for owner, ts := range targets {
		var checks interner
		seen := make(map[endpointKey]bool, len(ts))
		for i := range ts {
			t := &ts[i]
			key := t.key()
			seen[key] = true
			ep, ok := e.byOwner[owner][key]
			var kept *Check // the check it has, if any
			if ok {
				old := ep.target.Load()
				if old.sameAs(t) {
					continue
				}
				kept = old.Check
			}
			if t.Check.Firewall != "" && (kept == nil || kept.Firewall != t.Check.Firewall) {
				findings[finding{owner, t.Check.LoadBalancer, t.Check.FirewallVerdict, t.Check.Firewall}]++
			}
			pl := place(t, owner, checks.of(&t.Check, kept))
			if !ok {
				ep = e.add(key, &pl)
			} else if restart, tr := e.change(ep, &pl); !restart {
				if tr != nil {
					settled = append(settled, *tr)
				}
				continue
			}
			if tr, ok := e.settle(ep, &pl); ok {
				settled = append(settled, tr)
			}
			e.start(ep, &pl)
		}
		for key, ep := range e.byOwner[owner] {
			if !seen[key] {
				e.remove(key, ep)
			}
		}
	}
}

// finding is a firewall finding new to some endpoints of an owner.
type finding struct{ owner, loadBalancer, verdict, message string }

// logFindings logs each new firewall finding once, with the number of
// endpoints it is new to.
func (e *Engine) logFindings(findings map[finding]int) {
	for f, n := range findings {
		e.cfg.Log.Warn("the cloud's health-check probers would not reach these endpoints", "resource", f.owner,
			"load_balancer", f.loadBalancer, "verdict", f.verdict, "endpoints", n, "finding", f.message)
	}
}

// add registers a new target, UNKNOWN until probed or settled.
func (e *Engine) add(key endpointKey, pl *placement) *endpoint {
	ep := &endpoint{verdict: newVerdict(e.probers(pl)), since: e.cfg.Clock.Now()}
	ep.target.Store(pl)
	if e.byOwner[pl.Owner] == nil {
		e.byOwner[pl.Owner] = map[endpointKey]*endpoint{}
	}
	e.byOwner[pl.Owner][key] = ep
	return ep
}

// remove stops probing a target and forgets it.
func (e *Engine) remove(key endpointKey, ep *endpoint) {
	e.halt(ep)
	owner := ep.target.Load().Owner
	delete(e.byOwner[owner], key)
	if len(e.byOwner[owner]) == 0 {
		delete(e.byOwner, owner)
	}
}

// change applies new settings and tells whether the target must start over.
// A change of what is probed or how it is judged restarts the verdict at
// UNKNOWN (a changed check has no verdict yet); the log flag, an instance
// name, the firewall's finding and block apply in place and the verdict
// carries on. A block that comes or goes changes the state reported: that
// is the transition returned.
func (e *Engine) change(ep *endpoint, t *placement) (bool, *Transition) {
	old := ep.target.Load()
	if judgedAlike(old, t) {
		ep.mu.Lock()
		from, _, _ := ep.reportedLocked(old)
		ep.target.Store(t)
		tr, changed := ep.changedLocked(t, from, e.cfg.Clock.Now(), e.cfg.Scale)
		ep.mu.Unlock()
		if changed {
			return false, &tr
		}
		return false, nil
	}
	e.halt(ep)
	ep.mu.Lock()
	// Target and generation change together, under the lock record takes:
	// a result probed with the old settings can never meet the new ones.
	ep.target.Store(t)
	ep.generation++
	ep.verdict = newVerdict(e.probers(t))
	ep.reason, ep.detail, ep.lastProbe, ep.latency = "", "", time.Time{}, 0
	ep.probes, ep.firstProbe = 0, time.Time{}
	ep.history, ep.recorded, ep.since = 0, 0, e.cfg.Clock.Now()
	ep.mu.Unlock()
	return true, nil
}

// judgedAlike tells whether two settings of one target probe and judge the
// same way.
func judgedAlike(a, b *placement) bool {
	ac, bc, ae, be := *a.Check, *b.Check, a.Endpoint, b.Endpoint
	ac.Log, bc.Log, ae.Instance, be.Instance = false, false, "", ""
	ac.LoadBalancer, bc.LoadBalancer, ac.Firewall, bc.Firewall = "", "", "", ""
	ac.FirewallVerdict, bc.FirewallVerdict, ac.Blocked, bc.Blocked = "", "", false, false
	ac.FirewallFix, bc.FirewallFix = "", ""
	// The specs' parts are pointers, made anew at each plan: compared by
	// what they hold.
	same := ac.Probe.Equal(bc.Probe)
	ac.Probe, bc.Probe = prober.Spec{}, prober.Spec{}
	return same && ac == bc && ae == be
}

// settle gives endpoints that are not probed their verdict at once, and
// returns it as a transition to report.
func (e *Engine) settle(ep *endpoint, t *placement) (Transition, bool) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	from := ep.verdict.state
	switch {
	case t.Endpoint.Stopped:
		// Probers connect only to running machines.
		ep.verdict.state, ep.reason, ep.detail = api.StateUnhealthy, ReasonStopped, "the endpoint is STOPPED: it is not probed"
	case t.Check.Unresolved != "":
		ep.verdict.state, ep.reason, ep.detail = api.StateUnhealthy, ReasonNotProbed, t.Check.Unresolved
	case t.Check.Unchecked:
		ep.verdict.state, ep.reason, ep.detail = api.StateHealthy, ReasonNoHealthCheck,
			"no health check: every instance is treated as HEALTHY, without probes"
	case t.Check.Port == 0 && !t.Check.Probe.NoPort():
		ep.verdict.state, ep.reason, ep.detail = api.StateUnhealthy, ReasonNotProbed, ""
	case !t.Check.Blocked:
		return Transition{}, false
	}
	// Settled, or blocked: probed behind the block and reported UNHEALTHY
	// at once.
	return ep.changedLocked(t, from, e.cfg.Clock.Now(), e.cfg.Scale)
}

// changedLocked is the transition from state from, at now, when ep's
// reported state with settings t is another: since then moves to now.
func (ep *endpoint) changedLocked(t *placement, from string, now time.Time, scale func(time.Duration) time.Duration) (Transition, bool) {
	if to, _, _ := ep.reportedLocked(t); to == from {
		return Transition{}, false
	}
	ep.since = now
	return Transition{Status: ep.statusLocked(t, scale), From: from, log: t.Check.Log}, true
}

// start schedules the probes of a target that is to be probed, one
// series per prober.
func (e *Engine) start(ep *endpoint, t *placement) {
	if !t.probed() {
		return
	}
	id := t.key().id(t.Owner)
	for p := range e.probers(t) {
		s := e.newSeries(ep, id, t, p)
		ep.series = append(ep.series, s)
		e.sched.add(s)
	}
}

// probed tells whether t is probed at all: not when its endpoint is
// stopped, its owner has no check, or no port or address resolves (settle
// gives those their verdict).
func (t *placement) probed() bool {
	return !t.Endpoint.Stopped && !t.Check.Unchecked && t.Check.Unresolved == "" && (t.Check.Port != 0 || t.Check.Probe.NoPort())
}

// probers is how many probe series probe t: each prober, as many times as
// its multiplicity says.
func (e *Engine) probers(t *placement) int { return e.cfg.Probers * max(1, t.Check.Multiplicity) }

// halt stops a target's probing at once: no probe starts any more, and a
// probe in flight is abandoned (cancelled when blocking, its result
// dropped either way).
func (e *Engine) halt(ep *endpoint) {
	for _, s := range ep.series {
		e.sched.halt(s)
	}
	ep.series = nil
}

// current returns the settings a probe starting now uses, and their
// generation.
func (ep *endpoint) current() (*placement, int) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.target.Load(), ep.generation
}

// facts are what a probe that asks for them (an expression) knows of ep.
func (e *Engine) facts(ep *endpoint) prober.Facts {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	f := prober.Facts{Node: e.cfg.Node, State: ep.verdict.state}
	for _, c := range ep.verdict.counts {
		f.Successes = max(f.Successes, int(c.successes))
		f.Failures = max(f.Failures, int(c.failures))
	}
	return f
}

// record feeds one probe result, of a probe from start to end, into the
// endpoint's verdict.
func (e *Engine) record(ep *endpoint, gen, p int, res prober.Result, start, end time.Time) {
	ep.mu.Lock()
	t := ep.target.Load()
	if gen != ep.generation {
		ep.mu.Unlock()
		return // probed with settings that have since changed
	}
	from, _, _ := ep.reportedLocked(t)
	to := ep.verdict.observe(p, res.Healthy, t.Check.HealthyThreshold, t.Check.UnhealthyThreshold)
	ep.lastProbe, ep.latency = start, end.Sub(start)
	ep.history <<= 1
	if res.Healthy {
		ep.history |= 1
	}
	ep.recorded = min(ep.recorded+1, historyLen)
	if ep.probes == 0 {
		ep.firstProbe = start
	}
	ep.probes++
	if to != api.StateHealthy && !res.Healthy {
		ep.reason, ep.detail = res.Reason, res.Detail
	} else if to == api.StateHealthy {
		ep.reason, ep.detail = "", ""
	}
	// The status is built only for a transition: most probes change no
	// state.
	tr, changed := ep.changedLocked(t, from, end, e.cfg.Scale)
	ep.mu.Unlock()
	if changed {
		e.transition(tr)
	}
}

// historyLen is how many of the last results an endpoint keeps.
const historyLen = 32

// transition logs a state change (for checks with logging on) and hands it
// to OnTransition. It runs outside every lock of the engine.
func (e *Engine) transition(tr Transition) {
	if tr.log {
		e.cfg.Log.Info("health transition",
			"resource", tr.Owner, "check", tr.Check, "endpoint", tr.Address(),
			"group", tr.Group, "from", tr.From, "to", tr.State, "reason", tr.Reason, "detail", tr.Detail)
	}
	if e.cfg.OnTransition != nil {
		e.cfg.OnTransition(tr)
	}
}

// expectedRate is the probes per second t asks for: every probe series
// (v has one per series) once per interval; 0 for a target not probed.
// The interval is as the engine runs it (scaled).
func expectedRate(t *placement, v verdict, scale func(time.Duration) time.Duration) float64 {
	if t.Check.Interval <= 0 || !t.probed() {
		return 0
	}
	return float64(len(v.counts)) / scale(t.Check.Interval).Seconds()
}

// deliveredRateLocked is the mean rate of the probes recorded since the
// first one.
func (ep *endpoint) deliveredRateLocked() float64 {
	span := ep.lastProbe.Sub(ep.firstProbe).Seconds()
	if ep.probes < 2 || span <= 0 {
		return 0
	}
	return float64(ep.probes-1) / span
}

// reportedLocked is the state, reason and detail ep is reported in with
// settings t: its verdict, unless the firewall blocks the probers (and the
// emulator enforces it), and a settled verdict (stopped, not probed) comes
// before the block.
func (ep *endpoint) reportedLocked(t *placement) (state, reason, detail string) {
	if t.Check.Blocked && ep.reason != ReasonStopped && ep.reason != ReasonNotProbed {
		return api.StateUnhealthy, ReasonFirewallBlocked, t.Check.Firewall
	}
	return ep.verdict.state, ep.reason, ep.detail
}

func (ep *endpoint) statusLocked(t *placement, scale func(time.Duration) time.Duration) Status {
	state, reason, detail := ep.reportedLocked(t)
	return Status{Owner: t.Owner, Group: t.Group, Endpoint: t.Endpoint, Check: t.Check.Name, ProbedAt: t.Check.Address,
		Port: t.Check.Port, State: state, Reason: reason, Detail: detail, LastProbe: ep.lastProbe, Probes: ep.probes,
		Since: ep.since, Latency: ep.latency, History: ep.history, Recorded: ep.recorded,
		ExpectedRate: expectedRate(t, ep.verdict, scale), DeliveredRate: ep.deliveredRateLocked(),
		LoadBalancer: t.Check.LoadBalancer, Firewall: t.Check.Firewall, FirewallVerdict: t.Check.FirewallVerdict,
		FirewallFix: t.Check.FirewallFix}
}

// Statuses returns the health of every target of owner, ordered by group
// and address.
func (e *Engine) Statuses(owner string) []Status {
	e.mu.Lock()
	eps := make([]*endpoint, 0, len(e.byOwner[owner]))
	for _, ep := range e.byOwner[owner] {
		eps = append(eps, ep)
	}
	e.mu.Unlock()
	return statusesOf(eps, e.cfg.Scale)
}

// All returns the health of every target.
func (e *Engine) All() []Status {
	e.mu.Lock()
	var eps []*endpoint
	for _, owned := range e.byOwner {
		for _, ep := range owned {
			eps = append(eps, ep)
		}
	}
	e.mu.Unlock()
	return statusesOf(eps, e.cfg.Scale)
}

func statusesOf(eps []*endpoint, scale func(time.Duration) time.Duration) []Status {
	out := make([]Status, 0, len(eps))
	for _, ep := range eps {
		ep.mu.Lock()
		out = append(out, ep.statusLocked(ep.target.Load(), scale))
		ep.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b Status) int {
		return cmp.Or(strings.Compare(a.Owner, b.Owner), strings.Compare(a.Group, b.Group),
			strings.Compare(a.Endpoint.IP, b.Endpoint.IP), cmp.Compare(a.Endpoint.Port, b.Endpoint.Port))
	})
	return out
}

// Counts tallies the states of owner's endpoints.
type Counts struct {
	Healthy, Unknown, Total int64
}

// Count tallies owner's endpoints by state, without copying or sorting:
// what aggregation needs on every transition.
func (e *Engine) Count(owner string) Counts {
	e.mu.Lock()
	eps := make([]*endpoint, 0, len(e.byOwner[owner]))
	for _, ep := range e.byOwner[owner] {
		eps = append(eps, ep)
	}
	e.mu.Unlock()
	var c Counts
	for _, ep := range eps {
		ep.mu.Lock()
		state, _, _ := ep.reportedLocked(ep.target.Load())
		c.Add(state)
		ep.mu.Unlock()
	}
	return c
}

// Add counts one endpoint in state.
func (c *Counts) Add(state string) {
	c.Total++
	switch state {
	case api.StateHealthy:
		c.Healthy++
	case api.StateUnknown:
		c.Unknown++
	}
}

// Close stops every probe and waits for the scheduler and the probes in
// flight to end.
func (e *Engine) Close() {
	e.stop()
	e.reactor.Interrupt() // the scheduler may sleep in Poll
	e.wg.Wait()
	e.reactor.Close()
}
