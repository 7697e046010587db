package rules

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Rules of the minimal compute resources: networks, subnetworks,
// firewalls, addresses and instances. The emulator stores every field the
// Compute API defines; these rules check the few it acts on, in the API's
// own limits.

// Limits of the Compute API.
const (
	MinMTU              = 1300
	MaxMTU              = 8896
	MinSubnetPrefix     = 8
	MaxSubnetPrefix     = 29
	MaxFirewallPriority = 65535
	DefaultPriority     = 1000
	MaxNetworkInterface = 8
	// A network's routing when it names none.
	DefaultRoutingMode        = "REGIONAL"
	DefaultBgpPathSelection   = "LEGACY"
	DefaultBgpInterRegionCost = "DEFAULT"
)

// Network checks a network as a client sent it.
func Network(n *api.Network) Violations {
	var vs Violations
	vs.add(Name("name", n.Name))
	vs.add(Description("description", n.Description))
	vs.add(optionalRange("mtu", n.MTU, MinMTU, MaxMTU))
	if n.IPv4Range != "" {
		if _, err := netip.ParsePrefix(n.IPv4Range); err != nil {
			vs = append(vs, violation("IPv4Range", "%s (%q) must be an IPv4 range in CIDR form, such as \"10.240.0.0/16\".", f("IPv4Range"), n.IPv4Range))
		}
		if n.AutoCreateSubnetworks != nil {
			vs = append(vs, violation("IPv4Range", "%s is set, and so is %s: a legacy network (%s) has no subnetworks; remove one of them.",
				f("IPv4Range"), f("autoCreateSubnetworks"), f("IPv4Range")))
		}
	}
	if rc := n.RoutingConfig; rc != nil && rc.BgpAlwaysCompareMed != nil && !api.IsTrue(rc.DeleteBgpAlwaysCompareMed) &&
		cmp.Or(rc.BgpBestPathSelectionMode, DefaultBgpPathSelection) == DefaultBgpPathSelection {
		vs = append(vs, violation("routingConfig.bgpAlwaysCompareMed",
			"%s (%v) is set: Field bgp_always_compare_med is not supported for LEGACY BGP Best Path Selection algorithm; set %s to STANDARD, or clear it (null, or %s true).",
			f("routingConfig.bgpAlwaysCompareMed"), *rc.BgpAlwaysCompareMed, f("routingConfig.bgpBestPathSelectionMode"), f("routingConfig.deleteBgpAlwaysCompareMed")))
	}
	return vs
}

// ApplyNetworkDefaults fills the routing of a valid network: REGIONAL with
// the LEGACY BGP selection unless it says otherwise; with the STANDARD one,
// the MED comparison and inter-region cost in force. A request's
// deleteBgpAlwaysCompareMed clears the comparison and is not kept.
func ApplyNetworkDefaults(n *api.Network) {
	if n.RoutingConfig == nil {
		n.RoutingConfig = &api.NetworkRoutingConfig{}
	}
	rc := n.RoutingConfig
	if api.IsTrue(rc.DeleteBgpAlwaysCompareMed) {
		rc.BgpAlwaysCompareMed = nil
	}
	rc.DeleteBgpAlwaysCompareMed = nil
	rc.RoutingMode = cmp.Or(rc.RoutingMode, DefaultRoutingMode)
	rc.BgpBestPathSelectionMode = cmp.Or(rc.BgpBestPathSelectionMode, DefaultBgpPathSelection)
	rc.EffectiveBgpAlwaysCompareMed, rc.EffectiveBgpInterRegionCost = nil, ""
	if rc.BgpBestPathSelectionMode != DefaultBgpPathSelection {
		rc.EffectiveBgpAlwaysCompareMed = new(api.IsTrue(rc.BgpAlwaysCompareMed))
		rc.EffectiveBgpInterRegionCost = cmp.Or(rc.BgpInterRegionCost, DefaultBgpInterRegionCost)
	}
}

// Subnetwork checks a subnetwork as a client sent it; that its network
// exists is checked by the emulator.
func Subnetwork(sn *api.Subnetwork) Violations {
	var vs Violations
	vs.add(Name("name", sn.Name))
	vs.add(Description("description", sn.Description))
	if sn.Network == "" {
		vs = append(vs, violation("network", "%s is required: the network the subnetwork is a range of.", f("network")))
	}
	switch {
	case sn.StackType != api.StackIPv6Only:
		vs.add(SubnetworkRange("ipCidrRange", sn.IPCIDRRange))
	case sn.IPCIDRRange != "":
		vs = append(vs, violation("ipCidrRange", "%s (%q) must not be set: an IPV6_ONLY subnetwork has no IPv4 range.", f("ipCidrRange"), sn.IPCIDRRange))
	}
	vs.add(oneOf("stackType", sn.StackType, "IPV4_ONLY", "IPV4_IPV6", "IPV6_ONLY"))
	for _, p := range []struct{ field, value string }{{"externalIpv6Prefix", sn.ExternalIPv6Prefix}, {"internalIpv6Prefix", sn.InternalIPv6Prefix}} {
		if pf, err := netip.ParsePrefix(p.value); p.value != "" && (err != nil || !pf.Addr().Is6()) {
			vs = append(vs, violation(p.field, "%s (%q) must be an IPv6 range in CIDR form, such as \"2600:1900:4000:1::/64\".", f(p.field), p.value))
		}
	}
	return vs
}

// SubnetworkRange checks a subnetwork's primary range: an IPv4 network in
// CIDR form, /8 to /29.
func SubnetworkRange(field, cidr string) *Violation {
	if cidr == "" {
		v := violation(field, "%s is required: the subnetwork's IPv4 range, such as \"10.0.0.0/24\".", f(field))
		return &v
	}
	p, err := netip.ParsePrefix(cidr)
	switch {
	case err != nil || !p.Addr().Is4():
		v := violation(field, "%s (%q) must be an IPv4 range in CIDR form, such as \"10.0.0.0/24\".", f(field), cidr)
		return &v
	case p.Bits() < MinSubnetPrefix || p.Bits() > MaxSubnetPrefix:
		v := violation(field, "%s (%q) must have a prefix length between /%d and /%d.", f(field), cidr, MinSubnetPrefix, MaxSubnetPrefix)
		return &v
	}
	// Host bits set ("10.0.0.1/16") are taken, as the API does (Google's
	// own examples write them): the range is the masked one.
	return nil
}

// SubnetworkExpansion checks the range expandIpCidrRange gives a
// subnetwork whose range is old: a valid range that holds old and more.
func SubnetworkExpansion(field, old, cidr string) *Violation {
	if v := SubnetworkRange(field, cidr); v != nil {
		return v
	}
	p, o := netip.MustParsePrefix(cidr).Masked(), netip.MustParsePrefix(old).Masked()
	if p.Bits() >= o.Bits() || !p.Contains(o.Addr()) {
		v := violation(field, "%s (%q) must be a larger range that holds the subnetwork's range (%s): a subnetwork's range only grows.", f(field), cidr, old)
		return &v
	}
	return nil
}

// ApplySubnetworkDefaults fills the unset fields (and the gateway, an
// output) of a valid subnetwork.
func ApplySubnetworkDefaults(sn *api.Subnetwork) {
	if sn.StackType == "" {
		sn.StackType = "IPV4_ONLY"
	}
	if p, err := netip.ParsePrefix(sn.IPCIDRRange); err == nil {
		sn.GatewayAddress = p.Masked().Addr().Next().String()
	}
}

// SubnetworkHosts is the range of addresses a subnetwork gives out: like
// the Compute API, it keeps the first two (network, gateway) and the last
// two (reserved, broadcast) of its IPv4 range.
func SubnetworkHosts(p netip.Prefix) (first, last netip.Addr) {
	b := p.Masked().Addr().As4()
	n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	broadcast := n | (1<<(32-p.Bits()) - 1)
	return addr4(n + 2), addr4(broadcast - 2)
}

func addr4(n uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}

// AddressInSubnetwork checks that ip, named by field, is an address the
// subnetwork with range cidr may give out.
func AddressInSubnetwork(field, ip, subnetwork, cidr string) *Violation {
	addr, err := netip.ParseAddr(ip)
	p, perr := netip.ParsePrefix(cidr)
	if err != nil || perr != nil || !p.Contains(addr) {
		v := violation(field, "%s (%q) is not in the range of subnetwork %s (%s).", f(field), ip, subnetwork, cidr)
		return &v
	}
	if first, last := SubnetworkHosts(p); addr.Less(first) || last.Less(addr) {
		v := violation(field, "%s (%q) is reserved in subnetwork %s (%s): the first two and the last two addresses of a range are; use %s to %s.",
			f(field), ip, subnetwork, cidr, first, last)
		return &v
	}
	return nil
}

// Firewall checks a firewall rule as a client sent it.
func Firewall(fw *api.Firewall) Violations {
	var vs Violations
	vs.add(Name("name", fw.Name))
	vs.add(Description("description", fw.Description))
	vs.add(oneOf("direction", fw.Direction, api.DirectionIngress, api.DirectionEgress))
	vs.add(optionalRange("priority", fw.Priority, 0, MaxFirewallPriority))
	for i, r := range fw.SourceRanges {
		vs.add(ipRange(fmt.Sprintf("sourceRanges[%d]", i), r))
	}
	for i, r := range fw.DestinationRanges {
		vs.add(ipRange(fmt.Sprintf("destinationRanges[%d]", i), r))
	}
	if len(fw.Allowed) > 0 && len(fw.Denied) > 0 {
		vs = append(vs, violation("denied", "%s and %s are both set: a firewall rule either allows or denies; make two rules.", f("allowed"), f("denied")))
	}
	for _, list := range []struct {
		field string
		rules []api.FirewallRule
	}{{"allowed", fw.Allowed}, {"denied", fw.Denied}} {
		for i, r := range list.rules {
			vs = append(vs, firewallRule(fmt.Sprintf("%s[%d]", list.field, i), r)...)
		}
	}
	return vs
}

// firewallProtocols are the protocol names a firewall rule takes, as the
// Compute API lists them; ported are those whose rules may name ports.
var (
	firewallProtocols = []string{"tcp", "udp", "icmp", "esp", "ah", "ipip", "sctp", "all"}
	portedProtocols   = []string{"tcp", "udp", "sctp"}
)

// firewallRule checks one allowed or denied entry: a protocol name or
// number (0-255), and ports ("80", "8000-8080") only for the protocols
// that have ports.
func firewallRule(field string, r api.FirewallRule) Violations {
	var vs Violations
	proto := field + ".IPProtocol"
	n, numErr := strconv.Atoi(r.IPProtocol)
	switch {
	case r.IPProtocol == "":
		return append(vs, violation(proto, "%s is required: a protocol name (tcp, udp, icmp, ...), all, or a protocol number.", f(proto)))
	case numErr == nil && (n < 0 || n > 255):
		return append(vs, violation(proto, "%s (%q) must be a protocol number from 0 to 255.", f(proto), r.IPProtocol))
	case numErr != nil && !slices.Contains(firewallProtocols, strings.ToLower(r.IPProtocol)):
		return append(vs, violation(proto, "%s (%q) must be one of %s, or a protocol number (0-255).", f(proto), r.IPProtocol, strings.Join(firewallProtocols, ", ")))
	}
	if len(r.Ports) > 0 && !slices.Contains(portedProtocols, strings.ToLower(r.IPProtocol)) && r.IPProtocol != "6" && r.IPProtocol != "17" && r.IPProtocol != "132" {
		return append(vs, violation(field+".ports", "%s is set, but %s is %q: only tcp, udp and sctp rules name ports.", f(field+".ports"), f(proto), r.IPProtocol))
	}
	for j, p := range r.Ports {
		vs.add(firewallPort(fmt.Sprintf("%s.ports[%d]", field, j), p))
	}
	return vs
}

// firewallPort checks a port ("80") or a port range ("8000-8080").
func firewallPort(field, p string) *Violation {
	lo, hi, isRange := strings.Cut(p, "-")
	if !isRange {
		hi = lo
	}
	a, errA := strconv.Atoi(lo)
	b, errB := strconv.Atoi(hi)
	if errA != nil || errB != nil || a < 0 || b > MaxPort || a > b || strings.TrimSpace(p) != p {
		v := violation(field, "%s (%q) must be a port (0-%d) or a range of them (\"8000-8080\").", f(field), p, MaxPort)
		return &v
	}
	return nil
}

// ipRange checks an address or a CIDR range.
func ipRange(field, value string) *Violation {
	if _, err := netip.ParsePrefix(value); err == nil {
		return nil
	}
	if _, err := netip.ParseAddr(value); err == nil {
		return nil
	}
	v := violation(field, "%s (%q) must be an IP range in CIDR form, such as \"10.0.0.0/8\".", f(field), value)
	return &v
}

// ApplyFirewallDefaults fills the unset fields of a valid firewall rule.
func ApplyFirewallDefaults(fw *api.Firewall) {
	if fw.Direction == "" {
		fw.Direction = api.DirectionIngress
	}
	setDefault(&fw.Priority, DefaultPriority)
}

// Address checks an address as a client sent it.
func Address(a *api.Address) Violations {
	var vs Violations
	vs.add(Name("name", a.Name))
	vs.add(Description("description", a.Description))
	vs.add(oneOf("addressType", a.AddressType, api.AddressExternal, api.AddressInternal))
	vs.add(oneOf("ipVersion", a.IPVersion, api.IPv4, api.IPv6))
	if a.Address != "" {
		ip, err := netip.ParseAddr(a.Address)
		switch {
		case err != nil:
			vs = append(vs, violation("address", "%s (%q) must be an IPv4 or IPv6 address.", f("address"), a.Address))
		case a.IPVersion == api.IPv6 && !ip.Is6(), a.IPVersion == api.IPv4 && !ip.Is4():
			vs = append(vs, violation("address", "%s (%q) is not an %s address, as %s says.", f("address"), a.Address, a.IPVersion, f("ipVersion")))
		}
	}
	internal := a.AddressType == api.AddressInternal
	// An external IPv6 address is reserved in a dual-stack subnetwork's
	// external range; an external IPv4 one in none.
	if a.Subnetwork != "" && !internal && a.IPVersion != api.IPv6 {
		vs = append(vs, violation("subnetwork", "%s is set on an EXTERNAL IPv4 address: only INTERNAL addresses, and external IPv6 ones, are in a subnetwork; set %s to INTERNAL.",
			f("subnetwork"), f("addressType")))
	}
	if a.Network != "" && !internal {
		vs = append(vs, violation("network", "%s is set on an EXTERNAL address: only INTERNAL addresses are in a network; set %s to INTERNAL.",
			f("network"), f("addressType")))
	}
	return vs
}

// ApplyAddressDefaults fills the unset fields (and the status, an output)
// of a valid address.
func ApplyAddressDefaults(a *api.Address) {
	if a.AddressType == "" {
		a.AddressType = api.AddressExternal
	}
	a.Status = api.AddressReserved
}

// Instance checks an instance as a client sent it; its references are
// checked by the emulator.
func Instance(in *api.Instance) Violations {
	var vs Violations
	vs.add(Name("name", in.Name))
	vs.add(Description("description", in.Description))
	if len(in.NetworkInterfaces) > MaxNetworkInterface {
		vs = append(vs, violation("networkInterfaces", "%s lists %d interfaces: an instance has at most %d.",
			f("networkInterfaces"), len(in.NetworkInterfaces), MaxNetworkInterface))
	}
	for i, ni := range in.NetworkInterfaces {
		field := fmt.Sprintf("networkInterfaces[%d].networkIP", i)
		if a, err := netip.ParseAddr(ni.NetworkIP); ni.NetworkIP != "" && (err != nil || !a.Is4()) {
			vs = append(vs, violation(field, "%s (%q) must be an IPv4 address.", f(field), ni.NetworkIP))
		}
	}
	vs = append(vs, AttachedDisks(in.Disks)...)
	return append(vs, WorkloadMetadata("metadata", in.Metadata)...)
}

// MaxBootSeconds is the longest boot an instance's metadata may ask for.
const MaxBootSeconds = 3600

// WorkloadMetadata checks the metadata keys that shape an instance's
// simulated workload (the emulator's own; the API stores any key):
// lbhealth-boot-seconds, a number of seconds, and lbhealth-workload, on or
// off. field is the metadata's path.
func WorkloadMetadata(field string, md *api.Metadata) Violations {
	if md == nil {
		return nil
	}
	var vs Violations
	for i, it := range md.Items {
		if it.Value == nil {
			continue
		}
		vf := fmt.Sprintf("%s.items[%d].value", field, i)
		switch it.Key {
		case api.MetadataBootSeconds:
			if _, ok := BootTime(*it.Value); !ok {
				vs = append(vs, violation(vf, "%s (%q) of %s must be a number of seconds from 0 to %d: how long the instance boots before its workload answers.",
					f(vf), *it.Value, api.MetadataBootSeconds, MaxBootSeconds))
			}
		case api.MetadataWorkload:
			if v := strings.TrimSpace(*it.Value); !strings.EqualFold(v, "on") && !WorkloadOff(v) {
				vs = append(vs, violation(vf, "%s (%q) of %s must be on or off: off runs no simulated workload on the instance.",
					f(vf), *it.Value, api.MetadataWorkload))
			}
		}
	}
	return vs
}

// BootTime reads a value of lbhealth-boot-seconds; false when it is not a
// number of seconds from 0 to MaxBootSeconds.
func BootTime(v string) (time.Duration, bool) {
	secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || secs < 0 || secs > MaxBootSeconds {
		return 0, false
	}
	return time.Duration(secs * float64(time.Second)), true
}

// WorkloadOff reads a value of lbhealth-workload: whether it is off.
func WorkloadOff(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "off") }

// ApplyInstanceDefaults fills the output fields of a valid instance: it
// runs as soon as it exists, its interfaces are named nic0, nic1, ... and
// its disks get their defaults.
func ApplyInstanceDefaults(in *api.Instance) {
	in.Status = api.InstanceRunning
	for i := range in.NetworkInterfaces {
		in.NetworkInterfaces[i].Name = fmt.Sprintf("nic%d", i)
	}
	ApplyAttachedDiskDefaults(in.Disks)
}

// ZoneRegion is the region of a zone ("us-central1" for "us-central1-a"),
// or "" when the zone's name does not say.
func ZoneRegion(zone string) string {
	if i := strings.LastIndex(zone, "-"); i > 0 {
		return zone[:i]
	}
	return ""
}

// InstanceRef reads a reference to an instance: its URL,
// projects/{project}/zones/{zone}/instances/{name} or
// zones/{zone}/instances/{name} (project is then ""). ok is false for
// anything else, a bare name included: it does not say the zone.
func InstanceRef(ref string) (project, zone, name string, ok bool) {
	path := api.PathOf(ref)
	if path == "" && strings.HasPrefix(ref, "zones/") {
		path = "projects//" + ref
	}
	parts := strings.Split(path, "/")
	if len(parts) != 6 || parts[0] != "projects" || parts[2] != "zones" || parts[4] != api.CollectionInstances {
		return "", "", "", false
	}
	if Region("zone", parts[3]) != nil || Name("name", parts[5]) != nil {
		return "", "", "", false
	}
	return parts[1], parts[3], parts[5], true
}

// GlobalAddressSubnetwork is the violation of a global address that names a
// subnetwork: subnetworks are regional.
func GlobalAddressSubnetwork() Violation {
	return violation("subnetwork", "%s must not be set on a global address: subnetworks are regional; reserve a regional address instead.", f("subnetwork"))
}
