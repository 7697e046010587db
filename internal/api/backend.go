package api

import "cmp"

// Kinds of the probe-target collections.
const (
	KindNetworkEndpointGroup      = "compute#networkEndpointGroup"
	KindNetworkEndpointGroupList  = "compute#networkEndpointGroupList"
	KindBackendService            = "compute#backendService"
	KindBackendServiceList        = "compute#backendServiceList"
	KindBackendServiceGroupHealth = "compute#backendServiceGroupHealth"
)

// Network endpoint types.
const (
	GCEVMIPPort         = "GCE_VM_IP_PORT"
	GCEVMIP             = "GCE_VM_IP"
	NonGCPPrivateIPPort = "NON_GCP_PRIVATE_IP_PORT"
	// Internet endpoints: an address (or a domain name) and a port. They
	// are stored and probed like the others when their address is one the
	// emulator may probe.
	InternetIPPort   = "INTERNET_IP_PORT"
	InternetFQDNPort = "INTERNET_FQDN_PORT"
	// Groups the emulator stores without endpoints to probe: serverless
	// backends, Private Service Connect, port mapping.
	Serverless            = "SERVERLESS"
	PrivateServiceConnect = "PRIVATE_SERVICE_CONNECT"
	GCEVMIPPortmap        = "GCE_VM_IP_PORTMAP"
	GCEVMIPDedicated      = "GCE_VM_IP_DEDICATED_BACKEND"
)

// Endpoint states (an lbhealth extension: stopped endpoints are not probed).
const (
	EndpointRunning = "RUNNING"
	EndpointStopped = "STOPPED"
)

// Backend service protocols and load-balancing schemes.
const (
	ProtocolHTTP  = "HTTP"
	ProtocolHTTPS = "HTTPS"
	ProtocolHTTP2 = "HTTP2"
	ProtocolTCP   = "TCP"
	ProtocolSSL   = "SSL"
	ProtocolUDP   = "UDP"
	ProtocolGRPC  = "GRPC"
	// Values the Compute API also takes; the emulator stores them and
	// probes backends the same way.
	ProtocolH2C         = "H2C"
	ProtocolUnspecified = "UNSPECIFIED"

	SchemeExternal        = "EXTERNAL"
	SchemeExternalManaged = "EXTERNAL_MANAGED"
	SchemeInternal        = "INTERNAL"
	SchemeInternalManaged = "INTERNAL_MANAGED"
	// Traffic Director and passthrough schemes of the Compute API.
	SchemeInternalSelfManaged = "INTERNAL_SELF_MANAGED"
	SchemeExternalPassthrough = "EXTERNAL_PASSTHROUGH"
)

// NetworkEndpointGroup is a zonal or regional group of endpoints
// (collection networkEndpointGroups).
type NetworkEndpointGroup struct {
	Meta
	NetworkEndpointType string `json:"networkEndpointType,omitempty"`
	Network             string `json:"network,omitempty"`
	DefaultPort         *int64 `json:"defaultPort,omitempty"`
	// Size is the number of endpoints (output only).
	Size int64 `json:"size"`
	// Endpoints is an lbhealth extension: the endpoints are part of the
	// group itself, so that Terraform declares them in one resource.
	Endpoints []NetworkEndpoint `json:"endpoints,omitempty"`
	// CloudRun names the Cloud Run service a SERVERLESS group sends to.
	CloudRun *NEGCloudRun `json:"cloudRun,omitempty"`
}

// NEGCloudRun is the Cloud Run service of a serverless network endpoint
// group: by name (with a tag), or by a URL mask.
type NEGCloudRun struct {
	Service string `json:"service,omitempty"`
	Tag     string `json:"tag,omitempty"`
	URLMask string `json:"urlMask,omitempty"`
}

// NetworkEndpoint is one endpoint of a group.
type NetworkEndpoint struct {
	IPAddress string `json:"ipAddress,omitempty"`
	// FQDN names an INTERNET_FQDN_PORT endpoint, which may have no address.
	FQDN     string `json:"fqdn,omitempty"`
	Port     *int64 `json:"port,omitempty"`
	Instance string `json:"instance,omitempty"`
	// State is RUNNING (the default) or STOPPED.
	State string `json:"state,omitempty"`
}

// BackendService is a global or regional backend service
// (collection backendServices).
type BackendService struct {
	Meta
	Protocol            string `json:"protocol,omitempty"`
	LoadBalancingScheme string `json:"loadBalancingScheme,omitempty"`
	// NamedPorts is an lbhealth extension: named ports on the service
	// itself, which USE_NAMED_PORT checks resolve port names with when the
	// endpoint's instance group does not name the port (or the backend is a
	// network endpoint group, which has no named ports).
	NamedPorts []NamedPort `json:"namedPorts,omitempty"`
	// PortName is the named port of the service's instance groups that
	// serves it ("http" when unset): what USE_SERVING_PORT probes on an
	// instance of a group.
	PortName     string    `json:"portName,omitempty"`
	Backends     []Backend `json:"backends,omitempty"`
	HealthChecks []string  `json:"healthChecks,omitempty"`
	// TimeoutSec is stored, not acted on: the rules check its range.
	TimeoutSec *int64 `json:"timeoutSec,omitempty"`
	// SessionAffinity and StrongSessionAffinityCookie are stored as sent
	// (the data plane reads them): the rules check the cookie is named.
	SessionAffinity             string          `json:"sessionAffinity,omitempty"`
	StrongSessionAffinityCookie *AffinityCookie `json:"strongSessionAffinityCookie,omitempty"`
	// What the data plane reads besides (routing.go).
	LocalityLbPolicy      string              `json:"localityLbPolicy,omitempty"`
	ConsistentHash        *ConsistentHash     `json:"consistentHash,omitempty"`
	AffinityCookieTTLSec  *int64              `json:"affinityCookieTtlSec,omitempty"`
	FailoverPolicy        *FailoverPolicy     `json:"failoverPolicy,omitempty"`
	OutlierDetection      *OutlierDetection   `json:"outlierDetection,omitempty"`
	ConnectionDraining    *ConnectionDraining `json:"connectionDraining,omitempty"`
	CustomRequestHeaders  []string            `json:"customRequestHeaders,omitempty"`
	CustomResponseHeaders []string            `json:"customResponseHeaders,omitempty"`
	// SecurityPolicy and EdgeSecurityPolicy are the Cloud Armor policies
	// the data plane applies to the service's requests (output only: set
	// by setSecurityPolicy and setEdgeSecurityPolicy).
	SecurityPolicy     string `json:"securityPolicy,omitempty"`
	EdgeSecurityPolicy string `json:"edgeSecurityPolicy,omitempty"`
	// NetworkPassThroughLBTrafficPolicy is stored, not acted on: the rules
	// check its spillover ratio.
	NetworkPassThroughLBTrafficPolicy *PassThroughTrafficPolicy `json:"networkPassThroughLbTrafficPolicy,omitempty"`
	// Fingerprint changes on every write; an update that sends a stale one
	// gets 412.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// PassThroughTrafficPolicy is how a passthrough Network Load Balancer
// keeps connections in their zone.
type PassThroughTrafficPolicy struct {
	ZonalAffinity *struct {
		Spillover      string   `json:"spillover,omitempty"`
		SpilloverRatio *float64 `json:"spilloverRatio,omitempty"`
	} `json:"zonalAffinity,omitempty"`
}

// AffinityCookie is the cookie a service's affinity sets: an HTTP_COOKIE's
// consistentHash.httpCookie, a strongSessionAffinityCookie.
type AffinityCookie struct {
	Name string    `json:"name,omitempty"`
	Path string    `json:"path,omitempty"`
	TTL  *Duration `json:"ttl,omitempty"`
}

// NamedPort maps a port name to a number.
type NamedPort struct {
	Name string `json:"name,omitempty"`
	Port *int64 `json:"port,omitempty"`
}

// DefaultServicePortName is the port name of a service that sets none.
const DefaultServicePortName = "http"

// Backend is one backend of a service: an endpoint group or an instance
// group, and what it can take (the data plane's capacity).
type Backend struct {
	Group                     string   `json:"group,omitempty"`
	Failover                  bool     `json:"failover,omitempty"`
	CapacityScaler            *float64 `json:"capacityScaler,omitempty"`
	BalancingMode             string   `json:"balancingMode,omitempty"`
	MaxRate                   float64  `json:"maxRate,omitempty"`
	MaxRatePerInstance        float64  `json:"maxRatePerInstance,omitempty"`
	MaxRatePerEndpoint        float64  `json:"maxRatePerEndpoint,omitempty"`
	MaxConnections            float64  `json:"maxConnections,omitempty"`
	MaxConnectionsPerInstance float64  `json:"maxConnectionsPerInstance,omitempty"`
	MaxConnectionsPerEndpoint float64  `json:"maxConnectionsPerEndpoint,omitempty"`
}

// Capacity is what one backend of a service can take, by its
// balancingMode: for RATE, maxRatePerEndpoint or maxRatePerInstance each,
// or maxRate shared by the group; for CONNECTION the same of
// maxConnections*; UTILIZATION names no number. Scaler is its
// capacityScaler (1 when unset), which the numbers are not yet multiplied
// by. The data plane divides traffic by it; autoscalers size a group by
// its rate.
type Capacity struct {
	Mode        string
	Scaler      float64
	PerEndpoint float64 // 0: none named
	PerGroup    float64 // shared by the group's healthy endpoints; 0: none named
}

// Capacity is what b can take.
func (b Backend) Capacity() Capacity {
	c := Capacity{Mode: b.BalancingMode, Scaler: 1}
	if b.CapacityScaler != nil {
		c.Scaler = *b.CapacityScaler
	}
	switch b.BalancingMode {
	case "RATE":
		c.PerEndpoint = cmp.Or(b.MaxRatePerEndpoint, b.MaxRatePerInstance)
		c.PerGroup = b.MaxRate
	case "CONNECTION":
		c.PerEndpoint = cmp.Or(b.MaxConnectionsPerEndpoint, b.MaxConnectionsPerInstance)
		c.PerGroup = b.MaxConnections
	}
	return c
}

// Named reports whether c names a number (not only a scaler).
func (c Capacity) Named() bool { return c.PerEndpoint > 0 || c.PerGroup > 0 }

// PerEach is what each of n endpoints can take: its own number, or the
// group's shared among them; 0 when c names none. The scaler is applied.
func (c Capacity) PerEach(n int) float64 {
	each := c.PerEndpoint
	if each == 0 && c.PerGroup > 0 && n > 0 {
		each = c.PerGroup / float64(n)
	}
	return each * c.Scaler
}

// ResourceGroupReference is the body of backendServices.getHealth.
type ResourceGroupReference struct {
	Group string `json:"group,omitempty"`
}

// BackendServiceGroupHealth is the answer of backendServices.getHealth.
type BackendServiceGroupHealth struct {
	Kind         string         `json:"kind"`
	HealthStatus []HealthStatus `json:"healthStatus"`
}

// ReasonNoVerdict is the reason of an endpoint with no verdict yet (a new
// endpoint, or a new or changed check). The Compute API's
// HealthStatus.healthState has only HEALTHY and UNHEALTHY, so getHealth
// reports such an endpoint UNHEALTHY, with this reason (an lbhealth
// extension) saying that it is not known to be so.
const ReasonNoVerdict = "UNKNOWN"

// HealthStatus is the health of one endpoint.
type HealthStatus struct {
	IPAddress   string `json:"ipAddress"`
	Port        int64  `json:"port,omitempty"`
	Instance    string `json:"instance,omitempty"`
	HealthState string `json:"healthState"`
	// The fields below are lbhealth extensions.
	Group         string `json:"group,omitempty"`
	HealthCheck   string `json:"healthCheck,omitempty"`
	Reason        string `json:"reason,omitempty"`
	Detail        string `json:"detail,omitempty"`
	LastProbeTime string `json:"lastProbeTime,omitempty"`
	// ProbedAt is where the endpoint is probed, when a probe map
	// (--probe-map) moved it from ipAddress.
	ProbedAt string `json:"probedAt,omitempty"`
	// LoadBalancer is the type of load balancer the endpoint is probed for,
	// as the cloud's prober-range tables name it ("external passthrough
	// Network LB").
	LoadBalancer string `json:"loadBalancer,omitempty"`
	// Firewall says what the firewall rules of the endpoint's network do to
	// the cloud's probes, when they keep some or all out.
	Firewall string `json:"firewall,omitempty"`
}

// State is the endpoint's state as the emulator judges it:
// HEALTHY, UNHEALTHY, or UNKNOWN for one reported UNHEALTHY for want of a
// verdict (ReasonNoVerdict).
func (hs *HealthStatus) State() string {
	if hs.HealthState == StateUnhealthy && hs.Reason == ReasonNoVerdict {
		return ReasonNoVerdict
	}
	return hs.HealthState
}
