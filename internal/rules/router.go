package rules

import (
	"fmt"
	"net/netip"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Limits of Cloud Router and Cloud NAT in the Compute API.
const (
	MinKeepalive       = 20
	MaxKeepalive       = 60
	MaxRoutePriority   = 65535
	GoogleASN          = 16550 // the ASN Partner Interconnect routers use
	MinNatPorts        = 2
	MaxNatPorts        = 65536
	MinDynamicNatPorts = 32
	MaxDynamicMinPorts = 32768
	MinDynamicMaxPorts = 64
)

// privateASN reports whether asn is a private ASN (RFC 6996): 64512-65534
// or 4200000000-4294967294.
func privateASN(asn int64) bool {
	return asn >= 64512 && asn <= 65534 || asn >= 4200000000 && asn <= 4294967294
}

// Router checks a Cloud Router as a client sent it: its BGP settings,
// interfaces and peers, and its NAT gateways. That its network, NAT
// addresses and subnetworks exist is checked by the emulator.
func Router(r *api.Router) Violations {
	var vs Violations
	vs.add(Name("name", r.Name))
	vs.add(Description("description", r.Description))
	if r.Network == "" {
		vs = append(vs, violation("network", "%s is required: the network the router serves.", f("network")))
	}
	if r.BGP != nil {
		vs = append(vs, routerBGP(r.BGP)...)
	}
	interfaces := map[string]bool{}
	for i, in := range r.Interfaces {
		field := fmt.Sprintf("interfaces[%d]", i)
		vs.add(Name(field+".name", in.Name))
		if interfaces[in.Name] {
			vs = append(vs, violation(field+".name", "%s (%q) repeats another interface's name: each interface of a router has its own.", f(field+".name"), in.Name))
		}
		interfaces[in.Name] = true
		if in.IPRange != "" {
			vs.add(ipRange(field+".ipRange", in.IPRange))
		}
	}
	keys := map[string]bool{}
	for _, k := range r.MD5AuthenticationKeys {
		keys[k.Name] = true
	}
	peers := map[string]bool{}
	for i, p := range r.BGPPeers {
		vs = append(vs, routerPeer(fmt.Sprintf("bgpPeers[%d]", i), p, interfaces, keys, peers)...)
	}
	nats := map[string]bool{}
	for i, n := range r.Nats {
		field := fmt.Sprintf("nats[%d]", i)
		if nats[n.Name] {
			vs = append(vs, violation(field+".name", "%s (%q) repeats another NAT's name: each NAT of a router has its own.", f(field+".name"), n.Name))
		}
		nats[n.Name] = true
		vs = append(vs, RouterNat(field, n)...)
	}
	return vs
}

// routerBGP checks a router's own BGP settings.
func routerBGP(b *api.RouterBGP) Violations {
	var vs Violations
	switch {
	case b.ASN == nil:
		vs = append(vs, violation("bgp.asn", "%s is required: the router's own autonomous system number.", f("bgp.asn")))
	case !privateASN(*b.ASN) && *b.ASN != GoogleASN:
		vs = append(vs, violation("bgp.asn", "%s (%d) must be a private ASN (64512-65534 or 4200000000-4294967294), or %d for Partner Interconnect.",
			f("bgp.asn"), *b.ASN, GoogleASN))
	}
	vs = append(vs, advertised("bgp", b.AdvertiseMode, b.AdvertisedGroups, b.AdvertisedIPRanges)...)
	vs.add(optionalRange("bgp.keepaliveInterval", b.KeepaliveInterval, MinKeepalive, MaxKeepalive))
	return vs
}

// advertised checks what a router or a peer advertises: groups and ranges
// only in CUSTOM mode, ranges in CIDR form.
func advertised(field, mode string, groups []string, ranges []api.RouterAdvertisedIPRange) Violations {
	var vs Violations
	if mode != api.AdvertiseCustom && (len(groups) > 0 || len(ranges) > 0) {
		what := field + ".advertisedGroups"
		if len(groups) == 0 {
			what = field + ".advertisedIpRanges"
		}
		vs = append(vs, violation(what, "%s is set, but %s is %q: custom advertisements need %s CUSTOM.",
			f(what), f(field+".advertiseMode"), modeOrDefault(mode), f(field+".advertiseMode")))
	}
	for i, r := range ranges {
		vs.add(ipRange(fmt.Sprintf("%s.advertisedIpRanges[%d].range", field, i), r.Range))
	}
	return vs
}

func modeOrDefault(mode string) string {
	if mode == "" {
		return "DEFAULT"
	}
	return mode
}

// routerPeer checks one BGP peer: its name is its own, its interface and
// its MD5 key are the router's.
func routerPeer(field string, p api.RouterBGPPeer, interfaces, keys, seen map[string]bool) Violations {
	var vs Violations
	vs.add(Name(field+".name", p.Name))
	if seen[p.Name] {
		vs = append(vs, violation(field+".name", "%s (%q) repeats another peer's name: each BGP peer of a router has its own.", f(field+".name"), p.Name))
	}
	seen[p.Name] = true
	switch {
	case p.InterfaceName == "":
		vs = append(vs, violation(field+".interfaceName", "%s is required: the router interface the BGP session runs on.", f(field+".interfaceName")))
	case !interfaces[p.InterfaceName]:
		vs = append(vs, violation(field+".interfaceName", "%s (%q) names no interface of this router: add it to %s first.",
			f(field+".interfaceName"), p.InterfaceName, f("interfaces")))
	}
	if p.PeerASN == nil {
		vs = append(vs, violation(field+".peerAsn", "%s is required: the peer's autonomous system number.", f(field+".peerAsn")))
	}
	vs.add(optionalRange(field+".advertisedRoutePriority", p.AdvertisedRoutePriority, 0, MaxRoutePriority))
	if p.MD5AuthenticationKeyName != "" && !keys[p.MD5AuthenticationKeyName] {
		vs = append(vs, violation(field+".md5AuthenticationKeyName", "%s (%q) names no key of %s.",
			f(field+".md5AuthenticationKeyName"), p.MD5AuthenticationKeyName, f("md5AuthenticationKeys")))
	}
	for _, addr := range []struct{ name, value string }{{"ipAddress", p.IPAddress}, {"peerIpAddress", p.PeerIPAddress}} {
		if _, err := netip.ParseAddr(addr.value); addr.value != "" && err != nil {
			vs = append(vs, violation(field+"."+addr.name, "%s (%q) must be an IPv4 or IPv6 address.", f(field+"."+addr.name), addr.value))
		}
	}
	return append(vs, advertised(field, p.AdvertiseMode, p.AdvertisedGroups, p.AdvertisedIPRanges)...)
}

// RouterNat checks one NAT gateway, named field: where its addresses come
// from, which subnetworks it serves, and its port and timeout settings.
func RouterNat(field string, n api.RouterNat) Violations {
	var vs Violations
	vs.add(Name(field+".name", n.Name))
	if n.Type != api.NatPrivate && n.NatIPAllocateOption == "" {
		vs = append(vs, violation(field+".natIpAllocateOption", "%s is required: AUTO_ONLY (Google allocates the NAT addresses) or MANUAL_ONLY (%s names them).",
			f(field+".natIpAllocateOption"), f(field+".natIps")))
	}
	switch {
	case n.NatIPAllocateOption == api.NatManualOnly && len(n.NatIPs) == 0:
		vs = append(vs, violation(field+".natIps", "%s is empty: a MANUAL_ONLY NAT needs at least one address to translate to.", f(field+".natIps")))
	case n.NatIPAllocateOption == api.NatAutoOnly && len(n.NatIPs) > 0:
		vs = append(vs, violation(field+".natIps", "%s is set, but %s is AUTO_ONLY: Google allocates those addresses; use MANUAL_ONLY to name them.",
			f(field+".natIps"), f(field+".natIpAllocateOption")))
	}
	switch {
	case n.SourceSubnetworkIPRangesToNat == "":
		vs = append(vs, violation(field+".sourceSubnetworkIpRangesToNat", "%s is required: %s, %s or %s.",
			f(field+".sourceSubnetworkIpRangesToNat"), api.NatAllSubnetworks, api.NatAllPrimarySubnetwork, api.NatListOfSubnetworks))
	case n.SourceSubnetworkIPRangesToNat == api.NatListOfSubnetworks && len(n.Subnetworks) == 0:
		vs = append(vs, violation(field+".subnetworks", "%s is empty: a LIST_OF_SUBNETWORKS NAT needs the subnetworks it serves.", f(field+".subnetworks")))
	case n.SourceSubnetworkIPRangesToNat != api.NatListOfSubnetworks && len(n.Subnetworks) > 0:
		vs = append(vs, violation(field+".subnetworks", "%s is set, but %s is %q: list subnetworks only with LIST_OF_SUBNETWORKS.",
			f(field+".subnetworks"), f(field+".sourceSubnetworkIpRangesToNat"), n.SourceSubnetworkIPRangesToNat))
	}
	subnets := map[string]bool{}
	for i, sn := range n.Subnetworks {
		sf := fmt.Sprintf("%s.subnetworks[%d].name", field, i)
		switch {
		case sn.Name == "":
			vs = append(vs, violation(sf, "%s is required: the subnetwork the NAT serves.", f(sf)))
		case subnets[sn.Name]:
			vs = append(vs, violation(sf, "%s (%q) is listed twice.", f(sf), sn.Name))
		}
		subnets[sn.Name] = true
	}
	vs = append(vs, natPorts(field, n)...)
	for _, t := range []struct {
		name  string
		value *int64
	}{{"udpIdleTimeoutSec", n.UDPIdleTimeoutSec}, {"icmpIdleTimeoutSec", n.ICMPIdleTimeoutSec},
		{"tcpEstablishedIdleTimeoutSec", n.TCPEstablishedIdleTimeoutSec}, {"tcpTransitoryIdleTimeoutSec", n.TCPTransitoryIdleTimeoutSec},
		{"tcpTimeWaitTimeoutSec", n.TCPTimeWaitTimeoutSec}} {
		vs.add(optionalRange(field+"."+t.name, t.value, 1, maxInt32))
	}
	return vs
}

const maxInt32 = 1<<31 - 1

// natPorts checks a NAT's ports per VM: with dynamic port allocation, the
// minimum and maximum are powers of two and the minimum is below the
// maximum; without it, there is no maximum.
func natPorts(field string, n api.RouterNat) Violations {
	var vs Violations
	minField, maxField := field+".minPortsPerVm", field+".maxPortsPerVm"
	if !n.EnableDynamicPortAllocation {
		// A maximum is taken, and has no effect, without dynamic port
		// allocation, as the API says of maxPortsPerVm.
		vs.add(optionalRange(minField, n.MinPortsPerVM, MinNatPorts, MaxNatPorts))
		return vs
	}
	for _, p := range []struct {
		field  string
		value  *int64
		lo, hi int64
	}{{minField, n.MinPortsPerVM, MinDynamicNatPorts, MaxDynamicMinPorts}, {maxField, n.MaxPortsPerVM, MinDynamicMaxPorts, MaxNatPorts}} {
		if p.value != nil && (*p.value < p.lo || *p.value > p.hi || *p.value&(*p.value-1) != 0) {
			vs = append(vs, violation(p.field, "%s (%d) must be a power of two between %d and %d with dynamic port allocation.", f(p.field), *p.value, p.lo, p.hi))
		}
	}
	if n.MinPortsPerVM != nil && n.MaxPortsPerVM != nil && *n.MinPortsPerVM >= *n.MaxPortsPerVM {
		vs = append(vs, violation(maxField, "%s (%d) must be above %s (%d).", f(maxField), *n.MaxPortsPerVM, f(minField), *n.MinPortsPerVM))
	}
	return vs
}

// ApplyRouterDefaults fills the unset fields of a valid router: a NAT
// translates for instances (ENDPOINT_TYPE_VM) unless it says otherwise.
func ApplyRouterDefaults(r *api.Router) {
	for i := range r.Nats {
		if len(r.Nats[i].EndpointTypes) == 0 {
			r.Nats[i].EndpointTypes = []string{"ENDPOINT_TYPE_VM"}
		}
	}
}
