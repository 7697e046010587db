package api

// Kinds and the collection of Private Service Connect service attachments.
const (
	CollectionServiceAttachments = "serviceAttachments"
	KindServiceAttachment        = "compute#serviceAttachment"
	KindServiceAttachmentList    = "compute#serviceAttachmentList"
)

// Values of a service attachment's fields that its rules act on.
const (
	AcceptAutomatic                 = "ACCEPT_AUTOMATIC"
	AcceptManual                    = "ACCEPT_MANUAL"
	PurposePrivateServiceConnect    = "PRIVATE_SERVICE_CONNECT"
	ConnectionPreferenceUnspecified = "CONNECTION_PREFERENCE_UNSPECIFIED"
)

// The statuses of a Private Service Connect connection, on the endpoint
// (its forwarding rule's pscConnectionStatus) and on the attachment (its
// connectedEndpoints).
const (
	PscAccepted = "ACCEPTED"
	PscPending  = "PENDING"
	PscRejected = "REJECTED"
)

// ServiceAttachment publishes an internal load balancer's forwarding rule
// to Private Service Connect consumers (collection serviceAttachments,
// regional). The emulator validates and stores it, and lists the
// consumers' endpoints (forwarding rules that target it) with the status
// its accept and reject lists give them; no traffic reaches the producer
// through them.
type ServiceAttachment struct {
	Meta
	TargetService          string                 `json:"targetService,omitempty"`
	ProducerForwardingRule string                 `json:"producerForwardingRule,omitempty"`
	NatSubnets             []string               `json:"natSubnets,omitempty"`
	ConnectionPreference   string                 `json:"connectionPreference,omitempty"`
	ConsumerAcceptLists    []ConsumerProjectLimit `json:"consumerAcceptLists,omitempty"`
	ConsumerRejectLists    []string               `json:"consumerRejectLists,omitempty"`
	PscServiceAttachmentID *Uint128               `json:"pscServiceAttachmentId,omitempty"`
	Fingerprint            string                 `json:"fingerprint,omitempty"`
	// ReconcileConnections lets a change of the lists move endpoints
	// already ACCEPTED or REJECTED; without it, only PENDING ones move.
	ReconcileConnections *bool               `json:"reconcileConnections,omitempty"`
	ConnectedEndpoints   []ConnectedEndpoint `json:"connectedEndpoints,omitempty"`
}

// ConnectedEndpoint is a consumer's endpoint of a service attachment.
type ConnectedEndpoint struct {
	Endpoint        string `json:"endpoint,omitempty"`
	EndpointWithID  string `json:"endpointWithId,omitempty"`
	ConsumerNetwork string `json:"consumerNetwork,omitempty"`
	PscConnectionID string `json:"pscConnectionId,omitempty"`
	Status          string `json:"status,omitempty"`
}

// ConsumerProjectLimit is a consumer a service attachment accepts: a
// project, a network or an endpoint, with a connection limit.
type ConsumerProjectLimit struct {
	ProjectIDOrNum  string `json:"projectIdOrNum,omitempty"`
	NetworkURL      string `json:"networkUrl,omitempty"`
	EndpointURL     string `json:"endpointUrl,omitempty"`
	ConnectionLimit *int64 `json:"connectionLimit,omitempty"`
}

// Uint128 is a 128-bit number as the API writes it: two 64-bit halves,
// each a decimal string.
type Uint128 struct {
	High string `json:"high,omitempty"`
	Low  string `json:"low,omitempty"`
}
