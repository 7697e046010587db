// Package dataplane carries traffic the way the configured load balancers
// would: a listener per forwarding rule whose address is on this machine,
// which sends each request or connection to a backend the probe engine
// finds HEALTHY, chosen by the backend service's policy and affinity. It
// reads the stored resources that decide where traffic goes (Set), the
// engine's health (Health), and is told of changes of either (Apply,
// OnTransition).
package dataplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Health is what the data plane reads of the probe engine.
type Health interface {
	Statuses(owner string) []health.Status
}

// BackendHeader names, in every answer an Application Load Balancer's
// listener gives, the endpoint that served it (host:port): an lbhealth
// extension, off with Options.NoBackendHeader.
const BackendHeader = "X-Lbhealth-Backend"

// Options configures a Plane.
type Options struct {
	Health Health
	Log    *slog.Logger
	// Registerer, when set, gets the data plane's metrics.
	Registerer prometheus.Registerer
	// Allowed says which backend addresses traffic may be sent to (the
	// probe networks); nil allows every address.
	Allowed func(netip.Addr) bool
	// ListenAddr maps a forwarding rule's address to the one its listener
	// binds (a probe map's); nil keeps it.
	ListenAddr func(netip.Addr) netip.Addr
	// NoBackendHeader leaves BackendHeader out of answers.
	NoBackendHeader bool
}

// Plane is the running data plane. Set and Apply run on one goroutine at a
// time (the API's write lock); requests are served concurrently.
type Plane struct {
	opts    Options
	log     *slog.Logger
	metrics *metrics
	pools   pools
	cfg     atomic.Pointer[config]
	// rp is the reverse proxy of every HTTP listener, made at first use.
	proxyOnce sync.Once
	rp        *httputil.ReverseProxy

	// What Set was given, by path; Apply makes a config of it.
	rules    map[string]*forwardingRule
	proxies  map[string]*targetHTTPProxy
	urlMaps  map[string]*urlMap
	services map[string]*backendService
	groups   map[string]*instanceGroup

	mu        sync.Mutex
	listeners map[string]*listener // by the address bound
	refused   map[string]string    // address -> why it could not be bound, logged once
	closed    bool
}

// config is what requests read, made by Apply and never changed after.
type config struct {
	services map[string]*backendService
	groups   map[string]*instanceGroup
}

// New returns a Plane with no listener until Apply.
func New(opts Options) *Plane {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	p := &Plane{opts: opts, log: opts.Log, metrics: newMetrics(opts.Registerer),
		pools: pools{health: opts.Health, allowed: opts.Allowed, byPath: map[string]*poolEntry{}},
		rules: map[string]*forwardingRule{}, proxies: map[string]*targetHTTPProxy{}, urlMaps: map[string]*urlMap{},
		services: map[string]*backendService{}, groups: map[string]*instanceGroup{},
		listeners: map[string]*listener{}, refused: map[string]string{}}
	p.cfg.Store(&config{})
	return p
}

// Wants tells whether the data plane reads collection.
func Wants(collection string) bool {
	for _, c := range Collections {
		if c == collection {
			return true
		}
	}
	return false
}

// Set hands the plane one stored object of collection at path, as JSON;
// nil body: it is gone. Nothing changes until Apply.
func (p *Plane) Set(collection, path string, body []byte) {
	switch collection {
	case api.CollectionForwardingRules:
		set(p, p.rules, path, body)
	case api.CollectionTargetHTTPProxies:
		set(p, p.proxies, path, body)
	case api.CollectionURLMaps:
		set(p, p.urlMaps, path, body)
	case api.CollectionBackendServices:
		set(p, p.services, path, body)
	case api.CollectionInstanceGroups:
		set(p, p.groups, path, body)
	}
}

func set[T any](p *Plane, m map[string]*T, path string, body []byte) {
	if body == nil {
		delete(m, path)
		return
	}
	v := new(T)
	if err := json.Unmarshal(body, v); err != nil {
		// Stored objects passed the API's schema: this is a bug.
		p.log.Error("data plane: stored object not read", "resource", path, "error", err)
		delete(m, path)
		return
	}
	m[path] = v
}

// OnTransition takes note that an endpoint's health changed: its
// service's next request sees it.
func (p *Plane) OnTransition(tr health.Transition) { p.pools.invalidate(tr.Owner) }

// Apply makes what Set gave the plane take effect: the listeners of the
// forwarding rules, their URL maps and the services' settings.
func (p *Plane) Apply() {
	services := make(map[string]*backendService, len(p.services))
	for k, v := range p.services {
		services[k] = v
	}
	groups := make(map[string]*instanceGroup, len(p.groups))
	for k, v := range p.groups {
		groups[k] = v
	}
	p.cfg.Store(&config{services: services, groups: groups})
	p.pools.invalidate("")
	p.reconcile(p.wanted())
}

// binding is what a listener serves: a forwarding rule and how it routes.
type binding struct {
	rule   string
	router *router
}

// wanted is the binding of every address the forwarding rules ask for.
func (p *Plane) wanted() map[string]*binding {
	out := map[string]*binding{}
	for path, fr := range p.rules {
		proxy := p.proxies[api.PathOf(fr.Target)]
		if api.CollectionOf(api.PathOf(fr.Target)) != api.CollectionTargetHTTPProxies || proxy == nil {
			continue // the other load balancers' traffic is not carried yet
		}
		m := p.urlMaps[api.PathOf(proxy.URLMap)]
		if m == nil {
			continue
		}
		ip, err := netip.ParseAddr(fr.IPAddress)
		if err != nil {
			continue
		}
		if p.opts.ListenAddr != nil {
			ip = p.opts.ListenAddr(ip)
		}
		if !ip.IsLoopback() {
			p.refuse(path+" "+ip.String(), path, "its address is not on this machine's loopback "+
				"(a listener beyond loopback would take traffic from the network); map it with --probe-map")
			continue
		}
		rt := newRouter(m)
		for _, port := range rulePorts(fr) {
			addr := net.JoinHostPort(ip.String(), strconv.Itoa(port))
			if other, ok := out[addr]; ok && other.rule < path {
				continue // two rules on one address: the first by path keeps it
			}
			out[addr] = &binding{rule: path, router: rt}
		}
	}
	return out
}

// maxRulePorts bounds the listeners one rule's port range opens.
const maxRulePorts = 16

// rulePorts are the ports a rule receives on: its portRange ("80" or
// "8000-8010") or its ports, the first maxRulePorts of them.
func rulePorts(fr *forwardingRule) []int {
	var out []int
	add := func(spec string) {
		lo, hi, found := strings.Cut(spec, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return
		}
		b := a
		if found {
			if b, err = strconv.Atoi(hi); err != nil {
				return
			}
		}
		for port := a; port <= b && len(out) < maxRulePorts; port++ {
			out = append(out, port)
		}
	}
	if fr.PortRange != "" {
		add(fr.PortRange)
	}
	for _, s := range fr.Ports {
		add(s)
	}
	return out
}

// refuse logs, once per key, that a rule's listener is not opened.
func (p *Plane) refuse(key, rule, why string) {
	if p.refused[key] == why {
		return
	}
	p.refused[key] = why
	p.log.Warn("data plane: no listener for forwarding rule", "forwarding_rule", rule, "reason", why)
}

// reconcile opens the listeners wanted, points those kept at their new
// bindings and closes the rest.
func (p *Plane) reconcile(want map[string]*binding) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	for addr, l := range p.listeners {
		if want[addr] == nil {
			l.close()
			delete(p.listeners, addr)
		}
	}
	for addr, b := range want {
		if l := p.listeners[addr]; l != nil {
			l.binding.Store(b)
			continue
		}
		l, err := p.listen(addr, b)
		if err != nil {
			p.refuse(b.rule+" "+addr, b.rule, err.Error())
			continue
		}
		delete(p.refused, b.rule+" "+addr)
		p.log.Info("data plane: listening", "forwarding_rule", b.rule, "address", addr)
		p.listeners[addr] = l
	}
}

// Addrs lists the addresses listened on, by forwarding rule path.
func (p *Plane) Addrs() map[string][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string][]string{}
	for addr, l := range p.listeners {
		rule := l.binding.Load().rule
		out[rule] = append(out[rule], addr)
	}
	return out
}

// Close closes every listener and the connections they carry.
func (p *Plane) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for addr, l := range p.listeners {
		l.close()
		delete(p.listeners, addr)
	}
}

// listener is one bound address of a forwarding rule.
type listener struct {
	ln      net.Listener
	srv     *http.Server
	binding atomic.Pointer[binding]
	done    chan struct{}
}

func (p *Plane) listen(addr string, b *binding) (*listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("%w (ports below 1024 need privileges: give the rule a higher port)", err)
		}
		return nil, err
	}
	l := &listener{ln: ln, done: make(chan struct{})}
	l.binding.Store(b)
	l.srv = &http.Server{
		Handler:           &httpProxy{plane: p, l: l},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(l.done)
		_ = l.srv.Serve(ln)
	}()
	return l, nil
}

// close stops the listener and drops its connections at once, as the
// cloud stops carrying a deleted rule's traffic; it runs under the API's
// write lock, which must not wait on clients.
func (l *listener) close() {
	l.srv.Close()
	<-l.done
}
