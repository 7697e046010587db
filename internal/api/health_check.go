package api

// Kinds of the health-check collection, as the Compute API names them.
const (
	KindHealthCheck     = "compute#healthCheck"
	KindHealthCheckList = "compute#healthCheckList"
)

// Protocol type names, the values of HealthCheck.Type.
const (
	TypeTCP         = "TCP"
	TypeSSL         = "SSL"
	TypeHTTP        = "HTTP"
	TypeHTTPS       = "HTTPS"
	TypeHTTP2       = "HTTP2"
	TypeGRPC        = "GRPC"
	TypeGRPCWithTLS = "GRPC_WITH_TLS"
)

// Port specifications.
const (
	UseFixedPort   = "USE_FIXED_PORT"
	UseNamedPort   = "USE_NAMED_PORT"
	UseServingPort = "USE_SERVING_PORT"
)

// Proxy header values.
const (
	ProxyHeaderNone    = "NONE"
	ProxyHeaderProxyV1 = "PROXY_V1"
)

// HealthCheck is a global or regional health check (collection healthChecks).
type HealthCheck struct {
	Meta
	CheckIntervalSec   *int64 `json:"checkIntervalSec,omitempty"`
	TimeoutSec         *int64 `json:"timeoutSec,omitempty"`
	HealthyThreshold   *int64 `json:"healthyThreshold,omitempty"`
	UnhealthyThreshold *int64 `json:"unhealthyThreshold,omitempty"`
	// Type names the protocol block that is set (TCP, HTTP, ...). It is
	// computed by the emulator; on input it may stand in for an empty block.
	Type               string              `json:"type,omitempty"`
	TCPHealthCheck     *TCPHealthCheck     `json:"tcpHealthCheck,omitempty"`
	SSLHealthCheck     *TCPHealthCheck     `json:"sslHealthCheck,omitempty"`
	HTTPHealthCheck    *HTTPHealthCheck    `json:"httpHealthCheck,omitempty"`
	HTTPSHealthCheck   *HTTPHealthCheck    `json:"httpsHealthCheck,omitempty"`
	HTTP2HealthCheck   *HTTPHealthCheck    `json:"http2HealthCheck,omitempty"`
	GRPCHealthCheck    *GRPCHealthCheck    `json:"grpcHealthCheck,omitempty"`
	GRPCTLSHealthCheck *GRPCTLSHealthCheck `json:"grpcTlsHealthCheck,omitempty"`
	// Extensions holds the blocks of the check types lbhealth adds, by
	// JSON field ("udpHealthCheck"); see Protocol.Extension.
	Extensions    map[string]*ExtensionBlock `json:"-"`
	LogConfig     *LogConfig                 `json:"logConfig,omitempty"`
	SourceRegions []string                   `json:"sourceRegions,omitempty"`
}

// PortSpec holds the port settings every protocol block shares.
type PortSpec struct {
	Port              *int64 `json:"port,omitempty"`
	PortSpecification string `json:"portSpecification,omitempty"`
	ProxyHeader       string `json:"proxyHeader,omitempty"`
}

// PortFields adds a named port to PortSpec, for the protocols that have one.
type PortFields struct {
	PortSpec
	PortName string `json:"portName,omitempty"`
}

// TCPHealthCheck is the block of TCP and SSL checks.
type TCPHealthCheck struct {
	PortFields
	Request  string `json:"request,omitempty"`
	Response string `json:"response,omitempty"`
}

// HTTPHealthCheck is the block of HTTP, HTTPS and HTTP/2 checks.
type HTTPHealthCheck struct {
	PortFields
	Host        string `json:"host,omitempty"`
	RequestPath string `json:"requestPath,omitempty"`
	Response    string `json:"response,omitempty"`
}

// GRPCHealthCheck is the block of plain gRPC checks.
type GRPCHealthCheck struct {
	PortFields
	GRPCServiceName string `json:"grpcServiceName,omitempty"`
}

// GRPCTLSHealthCheck is the block of gRPC-over-TLS checks. It has no
// portName: the Compute API defines none for it.
type GRPCTLSHealthCheck struct {
	PortSpec
	GRPCServiceName string `json:"grpcServiceName,omitempty"`
}

// LogConfig turns on logging of health state transitions.
type LogConfig struct {
	Enable *bool `json:"enable,omitempty"`
}

// HealthCheckList is one page of a health-check list.
type HealthCheckList = List[HealthCheck]
