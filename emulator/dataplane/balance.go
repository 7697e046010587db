package dataplane

import (
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"

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
)

// generatedCookie is the cookie of GENERATED_COOKIE affinity, named as the
// cloud's Application Load Balancers name it.
const generatedCookie = "GCLB"

// backend is one endpoint traffic may go to. It outlives the pools that
// list it, so that its count of requests in flight survives a change of
// health elsewhere in the service.
type backend struct {
	addr     string // host:port sent to
	id       string // the GENERATED_COOKIE value that names it
	inFlight atomic.Int64
}

// pool is a service's healthy backends at one moment, and how it chooses
// among them; a change of health makes a new pool.
type pool struct {
	service  string
	policy   string
	affinity string
	header   string // HEADER_FIELD: the header hashed
	cookie   string // HTTP_COOKIE: the cookie hashed
	healthy  []*backend
	next     atomic.Uint64 // ROUND_ROBIN
}

// choice is the backend chosen for one request, and the cookie to set when
// affinity wants one.
type choice struct {
	b      *backend
	cookie *http.Cookie
}

// choose picks a healthy backend for r; nil when none is healthy.
func (p *pool) choose(r *http.Request) choice {
	if len(p.healthy) == 0 {
		return choice{}
	}
	switch p.affinity {
	case AffinityClientIP:
		return choice{b: p.hashed(clientIP(r))}
	case AffinityHeaderField:
		if v := r.Header.Get(p.header); v != "" {
			return choice{b: p.hashed(v)}
		}
	case AffinityGeneratedCookie:
		if c, err := r.Cookie(generatedCookie); err == nil {
			for _, b := range p.healthy {
				if b.id == c.Value {
					return choice{b: b}
				}
			}
		}
		b := p.byPolicy()
		return choice{b: b, cookie: &http.Cookie{Name: generatedCookie, Value: b.id, Path: "/", HttpOnly: true}}
	case AffinityHTTPCookie:
		if c, err := r.Cookie(p.cookie); err == nil && c.Value != "" {
			return choice{b: p.hashed(c.Value)}
		}
		v := strconv.FormatUint(rand.Uint64(), 36)
		return choice{b: p.hashed(v), cookie: &http.Cookie{Name: p.cookie, Value: v, Path: "/", HttpOnly: true}}
	}
	return choice{b: p.byPolicy()}
}

// byPolicy picks by the service's localityLbPolicy when no affinity
// decides: ROUND_ROBIN (the default) in turn, LEAST_REQUEST the fewer
// requests in flight of two picked at random, and RANDOM, RING_HASH and
// MAGLEV (which hash what affinity gives them, here nothing) at random.
func (p *pool) byPolicy() *backend {
	n := len(p.healthy)
	switch p.policy {
	case PolicyLeastRequest:
		a, b := p.healthy[rand.IntN(n)], p.healthy[rand.IntN(n)]
		if b.inFlight.Load() < a.inFlight.Load() {
			return b
		}
		return a
	case PolicyRandom, PolicyRingHash, PolicyMaglev:
		return p.healthy[rand.IntN(n)]
	}
	return p.healthy[(p.next.Add(1)-1)%uint64(n)]
}

// hashed is the backend a key sticks to: the highest of the key's hashes
// with each backend (rendezvous hashing), so that a key moves only when
// its backend leaves, and a backend's keys spread over the others.
func (p *pool) hashed(key string) *backend {
	var best *backend
	var top uint64
	for _, b := range p.healthy {
		h := fnv.New64a()
		h.Write([]byte(key))
		h.Write([]byte{0})
		h.Write([]byte(b.addr))
		if v := h.Sum64(); best == nil || v > top {
			best, top = b, v
		}
	}
	return best
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// pools keeps each service's pool, made anew from the engine's health when
// the health of one of its endpoints or the configuration changed.
type pools struct {
	health  Health
	allowed func(netip.Addr) bool
	mu      sync.Mutex
	byPath  map[string]*poolEntry
}

type poolEntry struct {
	stale    atomic.Bool
	current  atomic.Pointer[pool]
	mu       sync.Mutex
	backends map[string]*backend // by address: kept across pools
}

// get is the pool of service in cfg, rebuilt first when stale.
func (ps *pools) get(cfg *config, service string) *pool {
	ps.mu.Lock()
	e := ps.byPath[service]
	if e == nil {
		e = &poolEntry{backends: map[string]*backend{}}
		e.stale.Store(true)
		ps.byPath[service] = e
	}
	ps.mu.Unlock()
	if !e.stale.Load() {
		if p := e.current.Load(); p != nil {
			return p
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stale.Swap(false) || e.current.Load() == nil {
		e.current.Store(ps.build(cfg, service, e))
	}
	return e.current.Load()
}

// build lists the endpoints of service that are HEALTHY, at the address
// and serving port traffic goes to.
func (ps *pools) build(cfg *config, service string, e *poolEntry) *pool {
	bs := cfg.services[service]
	p := &pool{service: service}
	if bs == nil {
		return p
	}
	p.policy, p.affinity = bs.LocalityLbPolicy, bs.SessionAffinity
	if ch := bs.ConsistentHash; ch != nil {
		p.header = ch.HTTPHeaderName
		if ch.HTTPCookie != nil {
			p.cookie = ch.HTTPCookie.Name
		}
	}
	if p.cookie == "" {
		p.cookie = generatedCookie
	}
	seen := map[string]bool{}
	for _, st := range ps.health.Statuses(service) {
		if st.State != health.Healthy {
			continue
		}
		addr, ok := cfg.servingAddr(bs, st)
		if !ok || seen[addr] {
			continue
		}
		if ip, err := netip.ParseAddrPort(addr); err != nil || ps.allowed != nil && !ps.allowed(ip.Addr()) {
			continue
		}
		seen[addr] = true
		b := e.backends[addr]
		if b == nil {
			h := fnv.New64a()
			h.Write([]byte(addr))
			b = &backend{addr: addr, id: strconv.FormatUint(h.Sum64(), 36)}
			e.backends[addr] = b
		}
		p.healthy = append(p.healthy, b)
	}
	for addr, b := range e.backends {
		if !seen[addr] && b.inFlight.Load() == 0 {
			delete(e.backends, addr)
		}
	}
	return p
}

// invalidate makes the pool of service (every pool when service is "") be
// built again at its next request.
func (ps *pools) invalidate(service string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for path, e := range ps.byPath {
		if service == "" || path == service {
			e.stale.Store(true)
		}
	}
}

// servingAddr is where traffic for st goes: the address it is probed at
// (a probe map's, or its own) and the port that serves the service: the
// endpoint's own, else the named port of the service's portName in its
// instance group (then on the service, an lbhealth extension).
func (cfg *config) servingAddr(bs *backendService, st health.Status) (string, bool) {
	ip := st.ProbedAt
	if ip == "" {
		ip = st.Endpoint.IP
	}
	if ip == "" {
		return "", false
	}
	port := st.Endpoint.Port
	if port == 0 {
		name := bs.PortName
		if name == "" {
			name = api.DefaultServicePortName
		}
		var named []api.NamedPort
		if g := cfg.groups[st.Group]; g != nil {
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
