package api

// Kinds and the collection of Cloud Routers.
const (
	CollectionRouters = "routers"
	KindRouter        = "compute#router"
	KindRouterList    = "compute#routerList"
)

// Values of a router's enumerated fields that its rules act on.
const (
	AdvertiseCustom         = "CUSTOM"
	NatAutoOnly             = "AUTO_ONLY"
	NatManualOnly           = "MANUAL_ONLY"
	NatListOfSubnetworks    = "LIST_OF_SUBNETWORKS"
	NatAllSubnetworks       = "ALL_SUBNETWORKS_ALL_IP_RANGES"
	NatAllPrimarySubnetwork = "ALL_SUBNETWORKS_ALL_PRIMARY_IP_RANGES"
	NatPrivate              = "PRIVATE"
)

// Router is a Cloud Router (collection routers, regional): the BGP speaker
// of a network in a region and the home of its Cloud NAT gateways. The
// emulator stores and validates it; it carries no traffic (no NAT, no BGP
// sessions).
type Router struct {
	Meta
	Network    string            `json:"network,omitempty"`
	BGP        *RouterBGP        `json:"bgp,omitempty"`
	BGPPeers   []RouterBGPPeer   `json:"bgpPeers,omitempty"`
	Interfaces []RouterInterface `json:"interfaces,omitempty"`
	Nats       []RouterNat       `json:"nats,omitempty"`
	// MD5AuthenticationKeys hold secrets: their keys are stored, never
	// returned.
	MD5AuthenticationKeys []RouterMD5Key `json:"md5AuthenticationKeys,omitempty"`
}

// RouterBGP is a router's own BGP settings.
type RouterBGP struct {
	ASN                *int64                    `json:"asn,omitempty"`
	AdvertiseMode      string                    `json:"advertiseMode,omitempty"`
	AdvertisedGroups   []string                  `json:"advertisedGroups,omitempty"`
	AdvertisedIPRanges []RouterAdvertisedIPRange `json:"advertisedIpRanges,omitempty"`
	KeepaliveInterval  *int64                    `json:"keepaliveInterval,omitempty"`
}

// RouterAdvertisedIPRange is a range a router advertises in CUSTOM mode.
type RouterAdvertisedIPRange struct {
	Range string `json:"range,omitempty"`
}

// RouterBGPPeer is a BGP session of a router, on one of its interfaces.
type RouterBGPPeer struct {
	Name                     string                    `json:"name,omitempty"`
	InterfaceName            string                    `json:"interfaceName,omitempty"`
	IPAddress                string                    `json:"ipAddress,omitempty"`
	PeerIPAddress            string                    `json:"peerIpAddress,omitempty"`
	PeerASN                  *int64                    `json:"peerAsn,omitempty"`
	AdvertisedRoutePriority  *int64                    `json:"advertisedRoutePriority,omitempty"`
	AdvertiseMode            string                    `json:"advertiseMode,omitempty"`
	AdvertisedGroups         []string                  `json:"advertisedGroups,omitempty"`
	AdvertisedIPRanges       []RouterAdvertisedIPRange `json:"advertisedIpRanges,omitempty"`
	MD5AuthenticationKeyName string                    `json:"md5AuthenticationKeyName,omitempty"`
}

// RouterInterface is an interface of a router.
type RouterInterface struct {
	Name      string `json:"name,omitempty"`
	IPRange   string `json:"ipRange,omitempty"`
	IPVersion string `json:"ipVersion,omitempty"`
}

// RouterMD5Key is a key a BGP peer authenticates with.
type RouterMD5Key struct {
	Name string `json:"name,omitempty"`
	Key  string `json:"key,omitempty"`
}

// RouterNat is a Cloud NAT gateway of a router.
type RouterNat struct {
	Name                          string                `json:"name,omitempty"`
	Type                          string                `json:"type,omitempty"`
	NatIPAllocateOption           string                `json:"natIpAllocateOption,omitempty"`
	NatIPs                        []string              `json:"natIps,omitempty"`
	DrainNatIPs                   []string              `json:"drainNatIps,omitempty"`
	SourceSubnetworkIPRangesToNat string                `json:"sourceSubnetworkIpRangesToNat,omitempty"`
	Subnetworks                   []RouterNatSubnetwork `json:"subnetworks,omitempty"`
	MinPortsPerVM                 *int64                `json:"minPortsPerVm,omitempty"`
	MaxPortsPerVM                 *int64                `json:"maxPortsPerVm,omitempty"`
	EnableDynamicPortAllocation   bool                  `json:"enableDynamicPortAllocation,omitempty"`
	UDPIdleTimeoutSec             *int64                `json:"udpIdleTimeoutSec,omitempty"`
	ICMPIdleTimeoutSec            *int64                `json:"icmpIdleTimeoutSec,omitempty"`
	TCPEstablishedIdleTimeoutSec  *int64                `json:"tcpEstablishedIdleTimeoutSec,omitempty"`
	TCPTransitoryIdleTimeoutSec   *int64                `json:"tcpTransitoryIdleTimeoutSec,omitempty"`
	TCPTimeWaitTimeoutSec         *int64                `json:"tcpTimeWaitTimeoutSec,omitempty"`
	// EndpointTypes are what the NAT translates for: ENDPOINT_TYPE_VM when
	// the client sends none, as the API answers.
	EndpointTypes []string `json:"endpointTypes,omitempty"`
}

// RouterNatSubnetwork is a subnetwork a LIST_OF_SUBNETWORKS NAT serves.
type RouterNatSubnetwork struct {
	Name                string   `json:"name,omitempty"`
	SourceIPRangesToNat []string `json:"sourceIpRangesToNat,omitempty"`
}
