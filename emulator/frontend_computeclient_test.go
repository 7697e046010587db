package emulator_test

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

	compute "google.golang.org/api/compute/v1"
)

// ccSelfSigned is a PEM certificate for hosts and its PEM private key.
func ccSelfSigned(t *testing.T, hosts ...string) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
}

// frontEnd makes a global external Application Load Balancer's front end
// up to its proxies: a check, the backend service web-backend, the URL map
// web-map, the certificate web-cert, the HTTP proxy web-proxy and the
// HTTPS proxy web-proxy-tls. It returns the backend service's link.
func (c *computeEnv) frontEnd() string {
	c.t.Helper()
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	bs := c.insertBackendService(ccBackendService("web-backend", hc))
	c.done("insert url map", ccR(c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{
		Name: "web-map", DefaultService: bs,
		HostRules:    []*compute.HostRule{{Hosts: []string{"www.example.com"}, PathMatcher: "www"}},
		PathMatchers: []*compute.PathMatcher{{Name: "www", DefaultService: bs, PathRules: []*compute.PathRule{{Paths: []string{"/static/*"}, Service: bs}}}},
	}).Context(c.ctx).Do()))
	cert, key := ccSelfSigned(c.t, "www.example.com")
	c.done("insert certificate", ccR(c.svc.SslCertificates.Insert(ccProject, &compute.SslCertificate{Name: "web-cert", Certificate: cert, PrivateKey: key}).Context(c.ctx).Do()))
	urlMap := c.link(ccGlobal("urlMaps", "web-map"))
	c.done("insert http proxy", ccR(c.svc.TargetHttpProxies.Insert(ccProject, &compute.TargetHttpProxy{Name: "web-proxy", UrlMap: urlMap}).Context(c.ctx).Do()))
	c.done("insert https proxy", ccR(c.svc.TargetHttpsProxies.Insert(ccProject, &compute.TargetHttpsProxy{
		Name: "web-proxy-tls", UrlMap: urlMap, SslCertificates: []string{c.link(ccGlobal("sslCertificates", "web-cert"))},
	}).Context(c.ctx).Do()))
	return bs
}

func TestComputeFrontEnd_AGlobalApplicationLoadBalancerIsStoredAndFollowed(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	bs := c.frontEnd()
	c.done("insert rule", ccR(c.svc.GlobalForwardingRules.Insert(ccProject, &compute.ForwardingRule{
		Name: "web-rule", Target: c.link(ccGlobal("targetHttpsProxies", "web-proxy-tls")), PortRange: "443", LoadBalancingScheme: "EXTERNAL_MANAGED",
	}).Context(c.ctx).Do()))

	m := ccMust(t, "get url map", ccR(c.svc.UrlMaps.Get(ccProject, "web-map").Context(c.ctx).Do()))
	c.checkMeta("compute#urlMap", ccGlobal("urlMaps", "web-map"), m.Kind, m.Id, m.SelfLink, m.CreationTimestamp)
	if m.DefaultService != bs || m.PathMatchers[0].PathRules[0].Service != bs || m.Fingerprint == "" {
		t.Errorf("url map %s, want its services as self links and a fingerprint", ccJSON(m))
	}
	p := ccMust(t, "get https proxy", ccR(c.svc.TargetHttpsProxies.Get(ccProject, "web-proxy-tls").Context(c.ctx).Do()))
	if p.UrlMap != m.SelfLink || len(p.SslCertificates) != 1 || p.QuicOverride != "NONE" || p.Fingerprint == "" {
		t.Errorf("https proxy %s, want its URL map, its certificate, quicOverride NONE and a fingerprint", ccJSON(p))
	}
	cert := ccMust(t, "get certificate", ccR(c.svc.SslCertificates.Get(ccProject, "web-cert").Context(c.ctx).Do()))
	if cert.Type != "SELF_MANAGED" || cert.PrivateKey != "" || cert.ExpireTime == "" || len(cert.SubjectAlternativeNames) != 1 || cert.SubjectAlternativeNames[0] != "www.example.com" {
		t.Errorf("certificate %s, want SELF_MANAGED, no private key, its expiry and its names", ccJSON(cert))
	}

	// What is in use cannot be deleted.
	for _, del := range []struct {
		what string
		err  error
	}{
		{"url map", ccErr(c.svc.UrlMaps.Delete(ccProject, "web-map").Context(c.ctx).Do())},
		{"backend service", ccErr(c.svc.BackendServices.Delete(ccProject, "web-backend").Context(c.ctx).Do())},
		{"certificate", ccErr(c.svc.SslCertificates.Delete(ccProject, "web-cert").Context(c.ctx).Do())},
		{"https proxy", ccErr(c.svc.TargetHttpsProxies.Delete(ccProject, "web-proxy-tls").Context(c.ctx).Do())},
	} {
		ccWantError(t, "delete "+del.what+" in use", del.err, 400, "resourceInUseByAnotherResource")
	}
	// Deleted from the top down, everything goes.
	c.done("delete rule", ccR(c.svc.GlobalForwardingRules.Delete(ccProject, "web-rule").Context(c.ctx).Do()))
	c.done("delete https proxy", ccR(c.svc.TargetHttpsProxies.Delete(ccProject, "web-proxy-tls").Context(c.ctx).Do()))
	c.done("delete http proxy", ccR(c.svc.TargetHttpProxies.Delete(ccProject, "web-proxy").Context(c.ctx).Do()))
	c.done("delete certificate", ccR(c.svc.SslCertificates.Delete(ccProject, "web-cert").Context(c.ctx).Do()))
	c.done("delete url map", ccR(c.svc.UrlMaps.Delete(ccProject, "web-map").Context(c.ctx).Do()))
	c.done("delete backend service", ccR(c.svc.BackendServices.Delete(ccProject, "web-backend").Context(c.ctx).Do()))
}

func ccErr[T any](_ T, err error) error { return err }

func TestComputeFrontEnd_BadInputGetsTheAPIsErrorsAndStoresNothing(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	internal := c.insertBackendService(&compute.BackendService{Name: "tcp-backend", Protocol: "TCP", LoadBalancingScheme: "EXTERNAL_MANAGED", HealthChecks: []string{hc}})
	for _, tc := range []struct {
		what   string
		err    error
		code   int
		reason string
		says   string
	}{
		{"url map whose default service does not exist", ccErr(c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{Name: "m",
			DefaultService: c.link(ccGlobal("backendServices", "missing"))}).Context(c.ctx).Do()), 404, "notFound", "defaultService"},
		{"url map to a TCP service", ccErr(c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{Name: "m", DefaultService: internal}).Context(c.ctx).Do()),
			400, "invalid", "protocol TCP"},
		{"host rule naming no path matcher", ccErr(c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{Name: "m",
			HostRules: []*compute.HostRule{{Hosts: []string{"a.example.com"}, PathMatcher: "nope"}}}).Context(c.ctx).Do()), 400, "invalid", "hostRules[0].pathMatcher"},
		{"path pattern with a star inside", ccErr(c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{Name: "m",
			HostRules:    []*compute.HostRule{{Hosts: []string{"a.example.com"}, PathMatcher: "pm"}},
			PathMatchers: []*compute.PathMatcher{{Name: "pm", PathRules: []*compute.PathRule{{Paths: []string{"/a*b"}}}}}}).Context(c.ctx).Do()), 400, "invalid", "pathMatchers[0].pathRules[0].paths[0]"},
		{"proxy without a URL map", ccErr(c.svc.TargetHttpProxies.Insert(ccProject, &compute.TargetHttpProxy{Name: "p"}).Context(c.ctx).Do()), 400, "invalid", "urlMap is required"},
		{"https proxy without certificates", ccErr(c.svc.TargetHttpsProxies.Insert(ccProject, &compute.TargetHttpsProxy{Name: "p",
			UrlMap: c.link(ccGlobal("urlMaps", "m"))}).Context(c.ctx).Do()), 400, "invalid", "sslCertificates is empty"},
		{"certificate that is not PEM", ccErr(c.svc.SslCertificates.Insert(ccProject, &compute.SslCertificate{Name: "c",
			Certificate: "not a certificate", PrivateKey: "not a key"}).Context(c.ctx).Do()), 400, "invalid", "certificate is not a PEM certificate chain"},
		{"managed certificate for a wildcard", ccErr(c.svc.SslCertificates.Insert(ccProject, &compute.SslCertificate{Name: "c", Type: "MANAGED",
			Managed: &compute.SslCertificateManagedSslCertificate{Domains: []string{"*.example.com"}}}).Context(c.ctx).Do()), 400, "invalid", "wildcard"},
		{"SSL policy with custom features and no CUSTOM profile", ccErr(c.svc.SslPolicies.Insert(ccProject, &compute.SslPolicy{Name: "s",
			Profile: "MODERN", CustomFeatures: []string{"TLS_RSA_WITH_AES_128_GCM_SHA256"}}).Context(c.ctx).Do()), 400, "invalid", "customFeatures"},
		{"forwarding rule to a missing proxy", ccErr(c.svc.GlobalForwardingRules.Insert(ccProject, &compute.ForwardingRule{Name: "r",
			Target: c.link(ccGlobal("targetHttpProxies", "missing")), PortRange: "80"}).Context(c.ctx).Do()), 404, "notFound", "target"},
		{"TCP proxy to an HTTP service", ccErr(c.svc.TargetTcpProxies.Insert(ccProject, &compute.TargetTcpProxy{Name: "p",
			Service: c.insertBackendService(ccBackendService("web-backend", hc))}).Context(c.ctx).Do()), 400, "invalid", "protocol HTTP"},
	} {
		gerr := ccWantError(t, tc.what, tc.err, tc.code, tc.reason)
		if gerr != nil && !strings.Contains(gerr.Message, tc.says) {
			t.Errorf("%s: message %q, want it to name %q", tc.what, gerr.Message, tc.says)
		}
	}
	for _, err := range []error{
		ccErr(c.svc.UrlMaps.Get(ccProject, "m").Context(c.ctx).Do()),
		ccErr(c.svc.TargetHttpProxies.Get(ccProject, "p").Context(c.ctx).Do()),
		ccErr(c.svc.SslCertificates.Get(ccProject, "c").Context(c.ctx).Do()),
		ccErr(c.svc.SslPolicies.Get(ccProject, "s").Context(c.ctx).Do()),
	} {
		ccWantError(t, "get after a refused insert", err, 404, "notFound")
	}
}

func TestComputeFrontEnd_ProxySetMethods(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	bs := c.frontEnd()
	c.done("insert second map", ccR(c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{Name: "other-map", DefaultService: bs}).Context(c.ctx).Do()))
	other := c.link(ccGlobal("urlMaps", "other-map"))
	c.done("setUrlMap", ccR(c.svc.TargetHttpProxies.SetUrlMap(ccProject, "web-proxy", &compute.UrlMapReference{UrlMap: other}).Context(c.ctx).Do()))
	if p := ccMust(t, "get", ccR(c.svc.TargetHttpProxies.Get(ccProject, "web-proxy").Context(c.ctx).Do())); p.UrlMap != other {
		t.Errorf("http proxy after setUrlMap: %s", ccJSON(p))
	}
	cert, key := ccSelfSigned(t, "api.example.com")
	c.done("insert second certificate", ccR(c.svc.SslCertificates.Insert(ccProject, &compute.SslCertificate{Name: "api-cert", Certificate: cert, PrivateKey: key}).Context(c.ctx).Do()))
	c.done("insert policy", ccR(c.svc.SslPolicies.Insert(ccProject, &compute.SslPolicy{Name: "modern", Profile: "MODERN", MinTlsVersion: "TLS_1_2"}).Context(c.ctx).Do()))
	certs := []string{c.link(ccGlobal("sslCertificates", "web-cert")), c.link(ccGlobal("sslCertificates", "api-cert"))}
	c.done("setSslCertificates", ccR(c.svc.TargetHttpsProxies.SetSslCertificates(ccProject, "web-proxy-tls", &compute.TargetHttpsProxiesSetSslCertificatesRequest{SslCertificates: certs}).Context(c.ctx).Do()))
	c.done("setQuicOverride", ccR(c.svc.TargetHttpsProxies.SetQuicOverride(ccProject, "web-proxy-tls", &compute.TargetHttpsProxiesSetQuicOverrideRequest{QuicOverride: "ENABLE"}).Context(c.ctx).Do()))
	c.done("setSslPolicy", ccR(c.svc.TargetHttpsProxies.SetSslPolicy(ccProject, "web-proxy-tls", &compute.SslPolicyReference{SslPolicy: c.link(ccGlobal("sslPolicies", "modern"))}).Context(c.ctx).Do()))
	c.done("https setUrlMap", ccR(c.svc.TargetHttpsProxies.SetUrlMap(ccProject, "web-proxy-tls", &compute.UrlMapReference{UrlMap: other}).Context(c.ctx).Do()))
	p := ccMust(t, "get", ccR(c.svc.TargetHttpsProxies.Get(ccProject, "web-proxy-tls").Context(c.ctx).Do()))
	if len(p.SslCertificates) != 2 || p.QuicOverride != "ENABLE" || !strings.HasSuffix(p.SslPolicy, "/sslPolicies/modern") || p.UrlMap != other {
		t.Errorf("https proxy after its set methods: %s", ccJSON(p))
	}
	pol := ccMust(t, "get policy", ccR(c.svc.SslPolicies.Get(ccProject, "modern").Context(c.ctx).Do()))
	if len(pol.EnabledFeatures) == 0 || pol.Fingerprint == "" {
		t.Errorf("policy %s, want its enabled features and a fingerprint", ccJSON(pol))
	}
	ccWantError(t, "setSslCertificates to a missing certificate", ccErr(c.svc.TargetHttpsProxies.SetSslCertificates(ccProject, "web-proxy-tls",
		&compute.TargetHttpsProxiesSetSslCertificatesRequest{SslCertificates: []string{c.link(ccGlobal("sslCertificates", "missing"))}}).Context(c.ctx).Do()), 404, "notFound")
	ccWantError(t, "delete the old map, still used by nothing? no: web-map is free now, other-map is used", ccErr(c.svc.UrlMaps.Delete(ccProject, "other-map").Context(c.ctx).Do()), 400, "resourceInUseByAnotherResource")
	c.done("delete the map no proxy uses any more", ccR(c.svc.UrlMaps.Delete(ccProject, "web-map").Context(c.ctx).Do()))

	v := ccMust(t, "validate", ccR(c.svc.UrlMaps.Validate(ccProject, "other-map", &compute.UrlMapsValidateRequest{
		Resource: &compute.UrlMap{Name: "other-map", DefaultService: c.link(ccGlobal("backendServices", "missing"))}}).Context(c.ctx).Do()))
	if v.Result == nil || v.Result.LoadSucceeded || len(v.Result.LoadErrors) != 1 {
		t.Errorf("validate of a map to a missing service: %s, want loadSucceeded false and the error", ccJSON(v))
	}

	// TCP and SSL proxies.
	hc := c.link(ccGlobal("healthChecks", "web-check"))
	tcp := c.insertBackendService(&compute.BackendService{Name: "tcp-backend", Protocol: "TCP", LoadBalancingScheme: "EXTERNAL_MANAGED", HealthChecks: []string{hc}})
	c.done("insert tcp proxy", ccR(c.svc.TargetTcpProxies.Insert(ccProject, &compute.TargetTcpProxy{Name: "tcp-proxy", Service: tcp}).Context(c.ctx).Do()))
	c.done("tcp setProxyHeader", ccR(c.svc.TargetTcpProxies.SetProxyHeader(ccProject, "tcp-proxy", &compute.TargetTcpProxiesSetProxyHeaderRequest{ProxyHeader: "PROXY_V1"}).Context(c.ctx).Do()))
	c.done("insert ssl proxy", ccR(c.svc.TargetSslProxies.Insert(ccProject, &compute.TargetSslProxy{Name: "ssl-proxy", Service: tcp, SslCertificates: certs[:1]}).Context(c.ctx).Do()))
	c.done("ssl setSslCertificates", ccR(c.svc.TargetSslProxies.SetSslCertificates(ccProject, "ssl-proxy", &compute.TargetSslProxiesSetSslCertificatesRequest{SslCertificates: certs}).Context(c.ctx).Do()))
	if sp := ccMust(t, "get ssl proxy", ccR(c.svc.TargetSslProxies.Get(ccProject, "ssl-proxy").Context(c.ctx).Do())); len(sp.SslCertificates) != 2 || sp.ProxyHeader != "NONE" {
		t.Errorf("ssl proxy %s", ccJSON(sp))
	}
	if tp := ccMust(t, "get tcp proxy", ccR(c.svc.TargetTcpProxies.Get(ccProject, "tcp-proxy").Context(c.ctx).Do())); tp.ProxyHeader != "PROXY_V1" || tp.Service != tcp {
		t.Errorf("tcp proxy %s", ccJSON(tp))
	}
	ccWantError(t, "regional rule to a global SSL proxy", ccErr(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{Name: "r",
		Target: c.link(ccGlobal("targetSslProxies", "ssl-proxy")), PortRange: "443"}).Context(c.ctx).Do()), 400, "invalid")
}

func TestComputeFrontEnd_RegionalChainAndTargetInstance(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	bs := c.insertRegionBackendService(ccRegionBackendService("web-backend", hc))
	c.done("insert region url map", ccR(c.svc.RegionUrlMaps.Insert(ccProject, ccRegion, &compute.UrlMap{Name: "web-map", DefaultService: bs}).Context(c.ctx).Do()))
	ccWantError(t, "region url map to a global service", ccErr(c.svc.RegionUrlMaps.Insert(ccProject, ccRegion, &compute.UrlMap{Name: "bad-map",
		DefaultService: c.link(ccGlobal("backendServices", "web-backend"))}).Context(c.ctx).Do()), 404, "notFound")
	c.done("insert region proxy", ccR(c.svc.RegionTargetHttpProxies.Insert(ccProject, ccRegion, &compute.TargetHttpProxy{Name: "web-proxy",
		UrlMap: c.link(ccRegional("urlMaps", "web-map"))}).Context(c.ctx).Do()))
	c.done("region setUrlMap", ccR(c.svc.RegionTargetHttpProxies.SetUrlMap(ccProject, ccRegion, "web-proxy", &compute.UrlMapReference{UrlMap: c.link(ccRegional("urlMaps", "web-map"))}).Context(c.ctx).Do()))
	network, subnetwork := c.insertNetwork()
	c.done("insert regional rule", ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{Name: "web-rule", LoadBalancingScheme: "INTERNAL_MANAGED",
		Target: c.link(ccRegional("targetHttpProxies", "web-proxy")), PortRange: "80", Network: network, Subnetwork: subnetwork}).Context(c.ctx).Do()))
	ccWantError(t, "delete a regional proxy a rule uses", ccErr(c.svc.RegionTargetHttpProxies.Delete(ccProject, ccRegion, "web-proxy").Context(c.ctx).Do()), 400, "resourceInUseByAnotherResource")

	vm := c.insertInstance("vm-1", network, subnetwork)
	c.done("insert target instance", ccR(c.svc.TargetInstances.Insert(ccProject, ccZone, &compute.TargetInstance{Name: "vm-target", Instance: vm}).Context(c.ctx).Do()))
	ti := ccMust(t, "get target instance", ccR(c.svc.TargetInstances.Get(ccProject, ccZone, "vm-target").Context(c.ctx).Do()))
	if ti.Instance != vm || ti.NatPolicy != "NO_NAT" {
		t.Errorf("target instance %s, want its instance and NO_NAT", ccJSON(ti))
	}
	c.done("insert rule to the target instance", ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{Name: "vm-rule",
		Target: c.link(ccZonal("targetInstances", "vm-target")), PortRange: "80"}).Context(c.ctx).Do()))
	ccWantError(t, "delete an instance a target instance uses", ccErr(c.svc.Instances.Delete(ccProject, ccZone, "vm-1").Context(c.ctx).Do()), 400, "resourceInUseByAnotherResource")
}

func TestComputeSslCertificates_ManagedGoesProvisioningThenActive(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.done("insert managed", ccR(c.svc.SslCertificates.Insert(ccProject, &compute.SslCertificate{Name: "managed", Type: "MANAGED",
		Managed: &compute.SslCertificateManagedSslCertificate{Domains: []string{"www.example.com"}}}).Context(c.ctx).Do()))
	cert := ccMust(t, "get", ccR(c.svc.SslCertificates.Get(ccProject, "managed").Context(c.ctx).Do()))
	if cert.Managed == nil || cert.Managed.Status != "PROVISIONING" || cert.Managed.DomainStatus["www.example.com"] != "PROVISIONING" {
		t.Fatalf("managed certificate right after insert: %s, want PROVISIONING", ccJSON(cert))
	}
	ccEventually(t, 20*time.Second, "managed certificate ACTIVE", func() (bool, string) {
		cert := ccMust(t, "get", ccR(c.svc.SslCertificates.Get(ccProject, "managed").Context(c.ctx).Do()))
		return cert.Managed.Status == "ACTIVE" && cert.Managed.DomainStatus["www.example.com"] == "ACTIVE", ccJSON(cert)
	})
}
