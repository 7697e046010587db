package control

import (
	"encoding/json"
	"net/netip"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A new project's default network comes first; each region's subnetwork
// names it and takes its own /20 of 10.128.0.0/9; four firewall rules
// follow.
func TestDefaultNetwork(t *testing.T) {
	rs := DefaultNetwork("https://www.googleapis.com/compute/v1/projects/p/global/networks/default")
	if rs[0].Collection != api.CollectionNetworks {
		t.Fatalf("first: %+v, want the network", rs[0])
	}
	auto := netip.MustParsePrefix("10.128.0.0/9")
	var ranges []netip.Prefix
	firewalls := 0
	for _, r := range rs[1:] {
		var body map[string]any
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatalf("%s: %v", r.Body, err)
		}
		switch r.Collection {
		case api.CollectionSubnetworks:
			p := netip.MustParsePrefix(body["ipCidrRange"].(string))
			if r.Region == "" || body["network"] != "https://www.googleapis.com/compute/v1/projects/p/global/networks/default" || p.Bits() != 20 || !auto.Contains(p.Addr()) {
				t.Errorf("subnetwork %+v", r)
			}
			for _, q := range ranges {
				if q.Overlaps(p) {
					t.Errorf("%s overlaps %s", p, q)
				}
			}
			ranges = append(ranges, p)
		case api.CollectionFirewalls:
			firewalls++
		default:
			t.Errorf("unexpected %+v", r)
		}
	}
	if len(ranges) < 20 || firewalls != 4 {
		t.Errorf("%d subnetworks, %d firewall rules", len(ranges), firewalls)
	}
}
