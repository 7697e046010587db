package api

// Request and answer bodies of the custom methods (the verbs after a
// resource: .../networkEndpointGroups/{name}/attachNetworkEndpoints), named
// as the Compute API's schemas are.

// Kind of the listNetworkEndpoints answer.
const KindNetworkEndpointGroupsListNetworkEndpoints = "compute#networkEndpointGroupsListNetworkEndpoints"

// MaxEndpointsPerCall is the most endpoints one attachNetworkEndpoints or
// detachNetworkEndpoints call takes, as in the Compute API.
const MaxEndpointsPerCall = 500

// Values of NetworkEndpointGroupsListEndpointsRequest.HealthStatus.
const (
	HealthStatusShow = "SHOW"
	HealthStatusSkip = "SKIP"
)

// NetworkEndpointGroupsAttachEndpointsRequest is the body of
// attachNetworkEndpoints (and, as NetworkEndpointGroupsDetachEndpointsRequest,
// of detachNetworkEndpoints).
type NetworkEndpointGroupsAttachEndpointsRequest struct {
	NetworkEndpoints []NetworkEndpoint `json:"networkEndpoints"`
}

// NetworkEndpointGroupsListEndpointsRequest is the body of the zonal
// listNetworkEndpoints; the regional method takes none.
type NetworkEndpointGroupsListEndpointsRequest struct {
	HealthStatus string `json:"healthStatus,omitempty"`
}

// NetworkEndpointGroupsListNetworkEndpoints is the answer of
// listNetworkEndpoints.
type NetworkEndpointGroupsListNetworkEndpoints struct {
	Kind          string                            `json:"kind"`
	ID            string                            `json:"id,omitempty"`
	Items         []NetworkEndpointWithHealthStatus `json:"items"`
	NextPageToken string                            `json:"nextPageToken,omitempty"`
}

// NetworkEndpointWithHealthStatus is one item of listNetworkEndpoints.
type NetworkEndpointWithHealthStatus struct {
	// NetworkEndpoint carries only the Compute API's fields: the lbhealth
	// extension state is not listed.
	NetworkEndpoint ListedNetworkEndpoint `json:"networkEndpoint"`
	// Healths is set only when healthStatus is SHOW.
	Healths []HealthStatusForNetworkEndpoint `json:"healths,omitempty"`
}

// ListedNetworkEndpoint is a NetworkEndpoint as listNetworkEndpoints shows it.
type ListedNetworkEndpoint struct {
	IPAddress string `json:"ipAddress,omitempty"`
	FQDN      string `json:"fqdn,omitempty"`
	Port      *int64 `json:"port,omitempty"`
	Instance  string `json:"instance,omitempty"`
}

// HealthStatusForNetworkEndpoint is the health of an endpoint for one
// backend service. Its healthState, unlike HealthStatus's, has UNKNOWN.
type HealthStatusForNetworkEndpoint struct {
	HealthState    string                   `json:"healthState"`
	BackendService *BackendServiceReference `json:"backendService,omitempty"`
	HealthCheck    *HealthCheckReference    `json:"healthCheck,omitempty"`
}

// BackendServiceReference is a URL of a backend service in an answer.
type BackendServiceReference struct {
	BackendService string `json:"backendService"`
}

// HealthCheckReference is a health-check URL, in requests and answers.
type HealthCheckReference struct {
	HealthCheck string `json:"healthCheck,omitempty"`
}

// TargetPoolsAddInstanceRequest is the body of targetPools.addInstance (and,
// as TargetPoolsRemoveInstanceRequest, of removeInstance).
type TargetPoolsAddInstanceRequest struct {
	Instances []InstanceReference `json:"instances"`
}

// TargetPoolsAddHealthCheckRequest is the body of targetPools.addHealthCheck
// (and, as TargetPoolsRemoveHealthCheckRequest, of removeHealthCheck).
type TargetPoolsAddHealthCheckRequest struct {
	HealthChecks []HealthCheckReference `json:"healthChecks"`
}

// TargetReference is the body of forwardingRules.setTarget.
type TargetReference struct {
	Target string `json:"target,omitempty"`
}
