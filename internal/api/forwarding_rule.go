package api

// Kinds of forwarding rules.
const (
	KindForwardingRule     = "compute#forwardingRule"
	KindForwardingRuleList = "compute#forwardingRuleList"
)

// ForwardingRule sends traffic to a backend service or a target pool.
type ForwardingRule struct {
	Meta
	// IPAddress is spelled as in the Compute API, capitals included.
	IPAddress string `json:"IPAddress,omitempty"`
	// IPProtocol defaults to TCP, as in the Compute API.
	IPProtocol string `json:"IPProtocol,omitempty"`
	// IPVersion IPV6 gives a rule without IPAddress an IPv6 address.
	IPVersion string `json:"ipVersion,omitempty"`
	PortRange string `json:"portRange,omitempty"`
	// Ports and AllPorts are stored, not acted on: the rules check them.
	Ports               []string `json:"ports,omitempty"`
	AllPorts            *bool    `json:"allPorts,omitempty"`
	LoadBalancingScheme string   `json:"loadBalancingScheme,omitempty"`
	BackendService      string   `json:"backendService,omitempty"`
	Target              string   `json:"target,omitempty"`
	// Network and Subnetwork, when set, must exist (the rule's own region
	// for a subnetwork); they are stored as URLs and kept in use.
	Network    string `json:"network,omitempty"`
	Subnetwork string `json:"subnetwork,omitempty"`
	// Fingerprint changes on every write; an update that sends a stale one
	// gets 412.
	Fingerprint string `json:"fingerprint,omitempty"`
	// A Private Service Connect endpoint's connection to the service
	// attachment it targets, and the status the attachment gives it.
	PscConnectionID     string `json:"pscConnectionId,omitempty"`
	PscConnectionStatus string `json:"pscConnectionStatus,omitempty"`
}
