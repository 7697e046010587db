package dataplane

import (
	"cmp"
	"net/http"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// The data plane reads the stored resources that decide where traffic
// goes into the API's own typed views (package api), the same the rules
// check and the planner probes by.

// Collections are the collections the data plane reads.
var Collections = []string{
	api.CollectionForwardingRules, api.CollectionTargetHTTPProxies, api.CollectionURLMaps,
	api.CollectionBackendServices, api.CollectionInstanceGroups, api.CollectionTargetPools,
	api.CollectionTargetTCPProxies, api.CollectionTargetHTTPSProxies, api.CollectionTargetSSLProxies,
	api.CollectionSSLCertificates, api.CollectionSSLPolicies, api.CollectionTargetInstances, api.CollectionInstances,
	api.CollectionSecurityPolicies, api.CollectionBackendBuckets,
	api.CollectionCMCertificates, api.CollectionCMMapEntries,
}

// The API's typed views, by the names the data plane gives them.
type (
	forwardingRule   = api.ForwardingRule
	targetHTTPProxy  = api.TargetHTTPProxy
	targetHTTPSProxy = api.TargetHTTPSProxy
	targetTCPProxy   = api.TargetTCPProxy
	targetSSLProxy   = api.TargetSSLProxy
	targetInstance   = api.TargetInstance
	sslCertificate   = api.SSLCertificate
	sslPolicy        = api.SSLPolicy
	urlMap           = api.URLMap
	hostRule         = api.HostRule
	pathMatcher      = api.PathMatcher
	pathRule         = api.PathRule
	routeRule        = api.RouteRule
	matchRule        = api.MatchRule
	headerMatch      = api.HeaderMatch
	queryParamMatch  = api.QueryParameterMatch
	routeAction      = api.RouteAction
	weightedService  = api.WeightedBackendService
	headerAction     = api.HeaderAction
	headerOption     = api.HeaderOption
	urlRewrite       = api.URLRewrite
	urlRedirect      = api.Redirect
	retryPolicy      = api.RetryPolicy
	faultInjection   = api.FaultInjectionPolicy
	corsPolicy       = api.CorsPolicy
	mirrorPolicy     = api.RequestMirrorPolicy
	backendService   = api.BackendService
	backendBucket    = api.BackendBucket
	serviceBackend   = api.Backend
	outlierDetection = api.OutlierDetection
	targetPool       = api.TargetPool
	instanceGroup    = api.InstanceGroup
	instance         = api.Instance
)

// affinityCookie is the cookie c describes (an HTTP_COOKIE's
// consistentHash.httpCookie, a strongSessionAffinityCookie), but for its
// value: named name when c names none, on path / when it gives none, for
// the session when it has no ttl.
func affinityCookie(c *api.AffinityCookie, name string) http.Cookie {
	out := http.Cookie{Name: name, Path: "/", HttpOnly: true}
	if c == nil {
		return out
	}
	out.Name, out.Path = cmp.Or(c.Name, name), cmp.Or(c.Path, "/")
	out.MaxAge = int(c.TTL.Value() / time.Second)
	return out
}
