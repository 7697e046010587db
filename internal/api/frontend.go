package api

import "strconv"

// Kinds of the load balancer's front end: URL maps, target proxies, target
// instances, certificates and SSL policies.
const (
	KindURLMap               = "compute#urlMap"
	KindURLMapList           = "compute#urlMapList"
	KindTargetHTTPProxy      = "compute#targetHttpProxy"
	KindTargetHTTPProxyList  = "compute#targetHttpProxyList"
	KindTargetHTTPSProxy     = "compute#targetHttpsProxy"
	KindTargetHTTPSProxyList = "compute#targetHttpsProxyList"
	KindTargetTCPProxy       = "compute#targetTcpProxy"
	KindTargetTCPProxyList   = "compute#targetTcpProxyList"
	KindTargetSSLProxy       = "compute#targetSslProxy"
	KindTargetSSLProxyList   = "compute#targetSslProxyList"
	KindTargetInstance       = "compute#targetInstance"
	KindTargetGrpcProxy      = "compute#targetGrpcProxy"
	KindTargetGrpcProxyList  = "compute#targetGrpcProxyList"
	KindTargetInstanceList   = "compute#targetInstanceList"
	KindSSLCertificate       = "compute#sslCertificate"
	KindSSLCertificateList   = "compute#sslCertificateList"
	KindSSLPolicy            = "compute#sslPolicy"
	KindSSLPoliciesList      = "compute#sslPoliciesList"
)

// Certificate types and the statuses of a managed certificate.
const (
	CertificateSelfManaged  = "SELF_MANAGED"
	CertificateManaged      = "MANAGED"
	CertificateProvisioning = "PROVISIONING"
	CertificateActive       = "ACTIVE"
	SSLProfileCompatible    = "COMPATIBLE"
	SSLProfileCustom        = "CUSTOM"
	SSLProfileRestricted    = "RESTRICTED"
	TLS10                   = "TLS_1_0"
	TLS13                   = "TLS_1_3"
	NoNAT                   = "NO_NAT"
	QuicNone                = "NONE"
)

// URLMap is a global or regional URL map (collection urlMaps): which
// backend service serves a request, by host and path. The emulator follows
// its services (they must exist and fit), the data plane routes by the
// rest (routing.go), and every other field is stored as sent.
type URLMap struct {
	Meta
	HeaderAction       *HeaderAction `json:"headerAction,omitempty"`
	DefaultService     string        `json:"defaultService,omitempty"`
	DefaultURLRedirect *Redirect     `json:"defaultUrlRedirect,omitempty"`
	DefaultRouteAction *RouteAction  `json:"defaultRouteAction,omitempty"`
	HostRules          []HostRule    `json:"hostRules,omitempty"`
	PathMatchers       []PathMatcher `json:"pathMatchers,omitempty"`
	Fingerprint        string        `json:"fingerprint,omitempty"`
}

// Redirect is an HttpRedirectAction.
type Redirect struct {
	HostRedirect         string `json:"hostRedirect,omitempty"`
	PathRedirect         string `json:"pathRedirect,omitempty"`
	PrefixRedirect       string `json:"prefixRedirect,omitempty"`
	RedirectResponseCode string `json:"redirectResponseCode,omitempty"`
	HTTPSRedirect        bool   `json:"httpsRedirect,omitempty"`
	StripQuery           bool   `json:"stripQuery,omitempty"`
}

// RouteAction is an HttpRouteAction: the services it names (which the
// rules check, with its CORS and mirror policies), and what the data plane
// does on the way (routing.go).
type RouteAction struct {
	WeightedBackendServices []WeightedBackendService `json:"weightedBackendServices,omitempty"`
	URLRewrite              *URLRewrite              `json:"urlRewrite,omitempty"`
	RetryPolicy             *RetryPolicy             `json:"retryPolicy,omitempty"`
	FaultInjectionPolicy    *FaultInjectionPolicy    `json:"faultInjectionPolicy,omitempty"`
	Timeout                 *Duration                `json:"timeout,omitempty"`
	CorsPolicy              *CorsPolicy              `json:"corsPolicy,omitempty"`
	RequestMirrorPolicy     *RequestMirrorPolicy     `json:"requestMirrorPolicy,omitempty"`
}

// RequestMirrorPolicy names the service a route's requests are shadowed to.
type RequestMirrorPolicy struct {
	BackendService string   `json:"backendService,omitempty"`
	MirrorPercent  *float64 `json:"mirrorPercent,omitempty"`
}

// CorsPolicy is a route action's corsPolicy.
type CorsPolicy struct {
	AllowOrigins       []string `json:"allowOrigins,omitempty"`
	AllowOriginRegexes []string `json:"allowOriginRegexes,omitempty"`
	AllowMethods       []string `json:"allowMethods,omitempty"`
	AllowHeaders       []string `json:"allowHeaders,omitempty"`
	ExposeHeaders      []string `json:"exposeHeaders,omitempty"`
	MaxAge             *int64   `json:"maxAge,omitempty"`
	AllowCredentials   bool     `json:"allowCredentials,omitempty"`
	Disabled           bool     `json:"disabled,omitempty"`
}

// WeightedBackendService is one service of a weighted split.
type WeightedBackendService struct {
	BackendService string        `json:"backendService,omitempty"`
	Weight         *int64        `json:"weight,omitempty"`
	HeaderAction   *HeaderAction `json:"headerAction,omitempty"`
}

// HostRule sends the hosts it lists to a path matcher of the same map.
type HostRule struct {
	Hosts       []string `json:"hosts,omitempty"`
	PathMatcher string   `json:"pathMatcher,omitempty"`
}

// PathMatcher is a named set of path and route rules.
type PathMatcher struct {
	Name               string        `json:"name,omitempty"`
	HeaderAction       *HeaderAction `json:"headerAction,omitempty"`
	DefaultService     string        `json:"defaultService,omitempty"`
	DefaultURLRedirect *Redirect     `json:"defaultUrlRedirect,omitempty"`
	DefaultRouteAction *RouteAction  `json:"defaultRouteAction,omitempty"`
	PathRules          []PathRule    `json:"pathRules,omitempty"`
	RouteRules         []RouteRule   `json:"routeRules,omitempty"`
}

// PathRule sends the paths it lists to a service.
type PathRule struct {
	Paths       []string     `json:"paths,omitempty"`
	Service     string       `json:"service,omitempty"`
	URLRedirect *Redirect    `json:"urlRedirect,omitempty"`
	RouteAction *RouteAction `json:"routeAction,omitempty"`
}

// RouteRule sends the requests its match rules match to a service.
type RouteRule struct {
	Priority     *int64        `json:"priority,omitempty"`
	HeaderAction *HeaderAction `json:"headerAction,omitempty"`
	MatchRules   []MatchRule   `json:"matchRules,omitempty"`
	Service      string        `json:"service,omitempty"`
	URLRedirect  *Redirect     `json:"urlRedirect,omitempty"`
	RouteAction  *RouteAction  `json:"routeAction,omitempty"`
}

// Services are the fields of the map that name a service, by their API
// path, pointing into m: what the emulator follows and rewrites.
func (m *URLMap) Services() []FieldRef {
	var out []FieldRef
	add := func(field string, p *string) {
		if *p != "" {
			out = append(out, FieldRef{field, p})
		}
	}
	action := func(field string, a *RouteAction) {
		if a == nil {
			return
		}
		for i := range a.WeightedBackendServices {
			add(field+".weightedBackendServices["+itoa(i)+"].backendService", &a.WeightedBackendServices[i].BackendService)
		}
		if m := a.RequestMirrorPolicy; m != nil {
			add(field+".requestMirrorPolicy.backendService", &m.BackendService)
		}
	}
	add("defaultService", &m.DefaultService)
	action("defaultRouteAction", m.DefaultRouteAction)
	for i := range m.PathMatchers {
		pm := &m.PathMatchers[i]
		at := "pathMatchers[" + itoa(i) + "]"
		add(at+".defaultService", &pm.DefaultService)
		action(at+".defaultRouteAction", pm.DefaultRouteAction)
		for j := range pm.PathRules {
			pr := &pm.PathRules[j]
			add(at+".pathRules["+itoa(j)+"].service", &pr.Service)
			action(at+".pathRules["+itoa(j)+"].routeAction", pr.RouteAction)
		}
		for j := range pm.RouteRules {
			rr := &pm.RouteRules[j]
			add(at+".routeRules["+itoa(j)+"].service", &rr.Service)
			action(at+".routeRules["+itoa(j)+"].routeAction", rr.RouteAction)
		}
	}
	return out
}

// FieldRef is a reference field of a resource: its API path and where its
// value is.
type FieldRef struct {
	Field string
	Value *string
}

func itoa(i int) string { return strconv.Itoa(i) }

// TargetHTTPProxy is a global or regional target HTTP proxy (collection
// targetHttpProxies): a forwarding rule's target that routes by a URL map.
type TargetHTTPProxy struct {
	Meta
	URLMap      string `json:"urlMap,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// TargetHTTPSProxy is a global or regional target HTTPS proxy (collection
// targetHttpsProxies).
type TargetHTTPSProxy struct {
	Meta
	URLMap          string   `json:"urlMap,omitempty"`
	SSLCertificates []string `json:"sslCertificates,omitempty"`
	SSLPolicy       string   `json:"sslPolicy,omitempty"`
	// CertificateMap names a Certificate Manager map, whose entries'
	// certificates the proxy presents instead of sslCertificates.
	CertificateMap string `json:"certificateMap,omitempty"`
	QuicOverride   string `json:"quicOverride,omitempty"`
	Fingerprint    string `json:"fingerprint,omitempty"`
}

// TargetTCPProxy is a global or regional target TCP proxy (collection
// targetTcpProxies): a forwarding rule's target that sends TCP to a
// backend service.
type TargetTCPProxy struct {
	Meta
	Service     string `json:"service,omitempty"`
	ProxyHeader string `json:"proxyHeader,omitempty"`
}

// TargetSSLProxy is a global target SSL proxy (collection targetSslProxies):
// TLS ended at the proxy, TCP or SSL to a backend service.
type TargetSSLProxy struct {
	Meta
	Service         string   `json:"service,omitempty"`
	SSLCertificates []string `json:"sslCertificates,omitempty"`
	SSLPolicy       string   `json:"sslPolicy,omitempty"`
	CertificateMap  string   `json:"certificateMap,omitempty"`
	ProxyHeader     string   `json:"proxyHeader,omitempty"`
}

// TargetInstance is a zonal target instance (collection targetInstances):
// protocol forwarding to one instance.
type TargetInstance struct {
	Meta
	Instance  string `json:"instance,omitempty"`
	NatPolicy string `json:"natPolicy,omitempty"`
	Network   string `json:"network,omitempty"`
}

// TargetGrpcProxy is a global target gRPC proxy (collection
// targetGrpcProxies): proxyless gRPC clients find the URL map of a
// forwarding rule through it. Stored and checked; no traffic.
type TargetGrpcProxy struct {
	Meta
	URLMap               string `json:"urlMap,omitempty"`
	ValidateForProxyless bool   `json:"validateForProxyless,omitempty"`
	Fingerprint          string `json:"fingerprint,omitempty"`
}

// SSLCertificate is a global or regional certificate (collection
// sslCertificates): self-managed (a PEM certificate and its key) or
// managed (domains; the certificate goes PROVISIONING, then ACTIVE).
type SSLCertificate struct {
	Meta
	Type        string `json:"type,omitempty"`
	Certificate string `json:"certificate,omitempty"`
	// PrivateKey is write only, as in the Compute API: checked against the
	// certificate on insert, never stored nor returned.
	PrivateKey              string                  `json:"privateKey,omitempty"`
	SelfManaged             *SelfManagedCertificate `json:"selfManaged,omitempty"`
	Managed                 *ManagedCertificate     `json:"managed,omitempty"`
	SubjectAlternativeNames []string                `json:"subjectAlternativeNames,omitempty"`
	ExpireTime              string                  `json:"expireTime,omitempty"`
}

// SelfManagedCertificate is the certificate and key sent in selfManaged.
type SelfManagedCertificate struct {
	Certificate string `json:"certificate,omitempty"`
	PrivateKey  string `json:"privateKey,omitempty"`
}

// ManagedCertificate is a managed certificate's domains and status.
type ManagedCertificate struct {
	Domains      []string          `json:"domains,omitempty"`
	Status       string            `json:"status,omitempty"`
	DomainStatus map[string]string `json:"domainStatus,omitempty"`
}

// SSLPolicy is a global or regional SSL policy (collection sslPolicies).
type SSLPolicy struct {
	Meta
	Profile         string   `json:"profile,omitempty"`
	MinTLSVersion   string   `json:"minTlsVersion,omitempty"`
	CustomFeatures  []string `json:"customFeatures,omitempty"`
	EnabledFeatures []string `json:"enabledFeatures,omitempty"`
	Fingerprint     string   `json:"fingerprint,omitempty"`
}

// URLMapReference is the body of setUrlMap.
type URLMapReference struct {
	URLMap string `json:"urlMap"`
}

// SSLCertificatesRequest is the body of setSslCertificates.
type SSLCertificatesRequest struct {
	SSLCertificates []string `json:"sslCertificates"`
}

// SSLPolicyReference is the body of setSslPolicy.
type SSLPolicyReference struct {
	SSLPolicy string `json:"sslPolicy"`
}

// BackendServiceRequest is the body of setBackendService.
type BackendServiceRequest struct {
	Service string `json:"service"`
}

// ProxyHeaderRequest is the body of setProxyHeader.
type ProxyHeaderRequest struct {
	ProxyHeader string `json:"proxyHeader"`
}

// QuicOverrideRequest is the body of setQuicOverride.
type QuicOverrideRequest struct {
	QuicOverride string `json:"quicOverride"`
}
