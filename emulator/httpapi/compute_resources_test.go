package httpapi_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Paths of the minimal compute collections in the scopes the tests use.
const (
	networksPath    = "/compute/v1/projects/p/global/networks"
	subnetworksPath = "/compute/v1/projects/p/regions/us-east1/subnetworks"
	firewallsPath   = "/compute/v1/projects/p/global/firewalls"
	addressesPath   = "/compute/v1/projects/p/regions/us-east1/addresses"
	globalAddrPath  = "/compute/v1/projects/p/global/addresses"
	instancesPath   = "/compute/v1/projects/p/zones/us-east1-b/instances"
)

// network creates network "net" (custom mode) and subnetwork "sub"
// (10.0.0.0/24) in us-east1.
func (e *emu) network() {
	e.t.Helper()
	e.insert(networksPath, `{"name": "net", "autoCreateSubnetworks": false}`)
	e.insert(subnetworksPath, `{"name": "sub", "network": "global/networks/net", "ipCidrRange": "10.0.0.0/24"}`)
}

// wantMessage fails the test unless msg has every part.
func wantMessage(t *testing.T, msg string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("message %q does not say %q", msg, p)
		}
	}
}

func TestNetworks(t *testing.T) {
	e := newEmu(t)
	op := e.insert(networksPath, `{"name": "net", "autoCreateSubnetworks": false}`)
	if op.OperationType != "insert" || op.Status != "DONE" || e.path(op.TargetLink) != networksPath+"/net" {
		t.Errorf("operation = %+v", op)
	}
	var n api.Network
	e.ok("GET", networksPath+"/net", "", &n)
	if n.Kind != api.KindNetwork || n.ID == 0 || n.CreationTimestamp == "" || e.path(n.SelfLink) != networksPath+"/net" ||
		n.MTU != nil || n.AutoCreateSubnetworks == nil || *n.AutoCreateSubnetworks {
		t.Errorf("network = %+v", n)
	}
	e.fail("POST", networksPath, `{"name": "net"}`, 409, api.ReasonAlreadyExists)
	wantMessage(t, e.fail("POST", networksPath, `{"name": "Net"}`, 400, api.ReasonInvalid), `name ("Net") is not a valid name`)
	wantMessage(t, e.fail("POST", networksPath, `{"name": "n2", "mtu": 100}`, 400, api.ReasonInvalid), "mtu (100) must be between 1300 and 8896")

	e.ok("PATCH", networksPath+"/net", `{"mtu": 1500}`, nil)
	e.ok("GET", networksPath+"/net", "", &n)
	if *n.MTU != 1500 {
		t.Errorf("patched mtu = %d", *n.MTU)
	}
	wantMessage(t, e.fail("PATCH", networksPath+"/net", `{"autoCreateSubnetworks": true}`, 400, api.ReasonInvalid), "autoCreateSubnetworks cannot be changed")
	// The Compute API has no networks.update.
	e.fail("PUT", networksPath+"/net", `{"name": "net"}`, 404, api.ReasonNotFound)

	var list api.List[api.Network]
	e.ok("GET", networksPath, "", &list)
	if list.Kind != api.KindNetworkList || len(list.Items) != 1 {
		t.Errorf("list = %+v", list)
	}
	e.ok("DELETE", networksPath+"/net", "", nil)
	e.fail("GET", networksPath+"/net", "", 404, api.ReasonNotFound)
}

// A network answers its routing whether or not it was sent: REGIONAL and
// the LEGACY BGP selection by default, what is in force under the STANDARD
// one; a patch to LEGACY that keeps the MED comparison is refused with the
// API's words, and deleteBgpAlwaysCompareMed clears it and is not kept.
func TestNetworks_RoutingConfig(t *testing.T) {
	e := newEmu(t)
	e.insert(networksPath, `{"name": "net", "autoCreateSubnetworks": false}`)
	var n api.Network
	e.ok("GET", networksPath+"/net", "", &n)
	if rc := n.RoutingConfig; rc == nil || rc.RoutingMode != "REGIONAL" || rc.BgpBestPathSelectionMode != "LEGACY" ||
		rc.BgpAlwaysCompareMed != nil || rc.EffectiveBgpAlwaysCompareMed != nil {
		t.Fatalf("default routing = %+v", rc)
	}
	e.ok("PATCH", networksPath+"/net", `{"routingConfig": {"routingMode": "GLOBAL", "bgpBestPathSelectionMode": "STANDARD", "bgpAlwaysCompareMed": true, "deleteBgpAlwaysCompareMed": false}}`, nil)
	e.ok("GET", networksPath+"/net", "", &n)
	if rc := n.RoutingConfig; rc.RoutingMode != "GLOBAL" || rc.BgpBestPathSelectionMode != "STANDARD" || rc.BgpAlwaysCompareMed == nil ||
		!*rc.BgpAlwaysCompareMed || rc.EffectiveBgpAlwaysCompareMed == nil || !*rc.EffectiveBgpAlwaysCompareMed ||
		rc.EffectiveBgpInterRegionCost != "DEFAULT" || rc.DeleteBgpAlwaysCompareMed != nil {
		t.Errorf("STANDARD routing = %+v", rc)
	}
	// The MED comparison is kept by a patch that leaves it out.
	wantMessage(t, e.fail("PATCH", networksPath+"/net", `{"routingConfig": {"bgpBestPathSelectionMode": "LEGACY"}}`, 400, api.ReasonInvalid),
		"routingConfig.bgpAlwaysCompareMed (true) is set: Field bgp_always_compare_med is not supported for LEGACY BGP Best Path Selection algorithm")
	e.ok("PATCH", networksPath+"/net", `{"routingConfig": {"bgpBestPathSelectionMode": "LEGACY", "bgpAlwaysCompareMed": null, "deleteBgpAlwaysCompareMed": true}}`, nil)
	var raw struct {
		RoutingConfig map[string]any `json:"routingConfig"`
	}
	e.ok("GET", networksPath+"/net", "", &raw)
	if rc := raw.RoutingConfig; len(rc) != 2 || rc["routingMode"] != "GLOBAL" || rc["bgpBestPathSelectionMode"] != "LEGACY" {
		t.Errorf("LEGACY routing = %v, want only the mode and the selection", rc)
	}
}

// expandIpCidrRange grows a subnetwork's range, though a patch cannot
// change it; a range that does not hold the old one, or that takes in
// another subnetwork's, is refused and nothing changes.
func TestSubnetworks_ExpandIPCidrRange(t *testing.T) {
	e := newEmu(t)
	e.network()
	e.insert(subnetworksPath, `{"name": "next", "network": "global/networks/net", "ipCidrRange": "10.0.2.0/24"}`)
	wantMessage(t, e.fail("POST", subnetworksPath+"/sub/expandIpCidrRange", `{"ipCidrRange": "10.0.0.0/25"}`, 400, api.ReasonInvalid),
		`ipCidrRange ("10.0.0.0/25") must be a larger range that holds the subnetwork's range (10.0.0.0/24)`)
	wantMessage(t, e.fail("POST", subnetworksPath+"/sub/expandIpCidrRange", `{"ipCidrRange": "10.0.0.0/22"}`, 400, api.ReasonInvalid),
		`ipCidrRange ("10.0.0.0/22") overlaps projects/p/regions/us-east1/subnetworks/next (10.0.2.0/24)`)
	var sn api.Subnetwork
	e.ok("GET", subnetworksPath+"/sub", "", &sn)
	if sn.IPCIDRRange != "10.0.0.0/24" {
		t.Fatalf("after refusals the range is %s", sn.IPCIDRRange)
	}
	op := e.insert(subnetworksPath+"/sub/expandIpCidrRange", `{"ipCidrRange": "10.0.0.0/23"}`)
	if op.OperationType != "expandIpCidrRange" {
		t.Errorf("operation type %q", op.OperationType)
	}
	var grown api.Subnetwork
	e.ok("GET", subnetworksPath+"/sub", "", &grown)
	if grown.IPCIDRRange != "10.0.0.0/23" || grown.Fingerprint == sn.Fingerprint {
		t.Errorf("expanded subnetwork %+v, want 10.0.0.0/23 and a new fingerprint", grown)
	}
}

// getEffectiveFirewalls lists the network's firewall rules, and no other
// network's; an unknown network is 404.
func TestNetworks_EffectiveFirewalls(t *testing.T) {
	e := newEmu(t)
	e.network()
	e.insert(networksPath, `{"name": "other", "autoCreateSubnetworks": false}`)
	for _, fw := range []string{`{"name": "a", "network": "global/networks/net", "allowed": [{"IPProtocol": "tcp"}]}`,
		`{"name": "b", "network": "global/networks/net", "denied": [{"IPProtocol": "udp"}]}`,
		`{"name": "c", "network": "global/networks/other", "allowed": [{"IPProtocol": "tcp"}]}`} {
		e.insert(firewallsPath, fw)
	}
	var got struct {
		Firewalls []api.Firewall `json:"firewalls"`
	}
	e.ok("GET", networksPath+"/net/getEffectiveFirewalls", "", &got)
	var names []string
	for _, fw := range got.Firewalls {
		names = append(names, fw.Name)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("effective firewalls of net: %v, want a,b", names)
	}
	e.fail("GET", networksPath+"/nope/getEffectiveFirewalls", "", 404, api.ReasonNotFound)
}

func TestSubnetworks(t *testing.T) {
	e := newEmu(t)
	wantMessage(t, e.fail("POST", subnetworksPath, `{"name": "sub", "network": "net", "ipCidrRange": "10.0.0.0/24"}`, 404, api.ReasonNotFound),
		`network ("net") refers to projects/p/global/networks/net, which does not exist`)
	e.network()
	var sn api.Subnetwork
	e.ok("GET", subnetworksPath+"/sub", "", &sn)
	if sn.Kind != api.KindSubnetwork || sn.GatewayAddress != "10.0.0.1" || e.path(sn.Network) != networksPath+"/net" ||
		e.path(sn.Region) != "/compute/v1/projects/p/regions/us-east1" || sn.Fingerprint == "" || sn.StackType != "IPV4_ONLY" {
		t.Errorf("subnetwork = %+v", sn)
	}
	// Host bits are taken, as the API does; the range is the masked one.
	e.ok("POST", subnetworksPath, `{"name": "s2", "network": "net", "ipCidrRange": "10.0.1.1/24"}`, nil)
	var s2 api.Subnetwork
	e.ok("GET", subnetworksPath+"/s2", "", &s2)
	if s2.IPCIDRRange != "10.0.1.1/24" || s2.GatewayAddress != "10.0.1.1" {
		t.Errorf("s2 = %+v", s2)
	}
	e.ok("DELETE", subnetworksPath+"/s2", "", nil)
	wantMessage(t, e.fail("POST", subnetworksPath, `{"name": "s2", "ipCidrRange": "10.0.1.0/24"}`, 400, api.ReasonInvalid), "network is required")

	// Patches need the fingerprint (without one: 412, as the API's
	// description says), and the range and network stay.
	wantMessage(t, e.fail("PATCH", subnetworksPath+"/sub", `{"description": "x"}`, 412, api.ReasonConditionNotMet), "fingerprint is required")
	e.ok("PATCH", subnetworksPath+"/sub", jsonOf(map[string]string{"description": "x", "fingerprint": sn.Fingerprint}), nil)
	var patched api.Subnetwork
	e.ok("GET", subnetworksPath+"/sub", "", &patched)
	if patched.Description != "x" || patched.Fingerprint == sn.Fingerprint {
		t.Errorf("patched = %+v", patched)
	}
	e.fail("PATCH", subnetworksPath+"/sub", jsonOf(map[string]string{"ipCidrRange": "10.0.0.0/16", "fingerprint": sn.Fingerprint}),
		412, api.ReasonConditionNotMet)
	wantMessage(t, e.fail("PATCH", subnetworksPath+"/sub", jsonOf(map[string]string{"ipCidrRange": "10.0.0.0/16", "fingerprint": patched.Fingerprint}),
		400, api.ReasonInvalid), "ipCidrRange", "cannot be changed")

	msg := e.fail("DELETE", networksPath+"/net", "", 400, api.ReasonResourceInUse)
	wantMessage(t, msg, "networks/net", "subnetworks/sub")
	e.ok("DELETE", subnetworksPath+"/sub", "", nil)
	e.ok("DELETE", networksPath+"/net", "", nil)
}

func TestFirewalls(t *testing.T) {
	e := newEmu(t)
	// Without network, a firewall is in the default network, which must exist.
	wantMessage(t, e.fail("POST", firewallsPath, `{"name": "fw", "allowed": [{"IPProtocol": "tcp"}]}`, 404, api.ReasonNotFound),
		"projects/p/global/networks/default, which does not exist")
	e.insert(networksPath, `{"name": "net", "autoCreateSubnetworks": true}`)
	e.insert(firewallsPath, `{"name": "fw", "network": "net", "allowed": [{"IPProtocol": "tcp", "ports": ["80"]}], "sourceRanges": ["130.211.0.0/22"]}`)
	var fw api.Firewall
	e.ok("GET", firewallsPath+"/fw", "", &fw)
	if fw.Kind != api.KindFirewall || fw.Direction != "INGRESS" || fw.Priority == nil || *fw.Priority != 1000 || e.path(fw.Network) != networksPath+"/net" {
		t.Errorf("firewall = %+v", fw)
	}
	wantMessage(t, e.fail("POST", firewallsPath, `{"name": "bad", "network": "net", "priority": -1}`, 400, api.ReasonInvalid),
		"priority (-1) must be between 0 and 65535")
	e.ok("PUT", firewallsPath+"/fw", `{"name": "fw", "network": "net", "priority": 900, "denied": [{"IPProtocol": "all"}]}`, nil)
	e.ok("PATCH", firewallsPath+"/fw", `{"priority": 800}`, nil)
	fw = api.Firewall{}
	e.ok("GET", firewallsPath+"/fw", "", &fw)
	if *fw.Priority != 800 || len(fw.Denied) != 1 || len(fw.Allowed) != 0 {
		t.Errorf("updated firewall = %+v", fw)
	}
	wantMessage(t, e.fail("DELETE", networksPath+"/net", "", 400, api.ReasonResourceInUse), "firewalls/fw")
	e.ok("DELETE", firewallsPath+"/fw", "", nil)
	e.ok("DELETE", networksPath+"/net", "", nil)
}

func TestAddresses(t *testing.T) {
	e := newEmu(t)
	e.network()
	var a api.Address
	// External addresses get loopback ones, which probes can reach.
	e.insert(addressesPath, `{"name": "ext"}`)
	e.ok("GET", addressesPath+"/ext", "", &a)
	if a.Kind != api.KindAddress || a.Address != "127.0.1.1" || a.AddressType != "EXTERNAL" || a.Status != "RESERVED" ||
		e.path(a.Region) != "/compute/v1/projects/p/regions/us-east1" {
		t.Errorf("external address = %+v", a)
	}
	e.insert(globalAddrPath, `{"name": "glob"}`)
	a = api.Address{}
	e.ok("GET", globalAddrPath+"/glob", "", &a)
	if a.Address != "127.0.1.2" || a.Region != "" {
		t.Errorf("global address = %+v", a)
	}
	// Internal ones get the next free address of their subnetwork.
	e.insert(addressesPath, `{"name": "in1", "addressType": "INTERNAL", "subnetwork": "sub"}`)
	e.ok("GET", addressesPath+"/in1", "", &a)
	if a.Address != "10.0.0.2" || e.path(a.Subnetwork) != subnetworksPath+"/sub" {
		t.Errorf("internal address = %+v", a)
	}
	e.insert(addressesPath, `{"name": "in2", "addressType": "INTERNAL", "subnetwork": "sub", "address": "10.0.0.3"}`)
	e.insert(addressesPath, `{"name": "in3", "addressType": "INTERNAL", "subnetwork": "sub"}`)
	e.ok("GET", addressesPath+"/in3", "", &a)
	if a.Address != "10.0.0.4" {
		t.Errorf("next free address = %q, want 10.0.0.4 (10.0.0.3 is taken)", a.Address)
	}
	wantMessage(t, e.fail("POST", addressesPath, `{"name": "dup", "addressType": "INTERNAL", "subnetwork": "sub", "address": "10.0.0.2"}`, 400, api.ReasonInvalid),
		`address ("10.0.0.2") is already used by projects/p/regions/us-east1/addresses/in1`)
	wantMessage(t, e.fail("POST", addressesPath, `{"name": "out", "addressType": "INTERNAL", "subnetwork": "sub", "address": "10.0.1.2"}`, 400, api.ReasonInvalid),
		"is not in the range of subnetwork sub")
	wantMessage(t, e.fail("POST", addressesPath, `{"name": "ext2", "subnetwork": "sub"}`, 400, api.ReasonInvalid), "subnetwork is set on an EXTERNAL IPv4 address")
	wantMessage(t, e.fail("POST", globalAddrPath, `{"name": "g2", "addressType": "INTERNAL", "subnetwork": "sub"}`, 400, api.ReasonInvalid),
		"must not be set on a global address")
	e.fail("POST", addressesPath, `{"name": "ext"}`, 409, api.ReasonAlreadyExists)
	// Addresses have no patch in the Compute API (only setLabels).
	e.fail("PATCH", addressesPath+"/ext", `{"description": "x"}`, 404, api.ReasonNotFound)

	wantMessage(t, e.fail("DELETE", subnetworksPath+"/sub", "", 400, api.ReasonResourceInUse), "addresses/in")
	// A deleted address frees its value.
	e.ok("DELETE", addressesPath+"/in1", "", nil)
	e.insert(addressesPath, `{"name": "again", "addressType": "INTERNAL", "subnetwork": "sub", "address": "10.0.0.2"}`)
	e.ok("DELETE", addressesPath+"/ext", "", nil)
	e.fail("GET", addressesPath+"/ext", "", 404, api.ReasonNotFound)
}

func TestInstances(t *testing.T) {
	e := newEmu(t)
	e.network()
	op := e.insert(instancesPath, `{"name": "vm", "networkInterfaces": [{"subnetwork": "sub"}, {}]}`)
	if e.path(op.TargetLink) != instancesPath+"/vm" {
		t.Errorf("operation = %+v", op)
	}
	var in api.Instance
	e.ok("GET", instancesPath+"/vm", "", &in)
	if in.Kind != api.KindInstance || in.Status != "RUNNING" || e.path(in.Zone) != "/compute/v1/projects/p/zones/us-east1-b" ||
		len(in.NetworkInterfaces) != 2 || in.Fingerprint == "" {
		t.Fatalf("instance = %+v", in)
	}
	nic0, nic1 := in.NetworkInterfaces[0], in.NetworkInterfaces[1]
	if nic0.Name != "nic0" || nic0.NetworkIP != "10.0.0.2" || e.path(nic0.Network) != networksPath+"/net" ||
		e.path(nic0.Subnetwork) != subnetworksPath+"/sub" {
		t.Errorf("nic0 = %+v", nic0)
	}
	// Without subnetwork (and no default network): a loopback address.
	if nic1.Name != "nic1" || nic1.NetworkIP != "127.0.1.1" || nic1.Network != "" {
		t.Errorf("nic1 = %+v", nic1)
	}
	e.insert(instancesPath, `{"name": "lo", "networkInterfaces": [{"networkIP": "127.0.0.1"}]}`)

	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm2", "networkInterfaces": [{"subnetwork": "sub", "networkIP": "10.0.0.2"}]}`, 400, api.ReasonInvalid),
		`networkInterfaces[0].networkIP ("10.0.0.2") is already used by projects/p/zones/us-east1-b/instances/vm`)
	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm2", "networkInterfaces": [{"networkIP": "127.0.0.1"}]}`, 400, api.ReasonInvalid),
		"already used by projects/p/zones/us-east1-b/instances/lo")
	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm2", "networkInterfaces": [{"subnetwork": "nope"}]}`, 404, api.ReasonNotFound),
		"projects/p/regions/us-east1/subnetworks/nope, which does not exist")
	e.insert(networksPath, `{"name": "other", "autoCreateSubnetworks": false}`)
	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm2", "networkInterfaces": [{"network": "other", "subnetwork": "sub"}]}`, 400, api.ReasonInvalid),
		`networkInterfaces[0].network ("other") is not the network of networkInterfaces[0].subnetwork`)
	e.insert("/compute/v1/projects/p/regions/us-west1/subnetworks", `{"name": "west", "network": "net", "ipCidrRange": "10.1.0.0/24"}`)
	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm2", "networkInterfaces": [{"subnetwork": "regions/us-west1/subnetworks/west"}]}`, 400, api.ReasonInvalid),
		"is in region us-west1: an instance in zone us-east1-b takes a subnetwork of its own region (us-east1)")
	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm2", "networkInterfaces": [{"subnetwork": "sub", "networkIP": "10.0.0.255"}]}`, 400, api.ReasonInvalid),
		"is reserved in subnetwork sub (10.0.0.0/24)")
	e.fail("POST", instancesPath, `{"name": "vm"}`, 409, api.ReasonAlreadyExists)
	// The verbs the brief models: no update, no patch.
	e.fail("PATCH", instancesPath+"/vm", `{"description": "x"}`, 404, api.ReasonNotFound)

	wantMessage(t, e.fail("DELETE", subnetworksPath+"/sub", "", 400, api.ReasonResourceInUse), "instances/vm")
	e.ok("DELETE", instancesPath+"/vm", "", nil)
	// Its addresses are free again.
	e.insert(instancesPath, `{"name": "vm3", "networkInterfaces": [{"subnetwork": "sub", "networkIP": "10.0.0.2"}]}`)
	var list api.List[api.Instance]
	e.ok("GET", instancesPath, "", &list)
	if list.Kind != api.KindInstanceList || len(list.Items) != 2 {
		t.Errorf("list = %+v", list)
	}
}

// TestInstances_DefaultNetwork: an interface naming no network is in the
// project's default network when there is one, as in the Compute API.
func TestInstances_DefaultNetwork(t *testing.T) {
	e := newEmu(t)
	e.insert(networksPath, `{"name": "default", "autoCreateSubnetworks": true}`)
	e.insert(instancesPath, `{"name": "vm", "networkInterfaces": [{}]}`)
	var in api.Instance
	e.ok("GET", instancesPath+"/vm", "", &in)
	if ni := in.NetworkInterfaces[0]; e.path(ni.Network) != networksPath+"/default" || !strings.HasPrefix(ni.NetworkIP, "127.0.") {
		t.Errorf("interface = %+v", ni)
	}
	wantMessage(t, e.fail("DELETE", networksPath+"/default", "", 400, api.ReasonResourceInUse), "instances/vm")
}

// TestIPv6Addresses: an address or a forwarding rule with ipVersion IPV6
// and no address of its own gets one, from the documentation range
// 2001:db8:1b::/64 (routed nowhere), each once.
func TestIPv6Addresses(t *testing.T) {
	e := newEmu(t)
	var a, b api.Address
	e.insert(addressesPath, `{"name": "v6a", "ipVersion": "IPV6"}`)
	e.insert(globalAddrPath, `{"name": "v6b", "ipVersion": "IPV6"}`)
	e.ok("GET", addressesPath+"/v6a", "", &a)
	e.ok("GET", globalAddrPath+"/v6b", "", &b)
	if a.Address != "2001:db8:1b::1" || b.Address != "2001:db8:1b::2" {
		t.Errorf("IPv6 addresses %q and %q, want 2001:db8:1b::1 and ::2", a.Address, b.Address)
	}
	wantMessage(t, e.fail("POST", addressesPath, `{"name": "dup", "ipVersion": "IPV6", "address": "2001:db8:1b::1"}`, 400, api.ReasonInvalid),
		`is already used by projects/p/regions/us-east1/addresses/v6a`)

	e.insert("/compute/v1/projects/p/regions/us-east1/targetPools", `{"name": "pool"}`)
	e.insert(rulesPath, `{"name": "fr6", "ipVersion": "IPV6", "target": "pool"}`)
	var fr api.ForwardingRule
	e.ok("GET", rulesPath+"/fr6", "", &fr)
	if ip, err := netip.ParseAddr(fr.IPAddress); err != nil || !netip.MustParsePrefix("2001:db8:1b:1::/64").Contains(ip) {
		t.Errorf("IPv6 rule address %q, want one of 2001:db8:1b:1::/64", fr.IPAddress)
	}
	// An IPv4 rule without an address gets one on loopback, outside the
	// managed instances' range.
	e.insert(rulesPath, `{"name": "fr4", "target": "pool"}`)
	e.ok("GET", rulesPath+"/fr4", "", &fr)
	if ip, err := netip.ParseAddr(fr.IPAddress); err != nil || !netip.MustParsePrefix("127.2.0.0/16").Contains(ip) {
		t.Errorf("IPv4 rule address %q, want one of 127.2.0.0/16", fr.IPAddress)
	}
	wantMessage(t, e.fail("POST", rulesPath, `{"name": "fr7", "ipVersion": "IPV5", "target": "pool"}`, 400, api.ReasonInvalid),
		`ipVersion ("IPV5") must be one of IPV4, IPV6.`)
}
