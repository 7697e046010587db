package compute

import (
	"context"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// The load balancer's front end: URL maps, target proxies, target
// instances, certificates and SSL policies. Each is stored and served as
// the API writes it, and what it names must exist, in its own scope, and
// fit (a URL map's services are the proxy kind; a TCP proxy's service
// speaks TCP); what names it keeps it from being deleted.

// follow looks up the resource ref names in collection, in the scope of
// the resource that names it, and returns its self link; what, when set,
// says what the referring resource is, for the message that refuses a
// resource of another scope.
func (s frontends) follow(ctx context.Context, field, ref string, sc core.Scope, collection, what string, v any) (string, error) {
	k, err := s.Lookup(ctx, field, ref, sc, collection, v)
	if err != nil {
		return "", err
	}
	if k.Scope != sc.Path() {
		return "", googleapi.Invalid("%s (%q) is in %s: %s in %s takes one of its own scope.", field, ref, k.Scope, what, sc.Path())
	}
	return s.Link(k.Path()), nil
}

// proxyServiceSchemes are the load-balancing schemes of the backend
// services a URL map or a proxy may route to: the proxy load balancers'.
var proxyServiceSchemes = map[string]bool{
	api.SchemeExternal: true, api.SchemeExternalManaged: true,
	api.SchemeInternalManaged: true, api.SchemeInternalSelfManaged: true,
}

// urlMaps is the global and regional urlMaps collection.
func (s frontends) urlMaps() *core.Collection[api.URLMap, *api.URLMap] {
	c := core.NewCollection[api.URLMap, *api.URLMap](s.API, api.CollectionURLMaps, rules.URLMap, nil)
	c.Resolve = s.resolveURLMap
	c.Refs = func(m *api.URLMap) []string {
		var out []string
		for _, r := range m.Services() {
			out = append(out, *r.Value)
		}
		return out
	}
	c.Fingerprint = func(m *api.URLMap) *string { return &m.Fingerprint }
	c.FingerprintOptional = true
	return c
}

// resolveURLMap follows every service a map names: each must be a backend
// service of the map's scope that a proxy can route to, and all of them of
// one load-balancing scheme; each backend bucket must exist, in the map's
// scope. A backend service may be of another project where the load
// balancer takes it (cross-project service referencing: the Envoy-based
// application load balancers'); the emulator has no IAM to ask whether the
// map's project may use it.
func (s frontends) resolveURLMap(ctx context.Context, m *api.URLMap, sc core.Scope) error {
	scheme, first := "", ""
	for _, r := range m.Services() {
		k, err := core.ParseAnyRefOfAnyProject(r.Field, *r.Value, sc, api.CollectionBackendServices)
		if err != nil {
			return err
		}
		if k.Collection == api.CollectionBackendBuckets {
			link, err := s.follow(ctx, r.Field, *r.Value, sc, api.CollectionBackendBuckets, "a URL map", new(api.BackendBucket))
			if err != nil {
				return err
			}
			*r.Value = link
			continue
		}
		if k.Collection != api.CollectionBackendServices {
			return googleapi.Invalid("%s (%q) refers to a %s resource: it must refer to %s.", r.Field, *r.Value, k.Collection, api.CollectionBackendServices)
		}
		var bs api.BackendService
		if err := s.Load(ctx, r.Field, *r.Value, k, &bs); err != nil {
			return err
		}
		if k.Scope != sc.Path() {
			return googleapi.Invalid("%s (%q) is in %s: a URL map in %s takes one of its own scope.", r.Field, *r.Value, k.Scope, sc.Path())
		}
		link := s.Link(k.Path())
		bsScheme := bs.LoadBalancingScheme
		if bsScheme == "" {
			bsScheme = api.SchemeExternal
		}
		if !proxyServiceSchemes[bsScheme] {
			return googleapi.Invalid("%s (%q) is a backend service of scheme %s: a URL map routes to the backend services of proxy load balancers (EXTERNAL, EXTERNAL_MANAGED, INTERNAL_MANAGED, INTERNAL_SELF_MANAGED).", r.Field, *r.Value, bsScheme)
		}
		if k.Project != sc.Project && bsScheme != api.SchemeExternalManaged && bsScheme != api.SchemeInternalManaged {
			return googleapi.Invalid("%s (%q) is a backend service of project %q and scheme %s: a URL map of project %q names a backend service of another project only for the EXTERNAL_MANAGED and INTERNAL_MANAGED load balancers (cross-project service referencing); create it in %q.",
				r.Field, *r.Value, k.Project, bsScheme, sc.Project, sc.Project)
		}
		switch bs.Protocol {
		case api.ProtocolTCP, api.ProtocolSSL, api.ProtocolUDP, api.ProtocolUnspecified:
			return googleapi.Invalid("%s (%q) is a backend service of protocol %s: a URL map routes HTTP requests, to services of protocol HTTP, HTTPS, HTTP2, H2C or GRPC.", r.Field, *r.Value, bs.Protocol)
		}
		switch {
		case scheme == "":
			scheme, first = bsScheme, r.Field
		case scheme != bsScheme:
			return googleapi.Invalid("%s (%q) is a backend service of scheme %s, but %s is of scheme %s: the services of one URL map share one load-balancing scheme.", r.Field, *r.Value, bsScheme, first, scheme)
		}
		*r.Value = link
	}
	return nil
}

// urlMapValidate answers urlMaps.validate: the map in the request, checked
// as an insert would check it, reported as the API reports a validation
// (loadSucceeded and loadErrors) rather than as an error.
func (s frontends) urlMapValidate(r *googleapi.Call) (any, error) {
	sc, err := core.ScopeOf(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		Resource *api.URLMap `json:"resource"`
	}
	name := "UrlMapsValidateRequest"
	if sc.Region != "" {
		name = "RegionUrlMapsValidateRequest"
	}
	if err := s.ReadJSON(r, name, &req); err != nil {
		return nil, err
	}
	if _, _, _, err := s.urlMaps().LoadBody(r); err != nil {
		return nil, err
	}
	if req.Resource == nil {
		return nil, googleapi.Invalid("resource is required: the URL map to validate.")
	}
	var loadErrors []string
	if err := rules.URLMap(req.Resource).Err(); err != nil {
		loadErrors = append(loadErrors, err.Error())
	} else if err := s.resolveURLMap(r.Context(), req.Resource, sc); err != nil {
		loadErrors = append(loadErrors, err.Error())
	}
	result := map[string]any{"loadSucceeded": len(loadErrors) == 0}
	if len(loadErrors) > 0 {
		result["loadErrors"] = loadErrors
	} else {
		result["testPassed"] = true
	}
	return map[string]any{"result": result}, nil
}

// urlMapInvalidateCache answers urlMaps.invalidateCache: the emulator has
// no cache, so there is nothing to invalidate but the map must exist.
func (s frontends) urlMapInvalidateCache(r *googleapi.Call) (any, error) {
	var req map[string]any
	if err := s.ReadJSON(r, "CacheInvalidationRule", &req); err != nil {
		return nil, err
	}
	return s.urlMaps().Modify(r, "invalidateCache", func(stored *api.URLMap) (*api.URLMap, error) { return cloneOf(stored), nil })
}

// followURLMap resolves a proxy's URL map.
func (s frontends) followURLMap(ctx context.Context, ref string, sc core.Scope) (string, error) {
	return s.follow(ctx, "urlMap", ref, sc, api.CollectionURLMaps, "a target proxy", new(api.URLMap))
}

// followCertificates resolves a proxy's certificates; Certificate Manager
// certificates ("//certificatemanager.googleapis.com/...") are kept as
// sent.
func (s frontends) followCertificates(ctx context.Context, certs []string, sc core.Scope) error {
	for i, ref := range certs {
		if strings.HasPrefix(ref, "//certificatemanager.") {
			continue
		}
		link, err := s.follow(ctx, "sslCertificates["+strconv.Itoa(i)+"]", ref, sc, api.CollectionSSLCertificates, "a target proxy", new(api.SSLCertificate))
		if err != nil {
			return err
		}
		certs[i] = link
	}
	return nil
}

// followSSLPolicy resolves a proxy's SSL policy, when it has one.
func (s frontends) followSSLPolicy(ctx context.Context, ref *string, sc core.Scope) error {
	if *ref == "" {
		return nil
	}
	link, err := s.follow(ctx, "sslPolicy", *ref, sc, api.CollectionSSLPolicies, "a target proxy", new(api.SSLPolicy))
	*ref = link
	return err
}

// followProxyService resolves a TCP or SSL proxy's backend service: one of
// a proxy load balancer, speaking TCP or SSL.
func (s frontends) followProxyService(ctx context.Context, ref string, sc core.Scope) (string, error) {
	var bs api.BackendService
	link, err := s.follow(ctx, "service", ref, sc, api.CollectionBackendServices, "a target proxy", &bs)
	if err != nil {
		return "", err
	}
	if bs.LoadBalancingScheme != "" && !proxyServiceSchemes[bs.LoadBalancingScheme] {
		return "", googleapi.Invalid("service (%q) is a backend service of scheme %s: a target proxy sends to the backend services of proxy load balancers (EXTERNAL, EXTERNAL_MANAGED, INTERNAL_MANAGED).", ref, bs.LoadBalancingScheme)
	}
	if bs.Protocol != api.ProtocolTCP && bs.Protocol != api.ProtocolSSL {
		return "", googleapi.Invalid("service (%q) is a backend service of protocol %s: a TCP or SSL proxy sends to a service of protocol TCP or SSL.", ref, orUnset(bs.Protocol))
	}
	return link, nil
}

func orUnset(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

// targetHTTPProxies is the global and regional targetHttpProxies collection.
func (s frontends) targetHTTPProxies() *core.Collection[api.TargetHTTPProxy, *api.TargetHTTPProxy] {
	c := core.NewCollection[api.TargetHTTPProxy, *api.TargetHTTPProxy](s.API, api.CollectionTargetHTTPProxies, rules.TargetHTTPProxy, nil)
	c.Resolve = func(ctx context.Context, p *api.TargetHTTPProxy, sc core.Scope) (err error) {
		p.URLMap, err = s.followURLMap(ctx, p.URLMap, sc)
		return err
	}
	c.Refs = func(p *api.TargetHTTPProxy) []string { return []string{p.URLMap} }
	c.Fingerprint = func(p *api.TargetHTTPProxy) *string { return &p.Fingerprint }
	c.FingerprintOptional = true
	return c
}

// targetHTTPSProxies is the global and regional targetHttpsProxies
// collection.
func (s frontends) targetHTTPSProxies() *core.Collection[api.TargetHTTPSProxy, *api.TargetHTTPSProxy] {
	c := core.NewCollection[api.TargetHTTPSProxy, *api.TargetHTTPSProxy](s.API, api.CollectionTargetHTTPSProxies, rules.TargetHTTPSProxy, func(p *api.TargetHTTPSProxy) {
		if p.QuicOverride == "" {
			p.QuicOverride = api.QuicNone
		}
	})
	c.Resolve = func(ctx context.Context, p *api.TargetHTTPSProxy, sc core.Scope) (err error) {
		if p.URLMap, err = s.followURLMap(ctx, p.URLMap, sc); err != nil {
			return err
		}
		if err := s.followCertificates(ctx, p.SSLCertificates, sc); err != nil {
			return err
		}
		return s.followSSLPolicy(ctx, &p.SSLPolicy, sc)
	}
	c.Refs = func(p *api.TargetHTTPSProxy) []string {
		return append([]string{p.URLMap, p.SSLPolicy}, p.SSLCertificates...)
	}
	c.Fingerprint = func(p *api.TargetHTTPSProxy) *string { return &p.Fingerprint }
	c.FingerprintOptional = true
	return c
}

// targetTCPProxies is the global and regional targetTcpProxies collection.
func (s frontends) targetTCPProxies() *core.Collection[api.TargetTCPProxy, *api.TargetTCPProxy] {
	c := core.NewCollection[api.TargetTCPProxy, *api.TargetTCPProxy](s.API, api.CollectionTargetTCPProxies, rules.TargetTCPProxy,
		func(p *api.TargetTCPProxy) { rules.ApplyProxyHeaderDefault(&p.ProxyHeader) })
	c.Resolve = func(ctx context.Context, p *api.TargetTCPProxy, sc core.Scope) (err error) {
		p.Service, err = s.followProxyService(ctx, p.Service, sc)
		return err
	}
	c.Refs = func(p *api.TargetTCPProxy) []string { return []string{p.Service} }
	return c
}

// targetSSLProxies is the global targetSslProxies collection.
func (s frontends) targetSSLProxies() *core.Collection[api.TargetSSLProxy, *api.TargetSSLProxy] {
	c := core.NewCollection[api.TargetSSLProxy, *api.TargetSSLProxy](s.API, api.CollectionTargetSSLProxies, rules.TargetSSLProxy,
		func(p *api.TargetSSLProxy) { rules.ApplyProxyHeaderDefault(&p.ProxyHeader) })
	c.Resolve = func(ctx context.Context, p *api.TargetSSLProxy, sc core.Scope) (err error) {
		if p.Service, err = s.followProxyService(ctx, p.Service, sc); err != nil {
			return err
		}
		if err := s.followCertificates(ctx, p.SSLCertificates, sc); err != nil {
			return err
		}
		return s.followSSLPolicy(ctx, &p.SSLPolicy, sc)
	}
	c.Refs = func(p *api.TargetSSLProxy) []string {
		return append([]string{p.Service, p.SSLPolicy}, p.SSLCertificates...)
	}
	return c
}

// targetInstances is the zonal targetInstances collection: its instance
// must be in its zone.
func (s frontends) targetInstances() *core.Collection[api.TargetInstance, *api.TargetInstance] {
	c := core.NewCollection[api.TargetInstance, *api.TargetInstance](s.API, api.CollectionTargetInstances, rules.TargetInstance, rules.ApplyTargetInstanceDefaults)
	c.Resolve = func(ctx context.Context, t *api.TargetInstance, sc core.Scope) (err error) {
		if t.Instance, err = s.follow(ctx, "instance", t.Instance, sc, api.CollectionInstances, "a target instance", new(api.Instance)); err != nil {
			return err
		}
		if t.Network != "" {
			k, err := s.Lookup(ctx, "network", t.Network, core.Scope{Project: sc.Project}, api.CollectionNetworks, new(api.Network))
			if err != nil {
				return err
			}
			t.Network = s.Link(k.Path())
		}
		return nil
	}
	c.Refs = func(t *api.TargetInstance) []string { return []string{t.Instance, t.Network} }
	return c
}

// targetGrpcProxies is the global targetGrpcProxies collection: its URL
// map, when it names one, must exist.
func (s frontends) targetGrpcProxies() *core.Collection[api.TargetGrpcProxy, *api.TargetGrpcProxy] {
	c := core.NewCollection[api.TargetGrpcProxy, *api.TargetGrpcProxy](s.API, api.CollectionTargetGrpcProxies, rules.TargetGrpcProxy, nil)
	c.Resolve = func(ctx context.Context, p *api.TargetGrpcProxy, sc core.Scope) (err error) {
		if p.URLMap != "" {
			p.URLMap, err = s.followURLMap(ctx, p.URLMap, sc)
		}
		return err
	}
	c.Refs = func(p *api.TargetGrpcProxy) []string { return []string{p.URLMap} }
	c.Fingerprint = func(p *api.TargetGrpcProxy) *string { return &p.Fingerprint }
	c.FingerprintOptional = true
	return c
}

// sslCertificates is the global and regional sslCertificates collection.
// The private key is write only: checked on insert, never stored.
func (s frontends) sslCertificates() *core.Collection[api.SSLCertificate, *api.SSLCertificate] {
	c := core.NewCollection[api.SSLCertificate, *api.SSLCertificate](s.API, api.CollectionSSLCertificates, rules.SSLCertificate, rules.ApplySSLCertificateDefaults)
	c.Outputs = func(cert, _ *api.SSLCertificate) {
		switch cert.Type {
		case api.CertificateManaged:
			cert.Managed.Status = api.CertificateProvisioning
			cert.Managed.DomainStatus = map[string]string{}
			for _, d := range cert.Managed.Domains {
				cert.Managed.DomainStatus[d] = api.CertificateProvisioning
			}
			cert.SubjectAlternativeNames = append([]string(nil), cert.Managed.Domains...)
		default:
			chain, err := rules.ParseCertificateChain(cert.Certificate)
			if err != nil {
				return // the rules refused it already
			}
			leaf := chain[0]
			cert.ExpireTime = leaf.NotAfter.UTC().Format("2006-01-02T15:04:05.000-07:00")
			cert.SubjectAlternativeNames = append([]string(nil), leaf.DNSNames...)
		}
	}
	c.InputOnly = func(doc core.Document) {
		delete(doc, "privateKey")
		delete(doc, "selfManaged")
	}
	c.Attach = func(ctx context.Context, cert *api.SSLCertificate, sc core.Scope) error {
		if cert.Type == api.CertificateManaged && s.Certs != nil {
			s.Certs.Provision(sc.Key(api.CollectionSSLCertificates, cert.Name))
		}
		return nil
	}
	return c
}

// sslPolicies is the global and regional sslPolicies collection.
func (s frontends) sslPolicies() *core.Collection[api.SSLPolicy, *api.SSLPolicy] {
	c := core.NewCollection[api.SSLPolicy, *api.SSLPolicy](s.API, api.CollectionSSLPolicies, rules.SSLPolicy, rules.ApplySSLPolicyDefaults)
	c.Fingerprint = func(p *api.SSLPolicy) *string { return &p.Fingerprint }
	return c
}

// The proxies' set methods: each changes one field, under the proxy's
// own checks.

func (s frontends) httpProxySetURLMap(r *googleapi.Call) (any, error) {
	var req api.URLMapReference
	if err := s.ReadJSON(r, "UrlMapReference", &req); err != nil {
		return nil, err
	}
	return s.targetHTTPProxies().Modify(r, "setUrlMap", func(stored *api.TargetHTTPProxy) (*api.TargetHTTPProxy, error) {
		p := cloneOf(stored)
		p.URLMap = req.URLMap
		return p, nil
	})
}

func (s frontends) httpsProxySetURLMap(r *googleapi.Call) (any, error) {
	var req api.URLMapReference
	if err := s.ReadJSON(r, "UrlMapReference", &req); err != nil {
		return nil, err
	}
	return s.targetHTTPSProxies().Modify(r, "setUrlMap", func(stored *api.TargetHTTPSProxy) (*api.TargetHTTPSProxy, error) {
		p := cloneOf(stored)
		p.URLMap = req.URLMap
		return p, nil
	})
}

func (s frontends) httpsProxySetCertificates(r *googleapi.Call) (any, error) {
	sc, err := core.ScopeOf(r)
	if err != nil {
		return nil, err
	}
	name := "TargetHttpsProxiesSetSslCertificatesRequest"
	if sc.Region != "" {
		name = "RegionTargetHttpsProxiesSetSslCertificatesRequest"
	}
	var req api.SSLCertificatesRequest
	if err := s.ReadJSON(r, name, &req); err != nil {
		return nil, err
	}
	return s.targetHTTPSProxies().Modify(r, "setSslCertificates", func(stored *api.TargetHTTPSProxy) (*api.TargetHTTPSProxy, error) {
		p := cloneOf(stored)
		p.SSLCertificates = req.SSLCertificates
		return p, nil
	})
}

func (s frontends) httpsProxySetQuicOverride(r *googleapi.Call) (any, error) {
	var req api.QuicOverrideRequest
	if err := s.ReadJSON(r, "TargetHttpsProxiesSetQuicOverrideRequest", &req); err != nil {
		return nil, err
	}
	if v := oneOfValues("quicOverride", req.QuicOverride, "NONE", "ENABLE", "DISABLE"); v != nil {
		return nil, v
	}
	return s.targetHTTPSProxies().Modify(r, "setQuicOverride", func(stored *api.TargetHTTPSProxy) (*api.TargetHTTPSProxy, error) {
		p := cloneOf(stored)
		p.QuicOverride = req.QuicOverride
		return p, nil
	})
}

func (s frontends) httpsProxySetSSLPolicy(r *googleapi.Call) (any, error) {
	var req api.SSLPolicyReference
	if err := s.ReadJSON(r, "SslPolicyReference", &req); err != nil {
		return nil, err
	}
	return s.targetHTTPSProxies().Modify(r, "setSslPolicy", func(stored *api.TargetHTTPSProxy) (*api.TargetHTTPSProxy, error) {
		p := cloneOf(stored)
		p.SSLPolicy = req.SSLPolicy
		return p, nil
	})
}

func (s frontends) tcpProxySetBackendService(r *googleapi.Call) (any, error) {
	var req api.BackendServiceRequest
	if err := s.ReadJSON(r, "TargetTcpProxiesSetBackendServiceRequest", &req); err != nil {
		return nil, err
	}
	return s.targetTCPProxies().Modify(r, "setBackendService", func(stored *api.TargetTCPProxy) (*api.TargetTCPProxy, error) {
		p := cloneOf(stored)
		p.Service = req.Service
		return p, nil
	})
}

func (s frontends) tcpProxySetProxyHeader(r *googleapi.Call) (any, error) {
	var req api.ProxyHeaderRequest
	if err := s.ReadJSON(r, "TargetTcpProxiesSetProxyHeaderRequest", &req); err != nil {
		return nil, err
	}
	if v := oneOfValues("proxyHeader", req.ProxyHeader, "NONE", "PROXY_V1"); v != nil {
		return nil, v
	}
	return s.targetTCPProxies().Modify(r, "setProxyHeader", func(stored *api.TargetTCPProxy) (*api.TargetTCPProxy, error) {
		p := cloneOf(stored)
		p.ProxyHeader = req.ProxyHeader
		return p, nil
	})
}

func (s frontends) sslProxySetBackendService(r *googleapi.Call) (any, error) {
	var req api.BackendServiceRequest
	if err := s.ReadJSON(r, "TargetSslProxiesSetBackendServiceRequest", &req); err != nil {
		return nil, err
	}
	return s.targetSSLProxies().Modify(r, "setBackendService", func(stored *api.TargetSSLProxy) (*api.TargetSSLProxy, error) {
		p := cloneOf(stored)
		p.Service = req.Service
		return p, nil
	})
}

func (s frontends) sslProxySetCertificates(r *googleapi.Call) (any, error) {
	var req api.SSLCertificatesRequest
	if err := s.ReadJSON(r, "TargetSslProxiesSetSslCertificatesRequest", &req); err != nil {
		return nil, err
	}
	return s.targetSSLProxies().Modify(r, "setSslCertificates", func(stored *api.TargetSSLProxy) (*api.TargetSSLProxy, error) {
		p := cloneOf(stored)
		p.SSLCertificates = req.SSLCertificates
		return p, nil
	})
}

func (s frontends) sslProxySetSSLPolicy(r *googleapi.Call) (any, error) {
	var req api.SSLPolicyReference
	if err := s.ReadJSON(r, "SslPolicyReference", &req); err != nil {
		return nil, err
	}
	return s.targetSSLProxies().Modify(r, "setSslPolicy", func(stored *api.TargetSSLProxy) (*api.TargetSSLProxy, error) {
		p := cloneOf(stored)
		p.SSLPolicy = req.SSLPolicy
		return p, nil
	})
}

func (s frontends) sslProxySetProxyHeader(r *googleapi.Call) (any, error) {
	var req api.ProxyHeaderRequest
	if err := s.ReadJSON(r, "TargetSslProxiesSetProxyHeaderRequest", &req); err != nil {
		return nil, err
	}
	if v := oneOfValues("proxyHeader", req.ProxyHeader, "NONE", "PROXY_V1"); v != nil {
		return nil, v
	}
	return s.targetSSLProxies().Modify(r, "setProxyHeader", func(stored *api.TargetSSLProxy) (*api.TargetSSLProxy, error) {
		p := cloneOf(stored)
		p.ProxyHeader = req.ProxyHeader
		return p, nil
	})
}

// oneOfValues refuses a request field that is not one of its values.
func oneOfValues(field, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return googleapi.Invalid("%s (%q) must be one of %s.", field, value, strings.Join(allowed, ", "))
}
