// Package dataplane carries traffic the way the configured load balancers
// would: a listener per forwarding rule whose address is on this machine,
// which sends each request or connection to a backend the probe engine
// finds HEALTHY, chosen by the backend service's policy and affinity. It
// reads the stored resources that decide where traffic goes (Set), the
// engine's health (Health), and is told of changes of either (Apply,
// OnTransition).
package dataplane

import (
	"cmp"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
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
	// MapAddr is where an address of the configuration is on this
	// machine (a probe map's): a rule's listener binds it, and a target
	// instance's traffic goes to it; nil keeps addresses as they are.
	MapAddr func(netip.Addr) netip.Addr
	// NoBackendHeader leaves BackendHeader out of answers.
	NoBackendHeader bool
	// MaxConnections caps the client connections of every listener
	// together (zero: DefaultMaxConnections), MaxConnectionsPerListener
	// those of each (zero: DefaultMaxConnectionsPerListener): see
	// cappedListener.
	MaxConnections, MaxConnectionsPerListener int
	// Clock is the emulator's time (package clock): outlier ejections,
	// connection draining and Cloud Armor's rate limits and bans run on
	// it, their durations scaled by its time scale, so that a fast-forward
	// carries them; nil: real time.
	Clock Clock
	// BucketDir holds a directory per backend bucket, named as its
	// bucketName, whose files are the bucket's objects ("": every object
	// is missing).
	BucketDir string
	// Objects is Cloud Storage: a backend bucket whose bucket it has is
	// served from it, before BucketDir is looked at. nil: BucketDir alone.
	Objects Objects
	// OnBan, when set, is told of each client a rate_based_ban rule bans.
	OnBan func(Ban)
	// Serverless is Cloud Run, which serverless network endpoint groups
	// send to; nil: they have no endpoint.
	Serverless Serverless
}

// Plane is the running data plane. Set and Apply run on one goroutine at a
// time (the API's write lock); requests are served concurrently.
type Plane struct {
	opts    Options
	log     *slog.Logger
	slots   slots // the connections every listener holds (cappedListener)
	metrics *metrics
	pools   pools
	cfg     *config
	// rp is the reverse proxy of every HTTP listener, made at first use.
	proxyOnce sync.Once
	rp        *httputil.ReverseProxy
	// http1 and http2 are the pools of connections to the backends, by
	// what they speak (transportFor); rp's and the mirrors'.
	http1, http2 *http.Transport
	mirrors      mirrorSlots // the mirrored requests in flight
	// groupRequests counts the requests carried to each backend group's
	// endpoints, by the group's path (what autoscalers measure).
	groupRequests sync.Map // string -> *atomic.Int64

	// The front end Set was given, by path (the owners are in cfg); Apply
	// turns it into listeners.
	rules      map[string]*api.ForwardingRule
	proxies    map[string]*api.TargetHTTPProxy
	tcpProxies map[string]*api.TargetTCPProxy
	// HTTPS and SSL proxies, and what they end TLS with.
	httpsProxies    map[string]*api.TargetHTTPSProxy
	sslProxies      map[string]*api.TargetSSLProxy
	sslCertificates map[string]*api.SSLCertificate
	sslPolicies     map[string]*api.SSLPolicy
	certs           map[*api.SSLCertificate]tls.Certificate // made once per certificate version
	// Certificate Manager's certificates and map entries, for proxies
	// with a certificate map, and the certificates made for the entries
	// (anew whenever one of them changes).
	cmCertificates map[string]*api.CMCertificate
	cmEntries      map[string]*api.CertificateMapEntry
	cmMade         map[*api.CertificateMapEntry]tls.Certificate
	urlMaps        map[string]*api.URLMap
	routers        map[*api.URLMap]*router // built once per URL map version
	// frontChanged: a rule, proxy or URL map changed since Apply, which
	// must then see which listeners the rules want.
	frontChanged bool

	mu        sync.Mutex
	listeners map[string]*listener // by network and address: "tcp 127.0.0.1:80"
	refused   map[string]string    // address -> why it could not be bound, logged once
	closed    bool
}

// config is what requests read of the owners: changed in place by Set
// under its lock, so that a write costs what it changes.
type config struct {
	mu          sync.RWMutex
	services    map[string]*api.BackendService
	groups      map[string]*api.InstanceGroup
	targetPools map[string]*api.TargetPool
	// Target instances, and the instances they name.
	targetInstances map[string]*api.TargetInstance
	instances       map[string]*api.Instance
	// Cloud Armor policies, compiled.
	policies map[string]*armorPolicy
	buckets  map[string]*api.BackendBucket
	// Serverless network endpoint groups (the others' endpoints come
	// from the probe engine).
	negs map[string]*api.NetworkEndpointGroup
}

func (cfg *config) policy(path string) *armorPolicy       { return lookup(cfg, cfg.policies, path) }
func (cfg *config) bucket(path string) *api.BackendBucket { return lookup(cfg, cfg.buckets, path) }
func (cfg *config) neg(path string) *api.NetworkEndpointGroup {
	return lookup(cfg, cfg.negs, path)
}

func (cfg *config) service(path string) *api.BackendService { return lookup(cfg, cfg.services, path) }
func (cfg *config) group(path string) *api.InstanceGroup    { return lookup(cfg, cfg.groups, path) }
func (cfg *config) targetPool(path string) *api.TargetPool  { return lookup(cfg, cfg.targetPools, path) }
func (cfg *config) targetInstance(path string) *api.TargetInstance {
	return lookup(cfg, cfg.targetInstances, path)
}
func (cfg *config) instance(path string) *api.Instance { return lookup(cfg, cfg.instances, path) }

// lookup reads m[path] under cfg's lock.
func lookup[T any](cfg *config, m map[string]*T, path string) *T {
	cfg.mu.RLock()
	defer cfg.mu.RUnlock()
	return m[path]
}

// New returns a Plane with no listener until Apply.
func New(opts Options) *Plane {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = clock.New(1)
	}
	opts.MaxConnections = cmp.Or(opts.MaxConnections, DefaultMaxConnections())
	opts.MaxConnectionsPerListener = cmp.Or(opts.MaxConnectionsPerListener, DefaultMaxConnectionsPerListener)
	p := &Plane{opts: opts, slots: make(slots, opts.MaxConnections), log: opts.Log, metrics: newMetrics(opts.Registerer),
		pools: pools{health: opts.Health, allowed: opts.Allowed, mapAddr: opts.MapAddr, clock: opts.Clock, serverless: opts.Serverless, byKey: map[poolKey]*poolEntry{}},
		rules: map[string]*api.ForwardingRule{}, proxies: map[string]*api.TargetHTTPProxy{}, urlMaps: map[string]*api.URLMap{},
		tcpProxies: map[string]*api.TargetTCPProxy{}, routers: map[*api.URLMap]*router{},
		httpsProxies: map[string]*api.TargetHTTPSProxy{}, sslProxies: map[string]*api.TargetSSLProxy{},
		sslCertificates: map[string]*api.SSLCertificate{}, sslPolicies: map[string]*api.SSLPolicy{},
		certs:          map[*api.SSLCertificate]tls.Certificate{},
		cmCertificates: map[string]*api.CMCertificate{}, cmEntries: map[string]*api.CertificateMapEntry{},
		cmMade: map[*api.CertificateMapEntry]tls.Certificate{},
		cfg: &config{services: map[string]*api.BackendService{}, groups: map[string]*api.InstanceGroup{},
			targetPools: map[string]*api.TargetPool{}, targetInstances: map[string]*api.TargetInstance{}, instances: map[string]*api.Instance{},
			policies: map[string]*armorPolicy{}, buckets: map[string]*api.BackendBucket{}, negs: map[string]*api.NetworkEndpointGroup{}},
		listeners: map[string]*listener{}, refused: map[string]string{}}
	return p
}

// readers are the collections the data plane reads, each with what it
// does with one of their objects; front marks those that decide which
// listeners there are and what they serve (the rest decide where their
// traffic goes).
var readers = map[string]struct {
	set   func(p *Plane, path string, body []byte, obj any)
	front bool
}{
	api.CollectionForwardingRules:    {front: true, set: func(p *Plane, path string, body []byte, obj any) { set(p, nil, p.rules, path, body, obj) }},
	api.CollectionTargetHTTPProxies:  {front: true, set: func(p *Plane, path string, body []byte, obj any) { set(p, nil, p.proxies, path, body, obj) }},
	api.CollectionTargetTCPProxies:   {front: true, set: func(p *Plane, path string, body []byte, obj any) { set(p, nil, p.tcpProxies, path, body, obj) }},
	api.CollectionTargetHTTPSProxies: {front: true, set: func(p *Plane, path string, body []byte, obj any) { set(p, nil, p.httpsProxies, path, body, obj) }},
	api.CollectionTargetSSLProxies:   {front: true, set: func(p *Plane, path string, body []byte, obj any) { set(p, nil, p.sslProxies, path, body, obj) }},
	api.CollectionSSLCertificates: {front: true, set: func(p *Plane, path string, body []byte, obj any) {
		if old := p.sslCertificates[path]; old != nil {
			delete(p.certs, old)
		}
		set(p, nil, p.sslCertificates, path, body, obj)
	}},
	api.CollectionSSLPolicies: {front: true, set: func(p *Plane, path string, body []byte, obj any) { set(p, nil, p.sslPolicies, path, body, obj) }},
	api.CollectionCMCertificates: {front: true, set: func(p *Plane, path string, body []byte, obj any) {
		clear(p.cmMade)
		set(p, nil, p.cmCertificates, path, body, obj)
	}},
	api.CollectionCMMapEntries: {front: true, set: func(p *Plane, path string, body []byte, obj any) {
		clear(p.cmMade)
		set(p, nil, p.cmEntries, path, body, obj)
	}},
	api.CollectionURLMaps: {front: true, set: func(p *Plane, path string, body []byte, obj any) {
		if old := p.urlMaps[path]; old != nil {
			delete(p.routers, old)
		}
		set(p, nil, p.urlMaps, path, body, obj)
	}},
	api.CollectionBackendServices: {set: func(p *Plane, path string, body []byte, obj any) { set(p, &p.cfg.mu, p.cfg.services, path, body, obj) }},
	api.CollectionInstanceGroups:  {set: func(p *Plane, path string, body []byte, obj any) { set(p, &p.cfg.mu, p.cfg.groups, path, body, obj) }},
	api.CollectionTargetPools: {set: func(p *Plane, path string, body []byte, obj any) {
		set(p, &p.cfg.mu, p.cfg.targetPools, path, body, obj)
	}},
	api.CollectionTargetInstances: {set: func(p *Plane, path string, body []byte, obj any) {
		set(p, &p.cfg.mu, p.cfg.targetInstances, path, body, obj)
	}},
	api.CollectionInstances:        {set: func(p *Plane, path string, body []byte, obj any) { set(p, &p.cfg.mu, p.cfg.instances, path, body, obj) }},
	api.CollectionSecurityPolicies: {set: func(p *Plane, path string, body []byte, _ any) { p.setPolicy(path, body) }},
	api.CollectionBackendBuckets:   {set: func(p *Plane, path string, body []byte, obj any) { set(p, &p.cfg.mu, p.cfg.buckets, path, body, obj) }},
	api.CollectionNetworkEndpointGroups: {set: func(p *Plane, path string, body []byte, obj any) {
		set(p, &p.cfg.mu, p.cfg.negs, path, body, obj)
	}},
}

// Collections are the collections the data plane reads, in order.
func Collections() []string { return slices.Sorted(maps.Keys(readers)) }

// Wants tells whether the data plane reads collection.
func Wants(collection string) bool {
	_, ok := readers[collection]
	return ok
}

// Set hands the plane one stored object of collection at path, as JSON,
// and as the API's typed view when the caller has decoded it already (obj,
// of the collection's type; nil: the plane decodes body); nil body: it is
// gone. The plane keeps obj and does not change it. Nothing changes until
// Apply.
func (p *Plane) Set(collection, path string, body []byte, obj any) {
	r, ok := readers[collection]
	if !ok {
		return
	}
	r.set(p, path, body, obj)
	if r.front {
		p.frontChanged = true
	}
}

// set puts obj, or body decoded, at m[path] (deletes it for a nil body),
// under mu if any.
func set[T any](p *Plane, mu *sync.RWMutex, m map[string]*T, path string, body []byte, obj any) {
	v, decoded := obj.(*T)
	if body != nil && !decoded {
		v = new(T)
		if err := json.Unmarshal(body, v); err != nil {
			// Stored objects passed the API's schema: this is a bug.
			p.log.Error("data plane: stored object not read", "resource", path, "error", err)
			v = nil
		}
	}
	if mu != nil {
		mu.Lock()
		defer mu.Unlock()
	}
	if v == nil {
		delete(m, path)
		return
	}
	m[path] = v
}

// setPolicy compiles a security policy (nil body: it is gone); its rate
// limits count afresh.
func (p *Plane) setPolicy(path string, body []byte) {
	var pol *armorPolicy
	if body != nil {
		var err error
		if pol, err = compilePolicy(path, body, p.opts.Clock.Scale); err != nil {
			// Stored policies passed the rules: this is a bug.
			p.log.Error("data plane: security policy not compiled", "resource", path, "error", err)
		}
	}
	p.cfg.mu.Lock()
	defer p.cfg.mu.Unlock()
	if pol == nil {
		delete(p.cfg.policies, path)
		return
	}
	p.cfg.policies[path] = pol
}

// countGroup counts a request carried to an endpoint of group.
func (p *Plane) countGroup(group string) {
	if group == "" {
		return
	}
	n, ok := p.groupRequests.Load(group)
	if !ok {
		n, _ = p.groupRequests.LoadOrStore(group, new(atomic.Int64))
	}
	n.(*atomic.Int64).Add(1)
}

// GroupRequests is the number of requests the HTTP listeners have carried
// to the endpoints of the backend group at path (an instance group or an
// endpoint group) since the plane started.
func (p *Plane) GroupRequests(path string) int64 {
	if n, ok := p.groupRequests.Load(path); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// now is the time of the rate limits.
func (p *Plane) now() time.Time { return p.opts.Clock.Now() }

// Clock is the emulator's time as the data plane reads it and waits on it
// (package clock).
type Clock interface {
	Now() time.Time
	// Scale is a duration the emulator decides itself (an ejection, a
	// draining timeout, a rate limit's interval) as it runs.
	Scale(time.Duration) time.Duration
	// AfterFunc runs f once the clock reads d from now, unless stopped.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// Forget drops everything Set gave the plane (the store is read anew, as
// after a reset); the listeners stay until Apply.
func (p *Plane) Forget() {
	clear(p.rules)
	clear(p.proxies)
	clear(p.tcpProxies)
	clear(p.httpsProxies)
	clear(p.sslProxies)
	clear(p.sslCertificates)
	clear(p.sslPolicies)
	clear(p.urlMaps)
	clear(p.routers)
	clear(p.certs)
	clear(p.cmCertificates)
	clear(p.cmEntries)
	clear(p.cmMade)
	p.cfg.mu.Lock()
	clear(p.cfg.services)
	clear(p.cfg.groups)
	clear(p.cfg.targetPools)
	clear(p.cfg.targetInstances)
	clear(p.cfg.instances)
	clear(p.cfg.policies)
	clear(p.cfg.buckets)
	clear(p.cfg.negs)
	p.cfg.mu.Unlock()
	p.frontChanged = true
}

// OnTransition takes note that an endpoint's health changed: its
// service's next request sees it. It runs on the probe engine's
// scheduler: the pools that must drain connections now are refreshed on a
// goroutine of their own, not there.
func (p *Plane) OnTransition(tr health.Transition) {
	if carrying := p.pools.invalidate(tr.Owner); len(carrying) > 0 {
		go p.pools.refreshAll(p.cfg, carrying)
	}
}

// Apply makes what Set gave the plane take effect: the listeners of the
// forwarding rules, their URL maps and the services' settings.
func (p *Plane) Apply() {
	p.pools.prune(p.cfg)
	p.pools.refreshAll(p.cfg, p.pools.invalidate(""))
	// An allPorts rule's ports follow its backends, which any change may
	// have moved.
	if p.frontChanged || p.hasAllPortsRule() {
		p.frontChanged = false
		p.reconcile(p.wanted())
	}
}

// routerOf is m's router, built once per version of the map.
func (p *Plane) routerOf(m *api.URLMap) *router {
	rt := p.routers[m]
	if rt == nil {
		rt = newRouter(m)
		p.routers[m] = rt
	}
	return rt
}

// ownersOf is whose health a pool of owner is made of: the owner's, and
// a target pool's backup pool's.
func (cfg *config) ownersOf(owner string) []string {
	if tp := cfg.targetPool(owner); tp != nil && tp.BackupPool != "" {
		return []string{owner, api.PathOf(tp.BackupPool)}
	}
	return []string{owner}
}

// Kinds of listeners.
const (
	kindHTTP  = "http"  // an Application Load Balancer's reverse proxy
	kindHTTPS = "https" // the same behind TLS
	kindTCP   = "tcp"   // a TCP proxy's, or a passthrough rule's TCP
	kindSSL   = "ssl"   // an SSL proxy's: TLS ended, then as a TCP proxy
	kindUDP   = "udp"   // a passthrough rule's UDP
)

// binding is what a listener serves: a forwarding rule and how it routes.
type binding struct {
	rule   string
	kind   string
	router *router // kindHTTP, kindHTTPS
	front  front   // kindHTTP, kindHTTPS
	// The others: whose endpoints get the traffic, and how.
	pool        poolKey
	proxyHeader bool        // PROXY_V1: a PROXY protocol line before the client's bytes
	tls         *tls.Config // kindHTTPS, kindSSL: what TLS is ended with
}

// wanted is the binding of every address the forwarding rules ask for,
// keyed by the listener's network and address ("tcp 127.0.0.1:80").
func (p *Plane) wanted() map[string]*binding {
	out := map[string]*binding{}
	for path, fr := range p.rules {
		bs := p.bindingsOf(path, fr)
		if len(bs) == 0 {
			continue
		}
		ip, err := netip.ParseAddr(fr.IPAddress)
		if err != nil {
			continue
		}
		if p.opts.MapAddr != nil {
			ip = p.opts.MapAddr(ip)
		}
		if !ip.IsLoopback() {
			p.refuse(path+" "+ip.String(), path, "its address is not on this machine's loopback "+
				"(a listener beyond loopback would take traffic from the network); map it with --probe-map")
			continue
		}
		ports := rulePorts(fr)
		if allPorts(fr) {
			if ports = p.servedPorts(bs); len(ports) == 0 {
				p.refuse(path+" allPorts", path, "allPorts: no port of its backends is known yet "+
					"(an endpoint's own, its health check's, its instance group's named ports)")
				continue
			}
			delete(p.refused, path+" allPorts")
		}
		for _, port := range ports {
			addr := net.JoinHostPort(ip.String(), strconv.Itoa(port))
			for _, b := range bs {
				key := kindTCP + " " + addr
				if b.kind == kindUDP {
					key = kindUDP + " " + addr
				}
				if other, ok := out[key]; ok && other.rule < path {
					continue // two rules on one address: the first by path keeps it
				}
				out[key] = b
			}
		}
	}
	return out
}

// bindingsOf is what rule fr's listeners serve, one per protocol; none
// for a target the data plane does not carry (a target gRPC proxy, a
// rule of a scheme that takes no backend service).
func (p *Plane) bindingsOf(path string, fr *api.ForwardingRule) []*binding {
	target := api.PathOf(fr.Target)
	switch api.CollectionOf(target) {
	case api.CollectionTargetHTTPProxies:
		proxy := p.proxies[target]
		if proxy == nil || p.urlMaps[api.PathOf(proxy.URLMap)] == nil {
			return nil
		}
		return []*binding{{rule: path, kind: kindHTTP, router: p.routerOf(p.urlMaps[api.PathOf(proxy.URLMap)]), front: frontOf(fr)}}
	case api.CollectionTargetHTTPSProxies:
		proxy := p.httpsProxies[target]
		if proxy == nil || p.urlMaps[api.PathOf(proxy.URLMap)] == nil {
			return nil
		}
		return []*binding{{rule: path, kind: kindHTTPS, router: p.routerOf(p.urlMaps[api.PathOf(proxy.URLMap)]),
			front: frontOf(fr), tls: p.tlsConfig(proxy.SSLCertificates, proxy.CertificateMap, proxy.SSLPolicy)}}
	case api.CollectionTargetTCPProxies:
		proxy := p.tcpProxies[target]
		if proxy == nil {
			return nil
		}
		return []*binding{{rule: path, kind: kindTCP, pool: poolKey{api.PathOf(proxy.Service), modeProxy},
			proxyHeader: proxy.ProxyHeader == "PROXY_V1"}}
	case api.CollectionTargetSSLProxies:
		proxy := p.sslProxies[target]
		if proxy == nil {
			return nil
		}
		return []*binding{{rule: path, kind: kindSSL, pool: poolKey{api.PathOf(proxy.Service), modeProxy},
			proxyHeader: proxy.ProxyHeader == "PROXY_V1", tls: p.tlsConfig(proxy.SSLCertificates, proxy.CertificateMap, proxy.SSLPolicy)}}
	case api.CollectionTargetPools, api.CollectionTargetInstances:
		return passthrough(path, fr, target)
	case "":
		switch fr.LoadBalancingScheme {
		case "", "EXTERNAL", "INTERNAL":
			if fr.BackendService != "" {
				return passthrough(path, fr, api.PathOf(fr.BackendService))
			}
		}
	}
	return nil
}

// passthrough is what a passthrough rule's listeners serve: its protocol's
// traffic (TCP and UDP for L3_DEFAULT) to owner's endpoints.
func passthrough(path string, fr *api.ForwardingRule, owner string) []*binding {
	key := poolKey{owner, modePassthrough}
	switch fr.IPProtocol {
	case "", "TCP":
		return []*binding{{rule: path, kind: kindTCP, pool: key}}
	case "UDP":
		return []*binding{{rule: path, kind: kindUDP, pool: key}}
	case "L3_DEFAULT":
		return []*binding{{rule: path, kind: kindTCP, pool: key}, {rule: path, kind: kindUDP, pool: key}}
	}
	return nil // ESP, ICMP, SCTP ...: not carried
}

func allPorts(fr *api.ForwardingRule) bool { return fr.AllPorts != nil && *fr.AllPorts }

func (p *Plane) hasAllPortsRule() bool {
	for _, fr := range p.rules {
		if allPorts(fr) {
			return true
		}
	}
	return false
}

// servedPorts are the ports an allPorts rule listens on, for want of
// every port: those its backends are known to serve, which are each
// endpoint's own port, else the port its health check probes, and the
// named ports of a backend service's instance groups; the lowest
// maxRulePorts of them. A passthrough rule carries traffic to the port
// it was sent to, so these are the ports a client can reach a backend on.
func (p *Plane) servedPorts(bs []*binding) []int {
	seen := map[int]bool{}
	for _, b := range bs {
		for _, owner := range p.cfg.ownersOf(b.pool.owner) {
			if p.opts.Health != nil {
				for _, st := range p.opts.Health.Statuses(owner) {
					seen[cmp.Or(st.Endpoint.Port, st.Port)] = true
				}
			}
			if svc := p.cfg.service(owner); svc != nil {
				for _, be := range svc.Backends {
					if g := p.cfg.group(api.PathOf(be.Group)); g != nil {
						for _, np := range g.NamedPorts {
							if np.Port != nil {
								seen[int(*np.Port)] = true
							}
						}
					}
				}
			}
		}
	}
	delete(seen, 0)
	ports := slices.Sorted(maps.Keys(seen))
	return ports[:min(len(ports), maxRulePorts)]
}

// maxRulePorts bounds the listeners one rule's port range opens.
const maxRulePorts = 16

// rulePorts are the ports a rule receives on: its portRange ("80" or
// "8000-8010") or its ports, the first maxRulePorts of them.
func rulePorts(fr *api.ForwardingRule) []int {
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
	for key, l := range p.listeners {
		if b := want[key]; b == nil || b.kind != l.kind {
			l.close()
			delete(p.listeners, key)
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

// Addrs lists the addresses listened on ("tcp 127.0.0.1:80"), by
// forwarding rule path.
func (p *Plane) Addrs() map[string][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string][]string{}
	for key, l := range p.listeners {
		rule := l.binding.Load().rule
		out[rule] = append(out[rule], key)
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
	key     string // network and address, as in Plane.listeners
	kind    string
	ln      net.Listener // kindHTTP, kindHTTPS, kindTCP, kindSSL
	pc      *net.UDPConn // kindUDP
	srv     *http.Server // kindHTTP, kindHTTPS
	binding atomic.Pointer[binding]
	done    chan struct{}
	closing atomic.Bool
	// flows are the connections a TCP or UDP listener carries, which its
	// close ends.
	flowsMu sync.Mutex
	flows   map[*flow]struct{}
}

// capped caps the connections ln (listening at addr) accepts.
func (p *Plane) capped(ln net.Listener, addr string) net.Listener {
	m := p.metrics
	return &cappedListener{Listener: ln, own: make(slots, p.opts.MaxConnectionsPerListener), plane: p.slots,
		done:   make(chan struct{}),
		waited: func() { m.capWaits.WithLabelValues(addr).Inc() },
		opened: func(d int) { m.open.WithLabelValues(addr).Add(float64(d)) }}
}

// listen binds key ("tcp 127.0.0.1:80") and serves it as b says.
func (p *Plane) listen(key string, b *binding) (*listener, error) {
	network, addr, _ := strings.Cut(key, " ")
	l := &listener{key: key, kind: b.kind, done: make(chan struct{})}
	l.binding.Store(b)
	var err error
	if network == kindUDP {
		var ua *net.UDPAddr
		if ua, err = net.ResolveUDPAddr("udp", addr); err == nil {
			l.pc, err = net.ListenUDP("udp", ua)
		}
	} else if l.ln, err = net.Listen("tcp", addr); err == nil {
		l.ln = p.capped(l.ln, addr)
	}
	if err != nil {
		if errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("%w (ports below 1024 need privileges: give the rule a higher port)", err)
		}
		return nil, err
	}
	switch b.kind {
	case kindHTTP, kindHTTPS:
		l.srv = &http.Server{
			Handler:           &httpProxy{plane: p, l: l},
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    maxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
		}
		ln := l.ln
		if b.kind == kindHTTPS {
			// The binding's TLS, read per connection: a change of
			// certificate needs no new listener.
			ln = tls.NewListener(ln, &tls.Config{GetConfigForClient: l.tlsConfig, NextProtos: []string{"h2", "http/1.1"}})
		}
		go func() {
			defer close(l.done)
			_ = l.srv.Serve(ln)
		}()
	case kindTCP, kindSSL:
		go func() {
			defer close(l.done)
			p.serveTCP(l)
		}()
	case kindUDP:
		go func() {
			defer close(l.done)
			p.serveUDP(l)
		}()
	}
	return l, nil
}

// tlsConfig is the TLS the listener ends connections with now.
func (l *listener) tlsConfig(*tls.ClientHelloInfo) (*tls.Config, error) {
	cfg := l.binding.Load().tls.Clone()
	if l.kind == kindHTTPS {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	return cfg, nil
}

// close stops the listener and drops its connections at once, as the
// cloud stops carrying a deleted rule's traffic; it runs under the API's
// write lock, which must not wait on clients.
func (l *listener) close() {
	l.closing.Store(true)
	switch {
	case l.srv != nil:
		l.srv.Close()
	case l.ln != nil:
		l.ln.Close()
	case l.pc != nil:
		l.pc.Close()
	}
	l.closeFlows()
	<-l.done
}
