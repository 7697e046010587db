// Package firewall decides whether the cloud's health-check probers would
// reach a backend: where they come from (by universe, load-balancer type
// and backend type) and what a network's ingress firewall rules let in.
package firewall

import (
	"net/netip"
	"slices"
)

// Universe is the cloud the emulator stands for: its probers come from
// ranges of their own.
type Universe string

// Universes.
const (
	GoogleCloud Universe = "googlecloud"
	S3NS        Universe = "s3ns"
)

// Type is a load balancer's type, as the health-check overviews name them.
type Type string

// Load-balancer types.
const (
	GlobalExternalALB            Type = "global external Application LB"
	ClassicALB                   Type = "classic Application LB"
	GlobalExternalProxyNLB       Type = "global external proxy Network LB"
	ClassicProxyNLB              Type = "classic proxy Network LB"
	RegionalExternalALB          Type = "regional external Application LB"
	RegionalInternalALB          Type = "regional internal Application LB"
	CrossRegionInternalALB       Type = "cross-region internal Application LB"
	RegionalExternalProxyNLB     Type = "regional external proxy Network LB"
	RegionalInternalProxyNLB     Type = "regional internal proxy Network LB"
	CrossRegionInternalProxyNLB  Type = "cross-region internal proxy Network LB"
	GlobalExternalPassthroughNLB Type = "global external passthrough Network LB"
	ExternalPassthroughNLB       Type = "external passthrough Network LB"
	InternalPassthroughNLB       Type = "internal passthrough Network LB"
	CloudServiceMesh             Type = "Cloud Service Mesh"
)

// Backend is a kind of backend, as the overviews' tables tell them apart.
type Backend string

// Backend kinds.
const (
	InstanceGroup      Backend = "instance group"
	ZonalIPPort        Backend = "zonal NEG with GCE_VM_IP_PORT endpoints"
	ZonalIP            Backend = "zonal NEG with GCE_VM_IP endpoints"
	Hybrid             Backend = "hybrid connectivity NEG (NON_GCP_PRIVATE_IP_PORT)"
	GlobalInternet     Backend = "global internet NEG"
	RegionalInternet   Backend = "regional internet NEG"
	ServerlessNEG      Backend = "serverless NEG"
	PrivateServiceNEG  Backend = "Private Service Connect NEG"
	TargetPoolInstance Backend = "target pool instance"
)

// Source says where a row's probes come from.
type Source int

// Sources of probes.
const (
	// Ranges: the row's IPv4 and IPv6 prober ranges.
	Ranges Source = iota
	// ProxyOnlySubnet: the region's proxy-only subnet (Envoy-based load
	// balancers' probes of hybrid and regional internet backends).
	ProxyOnlySubnet
	// SelfManagedEnvoy: the user's own Envoy proxies (Cloud Service Mesh's
	// distributed checks of hybrid and internet backends).
	SelfManagedEnvoy
	// NotProbed: the backend type supports no health checks.
	NotProbed
)

// Row is one row of the overviews' tables of prober ranges.
type Row struct {
	Universe      Universe
	LoadBalancers []Type
	Backends      []Backend
	Source        Source
	IPv4, IPv6    []netip.Prefix
}

// MetadataServer is where target-pool based external passthrough Network
// LBs may send their probes from; its packets are always allowed.
var MetadataServer = netip.MustParsePrefix("169.254.169.254/32")

var (
	gfe = []Type{GlobalExternalALB, ClassicALB, GlobalExternalProxyNLB, ClassicProxyNLB}
	// Envoy-based managed proxies; S3NS offers the regional ones only.
	envoy      = []Type{RegionalExternalALB, RegionalInternalALB, CrossRegionInternalALB, RegionalExternalProxyNLB, RegionalInternalProxyNLB, CrossRegionInternalProxyNLB}
	envoyS3NS  = []Type{RegionalExternalALB, RegionalInternalALB, RegionalExternalProxyNLB, RegionalInternalProxyNLB}
	passBacked = []Backend{InstanceGroup, ZonalIP}
)

// Table is every row of the health-check overviews' prober-range tables,
// for both universes. The external passthrough rows hold every range
// listed for them, target pools included: the overviews advise allowing
// every prober range.
var Table = []Row{
	// Google Cloud: Google Front End based load balancers.
	{GoogleCloud, gfe, []Backend{InstanceGroup, ZonalIPPort, Hybrid}, Ranges, prefixes("35.191.0.0/16"), prefixes("2600:2d00:1:b029::/64")},
	{GoogleCloud, gfe, []Backend{GlobalInternet, ServerlessNEG, PrivateServiceNEG}, NotProbed, nil, nil},
	// Google Cloud: Cloud Service Mesh.
	{GoogleCloud, []Type{CloudServiceMesh}, []Backend{InstanceGroup, ZonalIPPort}, Ranges, prefixes("35.191.0.0/16"), prefixes("2600:2d00:1:b029::/64")},
	{GoogleCloud, []Type{CloudServiceMesh}, []Backend{GlobalInternet, Hybrid}, SelfManagedEnvoy, nil, nil},
	// Google Cloud: Envoy-based managed proxies.
	{GoogleCloud, envoy, []Backend{InstanceGroup, ZonalIPPort}, Ranges, prefixes("35.191.0.0/16"), prefixes("2600:2d00:1:b029::/64")},
	{GoogleCloud, envoy, []Backend{Hybrid, RegionalInternet}, ProxyOnlySubnet, nil, nil},
	{GoogleCloud, envoy, []Backend{ServerlessNEG, PrivateServiceNEG}, NotProbed, nil, nil},
	// Google Cloud: passthrough Network LBs.
	{GoogleCloud, []Type{ExternalPassthroughNLB}, append(passBacked, TargetPoolInstance), Ranges,
		prefixes("35.191.0.0/16", "209.85.152.0/22", "209.85.204.0/22"), prefixes("2600:1901:8001::/48")},
	{GoogleCloud, []Type{InternalPassthroughNLB}, passBacked, Ranges, prefixes("35.191.0.0/16"), prefixes("2600:2d00:1:b029::/64")},

	// S3NS: Envoy-based managed proxies.
	{S3NS, envoyS3NS, []Backend{InstanceGroup, ZonalIPPort}, Ranges, prefixes("177.222.80.0/23"), prefixes("2a13:7500:8301:b029:0:2b::/96")},
	{S3NS, envoyS3NS, []Backend{Hybrid, RegionalInternet}, ProxyOnlySubnet, nil, nil},
	{S3NS, envoyS3NS, []Backend{ServerlessNEG, PrivateServiceNEG}, NotProbed, nil, nil},
	// S3NS: passthrough Network LBs.
	{S3NS, []Type{GlobalExternalPassthroughNLB}, passBacked, Ranges,
		prefixes("136.124.104.0/22", "136.124.108.0/22"), prefixes("2600:1904:7::/48", "2600:1904:8::/48")},
	{S3NS, []Type{ExternalPassthroughNLB}, append(passBacked, TargetPoolInstance), Ranges,
		prefixes("177.222.87.64/26", "177.222.87.0/26"), prefixes("2a13:7500:241:30::/64")},
	{S3NS, []Type{InternalPassthroughNLB}, passBacked, Ranges, prefixes("177.222.80.0/23"), prefixes("2a13:7500:8301:b029:0:2b::/96")},
}

// Lookup is the row for a load balancer of type t in universe u probing a
// backend of kind b; false when the tables have none (the universe does
// not offer that load balancer, or it takes no such backend).
func Lookup(u Universe, t Type, b Backend) (Row, bool) {
	for _, r := range Table {
		if r.Universe == u && slices.Contains(r.LoadBalancers, t) && slices.Contains(r.Backends, b) {
			return r, true
		}
	}
	return Row{}, false
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}
