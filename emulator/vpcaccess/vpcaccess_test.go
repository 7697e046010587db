package vpcaccess

import (
	"strings"
	"testing"

	"google.golang.org/api/vpcaccess/v1"
)

// Every rule of a connector's check, by its message; and the defaults.
func TestCheck_Rules(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    vpcaccess.Connector
		want string
	}{
		{"both", vpcaccess.Connector{IpCidrRange: "10.8.0.0/28", Subnet: &vpcaccess.Subnet{Name: "s"}}, `ipCidrRange ("10.8.0.0/28") and subnet.name ("s"): a connector takes one or the other.`},
		{"neither", vpcaccess.Connector{Network: "default"}, `a connector needs ipCidrRange and network, or subnet.name (ipCidrRange "", network "default").`},
		{"range", vpcaccess.Connector{IpCidrRange: "10.8.0.1/28", Network: "default"}, `ipCidrRange ("10.8.0.1/28") must be an unused IPv4 /28 range`},
		{"min", vpcaccess.Connector{IpCidrRange: "10.8.0.0/28", Network: "default", MinThroughput: 150}, "minThroughput (150) must be a multiple of 100 from 200 to 900."},
		{"max", vpcaccess.Connector{IpCidrRange: "10.8.0.0/28", Network: "default", MinThroughput: 300, MaxThroughput: 1100}, "maxThroughput (1100) must be a multiple of 100 above minThroughput (300), at most 1000."},
		{"instances", vpcaccess.Connector{IpCidrRange: "10.8.0.0/28", Network: "default", MinThroughput: 200, MaxThroughput: 300, MinInstances: 1},
			"minInstances (1) and maxInstances (3): from 2 to 10 instances, the maximum above the minimum."},
	} {
		if err := check(&tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	c := vpcaccess.Connector{Subnet: &vpcaccess.Subnet{Name: "connectors"}}
	if err := check(&c); err != nil || c.MinThroughput != 200 || c.MaxThroughput != 300 || c.MinInstances != 2 || c.MaxInstances != 3 || c.MachineType != "e2-micro" {
		t.Errorf("the defaults: %v %+v", err, c)
	}
}
