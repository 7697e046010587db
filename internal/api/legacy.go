package api

// Kinds of the legacy health checks, target pools and forwarding rules.
const (
	KindHTTPHealthCheck          = "compute#httpHealthCheck"
	KindHTTPHealthCheckList      = "compute#httpHealthCheckList"
	KindHTTPSHealthCheck         = "compute#httpsHealthCheck"
	KindHTTPSHealthCheckList     = "compute#httpsHealthCheckList"
	KindTargetPool               = "compute#targetPool"
	KindTargetPoolList           = "compute#targetPoolList"
	KindTargetPoolInstanceHealth = "compute#targetPoolInstanceHealth"
	KindForwardingRule           = "compute#forwardingRule"
	KindForwardingRuleList       = "compute#forwardingRuleList"
)

// LegacyHealthCheck is a legacy HTTP or HTTPS health check (collections
// httpHealthChecks and httpsHealthChecks): always global, only a port.
type LegacyHealthCheck struct {
	Meta
	Host               string `json:"host,omitempty"`
	RequestPath        string `json:"requestPath,omitempty"`
	Port               *int64 `json:"port,omitempty"`
	CheckIntervalSec   *int64 `json:"checkIntervalSec,omitempty"`
	TimeoutSec         *int64 `json:"timeoutSec,omitempty"`
	HealthyThreshold   *int64 `json:"healthyThreshold,omitempty"`
	UnhealthyThreshold *int64 `json:"unhealthyThreshold,omitempty"`
}

// TargetPool is a regional pool of instances for a network load balancer.
type TargetPool struct {
	Meta
	// Instances are URLs of instances, probed at their networkIP, or (an
	// lbhealth extension) endpoint addresses, "ip:port" or "ip".
	Instances []string `json:"instances,omitempty"`
	// HealthChecks holds at most one legacy HTTP check.
	HealthChecks []string `json:"healthChecks,omitempty"`
}

// InstanceReference is the body of targetPools.getHealth.
type InstanceReference struct {
	Instance string `json:"instance,omitempty"`
}

// TargetPoolInstanceHealth is the answer of targetPools.getHealth.
type TargetPoolInstanceHealth struct {
	Kind         string         `json:"kind"`
	HealthStatus []HealthStatus `json:"healthStatus"`
}

// ForwardingRule sends traffic to a backend service or a target pool.
type ForwardingRule struct {
	Meta
	// IPAddress is spelled as in the Compute API, capitals included.
	IPAddress string `json:"IPAddress,omitempty"`
	// IPProtocol defaults to TCP, as in the Compute API.
	IPProtocol          string `json:"IPProtocol,omitempty"`
	PortRange           string `json:"portRange,omitempty"`
	LoadBalancingScheme string `json:"loadBalancingScheme,omitempty"`
	BackendService      string `json:"backendService,omitempty"`
	Target              string `json:"target,omitempty"`
	// Fingerprint changes on every write; an update that sends a stale one
	// gets 412.
	Fingerprint string `json:"fingerprint,omitempty"`
}
