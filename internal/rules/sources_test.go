package rules

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Every rule of this package says where it comes from: each message a rule
// can report (keyed by its format string) and each limit or default (keyed
// by its constant) has a source below. A source is one of:
//
//   - the Compute API's discovery document (compute-api.json, shipped with
//     google.golang.org/api): the description of a field, quoted;
//   - the health-check documents the product is specified from (Google
//     Cloud's health-check and Composite Health overviews), quoted in the
//     language of the copy the specification was written from;
//   - the Compute API's behaviour where no document states it (a limit the
//     API enforces but does not describe);
//   - the emulator's own rule, with the reason it is stricter or different.
//
// TestEveryRuleHasASource fails when a rule is added without a source, when
// a source names a rule that is gone, and when a quote of the discovery
// document is not in it (the quotes of the overviews are checked against the
// copies in LBHEALTH_SEEDS, when that directory is there).

type sourceKind int

const (
	fromAPI sourceKind = iota
	fromSeed
	fromCloud
	fromEmulator
)

type source struct {
	kind  sourceKind
	where string // "Schema.field" for fromAPI, a document for fromSeed
	quote string // the text that states the rule, or the reason
}

// apiDoc cites the description of field ("HealthCheck.timeoutSec") in the
// discovery document.
func apiDoc(field, quote string) source { return source{fromAPI, field, quote} }

// seed cites one of the overviews: hcES (health checks, Spanish), hcHE
// (health checks, Hebrew) or compositeHE (Composite Health, Hebrew).
func seed(doc, quote string) source { return source{fromSeed, doc, quote} }

// cloud states what the Compute API does that no document says.
func cloud(what string) source { return source{fromCloud, "", what} }

// own gives the reason of a rule of the emulator's own.
func own(why string) source { return source{fromEmulator, "", why} }

// The overviews, by the names of their copies.
const (
	hcES        = "003_278a8888d333c71a.txt"
	hcHE        = "000_36b2dd3ab3646622.txt"
	compositeHE = "002_6e2ee2c854f4ff1a.txt"
	applianceTR = "004_970bd790e8e29ecc.txt"
)

var (
	rangeOfPorts = apiDoc("HTTPHealthCheck.port", "Valid values are 1 through65535.")
	rfc1035Doc   = apiDoc("HealthCheck.name", "The name must be 1-63 characters long, and comply withRFC1035.")
	asciiDoc     = apiDoc("TCPHealthCheck.request", "this exact ASCII string, up to\n1024 bytes in length")
)

// messageSources cites the source of each message, by format string.
var messageSources = map[string]source{
	// Network endpoint groups and endpoints.
	`%s (%d) must not be set when %s is GCE_VM_IP: GCE_VM_IP endpoints have no port (the health check's port is probed).`: apiDoc("NetworkEndpointGroup.defaultPort",
		"If the network endpoint type is either GCE_VM_IP,SERVERLESS or PRIVATE_SERVICE_CONNECT, this\nfield must not be specified."),
	`%s (%d) must not be set when %s is %s: the group's endpoints are services, not ports.`: apiDoc("NetworkEndpointGroup.defaultPort",
		"If the network endpoint type is either GCE_VM_IP,SERVERLESS or PRIVATE_SERVICE_CONNECT, this\nfield must not be specified."),
	`%s (%d) must not be set: GCE_VM_IP endpoints have no port (the health check's port is probed).`: apiDoc("NetworkEndpoint.port",
		"This field can not be set for network endpoints of typeGCE_VM_IP."),
	"%s (%q) must not be set: an IPV6_ONLY subnetwork has no IPv4 range.": cloud(
		"the Compute API makes an IPV6_ONLY subnetwork without ipCidrRange, and refuses one with an IPv4 range."),
	"%s (%g) is out of range: Must be less than or equal to 1.0, and at least 0.0.": apiDoc("BackendServiceNetworkPassThroughLbTrafficPolicyZonalAffinity.spilloverRatio",
		"The value of the field must be in [0, 1]."),
	`%s is required: the destination range of the packets it routes, such as "0.0.0.0/0".`: apiDoc("Route.destRange",
		"The destination range of outgoing packets that this route applies to."),
	"a route needs a next hop: one of %s.": cloud(
		"the Compute API refuses a route without a next hop (nextHopGateway, nextHopInstance, nextHopIp, nextHopVpnTunnel or nextHopIlb)."),
	"%s are all set: a route has one next hop.": cloud(
		"the Compute API refuses a route that names more than one next hop."),
	"%s (%q) must be the default internet gateway: global/gateways/%s.": apiDoc("Route.nextHopGateway",
		"You can only specify the internet gateway"),
	`%s (%q) must be an IPv4 or IPv6 address.`: apiDoc("NetworkEndpoint.ipAddress", "Optional IPv4 address of network endpoint."),
	`%s is required: %s endpoints are not instances, so %s alone does not give an address.`: apiDoc("NetworkEndpoint.ipAddress",
		"If the IP address is not specified, then the primary IP address for\nthe VM instance in the network that the network endpoint group belongs to\nwill be used."),
	`%s is required: INTERNET_FQDN_PORT endpoints are named by a domain name.`: apiDoc("NetworkEndpoint.fqdn", "Optional fully qualified domain name of network endpoint."),
	`%s (%q) must not be set: only INTERNET_FQDN_PORT endpoints are named by a domain name, and the group is %s.`: apiDoc("NetworkEndpoint.fqdn",
		"This can only be\nspecified when NetworkEndpointGroup.network_endpoint_type isNON_GCP_FQDN_PORT."),
	`%s is required: set it, or set the group's %s.`: apiDoc("NetworkEndpoint.port",
		"If not specified, the\ndefaultPort for the network endpoint group will be used."),
	`%s repeats %s (%s): each endpoint may be listed once.`:                  own("an endpoint listed twice would be probed twice and counted twice in the group's health."),
	`%s repeats %s (%s, port %d with %s): each endpoint may be listed once.`: own("an endpoint listed twice would be probed twice and counted twice in the group's health."),
	`%s repeats %s (%s, port %d): each endpoint may be listed once.`:         own("an endpoint listed twice would be probed twice and counted twice in the group's health."),

	// Backend services.
	`%s (%q) has sourceRegions: a health check probed from source regions cannot be used by a backend service.`: apiDoc("HealthCheck.sourceRegions",
		"The health check cannot be used with BackendService"),
	`%s (%q) is a %s health check: a %s backend service (%q) takes only gRPC or TCP health checks.`: seed(hcES,
		"En el caso de los servicios de backend que usan el protocolo gRPC, utilice solo comprobaciones de estado de gRPC o TCP."),
	`%s (%q) is a regional health check (region %s): a global backend service takes a global health check.`: cloud(
		"a global backend service refuses a regional health check; a regional one takes a global check or one of its own region."),
	`%s (%q) is in region %s: a regional backend service takes a health check of its own region (%s).`: cloud(
		"a global backend service refuses a regional health check; a regional one takes a global check or one of its own region."),
	`%s (%q) is used twice: named ports must have different names.`: own("two named ports of one name would leave the port a check uses undecided."),
	`%s is required.`: apiDoc("NamedPort.port", "The port number, which can be a value between 1 and 65535."),
	`%s is required: the endpoint group of the backend.`: apiDoc("Backend.group", "The fully-qualified URL of aninstance\ngroup or network endpoint\ngroup (NEG) resource."),
	`%s lists %d health checks: a backend service takes one.`: apiDoc("BackendService.healthChecks",
		"Currently, at most one health check can be\nspecified for each backend service."),

	// Composite health.
	`%s (%q) has a backend (backends[%d]) whose endpoint group is %s: a health source takes backend services of instance groups or of GCE_VM_IP or GCE_VM_IP_PORT endpoint groups.`: apiDoc("HealthSource.sources",
		"TheBackendService may use only IGs, MIGs, or NEGs of typeGCE_VM_IP or GCE_VM_IP_PORT."),
	`%s (%q) has loadBalancingScheme %s: a health source takes an INTERNAL or INTERNAL_MANAGED backend service.`: seed(compositeHE,
		"לשירותי קצה עורפיים שמשמשים כמקורות נתונים של מצב תקינות צריכה להיות תוכנית איזון עומסים של INTERNAL או INTERNAL_MANAGED."),
	`%s (%q) has loadBalancingScheme %s: the health destination must be an INTERNAL or INTERNAL_MANAGED forwarding rule.`: apiDoc("CompositeHealthCheck.healthDestination",
		"The ForwardingRule must have\nload balancing scheme INTERNAL orINTERNAL_MANAGED"),
	`%s (%q) is %s again: list each health source once.`: own("a source listed twice would be counted twice; the API states no rule, and a repeat is a mistake."),
	`%s (%q) repeats %s: list each health source once.`:  own("a source listed twice would be counted twice; the API states no rule, and a repeat is a mistake."),
	`%s (%q) is %s: a health source takes a regional backend service of its own region (%s).`: apiDoc("HealthSource.sources",
		"must be regional\nand in the same region as the HealthSource"),
	`%s (%q) is %s: it must be %s of the same region (%s).`: seed(compositeHE,
		"כל משאבי Composite Health הם אזוריים וחייבים להיות באותו אזור כמו השירות שפורסם שאתם עוקבים אחריו."),
	`%s (%q) is a composite health check: the composite health of one service cannot be a health source of another; list health sources (%s) only.`: apiDoc("CompositeHealthCheck.healthSources",
		"URLs to the HealthSource resources whose results are AND'ed."),
	`%s (%q) is already the health destination of %s: a forwarding rule is the destination of at most one composite health check.`: seed(compositeHE,
		"כלל העברה יכול להיות יעד הבדיקה של בדיקת תקינות מורכבת אחת בלבד."),
	`%s is required: set it to %s.`: apiDoc("HealthSource.sourceType",
		"The only allowed value\nis BACKEND_SERVICE. Must be specified when theHealthSource is created"),
	`%s is required: the forwarding rule whose health the check reports.`:       apiDoc("CompositeHealthCheck.healthDestination", "URL to the destination resource. Must be set."),
	`%s is required: the policy that says when the backend service is healthy.`: apiDoc("HealthSource.healthAggregationPolicy", "URL to the HealthAggregationPolicy resource. Must be set."),
	`%s lists %d health sources: a composite health check takes %d to %d.`:      apiDoc("CompositeHealthCheck.healthSources", "Must have at least 1. Must not have more than 10."),
	`%s lists %d sources: a health source takes exactly one backend service.`:   apiDoc("HealthSource.sources", "Must be size 1."),

	// Forwarding rules.
	`%s (%q) is listed twice: each port once.`: own("a port listed twice is one port; the list is kept as sent, so a repeat would come back as a diff."),
	`%s (%q) must be a port ("80") or a range of ports ("8080-8090") between %d and %d, low to high.`: apiDoc("ForwardingRule.portRange",
		"Only packets addressed to ports in the\nspecified range will be forwarded"),
	`%s (%q) must be a port number from %d to %d.`: apiDoc("ForwardingRule.ports", "You can specify a list of up to five ports by number"),
	`%s (%q) must be an IPv4 or IPv6 address, an IPv6 range (2600:1234::/96), or a reference to an address resource (its URL, regions/{region}/addresses/{name} or its name).`: apiDoc("ForwardingRule.IPAddress",
		"you can optionally specify an IP address that references an\nexisting static (reserved) IP address resource"),
	`%s (%q) must not be set on a global forwarding rule: target pools are regional; use a regional forwarding rule.`: apiDoc("ForwardingRule.target",
		"For global forwarding rules, this target must be a global\nload balancing resource."),
	`%s and %s are both set: a forwarding rule sends traffic to one of them; remove one.`: apiDoc("ForwardingRule.IPAddress",
		"the forwarding rule directs the traffic\nto the referenced target or backendService."),
	`%s lists %d ports: a forwarding rule takes at most %d; use portRange or allPorts for more.`: apiDoc("ForwardingRule.ports", "You can specify a list of up to five ports by number"),
	`%s, %s and %s are exclusive: set one of them.`:                                              apiDoc("ForwardingRule.ports", "The ports, portRange, and allPorts\nfields are mutually exclusive."),
	`%s is set, but %s is %s: %s is for %s rules only.`: apiDoc("ForwardingRule.ports",
		"It requires that the forwarding rule IPProtocol be TCP,\n   UDP, or SCTP"),
	`one of %s or %s is required.`: apiDoc("ForwardingRule.IPAddress",
		"the forwarding rule directs the traffic\nto the referenced target or backendService."),

	// Health checks.
	`%s (%d) must be less than or equal to %s (%d).`: apiDoc("HealthCheck.timeoutSec",
		"It is invalid for timeoutSec to have greater\nvalue than checkIntervalSec."),
	`%s (%d) must be less than or equal to %s (%d, the default): set %s to %d or more, or %s to %d or less.`: apiDoc("HealthCheck.timeoutSec",
		"It is invalid for timeoutSec to have greater\nvalue than checkIntervalSec."),
	`%s (%d, the default) must be less than or equal to %s (%d): set %s to %d or less.`: seed(hcES,
		"el tiempo de espera siempre debe ser inferior o igual al intervalo"),
	`%s (%q) does not match the protocol block that is set (%s, type %s): change or remove %s.`: apiDoc("HealthCheck.type",
		"Exactly one of the protocol-specific health check fields must be specified,\nwhich must match type field."),
	`%s (%q) is listed twice: the regions must be different.`: apiDoc("HealthCheck.sourceRegions",
		"The list of cloud regions from which health checks are performed."),
	`%s (%q) must be NONE when %s is set.`: apiDoc("HealthCheck.sourceRegions", "The proxyHeader field for HTTP, HTTPS, and TCP is not\n   supported."),
	`%s (%q) must be one of %s.`:           apiDoc("HealthCheck.type", "Specifies the type of the healthCheck, either TCP,SSL, HTTP, HTTPS,HTTP2, GRPC or GRPC_WITH_TLS."),
	`%s (%q) must not be set when %s is set: checks from source regions only connect.`: apiDoc("HealthCheck.sourceRegions", "The TCP request field is not supported."),
	`%s (%s) must be at least %d when %s is set.`:                                      apiDoc("HealthCheck.sourceRegions", "The checkIntervalSec field must be at least 30."),
	`%s (%s) must not be set when %s is %s: %s.`: apiDoc("HTTPHealthCheck.portSpecification",
		"Specifies how a port is selected for health checking."),
	`%s can only be set on a global health check: remove %s or %s.`: apiDoc("HealthCheck.sourceRegions", "This can only be set for global health check."),
	`%s cannot be used with %s: checks from source regions support TCP, HTTP and HTTPS only.`: apiDoc("HealthCheck.sourceRegions",
		"SSL, HTTP2, GRPC, and GRPC_WITH_TLS protocols are not supported."),
	// The discovery document now calls USE_NAMED_PORT "Not supported"; the
	// overview still names "a named port of an instance group" as a port a
	// check may use, and terraform-provider-google sends port_name, so the
	// emulator keeps it.
	`%s is required when %s is USE_NAMED_PORT.`: seed(hcES,
		"el protocolo TCP para un puerto con nombre de un grupo de instancias"),
	`%s is required: %s checks have no default port; %s.`: seed(hcES, "Debes especificar un puerto para la comprobación del estado."),
	`%s lists %d regions: it must list exactly %d.`:       apiDoc("HealthCheck.sourceRegions", "exactly 3 regions should be specified."),
	`exactly one protocol block must be set, found %s: remove all but one.`: apiDoc("HealthCheck.type",
		"Exactly one of the protocol-specific health check fields must be specified"),
	`exactly one protocol block must be set, found none: add one of %s.`: apiDoc("HealthCheck.type",
		"Exactly one of the protocol-specific health check fields must be specified"),

	// Legacy health checks.
	`%s (%q) is %s: %s is needed here.`: seed(hcES,
		"No puedes convertir una comprobación del estado antigua en una comprobación del estado ni viceversa."),
	`%s is a legacy health check, which is global: a regional backend service takes a health check of its own region.`: seed(hcES, "Global antiguo (HTTP)"),
	`%s is a legacy health check: legacy checks are accepted only by EXTERNAL and EXTERNAL_MANAGED backend services, and %s is %s; use a health check (healthChecks) instead.`: seed(hcES,
		"no se recomiendan las comprobaciones de estado antiguas, pero a veces se admiten, en función del modo del balanceador de carga."),

	// Names and descriptions.
	`%s (%q) is not a valid name: %s must be 1-63 characters, start with a lowercase letter, and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035).`: rfc1035Doc,
	`%s is %d characters long: it must be at most %d characters.`: cloud("a description, a request or response string and a Host header each have a longest length; see their constants."),

	// Networks, subnetworks, firewall rules, addresses and instances.
	`%s (%q) is not an %s address, as %s says.`:          apiDoc("Address.ipVersion", "The IP version that will be used by this address."),
	`%s (%q) is not in the range of subnetwork %s (%s).`: apiDoc("Address.subnetwork", "If an IP address\nis specified, it must be within the subnetwork's IP range."),
	`%s (%q) is reserved in subnetwork %s (%s): the first two and the last two addresses of a range are; use %s to %s.`: cloud(
		"the first two and the last two addresses of a subnetwork's primary range are reserved (network, gateway, second-to-last, broadcast)."),
	`%s (%q) must be a port (0-%d) or a range of them ("8000-8080").`: apiDoc("Firewall.allowed",
		"Each entry must be either an integer or a range."),
	`%s (%q) must be a protocol number from 0 to 255.`: apiDoc("Firewall.allowed", "or the IP protocol number."),
	`%s (%q) must be an IP range in CIDR form, such as "10.0.0.0/8".`: apiDoc("Firewall.sourceRanges",
		"These ranges must be\nexpressed inCIDR format."),
	`%s (%q) must be an IPv4 address.`:                                   apiDoc("NetworkInterface.networkIP", "An IPv4 internal IP address to assign to the instance"),
	`%s (%q) must be an IPv4 range in CIDR form, such as "10.0.0.0/24".`: apiDoc("Subnetwork.ipCidrRange", "Only IPv4 is supported."),
	`%s (%q) must be an IPv4 range in CIDR form, such as "10.240.0.0/16".`: apiDoc("Network.IPv4Range",
		"This\nrange is aCIDR specification, for example:192.168.0.0/16."),
	`%s (%q) must be one of %s, or a protocol number (0-255).`: apiDoc("Firewall.allowed",
		"(tcp, udp,icmp, esp, ah, ipip,sctp) or the IP protocol number."),
	`%s (%q) must have a prefix length between /%d and /%d.`:                           cloud("a subnetwork's primary IPv4 range is /8 at the largest and /29 at the smallest."),
	`%s and %s are both set: a firewall rule either allows or denies; make two rules.`: cloud("a firewall rule has allowed or denied entries, never both."),
	`%s is required: a protocol name (tcp, udp, icmp, ...), all, or a protocol number.`: apiDoc("Firewall.allowed",
		"The protocol type is\nrequired when creating a firewall rule."),
	`%s is required: the network the subnetwork is a range of.`: cloud("subnetworks.insert refuses a subnetwork without network."),
	`%s is required: the subnetwork's IPv4 range, such as "10.0.0.0/24".`: apiDoc("Subnetwork.ipCidrRange",
		"Provide this property when you create the subnetwork."),
	`%s is set on an EXTERNAL address: only INTERNAL addresses are in a network; set %s to INTERNAL.`: apiDoc("Address.network",
		"This field can\nonly be used with INTERNAL type"),
	`%s is set on an EXTERNAL IPv4 address: only INTERNAL addresses, and external IPv6 ones, are in a subnetwork; set %s to INTERNAL.`: apiDoc("Address.subnetwork",
		"This field can\nonly be used with INTERNAL type"),
	`%s is set, and so is %s: a legacy network (%s) has no subnetworks; remove one of them.`: apiDoc("Network.autoCreateSubnetworks",
		"If not set, a legacy network is\ncreated."),
	`%s is set, but %s is %q: only tcp, udp and sctp rules name ports.`: apiDoc("Firewall.allowed",
		"This field is only applicable for the UDP or TCP protocol."),
	`%s lists %d interfaces: an instance has at most %d.`: cloud("an instance has at most 8 network interfaces."),
	`%s must not be set on a global address: subnetworks are regional; reserve a regional address instead.`: apiDoc("Address.subnetwork",
		"The URL of the subnetwork in which to reserve the address."),

	// Disks and the disks of instances.
	`%s (%d) is smaller than its image (%d GB): a disk must hold the image it is made from.`: apiDoc("Disk.sizeGb",
		"If you specify this field along with a source, the value ofsizeGb must not be less than the size of the\nsource."),
	`%s (%q) is the device name of %s too: each disk of an instance has its own.`: apiDoc("AttachedDisk.deviceName",
		"Specifies a unique device name of your choice"),
	`%s and %s are both set: attach an existing disk (source) or make one (initializeParams), not both.`: apiDoc("AttachedDisk.initializeParams",
		"This property is mutually exclusive with the source property;\nyou can only define one or the other, but not both."),
	`%s is required: a boot disk made with the instance is made from an image.`: apiDoc("AttachedDisk.source",
		"When creating a new instance boot disk, one ofinitializeParams.sourceImage orinitializeParams.sourceSnapshot or disks.source\nis required."),
	`%s is required: name an existing disk, or set %s to make one with the instance.`: apiDoc("AttachedDisk.initializeParams",
		"Specifies the parameters for a new disk that will be created\nalongside the new instance."),
	`%s is set on the disk at index %d: the boot disk must be the first disk of the instance (%s).`: apiDoc("AttachedDisk.index",
		"A zero-based index to this disk, where 0 is reserved for the\nboot disk."),

	// Instance groups.
	`%s (%q) must be the URL of an instance (zones/{zone}/instances/{name}).`: apiDoc("InstanceReference.instance", "The URL for a specific instance."),
	`%s (%q) repeats %s: an instance is in a group once.`:                     own("an instance listed twice would be probed and counted twice."),
	`%s is required: the port the name stands for.`: apiDoc("InstanceGroup.namedPorts",
		"Optional. Assigns a name to a port number. For example:{name: \"http\", port: 80}"),

	// Instance templates and managed instance groups.
	`%s (%q) must be 1-%d characters, a lowercase letter first, then lowercase letters, digits and hyphens (RFC 1035), or end in a hyphen and hash signs ("vm-###") for numbered names.`: apiDoc(
		"InstanceGroupManager.baseInstanceName", "The maximum character length is 58 and the name must\ncomply with RFC1035 format."),
	`%s is required (or %s): the template the group makes its instances from.`: apiDoc("InstanceGroupManager.instanceTemplate",
		"The group uses this template to create all new instances"),
	`%s is required: the check whose verdict recreates an instance.`: apiDoc("InstanceGroupManagerAutoHealingPolicy.healthCheck",
		"The URL for the health check that signals autohealing."),
	`%s is required: the prefix of the names of the group's instances.`: apiDoc("InstanceGroupManager.baseInstanceName",
		"The base instance name is a prefix that you want to attach to the names of\nall VMs in a MIG."),
	`%s is required: what the template's instances are.`:        apiDoc("InstanceTemplate.properties", "The instance properties for this instance template."),
	`%s lists %d policies: a managed instance group takes one.`: apiDoc("InstanceGroupManager.autoHealingPolicies", "You can specify\nonly one value."),
	`%s lists %d versions: the emulator makes every instance from one template; list one.`: own(
		"canary versions (a share of the instances from a second template) are not modelled; one version is."),

	`%s (%q) must be an http or https URL of this machine (127.0.0.0/8, ::1 or localhost): the emulator calls it when it recreates an instance, and calls nothing else.`: own(
		"an autohealing hook is an lbhealth extension; the emulator sends requests to this machine only."),

	// Target pools.
	`%s (%q) is %s: target pools take one legacy HTTP health check only (httpHealthChecks).`: apiDoc("TargetPool.healthChecks",
		"Only legacy HttpHealthChecks are supported."),
	`%s (%q) must be an endpoint address, "ip" or "ip:port", or the URL of an instance (zones/{zone}/instances/{name}).`: own(
		"an instance URL as in the API, or an address the emulator probes directly, so that a pool needs no instances."),
	`%s (%q) must be an endpoint address, "ip" or "ip:port": %v.`: own("port 0 is no port to probe."),
	`%s (%q) repeats %s: each instance may be listed once.`:       own("an instance listed twice would be probed and counted twice."),
	`%s lists %d health checks: target pools take one legacy HTTP health check only.`: apiDoc("TargetPool.healthChecks",
		"Only one health check may be\nspecified."),

	// Check types lbhealth adds to the Compute API.
	`%s cannot change from %s to %s: a check of a type lbhealth adds to the Compute API keeps the type it was created with; create a new health check instead (Terraform replaces it).`: seed(applianceTR,
		"tür profil oluşturulurken seçilir ve kayıttan sonra değiştirilemez"),
	`%s is required: the name the DNS check asks about (such as example.com).`: seed(applianceTR,
		"Protokole özgü kontrol (DNS sorgusu"),
	`%s is %d characters long: a DNS name has at most %d.`: own("RFC 1035 bounds a name at 255 octets on the wire, 253 characters written without the final dot."),
	`%s (%q) is not a DNS name: each label between dots must be 1-63 letters, digits, hyphens or underscores, not starting or ending with a hyphen.`: own(
		"RFC 1035 labels are at most 63 octets; names a probe asks are host names (RFC 1123) or service names with underscore labels (RFC 2782)."),

	`%s (%q) must be a domain name or an address literal in brackets ([192.0.2.1]): what the check says in EHLO.`: own(
		"RFC 5321 has EHLO name the client by its domain or an address literal; the appliance's SMTP check sends EHLO."),
	`%s (%q) has a space at byte %d: a user name is one word.`: own(
		"RFC 959's USER takes one argument; a space would make the rest a second one."),
	`%s has a character that is not printable ASCII at byte %d: only characters 0x20 to 0x7E are allowed (the value is a secret and is not shown).`: own(
		"a password travels in a protocol command line, where control characters would end it early; secrets are never echoed."),
	`%s is set but %s is not: %s.`: seed(applianceTR,
		"Protokole özgü kontrol (DNS sorgusu, oturum açma"),
	`%s is not a PostgreSQL connection string: write a URL such as postgres://user:password@/database?sslmode=disable or key=value pairs such as user=monitor dbname=app (the value is a secret and is not shown).`: own(
		"libpq's connection strings (a URL or key=value pairs), parsed by pgconn as the probe will; the DSN holds a password, so it is never echoed."),
	`%s is not an Oracle URL: write oracle://user:password@/service (the address is the endpoint's; the value is a secret and is not shown).`: own(
		"go-ora connects from an oracle:// URL naming the user and the service; the DSN holds a password, so it is never echoed."),
	`%s is required: %s or %s.`:                                 seed(applianceTR, "Oracle"),
	`%s (%q) is not a JSONata expression: %s.`:                  seed(applianceTR, "JSONata"),
	`%s is required: %s (every check passes) or %s (one does).`: seed(applianceTR, "Birden fazla kontrolü and / or ile birleştirir"),
	`%s is required: the health checks whose verdicts the scenario combines.`: seed(applianceTR,
		"sonuç bu kontrollerin birlikte değerlendirilmesinden çıkar"),
	`%s lists %d health checks: a scenario combines at most %d.`:        own("every probe of a scenario runs all its checks: eight bounds what one probe costs."),
	`%s is empty: name a health check.`:                                 own("an empty reference names nothing."),
	`%s (%q) is listed twice (also at %d): each check counts once.`:     own("with AND or OR a check listed twice changes nothing but the cost; it is a mistake."),
	`%s (%q) is the scenario itself: a scenario combines other checks.`: own("a scenario that includes itself has no verdict to start from."),
	`%s (%q) is a scenario: a scenario combines checks that probe, not other scenarios (which could make a cycle).`: own(
		"one level of scenarios cannot make a cycle, whatever later updates do."),
	`%s is required: a JSONata expression over the emulator's facts that is true when the endpoint is healthy, such as node.role = "MASTER".`: seed(applianceTR, "JSONata"),
	`%s (%q) %s: expressions run inside the emulator, where a recursive function or a large range could stop it; write the condition without it.`: own(
		"the emulator evaluates expressions in its own process, with no bound on recursion or memory: constructs without a bound are refused."),
	`%s is required: the connection settings (user, password, database) the check logs in with.`: seed(applianceTR,
		"SQL sorgusu"),
	`%s (%q) is not a distinguished name such as cn=monitor,dc=example,dc=com (RFC 4514): %s.`: own(
		"RFC 4511 binds and searches name entries by DN in RFC 4514's string form; go-ldap parses it as the probe will."),
	`%s (%q) is not an LDAP search filter such as (objectClass=person) (RFC 4515): %s.`: own(
		"RFC 4511 searches take a filter in RFC 4515's string form; go-ldap compiles it as the probe will."),

	// Values shared by several rules.
	`%s (%d) must be between %d and %d.`: cloud("each range is that of the field's constant, cited below."),
	`%s (%q) has a character RFC 3986 does not allow in a path at byte %d: percent-encode it.`: apiDoc("HTTPHealthCheck.requestPath", "Must comply withRFC3986."),
	`%s (%q) has a character that is not printable ASCII at byte %d: only characters 0x20 to 0x7E are allowed.`: seed(hcES,
		"Las marcas de solicitud y respuesta solo pueden contener caracteres ASCII imprimibles de un byte."),
	`%s (%q) must be a host name or address without spaces or control characters.`: apiDoc("HTTPHealthCheck.host",
		"The value of the host header in the HTTP health check request."),
	`%s (%q) must not contain a query string ("?"): legacy health checks request a plain path.`: apiDoc("HttpHealthCheck.requestPath",
		"This field does not support query\nparameters."),
	`%s (%q) must start with "/".`: apiDoc("HTTPHealthCheck.requestPath", "The default value is/. Must comply withRFC3986."),
	`%s ("") must not be empty: remove it to get the default %q.`: own(
		"Terraform tells an empty string from an unset one; the API stores the default for both, so an explicit \"\" would come back changed."),
	// URL maps.
	"%s (%d) is the priority of another route rule of this path matcher: priorities are unique within a path matcher.": apiDoc("HttpRouteRule.priority",
		"You cannot configure two or more routeRules with the same priority."),
	"%s is required: route rules are evaluated in order of priority.": apiDoc("HttpRouteRule.priority",
		"Priority for each rule must be set to a number from 0 to 2147483647\ninclusive."),
	"%s (%q) is not a regular expression in RE2's syntax: %v.": apiDoc("CorsPolicy.allowOriginRegexes",
		"Specifies a regular expression that matches allowed origins."),
	"%s (%q) has no colon: write a custom header as name:value.": cloud(
		"Creating custom headers: each header is a header-name:header-value string, with a colon separating the name and the value."),
	"%s (%q): the header name %q is not an HTTP field name (letters, digits and !#$%%&'*+-.^_`|~, nothing else).": cloud(
		"Creating custom headers: the header name must be a valid HTTP header-field name (RFC 7230)."),
	"%s (%q): the load balancer does not add %s: it is hop-by-hop or written by the load balancer itself.": cloud(
		"Creating custom headers: the name must not be X-User-IP, CDN-Loop, Host or authority, nor one of the hop-by-hop headers Keep-Alive, Transfer-Encoding, TE, Connection, Trailer and Upgrade."),
	"%s (%q): header names beginning with X-Google, X-Goog-, X-GFE or X-Amz- are reserved.": cloud(
		"Creating custom headers: the header name must not begin with X-Google, X-Goog-, X-GFE or X-Amz-."),
	"%s (%q): the header %s is added twice: each name may appear once.": cloud(
		"Creating custom headers: a header name must not appear more than once in the list of added headers."),
	"%s (%q): the value is not an HTTP field value (control characters and line breaks are not allowed).": cloud(
		"Creating custom headers: the header value must be a valid HTTP header field (RFC 7230, obsolete forms disallowed); it may be blank."),
	"%s is required when sessionAffinity is STRONG_COOKIE_AFFINITY: the cookie that keeps a client with its backend.": apiDoc("BackendService.strongSessionAffinityCookie",
		"applicable and required if the sessionAffinity is set toSTRONG_COOKIE_AFFINITY."),
	"%s (%v) is a percentage of requests: it must be between 0 and 100.": apiDoc("RequestMirrorPolicy.mirrorPercent",
		"The percentage of requests to be mirrored to `backend_service`."),
	"%s (%q) is in another host rule of this map: each host pattern is in one host rule.": cloud("a URL map refuses a host pattern that two of its host rules list: the host would match twice."),
	"%s (%q) is not a host pattern: a host name with an optional :port, where * may only be the first character, followed by nothing, . or - (\"*.example.com\").": apiDoc("HostRule.hosts",
		"In\nthat case, * must be the first character, and if followed by\nanything, the immediate following character must be either -\nor .."),
	"%s is empty: a host rule lists at least one host pattern.": apiDoc("HostRule.hosts", "The list of host patterns to match."),
	"%s (%q) is not a path pattern: it must start with / and may have a * only at its end, after a / (\"/images/*\"); no ? or #.": apiDoc("PathRule.paths",
		"Each must start with /\nand the only place a * is allowed is at the end following\na /."),
	"%s is empty: a path rule lists at least one path.":                                       apiDoc("PathRule.paths", "The list of path patterns to match."),
	"%s (%q) is the name of another path matcher of this map: path matcher names are unique.": apiDoc("PathMatcher.name", "The name to which this PathMatcher is referred by theHostRule."),
	"%s is required: host rules name the path matcher they use.":                              apiDoc("PathMatcher.name", "The name to which this PathMatcher is referred by theHostRule."),
	"%s (%q) names no path matcher of this map: it must be the name of one of pathMatchers.": apiDoc("HostRule.pathMatcher",
		"The name of the PathMatcher to use to match the path portion\nof the URL"),
	"%s and %s are both set: a path matcher uses path rules or route rules, not both.": apiDoc("PathMatcher.routeRules",
		"Within a given pathMatcher, you can set only one ofpathRules or routeRules."),
	"only one of %s, %s and %s can be set.": apiDoc("UrlMap.defaultUrlRedirect",
		"Only one of defaultUrlRedirect, defaultService\nor defaultRouteAction.weightedBackendService can be set."),
	"%s is required: a weighted split names each of its backend services.": apiDoc("WeightedBackendService.backendService",
		"The full or partial URL to the default BackendService\nresource."),

	// Target proxies and target instances.
	"%s is required: %s.": apiDoc("TargetHttpProxy.urlMap", "URL to the UrlMap resource that defines the mapping from URL to\nthe BackendService."),
	"%s is empty: a proxy that ends TLS needs at least one SSL certificate (or a %s).": apiDoc("TargetSslProxy.sslCertificates",
		"At least one SSL certificate\nmust be specified."),
	"%s has %d certificates: a proxy takes at most %d.": apiDoc("TargetSslProxy.sslCertificates", "Currently, you may specify up to 15 SSL certificates."),
	"%s is empty: name an SSL certificate.":             apiDoc("TargetSslProxy.sslCertificates", "URLs to SslCertificate resources"),

	// SSL certificates.
	"%s is not a PEM certificate chain: %s.": apiDoc("SslCertificate.certificate", "The certificate file must\nbe in PEM format."),
	"%s has %d certificates: the chain must be no greater than %d certs long.": apiDoc("SslCertificate.certificate",
		"The certificate chain must be no greater than 5 certs\nlong."),
	"%s is required: the PEM certificate chain of a self-managed certificate.": apiDoc("SslCertificate.type",
		"If not specified, the certificate is self-managed and the fieldscertificate and private_key are used."),
	"%s is required: the PEM private key of the certificate.": apiDoc("SslCertificate.type",
		"If not specified, the certificate is self-managed and the fieldscertificate and private_key are used."),
	"%s is not a PEM private key (a \"-----BEGIN PRIVATE KEY-----\" block).":           apiDoc("SslCertificate.privateKey", "The private\nkey file must be in PEM format."),
	"%s is not a private key the API reads (PKCS #1, PKCS #8 or SEC 1, RSA or ECDSA).": cloud("the load balancer takes RSA and ECDSA keys, in the PEM encodings openssl writes."),
	"%s is not the key of %s: its public key is not the first certificate's.":          cloud("a self-managed certificate is refused when its private key does not match its certificate."),
	"%s and %s are both set: send the certificate and key once.":                       own("the top-level fields and selfManaged say the same thing; two different values would leave the certificate undecided."),
	"%s is set, but %s is not MANAGED: a self-managed certificate is a certificate and a private key.": apiDoc("SslCertificate.type",
		"If not specified, the certificate is self-managed and the fieldscertificate and private_key are used."),
	"%s is empty: a MANAGED certificate lists the domains to provision it for.": apiDoc("SslCertificateManagedSslCertificate.domains",
		"The domains for which a managed SSL certificate will be generated."),
	"%s is set on a MANAGED certificate: Google provisions a managed certificate; send only %s.": apiDoc("SslCertificateManagedSslCertificate.domains",
		"The domains for which a managed SSL certificate will be generated."),
	"%s has %d domains: a managed certificate covers at most %d.": apiDoc("SslCertificateManagedSslCertificate.domains",
		"Each\nGoogle-managed SSL certificate supports up to the [maximum number of\ndomains per Google-managed SSL\ncertificate]"),
	"%s (%q) is a wildcard: managed certificates do not cover wildcard domains.": cloud("Google-managed certificates refuse wildcard domains."),
	"%s (%q) is not a domain name (\"www.example.com\").": apiDoc("SslCertificateManagedSslCertificate.domains",
		"The domains for which a managed SSL certificate will be generated."),

	// SSL policies.
	"%s is empty: the CUSTOM profile enables only the features it lists.": apiDoc("SslPolicy.profile",
		"If usingCUSTOM, the set of SSL features to enable must be specified in\nthe customFeatures field."),
	"%s is set, but %s is not CUSTOM: this field must be empty if the profile is not CUSTOM.": apiDoc("SslPolicy.customFeatures",
		"This field must be empty if the profile is notCUSTOM."),
	"%s (%q) is not an SSL feature: one of %s.": apiDoc("SslPolicy.customFeatures",
		"method returns the set of features that can be\nspecified in this list."),
	"%s is TLS_1_3, so %s must be RESTRICTED.": apiDoc("SslPolicy.minTlsVersion", "When set to TLS_1_3, the profile field\nmust be set to RESTRICTED."),

	`%s (%q) must be an IPv6 range in CIDR form, such as "2600:1900:4000:1::/64".`: apiDoc("Subnetwork.externalIpv6Prefix",
		"The external IPv6 address range that is owned by this\nsubnetwork."),

	// The metadata keys of the emulator's simulated workloads.
	"%s (%q) of %s must be a number of seconds from 0 to %d: how long the instance boots before its workload answers.": own("lbhealth-boot-seconds is the emulator's key: a boot is a duration, and an hour bounds what a test waits for."),
	"%s (%q) of %s must be on or off: off runs no simulated workload on the instance.":                                 own("lbhealth-workload is the emulator's key: a workload runs, or not."),

	// Service attachments.
	"%s is required: the forwarding rule of the internal load balancer the attachment publishes.": apiDoc("ServiceAttachment.producerForwardingRule",
		"The URL of a forwarding rule with loadBalancingScheme INTERNAL* that is"),
	"%s is required: at least one subnetwork of purpose PRIVATE_SERVICE_CONNECT, whose addresses consumers' connections are translated to.": apiDoc("ServiceAttachment.natSubnets",
		"An array of URLs where each entry is the URL of a subnet provided"),
	"%s is required: ACCEPT_AUTOMATIC (every consumer) or ACCEPT_MANUAL (those of consumerAcceptLists).": apiDoc("ServiceAttachment.connectionPreference",
		"The connection preference of service attachment."),
	"%s must name one consumer: a projectIdOrNum, a networkUrl or an endpointUrl.": apiDoc("ServiceAttachment.consumerAcceptLists",
		"Specifies which consumer projects or networks are allowed to connect to the"),
	"%s is set, but %s named a %s: an attachment's consumers are all projects, all networks or all endpoints.": apiDoc("ServiceAttachment.consumerAcceptLists",
		"must contain either only projects or only networks or only"),

	// Backend buckets.
	"%s is required: the Cloud Storage bucket whose objects the backend serves.": apiDoc("BackendBucket.bucketName", "Cloud Storage bucket name."),
	"%s (%q) is not a Cloud Storage bucket name: 3 to 63 lower-case letters, digits, dashes, underscores or dots (222 with dots, 63 between them), starting and ending with a letter or digit.": cloud(
		"Cloud Storage refuses a bucket name outside its naming rules (3-63 characters of lower-case letters, digits, dashes, underscores and dots, up to 222 with dots, each part at most 63, starting and ending with a letter or number), and the Compute API a backend bucket that names no bucket."),

	// Autoscalers.
	"%s is required: the managed instance group the autoscaler resizes.": apiDoc("Autoscaler.target",
		"This\nfield is required when creating an autoscaler."),
	"%s is required: the most instances the autoscaler may make.": apiDoc("AutoscalingPolicy.maxNumReplicas",
		"is required when creating or updating an autoscaler."),
	"%s (%d) must not be less than 0.": apiDoc("AutoscalingPolicy.minNumReplicas", "This cannot be less than 0."),
	"%s (%d) must not be lower than %s (%d).": apiDoc("AutoscalingPolicy.maxNumReplicas",
		"of replicas must not be lower than minimal number of replicas."),
	"%s (%d) must not be negative: the seconds a new instance takes to initialize.": apiDoc("AutoscalingPolicy.coolDownPeriodSec",
		"The number of seconds that your application takes to initialize on a VM"),
	"%s (%g) must be in the range (0, 1].": apiDoc("AutoscalingPolicyCpuUtilization.utilizationTarget", "a float value in the range (0, 1]."),
	"%s (%g) must be a positive number.":   apiDoc("AutoscalingPolicyLoadBalancingUtilization.utilizationTarget", "Must be a positive float"),

	// Cloud Armor security policies.
	"%s (%d) repeats the priority of rules[%d]: each rule of a policy has its own priority.": cloud(
		"the Compute API refuses a policy with two rules of one priority, and addRule of a priority already taken."),
	"%s (%d) must be between 0 and %d.": apiDoc("SecurityPolicyRule.priority", "must be a positive value between 0 and 2147483647."),
	"%s is required: rules are evaluated from priority 0 (first) to %d (the default rule, last).": apiDoc("SecurityPolicyRule.priority", "Rules are evaluated from highest to lowest priority where 0 is the"),
	"%s (%q) is a global type: an edge policy filters at Google's edge, for global services; a regional policy is CLOUD_ARMOR or CLOUD_ARMOR_NETWORK.": cloud(
		"regional security policies are of type CLOUD_ARMOR or CLOUD_ARMOR_NETWORK; CLOUD_ARMOR_EDGE policies are global only."),
	"%s (%q) is not a Cloud Armor expression: %s.": apiDoc("SecurityPolicyRuleMatcher.expr", "User defined CEVAL expression."),
	"%s is %d characters long: an expression has at most %d.": cloud(
		"Cloud Armor refuses a custom rule expression longer than 2,048 characters."),
	"%s is required: a CEL condition over the request, such as inIpRange(origin.ip, '10.0.0.0/8').": apiDoc("Expr.expression",
		"Textual representation of an expression in Common Expression Language"),
	"%s (%q) is not an action of a CLOUD_ARMOR_EDGE policy: edge policies allow or deny.": cloud(
		"edge security policies take only allow and deny(STATUS) rules."),
	"%s (%q) is set on a %s policy: redirect is only supported in global policies of type CLOUD_ARMOR.": apiDoc("SecurityPolicyRule.action",
		"This action is only supported in Global Security"),
	"%s is set on a %s policy: headers are added only by global policies of type CLOUD_ARMOR.": apiDoc("SecurityPolicyRule.headerAction",
		"This field is only supported in Global Security Policies of type"),
	"%s is required: the name of the request header to add.": apiDoc("SecurityPolicyRuleHttpHeaderActionHttpHeaderOption.headerName", "The name of the header to set."),
	"%s is required: allow, deny(403), deny(404), deny(502), redirect, throttle or rate_based_ban.": apiDoc("SecurityPolicyRule.action",
		"The Action to perform when the rule is matched."),
	"%s (%q) must be allow, deny(403), deny(404), deny(502), redirect, throttle or rate_based_ban (or deny, in a CLOUD_ARMOR_NETWORK policy).": apiDoc("SecurityPolicyRule.action",
		"The Action to perform when the rule is matched."),
	"%s (%q) takes a status on a %s policy: deny(403), deny(404) or deny(502); a plain deny is for CLOUD_ARMOR_NETWORK policies.": cloud(
		"regional network security policies (CLOUD_ARMOR_NETWORK) take action deny, which drops packets; the other types deny with an HTTP status."),
	"%s is required when %s is %s: the threshold and what happens above it.": apiDoc("SecurityPolicyRule.action",
		"Configure parameters for this action in RateLimitOptions."),
	"%s is set, but %s is %q: rate limits go with action throttle or rate_based_ban.": cloud(
		"the Compute API refuses rateLimitOptions on a rule whose action is not throttle or rate_based_ban."),
	"%s is required when %s is redirect: where the redirect goes.": apiDoc("SecurityPolicyRule.action",
		"Parameters for this action can be configured"),
	"%s is set, but %s is %q: redirect options go with action redirect.": cloud(
		"the Compute API refuses redirectOptions on a rule whose action is not redirect."),
	"%s is set, but %s is %q: redirect options go with exceed action redirect.": apiDoc("SecurityPolicyRuleRateLimitOptions.exceedRedirectOptions",
		"Cannot be specified if the exceed action is not redirect."),
	"%s is required: EXTERNAL_302 (to target) or GOOGLE_RECAPTCHA.":                   apiDoc("SecurityPolicyRuleRedirectOptions.type", "Type of the redirect action."),
	"%s is required when %s is EXTERNAL_302: the URL the client is sent to.":          apiDoc("SecurityPolicyRuleRedirectOptions.target", "This is required if the type is"),
	"%s (%q) must not be set when %s is GOOGLE_RECAPTCHA.":                            apiDoc("SecurityPolicyRuleRedirectOptions.target", "cannot be specified for GOOGLE_RECAPTCHA."),
	"%s is required: the count of requests in intervalSec above which the rule acts.": apiDoc("SecurityPolicyRuleRateLimitOptions.rateLimitThreshold", "Threshold at which to begin ratelimiting."),
	"%s must be at least 1: the number of requests allowed in the interval.":          apiDoc("SecurityPolicyRuleRateLimitOptionsThreshold.count", "Number of HTTP(S) requests for calculating the threshold."),
	"%s is required: one of %s seconds.":                                              apiDoc("SecurityPolicyRuleRateLimitOptionsThreshold.intervalSec", "Interval over which the threshold is computed."),
	"%s (%d) must be one of %s seconds.": cloud(
		"Cloud Armor counts rate limits over 10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700 or 3600 seconds, and refuses other intervals."),
	"%s (%q) must be allow: requests under the threshold pass.": apiDoc("SecurityPolicyRuleRateLimitOptions.conformAction", `Valid option is "allow" only.`),
	"%s is required: deny(403), deny(404), deny(429), deny(502) or redirect, for requests above the threshold.": apiDoc("SecurityPolicyRuleRateLimitOptions.exceedAction",
		"Action to take for requests that are above the configured rate limit"),
	"%s (%q) must be deny(403), deny(404), deny(429), deny(502) or redirect.": apiDoc("SecurityPolicyRuleRateLimitOptions.exceedAction",
		"are 403, 404, 429, and 502, and"),
	"%s is set, but %s is %q: a ban goes with action rate_based_ban.": apiDoc("SecurityPolicyRuleRateLimitOptions.banThreshold",
		"Can only be specified if the action for the rule is"),
	"%s (%d) must be at least 1: the seconds a client stays banned.": apiDoc("SecurityPolicyRuleRateLimitOptions.banDurationSec",
		"determines the time (in seconds)"),
	"%s is required when %s is %s: the name of the header or cookie counted by.": apiDoc("SecurityPolicyRuleRateLimitOptions.enforceOnKey",
		`header whose name is configured under "enforceOnKeyName".`),
	"%s (%q) is set, but %s is %q: a key name goes with HTTP_HEADER or HTTP_COOKIE.": cloud(
		"the Compute API refuses enforceOnKeyName unless enforceOnKey is HTTP_HEADER or HTTP_COOKIE."),
	"%s is required: the requests the rule acts on, by source range (versionedExpr SRC_IPS_V1 with config.srcIpRanges) or by a CEL expression (expr).": cloud(
		"the Compute API refuses a rule of a CLOUD_ARMOR or CLOUD_ARMOR_EDGE policy without a match."),
	"%s is set with %s: a rule matches by source ranges or by an expression, not both.": cloud(
		"the Compute API refuses a matcher that sets both versionedExpr and expr."),
	"%s is set without %s: source ranges go with versionedExpr SRC_IPS_V1.": apiDoc("SecurityPolicyRuleMatcher.config",
		"This field must be specified if versioned_expr is specified and cannot"),
	"%s is required when %s is %s: the source ranges the rule matches (\"*\" for all).": apiDoc("SecurityPolicyRuleMatcher.versionedExpr",
		"If this field is specified, config must also be specified."),
	"%s lists %d ranges: a rule takes at most %d.":                                          apiDoc("SecurityPolicyRuleMatcherConfig.srcIpRanges", "Maximum number of src_ip_ranges allowed is 10."),
	"%s (%q) must be \"*\", an IP address or a range in CIDR form, such as \"10.0.0.0/8\".": apiDoc("SecurityPolicyRuleMatcherConfig.srcIpRanges", "CIDR IP address range."),
	"%s has no default rule: add one with priority %d that matches every request (versionedExpr SRC_IPS_V1, srcIpRanges [\"*\"]), or send no rules to get an allow-all default.": apiDoc("SecurityPolicy.rules",
		"There must always be a default rule which is a rule with priority"),
	"%s of the default rule (priority %d) must match every request: versionedExpr SRC_IPS_V1 with srcIpRanges [\"*\"].": apiDoc("SecurityPolicy.rules",
		"2147483647 and match all condition (for the match condition this means"),

	// Cloud Routers and their NATs.
	"%s is required: the network the router serves.":             apiDoc("Router.network", "URI of the network to which this router belongs."),
	"%s is required: the router's own autonomous system number.": apiDoc("RouterBgp.asn", "Local BGP Autonomous System Number (ASN)."),
	"%s (%d) must be a private ASN (64512-65534 or 4200000000-4294967294), or %d for Partner Interconnect.": apiDoc("RouterBgp.asn",
		"Must be anRFC6996 private ASN, either 16-bit or 32-bit."),
	"%s is set, but %s is %q: custom advertisements need %s CUSTOM.": apiDoc("RouterBgp.advertisedGroups",
		"This field can only be populated if advertise_mode is CUSTOM"),
	"%s (%q) repeats another interface's name: each interface of a router has its own.": own("a BGP peer names its interface: two of one name would leave the peer's interface ambiguous."),
	"%s (%q) repeats another peer's name: each BGP peer of a router has its own.":       own("the router's status reports each peer by its name."),
	"%s (%q) repeats another NAT's name: each NAT of a router has its own.":             apiDoc("RouterNat.name", "Unique name of this Nat service."),
	"%s is required: the router interface the BGP session runs on.":                     apiDoc("RouterBgpPeer.interfaceName", "Name of the interface the BGP peer is associated with."),
	"%s (%q) names no interface of this router: add it to %s first.":                    apiDoc("RouterBgpPeer.interfaceName", "Name of the interface the BGP peer is associated with."),
	"%s is required: the peer's autonomous system number.":                              apiDoc("RouterBgpPeer.peerAsn", "Peer BGP Autonomous System Number (ASN)."),
	"%s (%q) names no key of %s.": apiDoc("RouterBgpPeer.md5AuthenticationKeyName",
		"Must be the\nname of one of the entries in the Router.md5_authentication_keys."),
	"%s is required: AUTO_ONLY (Google allocates the NAT addresses) or MANUAL_ONLY (%s names them).": cloud("a public NAT without natIpAllocateOption is refused; a PRIVATE one allocates no addresses."),
	"%s is empty: a MANUAL_ONLY NAT needs at least one address to translate to.": apiDoc("RouterNat.natIpAllocateOption",
		"MANUAL_ONLY: Uses only Nat IP addresses provided by\n   customers."),
	"%s is set, but %s is AUTO_ONLY: Google allocates those addresses; use MANUAL_ONLY to name them.": apiDoc("RouterNat.natIpAllocateOption",
		"When choosing AUTO_ONLY, then nat_ip should\n   be empty."),
	"%s is required: %s, %s or %s.": cloud("a NAT without sourceSubnetworkIpRangesToNat (its default is UNSPECIFIED) is refused."),
	"%s is empty: a LIST_OF_SUBNETWORKS NAT needs the subnetworks it serves.": apiDoc("RouterNat.sourceSubnetworkIpRangesToNat",
		"LIST_OF_SUBNETWORKS: A list of Subnetworks are allowed to Nat\n   (specified in the field subnetwork below)"),
	"%s is set, but %s is %q: list subnetworks only with LIST_OF_SUBNETWORKS.": apiDoc("RouterNat.subnetworks",
		"It is used only when LIST_OF_SUBNETWORKS is selected"),
	"%s is required: the subnetwork the NAT serves.": apiDoc("RouterNatSubnetworkToNat.name", "URL for the subnetwork resource that will use NAT."),
	"%s (%q) is listed twice.":                       own("a subnetwork's traffic is translated by one NAT config; listing it twice says nothing more."),
	"%s (%d) must be a power of two between %d and %d with dynamic port allocation.": apiDoc("RouterNat.maxPortsPerVm",
		"it must be\nset to a power of two greater than minPortsPerVm, or 64 if minPortsPerVm\nis not set."),
	"%s (%d) must be above %s (%d).": apiDoc("RouterNat.maxPortsPerVm", "a power of two greater than minPortsPerVm"),
	"%s (%q) must be a larger range that holds the subnetwork's range (%s): a subnetwork's range only grows.": apiDoc("SubnetworksExpandIpCidrRangeRequest.ipCidrRange",
		"This range can only be larger than (i.e. a superset\nof) the range previously defined before the update."),
	"%s (%v) is set: Field bgp_always_compare_med is not supported for LEGACY BGP Best Path Selection algorithm; set %s to STANDARD, or clear it (null, or %s true).": cloud(
		"the API's own words, which terraform-provider-google's TestAccComputeNetwork_bgpModeAndMedInteractions expects when a network " +
			"that kept bgpAlwaysCompareMed (even false) is patched to LEGACY; its deleteBgpAlwaysCompareMed clears it."),
}

// limitSources cites the source of each limit and default, by constant.
var limitSources = map[string]source{
	"MaxBootSeconds":                 own("an instance's simulated boot is bounded by an hour, what a test could wait for at most."),
	"MinKeepalive":                   apiDoc("RouterBgp.keepaliveInterval", "If set, this value must be between 20 and 60."),
	"MaxSrcIPRanges":                 apiDoc("SecurityPolicyRuleMatcherConfig.srcIpRanges", "Maximum number of src_ip_ranges allowed is 10."),
	"MaxKeepalive":                   apiDoc("RouterBgp.keepaliveInterval", "If set, this value must be between 20 and 60."),
	"DefaultRoutePriority":           apiDoc("Route.priority", "The default value is `1000`."),
	"MaxRoutePriority":               cloud("a BGP peer's advertised route priority is 0 to 65535 (the Cloud Router's documentation)."),
	"GoogleASN":                      cloud("a router for Partner Interconnect must use ASN 16550, Google's."),
	"MinNatPorts":                    cloud("a NAT without dynamic port allocation takes 2 to 65536 ports per VM."),
	"MaxNatPorts":                    apiDoc("RouterNat.maxPortsPerVm", "a maximum of 65536 ports will be allocated to a VM"),
	"MinDynamicNatPorts":             cloud("with dynamic port allocation the minimum ports per VM is a power of two from 32."),
	"MaxDynamicMinPorts":             cloud("with dynamic port allocation the minimum ports per VM is at most 32768, below the largest maximum."),
	"MinDynamicMaxPorts":             apiDoc("RouterNat.maxPortsPerVm", "or 64 if minPortsPerVm\nis not set."),
	"DefaultHealthyPercentThreshold": seed(compositeHE, "ערך ברירת המחדל הוא 60%"),
	"DefaultMinHealthyThreshold":     apiDoc("HealthAggregationPolicy.minHealthyThreshold", "Defaults to 1. Must be positive."),
	"MaxMinHealthyThreshold":         own("the field is a uint32 in the discovery document, which states no other bound than \"Must be positive\"."),
	"MinHealthSources":               apiDoc("CompositeHealthCheck.healthSources", "Must have at least 1."),
	"MaxHealthSources":               seed(compositeHE, "חייב להפנות ל-1 עד 10 מקורות מידע"),
	"MaxRulePorts":                   apiDoc("ForwardingRule.ports", "You can specify a list of up to five ports by number"),
	"DefaultCheckIntervalSec":        apiDoc("HealthCheck.checkIntervalSec", "The default value is 5\nseconds."),
	"DefaultTimeoutSec":              apiDoc("HealthCheck.timeoutSec", "The default value is\n5 seconds."),
	"DefaultHealthyThreshold":        apiDoc("HealthCheck.healthyThreshold", "The default value is 2."),
	"DefaultUnhealthyThreshold":      apiDoc("HealthCheck.unhealthyThreshold", "The default value is 2."),
	"MinSeconds":                     cloud("checkIntervalSec and timeoutSec take 1 to 300 seconds."),
	"MaxSeconds":                     cloud("checkIntervalSec and timeoutSec take 1 to 300 seconds."),
	"MinThreshold":                   cloud("healthyThreshold and unhealthyThreshold take 1 to 10."),
	"MaxThreshold":                   cloud("healthyThreshold and unhealthyThreshold take 1 to 10."),
	"MinPort":                        rangeOfPorts,
	"MaxPort":                        rangeOfPorts,
	"DefaultRequestPath":             apiDoc("HTTPHealthCheck.requestPath", "The default value is/."),
	"SourceRegionsCount":             apiDoc("HealthCheck.sourceRegions", "exactly 3 regions should be specified."),
	"SourceRegionsMinIntervalSec":    apiDoc("HealthCheck.sourceRegions", "The checkIntervalSec field must be at least 30."),
	"MaxDescriptionLength":           cloud("a description is at most 2,048 characters."),
	"MinMTU":                         apiDoc("Network.mtu", "The minimum value for this field is 1300 and the maximum value is 8896."),
	"MaxMTU":                         apiDoc("Network.mtu", "The minimum value for this field is 1300 and the maximum value is 8896."),
	"MinSubnetPrefix":                cloud("a subnetwork's primary IPv4 range is /8 at the largest and /29 at the smallest."),
	"MaxSubnetPrefix":                cloud("a subnetwork's primary IPv4 range is /8 at the largest and /29 at the smallest."),
	"MaxFirewallPriority":            apiDoc("Firewall.priority", "This is an integer between `0` and `65535`, both inclusive."),
	"DefaultRoutingMode": cloud("a network made without routingConfig reads back routingMode REGIONAL " +
		"(terraform-provider-google's TestAccComputeNetwork_default_routing_mode expects it)."),
	"DefaultBgpPathSelection": apiDoc("NetworkRoutingConfig.bgpBestPathSelectionMode", "Can be LEGACY\n(default) or STANDARD."),
	"DefaultBgpInterRegionCost": own("the inter-region cost in force under the STANDARD selection when none is named " +
		"(effectiveBgpInterRegionCost): DEFAULT, the choice that adds nothing to the MED; no document names it."),
	"DefaultPriority":           apiDoc("Firewall.priority", "The default value is `1000`."),
	"MaxNetworkInterface":       cloud("an instance has at most 8 network interfaces."),
	"MinMadeDiskSizeGB":         apiDoc("AttachedDiskInitializeParams.diskSizeGb", "The size must be at least\n10 GB."),
	"PublicImageSizeGB":         own("the emulator's public images hold nothing; they are 10 GB, the size of Google's Debian images."),
	"DefaultBlankDiskSizeGB":    apiDoc("AttachedDiskInitializeParams.diskSizeGb", "If you do not specify a sourceImage, the default disk size\nis 500 GB."),
	"MaxDiskSizeGB":             cloud("a persistent disk is at most 64 TB (65,536 GB)."),
	"DefaultDiskType":           apiDoc("AttachedDiskInitializeParams.diskType", "the\n       default disk type is Standard Persistent Disk\n       (pd-standard)."),
	"MaxBaseInstanceNameLength": apiDoc("InstanceGroupManager.baseInstanceName", "The maximum character length is 58"),
	"MaxInitialDelaySec":        apiDoc("InstanceGroupManagerAutoHealingPolicy.initialDelaySec", "The value of initial delay must be between 0 and 3600\nseconds."),
	"MaxManagedInstances":       own("each managed instance is a stored resource and a probe target; 1,000 keeps a group's writes small."),
	"MaxASCIILength":            asciiDoc,
	"DefaultDNSQueryType":       own("an address record is what a probe of a name most often asks for, as blackbox_exporter's dns prober defaults to."),
	"DefaultDNSRcode":           own("a name that resolves is NOERROR (RFC 1035), what a healthy server answers."),
	"DefaultHeloDomain":         own("a probe has no domain of its own; localhost is what a mail client on the prober's host would say."),
	"FTPSExplicit":              own("RFC 4217: AUTH TLS on the control connection after the greeting."),
	"FTPSImplicit":              own("TLS from the first byte, as FTPS servers on port 990 speak it."),
	"DefaultFTPSMode":           own("RFC 4217's explicit mode is the standard one, on the FTP port."),
	"DefaultLDAPFilter":         own("RFC 4512: every entry has an objectClass, so the search finds any entry under the base."),
	"SQLPostgres":               own("PostgreSQL is the database Debian runs here, and what most load-balanced services use."),
	"SQLOracle":                 seed(applianceTR, "Oracle"),
	"DefaultPostgresQuery":      own("the cheapest query that returns a row."),
	"DefaultOracleQuery":        own("Oracle's cheapest query that returns a row: SELECT needs a FROM, and DUAL has one row."),
	"ScenarioAnd":               seed(applianceTR, "and / or ile birleştirir"),
	"ScenarioOr":                seed(applianceTR, "and / or ile birleştirir"),
	"MaxScenarioChecks":         own("every probe of a scenario runs all its checks: eight bounds what one probe costs."),
	"MaxDNSNameLength":          own("RFC 1035 bounds a name at 255 octets on the wire, 253 characters written without the final dot."),
	"MaxProxyCertificates":      apiDoc("TargetSslProxy.sslCertificates", "Currently, you may specify up to 15 SSL certificates."),
	"MaxCertificateChain":       apiDoc("SslCertificate.certificate", "The certificate chain must be no greater than 5 certs\nlong."),
	"MaxManagedDomains":         cloud("a Google-managed certificate covers at most 100 domains (the load balancer's quota page)."),
	"MaxServiceWeight":          apiDoc("WeightedBackendService.weight", "The value must be from 0 to 1000."),
	"MaxHostLength":             cloud("a Host header value is at most 255 characters, the longest DNS name."),
}

func TestEveryRuleHasASource(t *testing.T) {
	formats, consts := rulesOfPackage(t)
	var missing []string
	for _, s := range formats {
		if _, ok := messageSources[s]; !ok {
			missing = append(missing, "message "+strconv.Quote(s))
		}
	}
	for _, c := range consts {
		if _, ok := limitSources[c]; !ok {
			missing = append(missing, "constant "+c)
		}
	}
	for _, m := range missing {
		t.Errorf("%s has no source in sources_test.go", m)
	}
	for s := range messageSources {
		if !contains(formats, s) {
			t.Errorf("messageSources cites %q, which no rule reports", s)
		}
	}
	for c := range limitSources {
		if !contains(consts, c) {
			t.Errorf("limitSources cites %s, which is not a constant of the package", c)
		}
	}
}

func TestSourcesQuoteTheirDocuments(t *testing.T) {
	descriptions := discoveryDescriptions(t)
	seeds := os.Getenv("LBHEALTH_SEEDS")
	if seeds == "" {
		seeds = filepath.Join("..", "..", "..", "shared", "seeds")
	}
	checked := 0
	check := func(key string, src source) {
		switch src.kind {
		case fromAPI:
			d, ok := descriptions[src.where]
			if !ok {
				t.Errorf("%s: the discovery document has no field %s", key, src.where)
			} else if !strings.Contains(d, src.quote) {
				t.Errorf("%s: the description of %s does not say %q", key, src.where, src.quote)
			}
		case fromSeed:
			b, err := os.ReadFile(filepath.Join(seeds, src.where))
			if err != nil {
				return // the overviews are not part of the repository
			}
			checked++
			if !strings.Contains(string(b), src.quote) {
				t.Errorf("%s: %s does not say %q", key, src.where, src.quote)
			}
		default:
			if src.quote == "" {
				t.Errorf("%s: a source of the API's behaviour or of the emulator's own rule must say what it is", key)
			}
		}
	}
	for k, src := range messageSources {
		check(strconv.Quote(k), src)
	}
	for k, src := range limitSources {
		check(k, src)
	}
	t.Logf("quotes of the overviews checked against %s: %d", seeds, checked)
}

// rulesOfPackage lists the format string of every violation the package's
// rules build and every exported constant it declares.
func rulesOfPackage(t *testing.T) (formats, consts []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "violation" && len(n.Args) >= 2 {
					s, ok := stringConstant(n.Args[1])
					if !ok {
						t.Errorf("%s: the format of a violation must be a string constant, so that its source can be cited", fset.Position(n.Pos()))
					}
					formats = append(formats, s)
				}
			case *ast.GenDecl:
				if n.Tok == token.CONST {
					for _, spec := range n.Specs {
						for _, id := range spec.(*ast.ValueSpec).Names {
							if id.IsExported() {
								consts = append(consts, id.Name)
							}
						}
					}
				}
			}
			return true
		})
	}
	sort.Strings(formats)
	return formats, consts
}

func stringConstant(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		a, okA := stringConstant(e.X)
		b, okB := stringConstant(e.Y)
		return a + b, okA && okB && e.Op == token.ADD
	}
	return "", false
}

// discoveryDescriptions reads the description of every field of the
// discovery document, keyed "Schema.field"; the fields of an array's items
// are under the array's own key.
func discoveryDescriptions(t *testing.T) map[string]string {
	t.Helper()
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "google.golang.org/api").Output()
	if err != nil {
		t.Fatalf("find google.golang.org/api (go mod download): %v", err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "compute", "v1", "compute-api.json"))
	if err != nil {
		t.Fatal(err)
	}
	type property struct {
		Description string                                    `json:"description"`
		Items       *struct{ Properties map[string]property } `json:"items"`
	}
	var doc struct {
		Schemas map[string]struct {
			Properties map[string]property `json:"properties"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, s := range doc.Schemas {
		for field, p := range s.Properties {
			text := p.Description
			if p.Items != nil {
				for _, item := range p.Items.Properties {
					text += "\n" + item.Description
				}
			}
			out[name+"."+field] = text
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
