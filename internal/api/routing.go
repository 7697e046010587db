package api

import (
	"bytes"
	"strconv"
	"time"
)

// The parts of URL maps and backend services that decide where and how a
// request goes, which the data plane reads: matching a route, acting on
// its headers, rewriting it, trying it again, injecting faults, ejecting
// outliers, draining.

// MatchRule is one of a route rule's ways to match a request.
type MatchRule struct {
	PathTemplateMatch     string                `json:"pathTemplateMatch,omitempty"`
	PrefixMatch           string                `json:"prefixMatch,omitempty"`
	FullPathMatch         string                `json:"fullPathMatch,omitempty"`
	RegexMatch            string                `json:"regexMatch,omitempty"`
	IgnoreCase            bool                  `json:"ignoreCase,omitempty"`
	HeaderMatches         []HeaderMatch         `json:"headerMatches,omitempty"`
	QueryParameterMatches []QueryParameterMatch `json:"queryParameterMatches,omitempty"`
}

// HeaderMatch matches a request by one header.
type HeaderMatch struct {
	HeaderName   string `json:"headerName,omitempty"`
	ExactMatch   string `json:"exactMatch,omitempty"`
	PrefixMatch  string `json:"prefixMatch,omitempty"`
	SuffixMatch  string `json:"suffixMatch,omitempty"`
	RegexMatch   string `json:"regexMatch,omitempty"`
	PresentMatch *bool  `json:"presentMatch,omitempty"`
	InvertMatch  bool   `json:"invertMatch,omitempty"`
}

// QueryParameterMatch matches a request by one query parameter.
type QueryParameterMatch struct {
	Name         string `json:"name,omitempty"`
	ExactMatch   string `json:"exactMatch,omitempty"`
	RegexMatch   string `json:"regexMatch,omitempty"`
	PresentMatch *bool  `json:"presentMatch,omitempty"`
}

// HeaderAction changes the headers of a request on its way to the backend
// and of the answer on its way back.
type HeaderAction struct {
	RequestHeadersToAdd     []HeaderOption `json:"requestHeadersToAdd,omitempty"`
	RequestHeadersToRemove  []string       `json:"requestHeadersToRemove,omitempty"`
	ResponseHeadersToAdd    []HeaderOption `json:"responseHeadersToAdd,omitempty"`
	ResponseHeadersToRemove []string       `json:"responseHeadersToRemove,omitempty"`
}

// HeaderOption is a header a header action adds: replacing the header's
// values, or besides them.
type HeaderOption struct {
	HeaderName  string `json:"headerName,omitempty"`
	HeaderValue string `json:"headerValue,omitempty"`
	Replace     bool   `json:"replace,omitempty"`
}

// URLRewrite rewrites a request's host or path before it goes on.
type URLRewrite struct {
	PathPrefixRewrite   string `json:"pathPrefixRewrite,omitempty"`
	PathTemplateRewrite string `json:"pathTemplateRewrite,omitempty"`
	HostRewrite         string `json:"hostRewrite,omitempty"`
}

// RetryPolicy says when a request is tried again.
type RetryPolicy struct {
	RetryConditions []string  `json:"retryConditions,omitempty"`
	NumRetries      *int64    `json:"numRetries,omitempty"`
	PerTryTimeout   *Duration `json:"perTryTimeout,omitempty"`
}

// FaultInjectionPolicy delays or aborts a share of a route's requests.
type FaultInjectionPolicy struct {
	Delay *FaultDelay `json:"delay,omitempty"`
	Abort *FaultAbort `json:"abort,omitempty"`
}

// FaultDelay holds Percentage percent of the requests for FixedDelay.
type FaultDelay struct {
	FixedDelay *Duration `json:"fixedDelay,omitempty"`
	Percentage float64   `json:"percentage,omitempty"`
}

// FaultAbort answers Percentage percent of the requests with HTTPStatus.
type FaultAbort struct {
	HTTPStatus int64   `json:"httpStatus,omitempty"`
	Percentage float64 `json:"percentage,omitempty"`
}

// ConsistentHash is how a RING_HASH or MAGLEV service hashes requests.
type ConsistentHash struct {
	HTTPHeaderName string          `json:"httpHeaderName,omitempty"`
	HTTPCookie     *AffinityCookie `json:"httpCookie,omitempty"`
}

// FailoverPolicy is when a passthrough service sends traffic to its
// failover backends.
type FailoverPolicy struct {
	FailoverRatio          float64 `json:"failoverRatio,omitempty"`
	DropTrafficIfUnhealthy bool    `json:"dropTrafficIfUnhealthy,omitempty"`
}

// OutlierDetection is when a service ejects an endpoint that fails.
type OutlierDetection struct {
	ConsecutiveErrors                  *int64    `json:"consecutiveErrors,omitempty"`
	ConsecutiveGatewayFailure          *int64    `json:"consecutiveGatewayFailure,omitempty"`
	EnforcingConsecutiveErrors         *int64    `json:"enforcingConsecutiveErrors,omitempty"`
	EnforcingConsecutiveGatewayFailure *int64    `json:"enforcingConsecutiveGatewayFailure,omitempty"`
	BaseEjectionTime                   *Duration `json:"baseEjectionTime,omitempty"`
	MaxEjectionPercent                 *int64    `json:"maxEjectionPercent,omitempty"`
}

// ConnectionDraining is how long a backend leaving a service keeps its
// connections.
type ConnectionDraining struct {
	DrainingTimeoutSec int64 `json:"drainingTimeoutSec,omitempty"`
}

// Duration is the Compute API's Duration.
type Duration struct {
	Seconds Int64Text `json:"seconds,omitempty"`
	Nanos   int64     `json:"nanos,omitempty"`
}

// Value is d as a time.Duration; 0 when d is nil.
func (d *Duration) Value() time.Duration {
	if d == nil {
		return 0
	}
	return time.Duration(d.Seconds)*time.Second + time.Duration(d.Nanos)
}

// Int64Text is an int64 written as a JSON string, as the API writes its
// 64-bit integers; it reads a number too.
type Int64Text int64

// MarshalJSON writes n as a JSON string.
func (n Int64Text) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(n), 10) + `"`), nil
}

// UnmarshalJSON reads a JSON string or number.
func (n *Int64Text) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(string(bytes.Trim(b, `"`)), 10, 64)
	*n = Int64Text(v)
	return err
}
