package compute

import "github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"

// The Compute API's collections come in four families, each a type over
// the Service with its collections, their rules and hooks, and their
// methods; what they share (references, operations, the write path) is
// the Service's.
type (
	// backends are what traffic is sent to and how its health is known:
	// backend services and buckets, network endpoint groups, target pools,
	// health checks (and the legacy ones), health sources, composite
	// checks and aggregation policies, and getHealth.
	backends struct{ *core.API }
	// frontends are what receives traffic: forwarding rules and
	// addresses, URL maps, target proxies, certificates, SSL policies,
	// security policies and service attachments.
	frontends struct{ *core.API }
	// fleet is the machines: instances, disks, images, instance groups,
	// templates and managers, autoscalers and autohealing.
	fleet struct{ *core.API }
	// networking is where they live: networks, subnetworks, firewalls,
	// routers, a new project's default network, regions and zones.
	networking struct{ *core.API }
)
