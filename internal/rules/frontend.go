package rules

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"regexp"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Limits of the load balancer's front end.
const (
	// MaxProxyCertificates is the most certificates a target proxy takes.
	MaxProxyCertificates = 15
	// MaxCertificateChain is the longest certificate chain.
	MaxCertificateChain = 5
	// MaxManagedDomains is the most domains of one managed certificate.
	MaxManagedDomains = 100
	// MaxServiceWeight is the highest weight of a weighted backend service.
	MaxServiceWeight = 1000
)

// URLMap checks a URL map as sent: one default at each level, host rules
// that name path matchers of the map, path patterns of the API's form.
func URLMap(m *api.URLMap) Violations {
	var vs Violations
	vs.add(Name("name", m.Name))
	vs.add(Description("description", m.Description))
	vs.add(oneDefault("", m.DefaultService, m.DefaultURLRedirect, m.DefaultRouteAction))
	vs = append(vs, routeAction("defaultRouteAction", m.DefaultRouteAction)...)
	matchers := map[string]bool{}
	for i, pm := range m.PathMatchers {
		at := fmt.Sprintf("pathMatchers[%d]", i)
		if pm.Name == "" {
			vs = append(vs, violation(at+".name", "%s is required: host rules name the path matcher they use.", f(at+".name")))
		} else {
			vs.add(Name(at+".name", pm.Name))
		}
		if matchers[pm.Name] {
			vs = append(vs, violation(at+".name", "%s (%q) is the name of another path matcher of this map: path matcher names are unique.", f(at+".name"), pm.Name))
		}
		matchers[pm.Name] = true
		vs.add(oneDefault(at+".", pm.DefaultService, pm.DefaultURLRedirect, pm.DefaultRouteAction))
		vs = append(vs, routeAction(at+".defaultRouteAction", pm.DefaultRouteAction)...)
		if len(pm.PathRules) > 0 && len(pm.RouteRules) > 0 {
			vs = append(vs, violation(at+".routeRules", "%s and %s are both set: a path matcher uses path rules or route rules, not both.", f(at+".pathRules"), f(at+".routeRules")))
		}
		for j, pr := range pm.PathRules {
			rat := fmt.Sprintf("%s.pathRules[%d]", at, j)
			if len(pr.Paths) == 0 {
				vs = append(vs, violation(rat+".paths", "%s is empty: a path rule lists at least one path.", f(rat+".paths")))
			}
			for k, p := range pr.Paths {
				vs.add(pathPattern(fmt.Sprintf("%s.paths[%d]", rat, k), p))
			}
			vs.add(oneAction(rat, "service", pr.Service, pr.URLRedirect, pr.RouteAction))
			vs = append(vs, routeAction(rat+".routeAction", pr.RouteAction)...)
		}
		priorities := map[int64]bool{}
		for j, rr := range pm.RouteRules {
			rat := fmt.Sprintf("%s.routeRules[%d]", at, j)
			if rr.Priority == nil {
				vs = append(vs, violation(rat+".priority", "%s is required: route rules are evaluated in order of priority.", f(rat+".priority")))
			} else {
				vs.add(intRange(rat+".priority", *rr.Priority, 0, 2147483647))
				if priorities[*rr.Priority] {
					vs = append(vs, violation(rat+".priority", "%s (%d) is the priority of another route rule of this path matcher: priorities are unique within a path matcher.", f(rat+".priority"), *rr.Priority))
				}
				priorities[*rr.Priority] = true
			}
			vs.add(oneAction(rat, "service", rr.Service, rr.URLRedirect, rr.RouteAction))
			vs = append(vs, routeAction(rat+".routeAction", rr.RouteAction)...)
		}
	}
	hosts := map[string]bool{}
	for i, hr := range m.HostRules {
		at := fmt.Sprintf("hostRules[%d]", i)
		if len(hr.Hosts) == 0 {
			vs = append(vs, violation(at+".hosts", "%s is empty: a host rule lists at least one host pattern.", f(at+".hosts")))
		}
		for j, h := range hr.Hosts {
			hat := fmt.Sprintf("%s.hosts[%d]", at, j)
			vs.add(hostPattern(hat, h))
			if hosts[h] {
				vs = append(vs, violation(hat, "%s (%q) is in another host rule of this map: each host pattern is in one host rule.", f(hat), h))
			}
			hosts[h] = true
		}
		if !matchers[hr.PathMatcher] {
			vs = append(vs, violation(at+".pathMatcher", "%s (%q) names no path matcher of this map: it must be the name of one of pathMatchers.", f(at+".pathMatcher"), hr.PathMatcher))
		}
	}
	return vs
}

// oneDefault: at most one of a map's (or a path matcher's) defaultService,
// defaultUrlRedirect and defaultRouteAction.weightedBackendServices.
func oneDefault(at, service string, redirect *api.Redirect, action *api.RouteAction) *Violation {
	n := 0
	if service != "" {
		n++
	}
	if redirect != nil {
		n++
	}
	if action != nil && len(action.WeightedBackendServices) > 0 {
		n++
	}
	if n <= 1 {
		return nil
	}
	v := violation(at+"defaultService", "only one of %s, %s and %s can be set.", f(at+"defaultService"), f(at+"defaultUrlRedirect"), f(at+"defaultRouteAction.weightedBackendServices"))
	return &v
}

// oneAction: at most one of a rule's service, urlRedirect and
// routeAction.weightedBackendServices.
func oneAction(at, serviceField, service string, redirect *api.Redirect, action *api.RouteAction) *Violation {
	n := 0
	if service != "" {
		n++
	}
	if redirect != nil {
		n++
	}
	if action != nil && len(action.WeightedBackendServices) > 0 {
		n++
	}
	if n <= 1 {
		return nil
	}
	v := violation(at+"."+serviceField, "only one of %s, %s and %s can be set.", f(at+"."+serviceField), f(at+".urlRedirect"), f(at+".routeAction.weightedBackendServices"))
	return &v
}

// routeAction checks a route action's weighted split, CORS policy and
// mirror policy.
func routeAction(at string, a *api.RouteAction) Violations {
	if a == nil {
		return nil
	}
	vs := append(weights(at, a), corsPolicy(at+".corsPolicy", a.CorsPolicy)...)
	if m := a.RequestMirrorPolicy; m != nil {
		vs.add(required(at+".requestMirrorPolicy.backendService", m.BackendService, "the backend service the route's requests are mirrored to"))
		if p := m.MirrorPercent; p != nil && (*p < 0 || *p > 100) {
			field := at + ".requestMirrorPolicy.mirrorPercent"
			vs = append(vs, violation(field, "%s (%v) is a percentage of requests: it must be between 0 and 100.", f(field), *p))
		}
	}
	return vs
}

// corsPolicy: origin regexes in RE2's syntax (Go's), and a maxAge that
// is not negative.
func corsPolicy(at string, p *api.CorsPolicy) Violations {
	if p == nil {
		return nil
	}
	var vs Violations
	for i, expr := range p.AllowOriginRegexes {
		field := fmt.Sprintf("%s.allowOriginRegexes[%d]", at, i)
		if _, err := regexp.Compile(expr); err != nil {
			vs = append(vs, violation(field, "%s (%q) is not a regular expression in RE2's syntax: %v.", f(field), expr, err))
		}
	}
	if p.MaxAge != nil {
		vs.add(intRange(at+".maxAge", *p.MaxAge, 0, 2147483647))
	}
	return vs
}

// weights checks a weighted split: every service named, weights 0 to 1000.
func weights(at string, a *api.RouteAction) Violations {
	var vs Violations
	for i, w := range a.WeightedBackendServices {
		wat := fmt.Sprintf("%s.weightedBackendServices[%d]", at, i)
		if w.BackendService == "" {
			vs = append(vs, violation(wat+".backendService", "%s is required: a weighted split names each of its backend services.", f(wat+".backendService")))
		}
		vs.add(optionalRange(wat+".weight", w.Weight, 0, MaxServiceWeight))
	}
	return vs
}

// pathPattern: a path starts with /, and * is allowed only at its end,
// after a /.
func pathPattern(field, p string) *Violation {
	star := strings.IndexByte(p, '*')
	switch {
	case !strings.HasPrefix(p, "/"):
	case star >= 0 && (star != len(p)-1 || !strings.HasSuffix(p, "/*")):
	case strings.ContainsAny(p, "?#"):
	default:
		return nil
	}
	v := violation(field, "%s (%q) is not a path pattern: it must start with / and may have a * only at its end, after a / (\"/images/*\"); no ? or #.", f(field), p)
	return &v
}

// hostPattern: a host name with an optional port; * only as its first
// character, followed by nothing or by "." or "-".
func hostPattern(field, h string) *Violation {
	name := h
	if i := strings.LastIndexByte(h, ':'); i > 0 {
		name = h[:i]
	}
	ok := name != "" && !strings.Contains(name[1:], "*")
	if ok && name[0] == '*' && len(name) > 1 {
		ok = name[1] == '.' || name[1] == '-'
	}
	for _, c := range strings.ToLower(strings.TrimPrefix(name, "*")) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			ok = false
		}
	}
	if ok {
		return nil
	}
	v := violation(field, "%s (%q) is not a host pattern: a host name with an optional :port, where * may only be the first character, followed by nothing, . or - (\"*.example.com\").", f(field), h)
	return &v
}

// TargetHTTPProxy checks a target HTTP proxy as sent.
func TargetHTTPProxy(p *api.TargetHTTPProxy) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	vs.add(required("urlMap", p.URLMap, "the URL map that routes the proxy's requests"))
	return vs
}

// TargetHTTPSProxy checks a target HTTPS proxy as sent.
func TargetHTTPSProxy(p *api.TargetHTTPSProxy) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	vs.add(required("urlMap", p.URLMap, "the URL map that routes the proxy's requests"))
	vs = append(vs, ProxyCertificates(p.SSLCertificates, p.CertificateMap)...)
	return vs
}

// ProxyCertificates: a proxy that ends TLS has 1 to 15 certificates, unless
// a certificate map stands for them.
func ProxyCertificates(certs []string, certificateMap string) Violations {
	var vs Violations
	switch {
	case len(certs) == 0 && certificateMap == "":
		vs = append(vs, violation("sslCertificates", "%s is empty: a proxy that ends TLS needs at least one SSL certificate (or a %s).", f("sslCertificates"), f("certificateMap")))
	case len(certs) > MaxProxyCertificates:
		vs = append(vs, violation("sslCertificates", "%s has %d certificates: a proxy takes at most %d.", f("sslCertificates"), len(certs), MaxProxyCertificates))
	}
	for i, c := range certs {
		if c == "" {
			vs = append(vs, violation(fmt.Sprintf("sslCertificates[%d]", i), "%s is empty: name an SSL certificate.", f(fmt.Sprintf("sslCertificates[%d]", i))))
		}
	}
	return vs
}

// TargetTCPProxy checks a target TCP proxy as sent.
func TargetTCPProxy(p *api.TargetTCPProxy) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	vs.add(required("service", p.Service, "the backend service the proxy sends its connections to"))
	return vs
}

// TargetSSLProxy checks a target SSL proxy as sent.
func TargetSSLProxy(p *api.TargetSSLProxy) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	vs.add(required("service", p.Service, "the backend service the proxy sends its connections to"))
	vs = append(vs, ProxyCertificates(p.SSLCertificates, p.CertificateMap)...)
	return vs
}

// ApplyProxyHeaderDefault: proxyHeader is NONE unless set.
func ApplyProxyHeaderDefault(header *string) {
	if *header == "" {
		*header = api.ProxyHeaderNone
	}
}

// TargetInstance checks a target instance as sent.
func TargetInstance(t *api.TargetInstance) Violations {
	var vs Violations
	vs.add(Name("name", t.Name))
	vs.add(Description("description", t.Description))
	vs.add(required("instance", t.Instance, "the instance that handles the target's traffic"))
	return vs
}

// TargetGrpcProxy checks a target gRPC proxy as a client sent it.
func TargetGrpcProxy(p *api.TargetGrpcProxy) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	return vs
}

// ApplyTargetInstanceDefaults: natPolicy is NO_NAT, its only value.
func ApplyTargetInstanceDefaults(t *api.TargetInstance) {
	if t.NatPolicy == "" {
		t.NatPolicy = api.NoNAT
	}
}

// required refuses an empty reference, saying what it names.
func required(field, value, what string) *Violation {
	if value != "" {
		return nil
	}
	v := violation(field, "%s is required: %s.", f(field), what)
	return &v
}

// SSLCertificate checks a certificate as sent: a self-managed one is a PEM
// chain of at most five certificates with the private key of its first; a
// managed one lists the domains to provision, and has no key.
func SSLCertificate(c *api.SSLCertificate) Violations {
	var vs Violations
	vs.add(Name("name", c.Name))
	vs.add(Description("description", c.Description))
	cert, key, certField, keyField := c.Certificate, c.PrivateKey, "certificate", "privateKey"
	if c.SelfManaged != nil {
		if cert != "" || key != "" {
			vs = append(vs, violation("selfManaged", "%s and %s are both set: send the certificate and key once.", f("certificate"), f("selfManaged")))
		}
		cert, key, certField, keyField = c.SelfManaged.Certificate, c.SelfManaged.PrivateKey, "selfManaged.certificate", "selfManaged.privateKey"
	}
	switch c.Type {
	case api.CertificateManaged:
		if c.Managed == nil || len(c.Managed.Domains) == 0 {
			vs = append(vs, violation("managed.domains", "%s is empty: a MANAGED certificate lists the domains to provision it for.", f("managed.domains")))
			break
		}
		if cert != "" || key != "" {
			vs = append(vs, violation(certField, "%s is set on a MANAGED certificate: Google provisions a managed certificate; send only %s.", f(certField), f("managed.domains")))
		}
		if len(c.Managed.Domains) > MaxManagedDomains {
			vs = append(vs, violation("managed.domains", "%s has %d domains: a managed certificate covers at most %d.", f("managed.domains"), len(c.Managed.Domains), MaxManagedDomains))
		}
		for i, d := range c.Managed.Domains {
			vs.add(managedDomain(fmt.Sprintf("managed.domains[%d]", i), d))
		}
	case "", api.CertificateSelfManaged:
		if c.Managed != nil {
			vs = append(vs, violation("managed", "%s is set, but %s is not MANAGED: a self-managed certificate is a certificate and a private key.", f("managed"), f("type")))
		}
		vs = append(vs, certificateAndKey(certField, keyField, cert, key)...)
	}
	return vs
}

// managedDomain: a fully qualified host name, no wildcard.
func managedDomain(field, d string) *Violation {
	if strings.Contains(d, "*") {
		v := violation(field, "%s (%q) is a wildcard: managed certificates do not cover wildcard domains.", f(field), d)
		return &v
	}
	if hostPattern(field, d) != nil || strings.Contains(d, ":") || !strings.Contains(d, ".") {
		v := violation(field, "%s (%q) is not a domain name (\"www.example.com\").", f(field), d)
		return &v
	}
	return nil
}

// certificateAndKey parses a PEM chain and its key. Messages never echo
// the key.
func certificateAndKey(certField, keyField, cert, key string) Violations {
	var vs Violations
	if cert == "" {
		vs = append(vs, violation(certField, "%s is required: the PEM certificate chain of a self-managed certificate.", f(certField)))
	}
	if key == "" {
		vs = append(vs, violation(keyField, "%s is required: the PEM private key of the certificate.", f(keyField)))
	}
	if len(vs) > 0 {
		return vs
	}
	chain, err := ParseCertificateChain(cert)
	if err != nil {
		return append(vs, violation(certField, "%s is not a PEM certificate chain: %s.", f(certField), err))
	}
	if len(chain) > MaxCertificateChain {
		return append(vs, violation(certField, "%s has %d certificates: the chain must be no greater than %d certs long.", f(certField), len(chain), MaxCertificateChain))
	}
	block, _ := pem.Decode([]byte(key))
	if block == nil {
		return append(vs, violation(keyField, "%s is not a PEM private key (a \"-----BEGIN PRIVATE KEY-----\" block).", f(keyField)))
	}
	priv, err := parsePrivateKey(block.Bytes)
	if err != nil {
		return append(vs, violation(keyField, "%s is not a private key the API reads (PKCS #1, PKCS #8 or SEC 1, RSA or ECDSA).", f(keyField)))
	}
	if !priv.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(chain[0].PublicKey) {
		vs = append(vs, violation(keyField, "%s is not the key of %s: its public key is not the first certificate's.", f(keyField), f(certField)))
	}
	return vs
}

// ParseCertificateChain reads every CERTIFICATE block of a PEM text.
func ParseCertificateChain(text string) ([]*x509.Certificate, error) {
	var chain []*x509.Certificate
	rest := []byte(text)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("it has a %q block where certificates were expected", block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d does not parse (%v)", len(chain)+1, err)
		}
		chain = append(chain, c)
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("it has no \"-----BEGIN CERTIFICATE-----\" block")
	}
	return chain, nil
}

func parsePrivateKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		switch k := k.(type) {
		case *rsa.PrivateKey:
			return k, nil
		case *ecdsa.PrivateKey:
			return k, nil
		case ed25519.PrivateKey:
			return nil, fmt.Errorf("ed25519 keys are not supported")
		}
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	return x509.ParseECPrivateKey(der)
}

// ApplySSLCertificateDefaults: the type is SELF_MANAGED unless set; a
// self-managed certificate's selfManaged block is moved to the top-level
// fields the API returns.
func ApplySSLCertificateDefaults(c *api.SSLCertificate) {
	if c.Type == "" {
		c.Type = api.CertificateSelfManaged
	}
	if c.SelfManaged != nil {
		c.Certificate, c.PrivateKey = c.SelfManaged.Certificate, c.SelfManaged.PrivateKey
		c.SelfManaged = nil
	}
}

// SSLPolicy checks an SSL policy as sent: customFeatures only, and always,
// with the CUSTOM profile; TLS 1.3 as the minimum only with RESTRICTED.
func SSLPolicy(p *api.SSLPolicy) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	switch {
	case p.Profile == api.SSLProfileCustom && len(p.CustomFeatures) == 0:
		vs = append(vs, violation("customFeatures", "%s is empty: the CUSTOM profile enables only the features it lists.", f("customFeatures")))
	case p.Profile != api.SSLProfileCustom && len(p.CustomFeatures) > 0:
		vs = append(vs, violation("customFeatures", "%s is set, but %s is not CUSTOM: this field must be empty if the profile is not CUSTOM.", f("customFeatures"), f("profile")))
	}
	for i, feature := range p.CustomFeatures {
		if !knownFeature(feature) {
			vs = append(vs, violation(fmt.Sprintf("customFeatures[%d]", i), "%s (%q) is not an SSL feature: one of %s.", f(fmt.Sprintf("customFeatures[%d]", i)), feature, strings.Join(SSLFeatures, ", ")))
		}
	}
	if p.MinTLSVersion == api.TLS13 && p.Profile != api.SSLProfileRestricted {
		vs = append(vs, violation("minTlsVersion", "%s is TLS_1_3, so %s must be RESTRICTED.", f("minTlsVersion"), f("profile")))
	}
	return vs
}

// SSLFeatures are the cipher suites an SSL policy can enable, by the API's
// names (listAvailableFeatures).
var SSLFeatures = []string{
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
	"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
	"TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384",
	"TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
}

func knownFeature(name string) bool {
	for _, f := range SSLFeatures {
		if f == name {
			return true
		}
	}
	return false
}

// ApplySSLPolicyDefaults: the COMPATIBLE profile and TLS 1.0 unless set,
// and the features the profile enables.
func ApplySSLPolicyDefaults(p *api.SSLPolicy) {
	if p.Profile == "" {
		p.Profile = api.SSLProfileCompatible
	}
	if p.MinTLSVersion == "" {
		p.MinTLSVersion = api.TLS10
	}
	switch p.Profile {
	case api.SSLProfileCustom:
		p.EnabledFeatures = append([]string(nil), p.CustomFeatures...)
	case "MODERN", api.SSLProfileRestricted, "FIPS_202205":
		p.EnabledFeatures = append([]string(nil), SSLFeatures[:6]...)
	default:
		p.EnabledFeatures = append([]string(nil), SSLFeatures...)
	}
}
