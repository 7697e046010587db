package rules

import "testing"

func TestRoute(t *testing.T) {
	checkCases(t, Route, []struct{ name, body, want, field string }{
		{name: "to the internet", body: `{"name": "egress", "network": "net", "destRange": "0.0.0.0/0", "nextHopGateway": "global/gateways/default-internet-gateway"}`},
		{name: "to an instance", body: `{"name": "via-vm", "network": "net", "destRange": "10.8.0.0/16", "priority": 100, "tags": ["web"], "nextHopInstance": "zones/z/instances/vm"}`},
		{name: "to an address", body: `{"name": "via-ip", "network": "net", "destRange": "2600:1900::/28", "nextHopIp": "10.0.0.5"}`},

		{name: "no network", body: `{"name": "r", "destRange": "0.0.0.0/0", "nextHopIp": "10.0.0.5"}`, field: "network",
			want: "network is required: the network the route is in."},
		{name: "no range", body: `{"name": "r", "network": "net", "nextHopIp": "10.0.0.5"}`, field: "destRange",
			want: `destRange is required: the destination range of the packets it routes, such as "0.0.0.0/0".`},
		{name: "bad range", body: `{"name": "r", "network": "net", "destRange": "10.0.0.0", "nextHopIp": "10.0.0.5"}`, field: "destRange",
			want: `destRange ("10.0.0.0") must be an IP range in CIDR form, such as "10.0.0.0/8".`},
		{name: "priority", body: `{"name": "r", "network": "net", "destRange": "0.0.0.0/0", "nextHopIp": "10.0.0.5", "priority": 65536}`, field: "priority",
			want: "priority (65536) must be between 0 and 65535."},
		{name: "no next hop", body: `{"name": "r", "network": "net", "destRange": "0.0.0.0/0"}`, field: "nextHopGateway",
			want: "a route needs a next hop: one of nextHopGateway, nextHopInstance, nextHopIp, nextHopVpnTunnel, nextHopIlb."},
		{name: "two next hops", body: `{"name": "r", "network": "net", "destRange": "0.0.0.0/0", "nextHopIp": "10.0.0.5", "nextHopIlb": "10.0.0.6"}`, field: "nextHopIlb",
			want: "nextHopIp and nextHopIlb are all set: a route has one next hop."},
		{name: "other gateway", body: `{"name": "r", "network": "net", "destRange": "0.0.0.0/0", "nextHopGateway": "global/gateways/mine"}`, field: "nextHopGateway",
			want: `nextHopGateway ("global/gateways/mine") must be the default internet gateway: global/gateways/default-internet-gateway.`},
		{name: "bad address", body: `{"name": "r", "network": "net", "destRange": "0.0.0.0/0", "nextHopIp": "ten"}`, field: "nextHopIp",
			want: `nextHopIp ("ten") must be an IPv4 or IPv6 address.`},
	})
}
