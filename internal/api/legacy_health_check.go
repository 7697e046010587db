package api

// Kinds of the legacy health checks.
const (
	KindHTTPHealthCheck      = "compute#httpHealthCheck"
	KindHTTPHealthCheckList  = "compute#httpHealthCheckList"
	KindHTTPSHealthCheck     = "compute#httpsHealthCheck"
	KindHTTPSHealthCheckList = "compute#httpsHealthCheckList"
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
