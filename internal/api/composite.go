package api

// Kinds of the composite-health collections.
const (
	KindHealthAggregationPolicy     = "compute#healthAggregationPolicy"
	KindHealthAggregationPolicyList = "compute#healthAggregationPolicyList"
	KindHealthSource                = "compute#healthSource"
	KindHealthSourceList            = "compute#healthSourceList"
	KindHealthSourceHealth          = "compute#healthSourceHealth"
	KindCompositeHealthCheck        = "compute#compositeHealthCheck"
	KindCompositeHealthCheckList    = "compute#compositeHealthCheckList"
	KindCompositeHealthCheckHealth  = "compute#compositeHealthCheckHealth"
)

// Values of policyType and sourceType.
const (
	PolicyTypeBackendService = "BACKEND_SERVICE_POLICY"
	SourceTypeBackendService = "BACKEND_SERVICE"
)

// HealthAggregationPolicy says when a backend service counts as healthy.
type HealthAggregationPolicy struct {
	Meta
	HealthyPercentThreshold *int64 `json:"healthyPercentThreshold,omitempty"`
	MinHealthyThreshold     *int64 `json:"minHealthyThreshold,omitempty"`
	PolicyType              string `json:"policyType,omitempty"`
	// Fingerprint changes on every write; a PATCH must send the current one.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// HealthSource turns one backend service's endpoint health into one state.
type HealthSource struct {
	Meta
	SourceType              string   `json:"sourceType,omitempty"`
	Sources                 []string `json:"sources,omitempty"`
	HealthAggregationPolicy string   `json:"healthAggregationPolicy,omitempty"`
	Fingerprint             string   `json:"fingerprint,omitempty"`
}

// CompositeHealthCheck combines health sources into the health of one
// published service, reported for its forwarding rule.
type CompositeHealthCheck struct {
	Meta
	HealthSources     []string `json:"healthSources,omitempty"`
	HealthDestination string   `json:"healthDestination,omitempty"`
	Fingerprint       string   `json:"fingerprint,omitempty"`
}

// HealthSourceHealth is the answer of healthSources.getHealth.
type HealthSourceHealth struct {
	Kind        string         `json:"kind"`
	HealthState string         `json:"healthState"`
	Sources     []SourceHealth `json:"sources"`
}

// SourceHealth is the health of one source of a health source.
type SourceHealth struct {
	Source         string          `json:"source"`
	ForwardingRule string          `json:"forwardingRule,omitempty"`
	Backends       []BackendHealth `json:"backends"`
}

// BackendHealth counts the endpoints of one endpoint group.
type BackendHealth struct {
	Group                string `json:"group"`
	EndpointCount        int64  `json:"endpointCount"`
	HealthyEndpointCount int64  `json:"healthyEndpointCount"`
}

// CompositeHealthCheckHealth is the answer of compositeHealthChecks.getHealth.
type CompositeHealthCheckHealth struct {
	Kind          string              `json:"kind"`
	HealthState   string              `json:"healthState"`
	HealthSources []HealthSourceState `json:"healthSources"`
}

// HealthSourceState is the state of one source of a composite check.
type HealthSourceState struct {
	Source      string `json:"source"`
	HealthState string `json:"healthState"`
}
