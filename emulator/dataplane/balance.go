package dataplane

import (
	"cmp"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Load-balancing policies and session affinities of a backend service, as
// the Compute API names them.
const (
	PolicyRoundRobin   = "ROUND_ROBIN"
	PolicyLeastRequest = "LEAST_REQUEST"
	PolicyRingHash     = "RING_HASH"
	PolicyRandom       = "RANDOM"
	PolicyMaglev       = "MAGLEV"

	AffinityNone            = "NONE"
	AffinityClientIP        = "CLIENT_IP"
	AffinityGeneratedCookie = "GENERATED_COOKIE"
	AffinityHeaderField     = "HEADER_FIELD"
	AffinityHTTPCookie      = "HTTP_COOKIE"
	AffinityStrongCookie    = "STRONG_COOKIE_AFFINITY"
)

// generatedCookie is the cookie of GENERATED_COOKIE affinity, named as the
// cloud's Application Load Balancers name it.
const generatedCookie = "GCLB"

// backend is one endpoint traffic may go to. It outlives the pools that
// list it, so that its count of requests in flight survives a change of
// health elsewhere in the service.
type backend struct {
	addr     string // host:port sent to (passthrough: the address alone, when it has no port of its own)
	id       string // the GENERATED_COOKIE value that names it
	group    string // its backend group when its pool was last built (capacity.go)
	via      string // a Cloud Run service's: what marks the load balancer's requests (Serverless.Via)
	inFlight atomic.Int64
	conns    conns // the connections carried to it (TCP)
	outlier  outlier
	retired  atomic.Bool // out of its pool, its HTTP connections drained
	http     openConns   // the reverse proxy's connections to it
}

// pool is a service's healthy backends at one moment, and how it chooses
// among them; a change of health makes a new pool.
type pool struct {
	policy   string
	affinity string
	header   string              // HEADER_FIELD: the header hashed
	cookie   http.Cookie         // the affinity's cookie, but for its value
	healthy  []*backend          // where new traffic goes (healthy, or all as a last resort)
	groups   map[*backend]string // the backend group of each of healthy
	// By capacity (capacity.go); nil when every backend weighs the same.
	weights  []float64     // of each of healthy
	cum      []float64     // running sums of weights
	order    []int32       // ROUND_ROBIN's cycle over healthy
	draining time.Duration // connectionDraining.drainingTimeoutSec
	timeout  time.Duration // a proxy's service's timeoutSec
	next     atomic.Uint64 // ROUND_ROBIN
}

// choice is the backend chosen for one request, and the cookie to set when
// affinity wants one.
type choice struct {
	b      *backend
	cookie *http.Cookie
}

// choose picks a healthy backend for r; nil when none is healthy.
func (p *pool) choose(r request) choice {
	if len(p.healthy) == 0 {
		return choice{}
	}
	switch p.affinity {
	case AffinityClientIP:
		return choice{b: p.hashed(r.clientIP())}
	case AffinityHeaderField:
		if v, _ := r.header(p.header); v != "" {
			return choice{b: p.hashed(v)}
		}
	case AffinityGeneratedCookie, AffinityStrongCookie:
		// The cookie names the backend: a client stays with it while it
		// is healthy, whatever else joins or leaves.
		if v := r.cookie(p.cookie.Name); v != "" {
			for _, b := range p.healthy {
				if b.id == v {
					return choice{b: b}
				}
			}
		}
		b := p.byPolicy()
		return choice{b: b, cookie: p.newCookie(b.id)}
	case AffinityHTTPCookie:
		if v := r.cookie(p.cookie.Name); v != "" {
			return choice{b: p.hashed(v)}
		}
		v := strconv.FormatUint(rand.Uint64(), 36)
		return choice{b: p.hashed(v), cookie: p.newCookie(v)}
	}
	return choice{b: p.byPolicy()}
}

// newCookie is the affinity's cookie with value v.
func (p *pool) newCookie(v string) *http.Cookie {
	c := p.cookie
	c.Value = v
	return &c
}

// chooseAgain picks a backend for a request's next attempt by policy
// alone: affinity would pick the one that just failed.
func (p *pool) chooseAgain() choice {
	if len(p.healthy) == 0 {
		return choice{}
	}
	return choice{b: p.byPolicy()}
}

// byPolicy picks by the service's localityLbPolicy when no affinity
// decides: ROUND_ROBIN (the default) in turn, LEAST_REQUEST the fewer
// requests in flight of two picked at random, and RANDOM, RING_HASH and
// MAGLEV (which hash what affinity gives them, here nothing) at random.
func (p *pool) byPolicy() *backend {
	switch p.policy {
	case PolicyLeastRequest:
		a, b := p.pick(), p.pick()
		if p.load(b) < p.load(a) {
			return p.healthy[b]
		}
		return p.healthy[a]
	case PolicyRandom, PolicyRingHash, PolicyMaglev:
		return p.healthy[p.pick()]
	}
	turn := p.next.Add(1) - 1
	if p.order != nil {
		return p.healthy[p.order[turn%uint64(len(p.order))]]
	}
	return p.healthy[turn%uint64(len(p.healthy))]
}

// hashed is the backend a key sticks to: the highest of the key's hashes
// with each backend (rendezvous hashing), so that a key moves only when
// its backend leaves, and a backend's keys spread over the others.
func (p *pool) hashed(key string) *backend {
	var best *backend
	var top uint64
	var topScore float64
	for i, b := range p.healthy {
		h := fnv.New64a()
		h.Write([]byte(key))
		h.Write([]byte{0})
		h.Write([]byte(b.addr))
		v := mix(h.Sum64())
		if p.weights != nil {
			if s := p.score(i, v); best == nil || s > topScore {
				best, topScore = b, s
			}
		} else if best == nil || v > top {
			best, top = b, v
		}
	}
	return best
}

// mix scrambles an FNV-1a hash (murmur3's finalizer): the hashes of
// strings that differ only in their last bytes (the backends' addresses)
// are close in their high bits, which rendezvous hashing compares.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Modes of a pool: what its traffic needs of an endpoint, and where it
// goes when no endpoint is healthy.
const (
	// modeProxy: a proxy's (HTTP, TCP): to the serving port; with no
	// endpoint healthy, nowhere.
	modeProxy = "proxy"
	// modePassthrough: a passthrough Network Load Balancer's: to the port
	// the client sent to (unless the endpoint has a port of its own); with
	// no endpoint healthy, to every one, as the cloud does, unless a
	// failover policy says otherwise.
	modePassthrough = "passthrough"
)

// poolKey names a pool: its owner (a backend service or a target pool)
// and mode.
type poolKey struct{ owner, mode string }

// pools keeps each owner's pool, made anew from the engine's health when
// the health of one of its endpoints or the configuration changed.
type pools struct {
	health  Health
	allowed func(netip.Addr) bool
	mapAddr func(netip.Addr) netip.Addr // nil: none
	clock   Clock
	// serverless resolves serverless network endpoint groups (nil: none).
	serverless Serverless
	mu         sync.Mutex
	byKey      map[poolKey]*poolEntry
}

type poolEntry struct {
	key      poolKey
	owners   atomic.Pointer[[]string] // whose health it is made of (a target pool's backup pool too)
	stale    atomic.Bool
	current  atomic.Pointer[pool]
	mu       sync.Mutex
	backends map[string]*backend // by address: kept across pools
}

// get is the pool of key in cfg, rebuilt first when stale.
func (ps *pools) get(cfg *config, key poolKey) *pool {
	ps.mu.Lock()
	e := ps.byKey[key]
	if e == nil {
		e = &poolEntry{key: key, backends: map[string]*backend{}}
		owners := cfg.ownersOf(key.owner)
		e.owners.Store(&owners)
		e.stale.Store(true)
		ps.byKey[key] = e
	}
	ps.mu.Unlock()
	if !e.stale.Load() {
		if p := e.current.Load(); p != nil {
			return p
		}
	}
	return ps.refresh(cfg, e)
}

// refresh builds e's pool again if it is stale, and drains the
// connections of the backends it no longer sends to.
func (ps *pools) refresh(cfg *config, e *poolEntry) *pool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.stale.Swap(false) && e.current.Load() != nil {
		return e.current.Load()
	}
	owners := cfg.ownersOf(e.key.owner)
	e.owners.Store(&owners)
	p := ps.build(cfg, e)
	active := map[*backend]bool{}
	for _, b := range p.healthy {
		active[b] = true
		b.retired.Store(false)
	}
	now := ps.clock.Now()
	for addr, b := range e.backends {
		if active[b] {
			continue
		}
		b.conns.drain(p.draining, ps.clock.AfterFunc)
		if !b.retired.Swap(true) {
			b.drainHTTP(cmp.Or(p.draining, p.timeout), ps.clock.AfterFunc)
		}
		if b.inFlight.Load() == 0 && b.conns.count() == 0 && b.http.count() == 0 &&
			!b.outlier.ejected(now) {
			delete(e.backends, addr) // made again (same id) if it comes back
		}
	}
	e.current.Store(p)
	return p
}

// member is one endpoint of an owner as a pool sees it.
type member struct {
	addr     string
	group    string
	healthy  bool
	failover bool
	via      string // a Cloud Run service's (backend.via)
}

// members lists owner's endpoints that traffic may reach, at the address
// the mode sends to.
func (ps *pools) members(cfg *config, owner, mode string) []member {
	bs := cfg.service(owner)
	failover, drained := map[string]bool{}, map[string]bool{}
	if bs != nil {
		for _, b := range bs.Backends {
			if b.Failover {
				failover[api.PathOf(b.Group)] = true
			}
			if b.CapacityScaler != nil && *b.CapacityScaler == 0 && mode == modeProxy {
				drained[api.PathOf(b.Group)] = true
			}
		}
	}
	var out []member
	seen := map[string]bool{}
	for _, st := range ps.health.Statuses(owner) {
		addr, ok := cfg.addrFor(bs, st, mode)
		if !ok || seen[addr] || drained[st.Group] {
			continue
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		if ip, err := netip.ParseAddr(host); err != nil || ps.allowed != nil && !ps.allowed(ip) {
			continue
		}
		seen[addr] = true
		out = append(out, member{addr: addr, group: st.Group, healthy: st.State == api.StateHealthy, failover: failover[st.Group]})
	}
	return append(out, ps.serverlessMembers(cfg, bs)...)
}

// build makes the pool of e: the backends new traffic goes to, as the
// owner's kind and settings decide.
func (ps *pools) build(cfg *config, e *poolEntry) *pool {
	owner, mode := e.key.owner, e.key.mode
	p := &pool{cookie: http.Cookie{Name: generatedCookie, Path: "/", HttpOnly: true}, groups: map[*backend]string{}}
	now := ps.clock.Now()
	add := func(ms []member, keep func(member) bool) {
		for _, m := range ms {
			if !keep(m) {
				continue
			}
			key := m.addr
			if m.via != "" {
				key += " " + m.via // two tags of one Cloud Run service are two backends
			}
			b := e.backends[key]
			if b == nil {
				h := fnv.New64a()
				h.Write([]byte(key))
				b = &backend{addr: m.addr, id: strconv.FormatUint(h.Sum64(), 36), via: m.via}
				e.backends[key] = b
			}
			if b.outlier.ejected(now) {
				continue // by outlier detection, for a while
			}
			b.group = m.group
			p.healthy = append(p.healthy, b)
			p.groups[b] = m.group
		}
	}
	healthy := func(m member) bool { return m.healthy }
	ms := ps.members(cfg, owner, mode)
	if ti := cfg.targetInstance(owner); ti != nil {
		// Protocol forwarding: every connection to the one instance, which
		// no health check judges; a stopped instance gets none.
		if vm := cfg.instance(api.PathOf(ti.Instance)); vm != nil && running(vm.Status) && len(vm.NetworkInterfaces) > 0 {
			if a, err := netip.ParseAddr(vm.NetworkInterfaces[0].NetworkIP); err == nil {
				if ps.mapAddr != nil {
					a = ps.mapAddr(a)
				}
				if ps.allowed == nil || ps.allowed(a) {
					add([]member{{addr: a.String(), healthy: true}}, healthy)
				}
			}
		}
		return p
	}
	if tp := cfg.targetPool(owner); tp != nil {
		p.affinity = tp.SessionAffinity
		add(ms, healthy)
		if tp.BackupPool != "" && ratio(ms) <= tp.FailoverRatio {
			// Too few of the primary pool healthy: the backup pool serves.
			backup := ps.members(cfg, api.PathOf(tp.BackupPool), mode)
			if countHealthy(backup) > 0 {
				p.healthy = p.healthy[:0]
				add(backup, healthy)
			}
		}
		if len(p.healthy) == 0 {
			add(ms, func(member) bool { return true })
		}
		return p
	}
	bs := cfg.service(owner)
	if bs == nil {
		return p
	}
	p.policy, p.affinity = bs.LocalityLbPolicy, bs.SessionAffinity
	p.cookie.MaxAge = int(orDefault(bs.AffinityCookieTTLSec, 0))
	if ch := bs.ConsistentHash; ch != nil {
		p.header = ch.HTTPHeaderName
		if p.affinity == AffinityHTTPCookie {
			p.cookie = affinityCookie(ch.HTTPCookie, p.cookie.Name)
		}
	}
	if p.affinity == AffinityStrongCookie {
		p.cookie = affinityCookie(bs.StrongSessionAffinityCookie, generatedCookie)
	}
	if d := bs.ConnectionDraining; d != nil {
		p.draining = ps.clock.Scale(time.Duration(d.DrainingTimeoutSec) * time.Second)
	}
	p.timeout = backendTimeout(bs)
	if mode != modePassthrough {
		add(ms, healthy)
		p.weigh(weightsOf(bs, p.healthy))
		return p
	}
	var failoverRatio float64
	drop := false
	if fp := bs.FailoverPolicy; fp != nil {
		failoverRatio, drop = fp.FailoverRatio, fp.DropTrafficIfUnhealthy
	}
	primary := func(m member) bool { return !m.failover }
	standby := func(m member) bool { return m.healthy && m.failover }
	add(ms, func(m member) bool { return m.healthy && !m.failover })
	if (len(p.healthy) == 0 || ratioOf(ms, primary) < failoverRatio) && countWhere(ms, standby) > 0 {
		// Failover: too few primaries healthy (with no ratio, none), and
		// a failover backend is.
		p.healthy = p.healthy[:0]
		add(ms, standby)
	}
	if len(p.healthy) == 0 && !drop {
		add(ms, primary) // none healthy: every primary backend, as a last resort
	}
	return p
}

// running tells whether an instance in status takes traffic.
func running(status string) bool {
	switch status {
	case "STOPPING", "STOPPED", "SUSPENDING", "SUSPENDED", "TERMINATED":
		return false
	}
	return true
}

func countWhere(ms []member, f func(member) bool) int {
	n := 0
	for _, m := range ms {
		if f(m) {
			n++
		}
	}
	return n
}

func countHealthy(ms []member) int { return countWhere(ms, func(m member) bool { return m.healthy }) }

// ratio is the fraction of ms that is healthy (1 for none: nothing failed).
func ratio(ms []member) float64 { return ratioOf(ms, func(member) bool { return true }) }

// ratioOf is the fraction of the members f keeps that are healthy.
func ratioOf(ms []member, f func(member) bool) float64 {
	all := countWhere(ms, f)
	if all == 0 {
		return 1
	}
	return float64(countWhere(ms, func(m member) bool { return f(m) && m.healthy })) / float64(all)
}

// prune forgets the pools of owners that are gone and carry nothing.
func (ps *pools) prune(cfg *config) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for key, e := range ps.byKey {
		if cfg.service(key.owner) == nil && cfg.targetPool(key.owner) == nil && !e.carries() {
			delete(ps.byKey, key)
		}
	}
}

// invalidate makes the pools made of owner's health (every pool when
// owner is "") be built again at their next use, and returns those of
// them that carry connections: their refresh must not wait for a next
// use, since it drains the connections of backends that left.
func (ps *pools) invalidate(owner string) []*poolEntry {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var carrying []*poolEntry
	for _, e := range ps.byKey {
		if owner == "" || slices.Contains(*e.owners.Load(), owner) {
			e.stale.Store(true)
			if e.carries() {
				carrying = append(carrying, e)
			}
		}
	}
	return carrying
}

// refreshAll refreshes entries.
func (ps *pools) refreshAll(cfg *config, entries []*poolEntry) {
	for _, e := range entries {
		ps.refresh(cfg, e)
	}
}

// carries tells whether e's backends have connections open (flows, or the
// HTTP front ends').
func (e *poolEntry) carries() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, b := range e.backends {
		if b.conns.count() > 0 || b.http.count() > 0 {
			return true
		}
	}
	return false
}

// addrFor is where traffic for st goes: the address it is probed at (a
// probe map's, or its own) and the port that serves it: the endpoint's
// own, else (a proxy's traffic) the named port of the service's portName
// in its instance group (then on the service, an lbhealth extension);
// passthrough traffic without a port of the endpoint's own keeps the port
// it was sent to, and the address alone names the endpoint.
func (cfg *config) addrFor(bs *api.BackendService, st health.Status, mode string) (string, bool) {
	ip := st.ProbedAt
	if ip == "" {
		ip = st.Endpoint.IP
	}
	if ip == "" {
		return "", false
	}
	port := st.Endpoint.Port
	if port == 0 && mode == modePassthrough {
		return ip, true
	}
	if port == 0 && bs != nil {
		name := bs.PortName
		if name == "" {
			name = api.DefaultServicePortName
		}
		var named []api.NamedPort
		if g := cfg.group(st.Group); g != nil {
			named = g.NamedPorts
		}
		port = portNamed(name, named, bs.NamedPorts)
	}
	if port == 0 {
		return "", false
	}
	return net.JoinHostPort(ip, strconv.Itoa(port)), true
}

func portNamed(name string, lists ...[]api.NamedPort) int {
	for _, list := range lists {
		for _, np := range list {
			if np.Name == name && np.Port != nil {
				return int(*np.Port)
			}
		}
	}
	return 0
}
