package dataplane

import (
	"bytes"
	"cmp"
	"net/http"
	"strconv"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// The fields of the stored resources that decide where traffic goes, read
// from their stored JSON: the API's typed views keep only what probing
// needs, and a URL map's match rules are stored as sent.

// Collections are the collections the data plane reads.
var Collections = []string{
	api.CollectionForwardingRules, api.CollectionTargetHTTPProxies, api.CollectionURLMaps,
	api.CollectionBackendServices, api.CollectionInstanceGroups, api.CollectionTargetPools,
	api.CollectionTargetTCPProxies, api.CollectionTargetHTTPSProxies, api.CollectionTargetSSLProxies,
	api.CollectionSSLCertificates, api.CollectionSSLPolicies, api.CollectionTargetInstances, api.CollectionInstances,
}

type forwardingRule struct {
	IPAddress           string   `json:"IPAddress"`
	IPProtocol          string   `json:"IPProtocol"`
	PortRange           string   `json:"portRange"`
	Ports               []string `json:"ports"`
	AllPorts            *bool    `json:"allPorts"`
	LoadBalancingScheme string   `json:"loadBalancingScheme"`
	Target              string   `json:"target"`
	BackendService      string   `json:"backendService"`
}

type targetHTTPProxy struct {
	URLMap string `json:"urlMap"`
}

type urlMap struct {
	HeaderAction       *headerAction `json:"headerAction"`
	DefaultService     string        `json:"defaultService"`
	DefaultURLRedirect *urlRedirect  `json:"defaultUrlRedirect"`
	DefaultRouteAction *routeAction  `json:"defaultRouteAction"`
	HostRules          []hostRule    `json:"hostRules"`
	PathMatchers       []pathMatcher `json:"pathMatchers"`
}

type hostRule struct {
	Hosts       []string `json:"hosts"`
	PathMatcher string   `json:"pathMatcher"`
}

type pathMatcher struct {
	Name               string        `json:"name"`
	HeaderAction       *headerAction `json:"headerAction"`
	DefaultService     string        `json:"defaultService"`
	DefaultURLRedirect *urlRedirect  `json:"defaultUrlRedirect"`
	DefaultRouteAction *routeAction  `json:"defaultRouteAction"`
	PathRules          []pathRule    `json:"pathRules"`
	RouteRules         []routeRule   `json:"routeRules"`
}

type pathRule struct {
	Paths       []string     `json:"paths"`
	Service     string       `json:"service"`
	URLRedirect *urlRedirect `json:"urlRedirect"`
	RouteAction *routeAction `json:"routeAction"`
}

type routeRule struct {
	Priority     int64         `json:"priority"`
	HeaderAction *headerAction `json:"headerAction"`
	MatchRules   []matchRule   `json:"matchRules"`
	Service      string        `json:"service"`
	URLRedirect  *urlRedirect  `json:"urlRedirect"`
	RouteAction  *routeAction  `json:"routeAction"`
}

type matchRule struct {
	PathTemplateMatch     string            `json:"pathTemplateMatch"`
	PrefixMatch           string            `json:"prefixMatch"`
	FullPathMatch         string            `json:"fullPathMatch"`
	RegexMatch            string            `json:"regexMatch"`
	IgnoreCase            bool              `json:"ignoreCase"`
	HeaderMatches         []headerMatch     `json:"headerMatches"`
	QueryParameterMatches []queryParamMatch `json:"queryParameterMatches"`
}

type headerMatch struct {
	HeaderName   string `json:"headerName"`
	ExactMatch   string `json:"exactMatch"`
	PrefixMatch  string `json:"prefixMatch"`
	SuffixMatch  string `json:"suffixMatch"`
	RegexMatch   string `json:"regexMatch"`
	PresentMatch *bool  `json:"presentMatch"`
	InvertMatch  bool   `json:"invertMatch"`
}

type queryParamMatch struct {
	Name         string `json:"name"`
	ExactMatch   string `json:"exactMatch"`
	RegexMatch   string `json:"regexMatch"`
	PresentMatch *bool  `json:"presentMatch"`
}

type routeAction struct {
	WeightedBackendServices []weightedService    `json:"weightedBackendServices"`
	URLRewrite              *urlRewrite          `json:"urlRewrite"`
	RetryPolicy             *retryPolicy         `json:"retryPolicy"`
	FaultInjectionPolicy    *faultInjection      `json:"faultInjectionPolicy"`
	Timeout                 *duration            `json:"timeout"`
	CorsPolicy              *corsPolicy          `json:"corsPolicy"`
	RequestMirrorPolicy     *requestMirrorPolicy `json:"requestMirrorPolicy"`
}

type weightedService struct {
	BackendService string        `json:"backendService"`
	Weight         int64         `json:"weight"`
	HeaderAction   *headerAction `json:"headerAction"`
}

// headerAction changes the headers of a request on its way to the backend
// and of the answer on its way back.
type headerAction struct {
	RequestHeadersToAdd     []headerOption `json:"requestHeadersToAdd"`
	RequestHeadersToRemove  []string       `json:"requestHeadersToRemove"`
	ResponseHeadersToAdd    []headerOption `json:"responseHeadersToAdd"`
	ResponseHeadersToRemove []string       `json:"responseHeadersToRemove"`
}

type headerOption struct {
	HeaderName  string `json:"headerName"`
	HeaderValue string `json:"headerValue"`
	Replace     bool   `json:"replace"`
}

type urlRewrite struct {
	PathPrefixRewrite   string `json:"pathPrefixRewrite"`
	PathTemplateRewrite string `json:"pathTemplateRewrite"`
	HostRewrite         string `json:"hostRewrite"`
}

type urlRedirect struct {
	HostRedirect         string `json:"hostRedirect"`
	PathRedirect         string `json:"pathRedirect"`
	PrefixRedirect       string `json:"prefixRedirect"`
	RedirectResponseCode string `json:"redirectResponseCode"`
	HTTPSRedirect        bool   `json:"httpsRedirect"`
	StripQuery           bool   `json:"stripQuery"`
}

type backendService struct {
	Protocol         string `json:"protocol"`
	PortName         string `json:"portName"`
	LocalityLbPolicy string `json:"localityLbPolicy"`
	SessionAffinity  string `json:"sessionAffinity"`
	TimeoutSec       int64  `json:"timeoutSec"`
	ConsistentHash   *struct {
		HTTPHeaderName string          `json:"httpHeaderName"`
		HTTPCookie     *affinityCookie `json:"httpCookie"`
	} `json:"consistentHash"`
	AffinityCookieTTLSec        int64            `json:"affinityCookieTtlSec"`
	StrongSessionAffinityCookie *affinityCookie  `json:"strongSessionAffinityCookie"`
	NamedPorts                  []api.NamedPort  `json:"namedPorts"`
	Backends                    []serviceBackend `json:"backends"`
	FailoverPolicy              *struct {
		FailoverRatio          float64 `json:"failoverRatio"`
		DropTrafficIfUnhealthy bool    `json:"dropTrafficIfUnhealthy"`
	} `json:"failoverPolicy"`
	OutlierDetection   *outlierDetection `json:"outlierDetection"`
	ConnectionDraining *struct {
		DrainingTimeoutSec int64 `json:"drainingTimeoutSec"`
	} `json:"connectionDraining"`
	CustomRequestHeaders  []string `json:"customRequestHeaders"`
	CustomResponseHeaders []string `json:"customResponseHeaders"`
}

// affinityCookie is the cookie a service's affinity sets (an
// HTTP_COOKIE's consistentHash.httpCookie, a strongSessionAffinityCookie).
type affinityCookie struct {
	Name string    `json:"name"`
	Path string    `json:"path"`
	TTL  *duration `json:"ttl"`
}

// cookie is the cookie c describes, but for its value: named name when c
// names none, on path / when it gives none, for the session when it has
// no ttl.
func (c *affinityCookie) cookie(name string) http.Cookie {
	out := http.Cookie{Name: name, Path: "/", HttpOnly: true}
	if c == nil {
		return out
	}
	out.Name, out.Path = cmp.Or(c.Name, name), cmp.Or(c.Path, "/")
	out.MaxAge = int(c.TTL.value() / time.Second)
	return out
}

type serviceBackend struct {
	Group    string `json:"group"`
	Failover bool   `json:"failover"`
	// What a group of a proxy's service can take (capacity.go); a
	// CapacityScaler of 0 drains it: it gets no new traffic.
	CapacityScaler            *float64 `json:"capacityScaler"`
	BalancingMode             string   `json:"balancingMode"`
	MaxRate                   float64  `json:"maxRate"`
	MaxRatePerInstance        float64  `json:"maxRatePerInstance"`
	MaxRatePerEndpoint        float64  `json:"maxRatePerEndpoint"`
	MaxConnections            float64  `json:"maxConnections"`
	MaxConnectionsPerInstance float64  `json:"maxConnectionsPerInstance"`
	MaxConnectionsPerEndpoint float64  `json:"maxConnectionsPerEndpoint"`
}

type targetPool struct {
	SessionAffinity string  `json:"sessionAffinity"`
	BackupPool      string  `json:"backupPool"`
	FailoverRatio   float64 `json:"failoverRatio"`
}

type targetTCPProxy struct {
	Service     string `json:"service"`
	ProxyHeader string `json:"proxyHeader"`
}

type instanceGroup struct {
	NamedPorts []api.NamedPort `json:"namedPorts"`
}

type targetInstance struct {
	Instance string `json:"instance"`
}

type instance struct {
	Status            string `json:"status"`
	NetworkInterfaces []struct {
		NetworkIP string `json:"networkIP"`
	} `json:"networkInterfaces"`
}

// duration is the Compute API's Duration, whose seconds are a string.
type duration struct {
	Seconds int64Text `json:"seconds"`
	Nanos   int64     `json:"nanos"`
}

// value is d as a time.Duration; 0 when d is nil.
func (d *duration) value() time.Duration {
	if d == nil {
		return 0
	}
	return time.Duration(d.Seconds)*time.Second + time.Duration(d.Nanos)
}

// int64Text is an int64 written as a JSON string (or a number).
type int64Text int64

func (n *int64Text) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(string(bytes.Trim(b, `"`)), 10, 64)
	*n = int64Text(v)
	return err
}
