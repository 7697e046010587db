package control

import (
	"fmt"
	"maps"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// What the cloud gives a new project: the auto-mode network default, with
// a subnetwork in each region and four firewall rules.

// autoModeRanges are the subnetworks of an auto-mode network: the cloud's
// range in each region (a /20 per region, from 10.128.0.0/9). A region not
// listed gets none: create one there.
var autoModeRanges = map[string]string{
	"us-central1": "10.128.0.0/20", "europe-west1": "10.132.0.0/20", "us-west1": "10.138.0.0/20",
	"asia-east1": "10.140.0.0/20", "us-east1": "10.142.0.0/20", "asia-northeast1": "10.146.0.0/20",
	"asia-southeast1": "10.148.0.0/20", "us-east4": "10.150.0.0/20", "australia-southeast1": "10.152.0.0/20",
	"europe-west2": "10.154.0.0/20", "europe-west3": "10.156.0.0/20", "southamerica-east1": "10.158.0.0/20",
	"asia-south1": "10.160.0.0/20", "northamerica-northeast1": "10.162.0.0/20", "europe-west4": "10.164.0.0/20",
	"europe-north1": "10.166.0.0/20", "us-west2": "10.168.0.0/20", "asia-east2": "10.170.0.0/20",
	"europe-west6": "10.172.0.0/20", "asia-northeast2": "10.174.0.0/20", "asia-northeast3": "10.178.0.0/20",
	"us-west3": "10.180.0.0/20", "us-west4": "10.182.0.0/20", "asia-southeast2": "10.184.0.0/20",
	"europe-central2": "10.186.0.0/20", "northamerica-northeast2": "10.188.0.0/20", "asia-south2": "10.190.0.0/20",
	"australia-southeast2": "10.192.0.0/20", "southamerica-west1": "10.194.0.0/20",
}

// defaultFirewalls are the rules the cloud gives a project's default
// network: everything between its own addresses, and SSH, RDP and ICMP
// from anywhere.
var defaultFirewalls = []string{
	`{"name":"default-allow-internal","description":"Allow internal traffic on the default network","priority":65534,
	  "sourceRanges":["10.128.0.0/9"],"allowed":[{"IPProtocol":"tcp","ports":["0-65535"]},{"IPProtocol":"udp","ports":["0-65535"]},{"IPProtocol":"icmp"}]}`,
	`{"name":"default-allow-ssh","description":"Allow SSH from anywhere","priority":65534,
	  "sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"tcp","ports":["22"]}]}`,
	`{"name":"default-allow-rdp","description":"Allow RDP from anywhere","priority":65534,
	  "sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"tcp","ports":["3389"]}]}`,
	`{"name":"default-allow-icmp","description":"Allow ICMP from anywhere","priority":65534,
	  "sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"icmp"}]}`,
}

// ProjectResource is one resource the cloud gives a new project: an
// insert's body in a collection, regional when Region is set.
type ProjectResource struct {
	Collection string
	Region     string
	Body       string
}

// DefaultNetwork lists what the cloud gives a new project, the network
// first (its self link is networkLink), then its subnetworks by region,
// then its firewall rules.
func DefaultNetwork(networkLink string) []ProjectResource {
	out := []ProjectResource{{Collection: api.CollectionNetworks,
		Body: fmt.Sprintf(`{"name":%q,"description":"Default network for the project","autoCreateSubnetworks":true}`, api.DefaultNetwork)}}
	for _, region := range slices.Sorted(maps.Keys(autoModeRanges)) {
		out = append(out, ProjectResource{Collection: api.CollectionSubnetworks, Region: region,
			Body: fmt.Sprintf(`{"name":%q,"network":%q,"ipCidrRange":%q}`, api.DefaultNetwork, networkLink, autoModeRanges[region])})
	}
	for _, fw := range defaultFirewalls {
		out = append(out, ProjectResource{Collection: api.CollectionFirewalls, Body: fw})
	}
	return out
}
