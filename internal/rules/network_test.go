package rules

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// checkCases runs a table of (body, first message, field) through check,
// which decodes body and validates it; an empty want means valid.
func checkCases[T any](t *testing.T, check func(*T) Violations, tests []struct{ name, body, want, field string }) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := new(T)
			if err := json.Unmarshal([]byte(tt.body), v); err != nil {
				t.Fatal(err)
			}
			vs := check(v)
			if tt.want == "" {
				if len(vs) > 0 {
					t.Fatalf("valid object refused: %v", vs.Err())
				}
				return
			}
			if len(vs) == 0 {
				t.Fatalf("accepted, want %q", tt.want)
			}
			if got := vs.Err().Error(); got != tt.want {
				t.Errorf("message:\n got  %s\n want %s", got, tt.want)
			}
			if vs[0].Field != tt.field {
				t.Errorf("Field = %q, want %q", vs[0].Field, tt.field)
			}
		})
	}
}

func TestNetwork(t *testing.T) {
	checkCases(t, Network, []struct{ name, body, want, field string }{
		{name: "custom mode", body: `{"name": "net", "autoCreateSubnetworks": false, "mtu": 1500}`},
		{name: "legacy", body: `{"name": "net", "IPv4Range": "10.240.0.0/16"}`},
		{name: "bad name", body: `{"name": "Net"}`, field: "name",
			want: `name ("Net") is not a valid name: a name must be 1-63 characters, start with a lowercase letter, and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035).`},
		{name: "mtu", body: `{"name": "net", "mtu": 9000}`, field: "mtu", want: "mtu (9000) must be between 1300 and 8896."},
		{name: "legacy and VPC", body: `{"name": "net", "IPv4Range": "10.0.0.0/8", "autoCreateSubnetworks": true}`, field: "IPv4Range",
			want: "IPv4Range is set, and so is autoCreateSubnetworks: a legacy network (IPv4Range) has no subnetworks; remove one of them."},
		{name: "MED with STANDARD", body: `{"name": "net", "routingConfig": {"bgpBestPathSelectionMode": "STANDARD", "bgpAlwaysCompareMed": true}}`},
		{name: "MED cleared", body: `{"name": "net", "routingConfig": {"bgpAlwaysCompareMed": false, "deleteBgpAlwaysCompareMed": true}}`},
		{name: "MED with LEGACY", body: `{"name": "net", "routingConfig": {"bgpAlwaysCompareMed": false}}`, field: "routingConfig.bgpAlwaysCompareMed",
			want: "routingConfig.bgpAlwaysCompareMed (false) is set: Field bgp_always_compare_med is not supported for LEGACY BGP Best Path Selection algorithm; " +
				"set routingConfig.bgpBestPathSelectionMode to STANDARD, or clear it (null, or routingConfig.deleteBgpAlwaysCompareMed true)."},
	})
}

func TestSubnetwork(t *testing.T) {
	checkCases(t, Subnetwork, []struct{ name, body, want, field string }{
		{name: "valid", body: `{"name": "sub", "network": "net", "ipCidrRange": "10.0.0.0/24"}`},
		{name: "IPv6 only", body: `{"name": "sub", "network": "net", "stackType": "IPV6_ONLY", "ipv6AccessType": "INTERNAL"}`},
		{name: "IPv6 only with an IPv4 range", body: `{"name": "sub", "network": "net", "stackType": "IPV6_ONLY", "ipCidrRange": "10.0.0.0/24"}`, field: "ipCidrRange",
			want: `ipCidrRange ("10.0.0.0/24") must not be set: an IPV6_ONLY subnetwork has no IPv4 range.`},
		{name: "no network", body: `{"name": "sub", "ipCidrRange": "10.0.0.0/24"}`, field: "network",
			want: "network is required: the network the subnetwork is a range of."},
		{name: "no range", body: `{"name": "sub", "network": "net"}`, field: "ipCidrRange",
			want: `ipCidrRange is required: the subnetwork's IPv4 range, such as "10.0.0.0/24".`},
		{name: "IPv6 range", body: `{"name": "sub", "network": "net", "ipCidrRange": "fd00::/64"}`, field: "ipCidrRange",
			want: `ipCidrRange ("fd00::/64") must be an IPv4 range in CIDR form, such as "10.0.0.0/24".`},
		{name: "too small", body: `{"name": "sub", "network": "net", "ipCidrRange": "10.0.0.0/30"}`, field: "ipCidrRange",
			want: `ipCidrRange ("10.0.0.0/30") must have a prefix length between /8 and /29.`},
	})
}

func TestSubnetworkExpansion(t *testing.T) {
	if v := SubnetworkExpansion("ipCidrRange", "10.0.1.0/24", "10.0.0.0/23"); v != nil {
		t.Errorf("a /23 holding the /24: %v", v)
	}
	for _, cidr := range []string{"10.0.1.0/24", "10.0.1.0/25", "10.2.0.0/16"} {
		assertViolation(t, cidr, one(SubnetworkExpansion("ipCidrRange", "10.0.1.0/24", cidr)), "ipCidrRange",
			`ipCidrRange ("`+cidr+`") must be a larger range that holds the subnetwork's range (10.0.1.0/24): a subnetwork's range only grows.`)
	}
	assertViolation(t, "not a range", one(SubnetworkExpansion("ipCidrRange", "10.0.1.0/24", "big")), "ipCidrRange",
		`ipCidrRange ("big") must be an IPv4 range in CIDR form`)
}

// one is the violation v, if any, as a list.
func one(v *Violation) Violations {
	if v == nil {
		return nil
	}
	return Violations{*v}
}

func TestFirewall(t *testing.T) {
	checkCases(t, Firewall, []struct{ name, body, want, field string }{
		{name: "valid", body: `{"name": "fw", "allowed": [{"IPProtocol": "tcp", "ports": ["80"]}], "sourceRanges": ["0.0.0.0/0", "10.0.0.1"]}`},
		{name: "priority", body: `{"name": "fw", "priority": 70000}`, field: "priority", want: "priority (70000) must be between 0 and 65535."},
		{name: "direction", body: `{"name": "fw", "direction": "IN"}`, field: "direction", want: `direction ("IN") must be one of INGRESS, EGRESS.`},
		{name: "range", body: `{"name": "fw", "sourceRanges": ["10.0.0.0/33"]}`, field: "sourceRanges[0]",
			want: `sourceRanges[0] ("10.0.0.0/33") must be an IP range in CIDR form, such as "10.0.0.0/8".`},
		{name: "both", body: `{"name": "fw", "allowed": [{"IPProtocol": "tcp"}], "denied": [{"IPProtocol": "udp"}]}`, field: "denied",
			want: "allowed and denied are both set: a firewall rule either allows or denies; make two rules."},
		{name: "no protocol", body: `{"name": "fw", "denied": [{"ports": ["22"]}]}`, field: "denied[0].IPProtocol",
			want: "denied[0].IPProtocol is required: a protocol name (tcp, udp, icmp, ...), all, or a protocol number."},
	})
}

func TestAddress(t *testing.T) {
	checkCases(t, Address, []struct{ name, body, want, field string }{
		{name: "external, assigned", body: `{"name": "ip"}`},
		{name: "internal in a subnetwork", body: `{"name": "ip", "addressType": "INTERNAL", "subnetwork": "sub", "address": "10.0.0.5"}`},
		{name: "bad address", body: `{"name": "ip", "address": "10.0.0"}`, field: "address", want: `address ("10.0.0") must be an IPv4 or IPv6 address.`},
		{name: "IPv6 assigned", body: `{"name": "ip", "ipVersion": "IPV6"}`},
		{name: "IPv6 given", body: `{"name": "ip", "ipVersion": "IPV6", "address": "2001:db8::5"}`},
		{name: "IPv6 with an IPv4 address", body: `{"name": "ip", "ipVersion": "IPV6", "address": "10.0.0.5"}`, field: "address",
			want: `address ("10.0.0.5") is not an IPV6 address, as ipVersion says.`},
		{name: "internal IPv6 in a subnetwork", body: `{"name": "ip", "addressType": "INTERNAL", "ipVersion": "IPV6", "subnetwork": "sub"}`},
		{name: "external IPv6 in a subnetwork", body: `{"name": "ip", "ipVersion": "IPV6", "subnetwork": "sub", "ipv6EndpointType": "NETLB"}`},
		{name: "external in a subnetwork", body: `{"name": "ip", "subnetwork": "sub"}`, field: "subnetwork",
			want: "subnetwork is set on an EXTERNAL IPv4 address: only INTERNAL addresses, and external IPv6 ones, are in a subnetwork; set addressType to INTERNAL."},
		{name: "type", body: `{"name": "ip", "addressType": "PUBLIC"}`, field: "addressType", want: `addressType ("PUBLIC") must be one of EXTERNAL, INTERNAL.`},
	})
}

func TestInstance(t *testing.T) {
	checkCases(t, Instance, []struct{ name, body, want, field string }{
		{name: "valid", body: `{"name": "vm", "networkInterfaces": [{"network": "net", "networkIP": "127.0.0.1"}]}`},
		{name: "no interface", body: `{"name": "vm"}`},
		{name: "IPv6 networkIP", body: `{"name": "vm", "networkInterfaces": [{"networkIP": "::1"}]}`, field: "networkInterfaces[0].networkIP",
			want: `networkInterfaces[0].networkIP ("::1") must be an IPv4 address.`},
		{name: "nine interfaces", body: `{"name": "vm", "networkInterfaces": [{},{},{},{},{},{},{},{},{}]}`, field: "networkInterfaces",
			want: "networkInterfaces lists 9 interfaces: an instance has at most 8."},
		{name: "workload metadata", body: `{"name": "vm", "metadata": {"items": [{"key": "lbhealth-boot-seconds", "value": "0.5"},
			{"key": "lbhealth-workload", "value": "Off"}, {"key": "startup-script", "value": "anything"}]}}`},
		{name: "boot not a number", body: `{"name": "vm", "metadata": {"items": [{"key": "lbhealth-boot-seconds", "value": "soon"}]}}`,
			field: "metadata.items[0].value",
			want:  `metadata.items[0].value ("soon") of lbhealth-boot-seconds must be a number of seconds from 0 to 3600: how long the instance boots before its workload answers.`},
		{name: "boot too long", body: `{"name": "vm", "metadata": {"items": [{"key": "x", "value": "y"}, {"key": "lbhealth-boot-seconds", "value": "7200"}]}}`,
			field: "metadata.items[1].value",
			want:  `metadata.items[1].value ("7200") of lbhealth-boot-seconds must be a number of seconds from 0 to 3600: how long the instance boots before its workload answers.`},
		{name: "workload neither on nor off", body: `{"name": "vm", "metadata": {"items": [{"key": "lbhealth-workload", "value": "maybe"}]}}`,
			field: "metadata.items[0].value",
			want:  `metadata.items[0].value ("maybe") of lbhealth-workload must be on or off: off runs no simulated workload on the instance.`},
	})
}

// A template's metadata is checked as an instance's, at its own path.
func TestInstanceTemplateWorkloadMetadata(t *testing.T) {
	checkCases(t, InstanceTemplate, []struct{ name, body, want, field string }{
		{name: "valid", body: `{"name": "t", "properties": {"metadata": {"items": [{"key": "lbhealth-boot-seconds", "value": "2"}]}}}`},
		{name: "bad boot", body: `{"name": "t", "properties": {"metadata": {"items": [{"key": "lbhealth-boot-seconds", "value": "-1"}]}}}`,
			field: "properties.metadata.items[0].value",
			want:  `properties.metadata.items[0].value ("-1") of lbhealth-boot-seconds must be a number of seconds from 0 to 3600: how long the instance boots before its workload answers.`},
	})
}

func TestSubnetworkHosts(t *testing.T) {
	for _, tt := range []struct{ cidr, first, last string }{
		{"10.0.0.0/24", "10.0.0.2", "10.0.0.253"},
		{"10.0.0.0/29", "10.0.0.2", "10.0.0.5"},
		{"10.128.0.0/9", "10.128.0.2", "10.255.255.253"},
	} {
		first, last := SubnetworkHosts(netip.MustParsePrefix(tt.cidr))
		if first.String() != tt.first || last.String() != tt.last {
			t.Errorf("%s: %s to %s, want %s to %s", tt.cidr, first, last, tt.first, tt.last)
		}
	}
	if v := AddressInSubnetwork("networkIP", "10.0.0.1", "sub", "10.0.0.0/24"); v == nil || v.Error() !=
		`networkIP ("10.0.0.1") is reserved in subnetwork sub (10.0.0.0/24): the first two and the last two addresses of a range are; use 10.0.0.2 to 10.0.0.253.` {
		t.Errorf("gateway address: %v", v)
	}
	if v := AddressInSubnetwork("networkIP", "10.0.1.9", "sub", "10.0.0.0/24"); v == nil || v.Error() !=
		`networkIP ("10.0.1.9") is not in the range of subnetwork sub (10.0.0.0/24).` {
		t.Errorf("outside: %v", v)
	}
	if v := AddressInSubnetwork("networkIP", "10.0.0.9", "sub", "10.0.0.0/24"); v != nil {
		t.Errorf("inside: %v", v)
	}
}

func TestInstanceRef(t *testing.T) {
	for _, tt := range []struct {
		ref                 string
		project, zone, name string
		ok                  bool
	}{
		{"http://127.0.0.1:8686/compute/v1/projects/p/zones/us-east1-b/instances/vm", "p", "us-east1-b", "vm", true},
		{"projects/p/zones/z/instances/vm", "p", "z", "vm", true},
		{"zones/z/instances/vm", "", "z", "vm", true},
		{"vm", "", "", "", false},
		{"127.0.0.1:80", "", "", "", false},
		{"projects/p/zones/z/instanceGroups/vm", "", "", "", false},
		{"zones/Z/instances/vm", "", "", "", false},
	} {
		p, z, n, ok := InstanceRef(tt.ref)
		if p != tt.project || z != tt.zone || n != tt.name || ok != tt.ok {
			t.Errorf("InstanceRef(%q) = %q %q %q %v", tt.ref, p, z, n, ok)
		}
	}
	if r := ZoneRegion("us-east1-b"); r != "us-east1" {
		t.Errorf("ZoneRegion = %q", r)
	}
}

func TestTargetPool_InstanceURLs(t *testing.T) {
	tp := &api.TargetPool{Meta: api.Meta{Name: "pool"}, Instances: []string{
		"127.0.0.1:80", "projects/p/zones/z/instances/vm", "zones/z/instances/vm"}}
	vs := TargetPool(tp)
	want := `instances[2] ("zones/z/instances/vm") repeats instances[1]: each instance may be listed once.`
	if len(vs) != 1 || vs[0].Error() != want {
		t.Errorf("violations = %v, want %q", vs, want)
	}
	tp.Instances = []string{"web-1"}
	want = `instances[0] ("web-1") must be an endpoint address, "ip" or "ip:port", or the URL of an instance (zones/{zone}/instances/{name}).`
	if vs := TargetPool(tp); len(vs) != 1 || vs[0].Error() != want {
		t.Errorf("violations = %v, want %q", vs, want)
	}
}

// TestFirewall_ProtocolsAndPorts: a rule's protocol is a name the API lists
// or a number from 0 to 255; ports ("22", "8000-8080") only for tcp, udp
// and sctp, each within 0-65535.
func TestFirewall_ProtocolsAndPorts(t *testing.T) {
	rule := func(proto string, ports ...string) *api.Firewall {
		return &api.Firewall{Meta: api.Meta{Name: "fw"}, Allowed: []api.FirewallRule{{IPProtocol: proto, Ports: ports}}}
	}
	for _, ok := range []*api.Firewall{rule("tcp", "22", "8000-8080"), rule("UDP", "53"), rule("icmp"), rule("all"),
		rule("6", "443"), rule("50"), rule("sctp", "0-65535")} {
		if vs := Firewall(ok); len(vs) > 0 {
			t.Errorf("%+v: %v, want it accepted", ok.Allowed, vs)
		}
	}
	for _, tc := range []struct {
		fw   *api.Firewall
		want string
	}{
		{rule("..%2f"), `allowed[0].IPProtocol ("..%2f") must be one of tcp, udp, icmp, esp, ah, ipip, sctp, all, or a protocol number (0-255).`},
		{rule("256"), `allowed[0].IPProtocol ("256") must be a protocol number from 0 to 255.`},
		{rule("tcp", "日本語"), `allowed[0].ports[0] ("日本語") must be a port (0-65535) or a range of them ("8000-8080").`},
		{rule("tcp", "80", "90-70"), `allowed[0].ports[1] ("90-70") must be a port`},
		{rule("tcp", "70000"), `allowed[0].ports[0] ("70000") must be a port`},
		{rule("icmp", "80"), `allowed[0].ports is set, but allowed[0].IPProtocol is "icmp": only tcp, udp and sctp rules name ports.`},
		{rule(""), `allowed[0].IPProtocol is required`},
	} {
		if vs := Firewall(tc.fw); len(vs) == 0 || !strings.Contains(vs.Err().Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.fw.Allowed, vs, tc.want)
		}
	}
}

func TestSubnetworkIPv6(t *testing.T) {
	checkCases(t, Subnetwork, []struct{ name, body, want, field string }{
		{name: "dual stack", body: `{"name": "s", "network": "n", "ipCidrRange": "10.0.0.0/24", "stackType": "IPV4_IPV6", "ipv6AccessType": "EXTERNAL"}`},
		{name: "own external prefix", body: `{"name": "s", "network": "n", "ipCidrRange": "10.0.0.0/24", "stackType": "IPV4_IPV6", "externalIpv6Prefix": "2600:1900:4000:1::/64"}`},
		{name: "IPv4 prefix", body: `{"name": "s", "network": "n", "ipCidrRange": "10.0.0.0/24", "stackType": "IPV4_IPV6", "internalIpv6Prefix": "10.1.0.0/16"}`,
			field: "internalIpv6Prefix", want: `internalIpv6Prefix ("10.1.0.0/16") must be an IPv6 range in CIDR form, such as "2600:1900:4000:1::/64".`},
	})
}
