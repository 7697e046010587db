package rules

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// selfSigned returns a PEM certificate for name and its PEM private key.
func selfSigned(t *testing.T, name string) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk}))
}

// TestURLMap: one default per level, path matchers named once and used by
// host rules, path and host patterns of the API's form, unique priorities
// and weights from 0 to 1000; each message names the field and the value.
func TestURLMap(t *testing.T) {
	one, big := int64(1), int64(1001)
	valid := func() *api.URLMap {
		return &api.URLMap{
			Meta:           api.Meta{Name: "web"},
			DefaultService: "bs",
			HostRules:      []api.HostRule{{Hosts: []string{"*.example.com", "api.example.com:8080"}, PathMatcher: "pm"}},
			PathMatchers: []api.PathMatcher{{Name: "pm", DefaultService: "bs",
				PathRules: []api.PathRule{{Paths: []string{"/images/*", "/"}, Service: "bs"}}}},
		}
	}
	if vs := URLMap(valid()); len(vs) > 0 {
		t.Fatalf("valid map: %v", vs)
	}
	for _, tc := range []struct {
		name   string
		change func(*api.URLMap)
		field  string
		want   string
	}{
		{"two defaults", func(m *api.URLMap) { m.DefaultURLRedirect = &api.Redirect{HostRedirect: "x"} },
			"defaultService", "only one of defaultService, defaultUrlRedirect and defaultRouteAction.weightedBackendServices can be set."},
		{"matcher without name", func(m *api.URLMap) { m.PathMatchers[0].Name = ""; m.HostRules = nil },
			"pathMatchers[0].name", "pathMatchers[0].name is required: host rules name the path matcher they use."},
		{"matcher twice", func(m *api.URLMap) { m.PathMatchers = append(m.PathMatchers, m.PathMatchers[0]) },
			"pathMatchers[1].name", `pathMatchers[1].name ("pm") is the name of another path matcher of this map: path matcher names are unique.`},
		{"path and route rules", func(m *api.URLMap) {
			m.PathMatchers[0].RouteRules = []api.RouteRule{{Priority: &one, Service: "bs"}}
		}, "pathMatchers[0].routeRules", "pathMatchers[0].pathRules and pathMatchers[0].routeRules are both set: a path matcher uses path rules or route rules, not both."},
		{"rule without paths", func(m *api.URLMap) { m.PathMatchers[0].PathRules[0].Paths = nil },
			"pathMatchers[0].pathRules[0].paths", "pathMatchers[0].pathRules[0].paths is empty: a path rule lists at least one path."},
		{"path without slash", func(m *api.URLMap) { m.PathMatchers[0].PathRules[0].Paths = []string{"images"} },
			"pathMatchers[0].pathRules[0].paths[0]", `pathMatchers[0].pathRules[0].paths[0] ("images") is not a path pattern: it must start with /`},
		{"star in the middle", func(m *api.URLMap) { m.PathMatchers[0].PathRules[0].Paths = []string{"/a*/b"} },
			"pathMatchers[0].pathRules[0].paths[0]", `("/a*/b") is not a path pattern`},
		{"rule with two actions", func(m *api.URLMap) {
			m.PathMatchers[0].PathRules[0].URLRedirect = &api.Redirect{PathRedirect: "/x"}
		}, "pathMatchers[0].pathRules[0].service", "only one of pathMatchers[0].pathRules[0].service, pathMatchers[0].pathRules[0].urlRedirect and pathMatchers[0].pathRules[0].routeAction.weightedBackendServices can be set."},
		{"route rule without priority", func(m *api.URLMap) {
			m.PathMatchers[0].PathRules = nil
			m.PathMatchers[0].RouteRules = []api.RouteRule{{Service: "bs"}}
		}, "pathMatchers[0].routeRules[0].priority", "pathMatchers[0].routeRules[0].priority is required: route rules are evaluated in order of priority."},
		{"priority twice", func(m *api.URLMap) {
			m.PathMatchers[0].PathRules = nil
			m.PathMatchers[0].RouteRules = []api.RouteRule{{Priority: &one, Service: "bs"}, {Priority: &one, Service: "bs"}}
		}, "pathMatchers[0].routeRules[1].priority", "pathMatchers[0].routeRules[1].priority (1) is the priority of another route rule of this path matcher: priorities are unique within a path matcher."},
		{"weight too high", func(m *api.URLMap) {
			m.DefaultService = ""
			m.DefaultRouteAction = &api.RouteAction{WeightedBackendServices: []api.WeightedBackendService{{BackendService: "bs", Weight: &big}}}
		}, "defaultRouteAction.weightedBackendServices[0].weight", "defaultRouteAction.weightedBackendServices[0].weight (1001) must be"},
		{"weighted without service", func(m *api.URLMap) {
			m.DefaultService = ""
			m.DefaultRouteAction = &api.RouteAction{WeightedBackendServices: []api.WeightedBackendService{{Weight: &one}}}
		}, "defaultRouteAction.weightedBackendServices[0].backendService", "defaultRouteAction.weightedBackendServices[0].backendService is required: a weighted split names each of its backend services."},
		{"CORS origin regex not RE2", func(m *api.URLMap) {
			m.PathMatchers[0].PathRules[0].RouteAction = &api.RouteAction{CorsPolicy: &api.CorsPolicy{AllowOriginRegexes: []string{"https://(?=a)"}}}
		}, "pathMatchers[0].pathRules[0].routeAction.corsPolicy.allowOriginRegexes[0]", `pathMatchers[0].pathRules[0].routeAction.corsPolicy.allowOriginRegexes[0] ("https://(?=a)") is not a regular expression in RE2's syntax: error parsing regexp`},
		{"CORS negative maxAge", func(m *api.URLMap) {
			minus := int64(-1)
			m.DefaultRouteAction = &api.RouteAction{CorsPolicy: &api.CorsPolicy{MaxAge: &minus}}
		}, "defaultRouteAction.corsPolicy.maxAge", "defaultRouteAction.corsPolicy.maxAge (-1) must be"},
		{"mirror without service", func(m *api.URLMap) {
			m.DefaultRouteAction = &api.RouteAction{RequestMirrorPolicy: &api.RequestMirrorPolicy{}}
		}, "defaultRouteAction.requestMirrorPolicy.backendService", "defaultRouteAction.requestMirrorPolicy.backendService is required: the backend service the route's requests are mirrored to."},
		{"mirror percent over 100", func(m *api.URLMap) {
			pct := 150.5
			m.PathMatchers[0].DefaultRouteAction = &api.RouteAction{RequestMirrorPolicy: &api.RequestMirrorPolicy{BackendService: "bs", MirrorPercent: &pct}}
		}, "pathMatchers[0].defaultRouteAction.requestMirrorPolicy.mirrorPercent", "pathMatchers[0].defaultRouteAction.requestMirrorPolicy.mirrorPercent (150.5) is a percentage of requests: it must be between 0 and 100."},
		{"host rule without hosts", func(m *api.URLMap) { m.HostRules[0].Hosts = nil },
			"hostRules[0].hosts", "hostRules[0].hosts is empty: a host rule lists at least one host pattern."},
		{"star inside a host", func(m *api.URLMap) { m.HostRules[0].Hosts = []string{"www.*.com"} },
			"hostRules[0].hosts[0]", `hostRules[0].hosts[0] ("www.*.com") is not a host pattern`},
		{"host in two rules", func(m *api.URLMap) {
			m.HostRules = append(m.HostRules, api.HostRule{Hosts: []string{"*.example.com"}, PathMatcher: "pm"})
		}, "hostRules[1].hosts[0]", `hostRules[1].hosts[0] ("*.example.com") is in another host rule of this map: each host pattern is in one host rule.`},
		{"unknown matcher", func(m *api.URLMap) { m.HostRules[0].PathMatcher = "nope" },
			"hostRules[0].pathMatcher", `hostRules[0].pathMatcher ("nope") names no path matcher of this map: it must be the name of one of pathMatchers.`},
	} {
		m := valid()
		tc.change(m)
		assertViolation(t, tc.name, URLMap(m), tc.field, tc.want)
	}
}

// assertViolation: vs has a violation at field whose message contains want.
func assertViolation(t *testing.T, name string, vs Violations, field, want string) {
	t.Helper()
	for _, v := range vs {
		if v.Field == field && strings.Contains(v.Error(), want) {
			return
		}
	}
	t.Errorf("%s: %v, want %q at %s", name, vs, want, field)
}

// TestTargetProxies: proxies name what they route to; one to fifteen
// certificates unless a certificate map stands for them.
func TestTargetProxies(t *testing.T) {
	m := api.Meta{Name: "p"}
	if vs := TargetHTTPSProxy(&api.TargetHTTPSProxy{Meta: m, URLMap: "um", CertificateMap: "//certificatemanager/x"}); len(vs) > 0 {
		t.Errorf("certificate map instead of certificates: %v", vs)
	}
	assertViolation(t, "http without map", TargetHTTPProxy(&api.TargetHTTPProxy{Meta: m}),
		"urlMap", "urlMap is required: the URL map that routes the proxy's requests.")
	assertViolation(t, "https without certificates", TargetHTTPSProxy(&api.TargetHTTPSProxy{Meta: m, URLMap: "um"}),
		"sslCertificates", "sslCertificates is empty: a proxy that ends TLS needs at least one SSL certificate (or a certificateMap).")
	assertViolation(t, "sixteen certificates", TargetSSLProxy(&api.TargetSSLProxy{Meta: m, Service: "bs", SSLCertificates: make([]string, 16)}),
		"sslCertificates", "sslCertificates has 16 certificates: a proxy takes at most 15.")
	assertViolation(t, "empty certificate", TargetSSLProxy(&api.TargetSSLProxy{Meta: m, Service: "bs", SSLCertificates: []string{"c", ""}}),
		"sslCertificates[1]", "sslCertificates[1] is empty: name an SSL certificate.")
	assertViolation(t, "tcp without service", TargetTCPProxy(&api.TargetTCPProxy{Meta: m}),
		"service", "service is required: the backend service the proxy sends its connections to.")
	assertViolation(t, "ssl without service", TargetSSLProxy(&api.TargetSSLProxy{Meta: m, SSLCertificates: []string{"c"}}),
		"service", "service is required")
	assertViolation(t, "target instance without instance", TargetInstance(&api.TargetInstance{Meta: m}),
		"instance", "instance is required: the instance that handles the target's traffic.")
	assertViolation(t, "bad name", TargetHTTPProxy(&api.TargetHTTPProxy{Meta: api.Meta{Name: "Bad_Name"}, URLMap: "um"}), "name", `"Bad_Name"`)
}

// TestSSLCertificate: a self-managed certificate is a PEM chain of at most
// five and the key of its first certificate; a managed one lists domains,
// without wildcards; no message echoes a private key.
func TestSSLCertificate(t *testing.T) {
	cert, key := selfSigned(t, "www.example.com")
	other, otherKey := selfSigned(t, "other.example.com")
	m := api.Meta{Name: "c"}
	for _, ok := range []*api.SSLCertificate{
		{Meta: m, Certificate: cert, PrivateKey: key},
		{Meta: m, SelfManaged: &api.SelfManagedCertificate{Certificate: cert + other, PrivateKey: key}},
		{Meta: m, Type: api.CertificateManaged, Managed: &api.ManagedCertificate{Domains: []string{"www.example.com"}}},
	} {
		if vs := SSLCertificate(ok); len(vs) > 0 {
			t.Errorf("%s: %v, want it accepted", ok.Type, vs)
		}
	}
	managed := func(domains ...string) *api.SSLCertificate {
		return &api.SSLCertificate{Meta: m, Type: api.CertificateManaged, Managed: &api.ManagedCertificate{Domains: domains}}
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = "a.example.com"
	}
	for _, tc := range []struct {
		name  string
		c     *api.SSLCertificate
		field string
		want  string
	}{
		{"no certificate", &api.SSLCertificate{Meta: m, PrivateKey: key}, "certificate",
			"certificate is required: the PEM certificate chain of a self-managed certificate."},
		{"no key", &api.SSLCertificate{Meta: m, Certificate: cert}, "privateKey", "privateKey is required: the PEM private key of the certificate."},
		{"not PEM", &api.SSLCertificate{Meta: m, Certificate: "hello", PrivateKey: key}, "certificate",
			`certificate is not a PEM certificate chain: it has no "-----BEGIN CERTIFICATE-----" block.`},
		{"key where the chain is", &api.SSLCertificate{Meta: m, Certificate: key, PrivateKey: key}, "certificate",
			`certificate is not a PEM certificate chain: it has a "PRIVATE KEY" block where certificates were expected.`},
		{"six certificates", &api.SSLCertificate{Meta: m, Certificate: strings.Repeat(cert, 6), PrivateKey: key}, "certificate",
			"certificate has 6 certificates: the chain must be no greater than 5 certs long."},
		{"key not PEM", &api.SSLCertificate{Meta: m, Certificate: cert, PrivateKey: "secret-text"}, "privateKey",
			`privateKey is not a PEM private key (a "-----BEGIN PRIVATE KEY-----" block).`},
		{"key of another certificate", &api.SSLCertificate{Meta: m, Certificate: cert, PrivateKey: otherKey}, "privateKey",
			"privateKey is not the key of certificate: its public key is not the first certificate's."},
		{"selfManaged and top level", &api.SSLCertificate{Meta: m, Certificate: cert, PrivateKey: key,
			SelfManaged: &api.SelfManagedCertificate{Certificate: cert, PrivateKey: key}}, "selfManaged",
			"certificate and selfManaged are both set: send the certificate and key once."},
		{"selfManaged key", &api.SSLCertificate{Meta: m, SelfManaged: &api.SelfManagedCertificate{Certificate: cert}}, "selfManaged.privateKey",
			"selfManaged.privateKey is required"},
		{"managed without domains", managed(), "managed.domains", "managed.domains is empty: a MANAGED certificate lists the domains to provision it for."},
		{"managed with a certificate", &api.SSLCertificate{Meta: m, Type: api.CertificateManaged, Certificate: cert,
			Managed: &api.ManagedCertificate{Domains: []string{"www.example.com"}}}, "certificate",
			"certificate is set on a MANAGED certificate: Google provisions a managed certificate; send only managed.domains."},
		{"wildcard", managed("*.example.com"), "managed.domains[0]",
			`managed.domains[0] ("*.example.com") is a wildcard: managed certificates do not cover wildcard domains.`},
		{"not a domain", managed("localhost"), "managed.domains[0]", `managed.domains[0] ("localhost") is not a domain name ("www.example.com").`},
		{"101 domains", managed(many...), "managed.domains", "managed.domains has 101 domains: a managed certificate covers at most 100."},
		{"managed block on self-managed", &api.SSLCertificate{Meta: m, Certificate: cert, PrivateKey: key,
			Managed: &api.ManagedCertificate{Domains: []string{"www.example.com"}}}, "managed",
			"managed is set, but type is not MANAGED: a self-managed certificate is a certificate and a private key."},
	} {
		vs := SSLCertificate(tc.c)
		assertViolation(t, tc.name, vs, tc.field, tc.want)
		for _, v := range vs {
			if strings.Contains(v.Error(), "PRIVATE KEY-----\n") || strings.Contains(v.Error(), "secret-text") {
				t.Errorf("%s: message echoes the key: %v", tc.name, v)
			}
		}
	}
}

// TestSSLPolicy: custom features with CUSTOM only and always, known
// features, TLS 1.3 only with RESTRICTED; the defaults enable the
// profile's features.
func TestSSLPolicy(t *testing.T) {
	m := api.Meta{Name: "p"}
	for _, tc := range []struct {
		name  string
		p     *api.SSLPolicy
		field string
		want  string
	}{
		{"custom without features", &api.SSLPolicy{Meta: m, Profile: "CUSTOM"}, "customFeatures",
			"customFeatures is empty: the CUSTOM profile enables only the features it lists."},
		{"features without custom", &api.SSLPolicy{Meta: m, Profile: "MODERN", CustomFeatures: []string{SSLFeatures[0]}}, "customFeatures",
			"customFeatures is set, but profile is not CUSTOM: this field must be empty if the profile is not CUSTOM."},
		{"unknown feature", &api.SSLPolicy{Meta: m, Profile: "CUSTOM", CustomFeatures: []string{"TLS_NULL"}}, "customFeatures[0]",
			`customFeatures[0] ("TLS_NULL") is not an SSL feature: one of TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`},
		{"TLS 1.3 not restricted", &api.SSLPolicy{Meta: m, Profile: "MODERN", MinTLSVersion: "TLS_1_3"}, "minTlsVersion",
			"minTlsVersion is TLS_1_3, so profile must be RESTRICTED."},
	} {
		assertViolation(t, tc.name, SSLPolicy(tc.p), tc.field, tc.want)
	}
	p := &api.SSLPolicy{Meta: m}
	ApplySSLPolicyDefaults(p)
	if p.Profile != "COMPATIBLE" || p.MinTLSVersion != "TLS_1_0" || len(p.EnabledFeatures) != len(SSLFeatures) {
		t.Errorf("defaults: %+v", p)
	}
	c := &api.SSLPolicy{Meta: m, Profile: "CUSTOM", CustomFeatures: []string{SSLFeatures[1]}}
	ApplySSLPolicyDefaults(c)
	if len(c.EnabledFeatures) != 1 || c.EnabledFeatures[0] != SSLFeatures[1] {
		t.Errorf("custom enabled features: %v", c.EnabledFeatures)
	}
}
