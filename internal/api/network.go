package api

// Kinds of the minimal compute collections besides instances (see
// instance.go for their collection names).
const (
	KindNetwork        = "compute#network"
	KindNetworkList    = "compute#networkList"
	KindSubnetwork     = "compute#subnetwork"
	KindSubnetworkList = "compute#subnetworkList"
	KindFirewall       = "compute#firewall"
	KindFirewallList   = "compute#firewallList"
	KindAddress        = "compute#address"
	KindAddressList    = "compute#addressList"
)

// Stack types of a subnetwork that have IPv6.
const (
	StackIPv4IPv6 = "IPV4_IPV6"
	StackIPv6Only = "IPV6_ONLY"
)

// Values of the output status fields.
const (
	InstanceRunning = "RUNNING"
	AddressReserved = "RESERVED"
)

// Address types, directions and IP versions.
const (
	AddressExternal  = "EXTERNAL"
	AddressInternal  = "INTERNAL"
	DirectionIngress = "INGRESS"
	DirectionEgress  = "EGRESS"
	IPv4             = "IPV4"
	IPv6             = "IPV6"
)

// DefaultNetwork is the network an instance interface or a firewall is in
// when it names none, as in the Compute API.
const DefaultNetwork = "default"

// Network is a global VPC network (collection networks).
type Network struct {
	Meta
	AutoCreateSubnetworks *bool `json:"autoCreateSubnetworks,omitempty"`
	// IPv4Range is spelled as in the Compute API; set only on legacy
	// networks, which take no subnetworks.
	IPv4Range string `json:"IPv4Range,omitempty"`
	MTU       *int64 `json:"mtu,omitempty"`
	// RoutingConfig is always answered: a network made without one has
	// REGIONAL routing and the LEGACY BGP best path selection.
	RoutingConfig *NetworkRoutingConfig `json:"routingConfig,omitempty"`
}

// NetworkRoutingConfig is how a network's Cloud Routers route. The
// emulator routes no packets; it keeps and checks the settings.
type NetworkRoutingConfig struct {
	RoutingMode              string `json:"routingMode,omitempty"`
	BgpBestPathSelectionMode string `json:"bgpBestPathSelectionMode,omitempty"`
	// BgpAlwaysCompareMed and BgpInterRegionCost apply to the STANDARD
	// selection only; the Effective fields answer what is in force then.
	BgpAlwaysCompareMed          *bool  `json:"bgpAlwaysCompareMed,omitempty"`
	BgpInterRegionCost           string `json:"bgpInterRegionCost,omitempty"`
	EffectiveBgpAlwaysCompareMed *bool  `json:"effectiveBgpAlwaysCompareMed,omitempty"`
	EffectiveBgpInterRegionCost  string `json:"effectiveBgpInterRegionCost,omitempty"`
	// DeleteBgpAlwaysCompareMed, sent true, clears BgpAlwaysCompareMed; it
	// is a request's, never stored.
	DeleteBgpAlwaysCompareMed *bool `json:"deleteBgpAlwaysCompareMed,omitempty"`
}

// Subnetwork is a regional range of a network (collection subnetworks).
type Subnetwork struct {
	Meta
	Network        string `json:"network,omitempty"`
	IPCIDRRange    string `json:"ipCidrRange,omitempty"`
	GatewayAddress string `json:"gatewayAddress,omitempty"`
	StackType      string `json:"stackType,omitempty"`
	// A dual-stack subnetwork (stackType IPV4_IPV6 or IPV6_ONLY) has an
	// IPv6 /64, external or internal by ipv6AccessType; the emulator gives
	// one of the documentation range 2001:db8:1c::/48 when none is sent.
	IPv6AccessType     string `json:"ipv6AccessType,omitempty"`
	IPv6CIDRRange      string `json:"ipv6CidrRange,omitempty"`
	ExternalIPv6Prefix string `json:"externalIpv6Prefix,omitempty"`
	InternalIPv6Prefix string `json:"internalIpv6Prefix,omitempty"`
	// Purpose REGIONAL_MANAGED_PROXY or GLOBAL_MANAGED_PROXY makes it a
	// proxy-only subnet: where Envoy-based load balancers' proxies, and
	// their probes of hybrid and internet backends, come from.
	Purpose     string `json:"purpose,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Firewall is a global firewall rule (collection firewalls). The emulator
// stores it and checks its references, and evaluates the ingress rules
// against the health-check probers' source ranges (--firewalls).
type Firewall struct {
	Meta
	Network           string         `json:"network,omitempty"`
	Direction         string         `json:"direction,omitempty"`
	Priority          *int64         `json:"priority,omitempty"`
	SourceRanges      []string       `json:"sourceRanges,omitempty"`
	DestinationRanges []string       `json:"destinationRanges,omitempty"`
	Allowed           []FirewallRule `json:"allowed,omitempty"`
	Denied            []FirewallRule `json:"denied,omitempty"`
	// SourceTags and SourceServiceAccounts match traffic from instances
	// only: never the health-check probers.
	SourceTags            []string `json:"sourceTags,omitempty"`
	SourceServiceAccounts []string `json:"sourceServiceAccounts,omitempty"`
	// TargetTags and TargetServiceAccounts narrow the instances the rule
	// applies to; with neither, it applies to every instance of its network.
	TargetTags            []string `json:"targetTags,omitempty"`
	TargetServiceAccounts []string `json:"targetServiceAccounts,omitempty"`
	Disabled              bool     `json:"disabled,omitempty"`
}

// FirewallRule is one entry of allowed or denied.
type FirewallRule struct {
	// IPProtocol is spelled as in the Compute API, capitals included.
	IPProtocol string   `json:"IPProtocol,omitempty"`
	Ports      []string `json:"ports,omitempty"`
}

// Subnetwork purposes that make a proxy-only subnet: regional (and its
// older name) and cross-region.
const (
	PurposeRegionalManagedProxy      = "REGIONAL_MANAGED_PROXY"
	PurposeInternalHTTPSLoadBalancer = "INTERNAL_HTTPS_LOAD_BALANCER"
	PurposeGlobalManagedProxy        = "GLOBAL_MANAGED_PROXY"
)

// Address is a reserved IP address: regional (collection addresses under
// regions/) or global (the same collection name under global/, the
// globalAddresses methods of the Compute API).
type Address struct {
	Meta
	// Address is assigned when the client sends none: the next free address
	// of the subnetwork for an INTERNAL one in a subnetwork, else a loopback
	// address (127.0.x.y), so that probes sent to it reach this machine.
	Address     string `json:"address,omitempty"`
	AddressType string `json:"addressType,omitempty"`
	IPVersion   string `json:"ipVersion,omitempty"`
	Subnetwork  string `json:"subnetwork,omitempty"`
	Network     string `json:"network,omitempty"`
	Status      string `json:"status,omitempty"`
}
