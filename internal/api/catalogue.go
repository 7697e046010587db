package api

import (
	"strings"
	"sync"
)

// The collections the emulator serves, by the path segment the Compute API
// gives each. Code names a collection by these constants, never by a string
// of its own.
const (
	CollectionHealthChecks              = "healthChecks"
	CollectionHTTPHealthChecks          = "httpHealthChecks"
	CollectionHTTPSHealthChecks         = "httpsHealthChecks"
	CollectionNetworkEndpointGroups     = "networkEndpointGroups"
	CollectionBackendServices           = "backendServices"
	CollectionTargetPools               = "targetPools"
	CollectionForwardingRules           = "forwardingRules"
	CollectionInstances                 = "instances"
	CollectionDisks                     = "disks"
	CollectionInstanceGroups            = "instanceGroups"
	CollectionInstanceTemplates         = "instanceTemplates"
	CollectionInstanceGroupManagers     = "instanceGroupManagers"
	CollectionNetworks                  = "networks"
	CollectionSubnetworks               = "subnetworks"
	CollectionFirewalls                 = "firewalls"
	CollectionAddresses                 = "addresses"
	CollectionHealthAggregationPolicies = "healthAggregationPolicies"
	CollectionHealthSources             = "healthSources"
	CollectionCompositeHealthChecks     = "compositeHealthChecks"
	CollectionURLMaps                   = "urlMaps"
	CollectionTargetHTTPProxies         = "targetHttpProxies"
	CollectionTargetHTTPSProxies        = "targetHttpsProxies"
	CollectionTargetTCPProxies          = "targetTcpProxies"
	CollectionTargetSSLProxies          = "targetSslProxies"
	CollectionTargetInstances           = "targetInstances"
	CollectionTargetGrpcProxies         = "targetGrpcProxies"
	CollectionSSLCertificates           = "sslCertificates"
	CollectionSSLPolicies               = "sslPolicies"
)

// Scopes is a set of the places a collection's resources live in.
type Scopes uint8

// The scopes of the Compute API: projects/p/global, projects/p/regions/r
// and projects/p/zones/z.
const (
	Global Scopes = 1 << iota
	Regional
	Zonal
)

// Has reports whether s includes every scope of t.
func (s Scopes) Has(t Scopes) bool { return s&t == t }

// List returns the single scopes of s, global first.
func (s Scopes) List() []Scopes {
	var out []Scopes
	for _, one := range []Scopes{Global, Regional, Zonal} {
		if s.Has(one) {
			out = append(out, one)
		}
	}
	return out
}

// Role says what a collection's resources decide besides being stored and
// referenced. The emulator hands every resource of a collection with a role
// to the part that acts on it, after each write and at start.
type Role uint8

const (
	// Stored resources decide nothing by themselves (forwarding rules,
	// networks, firewalls, addresses); they are kept, served and
	// referenced.
	Stored Role = iota
	// ProbeInput resources decide what the owners of probes probe: health
	// checks, endpoint groups and the instances endpoints name.
	ProbeInput
	// ProbeOwner resources own probes: each of their endpoints is probed
	// with their health check (backend services and target pools).
	ProbeOwner
	// Aggregated resources turn probe verdicts into the health of a
	// service or a region (aggregation policies, health sources,
	// composite checks).
	Aggregated
)

// Method is a custom method of a collection: "POST
// projects/p/.../targetPools/{name}/addInstance".
type Method struct {
	// HTTP is the request method; a method the API answers on two (getHealth
	// on GET and, for older clients, POST) is listed twice.
	HTTP string
	// Name is the path segment after the resource's name.
	Name string
	// Scopes the method is served in; 0 means every scope of the collection.
	Scopes Scopes
	// Requests are the schemas of its request bodies in the API's
	// description (the first is the one the emulator checks bodies
	// against; a regional variant of the same shape may follow), or none.
	Requests []string
	// Response is the schema of its answer, when it is not an Operation.
	Response string
	// ProjectPath: the global variant's path has no "global/" segment, as
	// the API writes some ("projects/p/targetHttpProxies/x/setUrlMap").
	ProjectPath bool
}

// Collection describes one collection of the Compute API that the emulator
// serves: everything about it that more than one part of the emulator or
// the provider needs to know.
type Collection struct {
	Name     string // the path segment: "healthChecks"
	Kind     string // "compute#healthCheck"
	ListKind string // "compute#healthCheckList"
	Scopes   Scopes
	// Updates are the whole-resource edits the API has for it besides
	// insert, get, list and delete: "PUT" (update), "PATCH" (patch).
	Updates []string
	// UpdateScopes are the scopes in which Updates are served; 0 means
	// every scope of the collection.
	UpdateScopes Scopes
	// WriteScopes are the scopes in which insert and delete are served; 0
	// means every scope of the collection. (A regional instance group is
	// read only: its managed group makes and deletes it.)
	WriteScopes Scopes
	Methods     []Method
	Role        Role
	// UpdateByQuery is the query parameter that names the resource of an
	// update (PUT, PATCH) sent to the collection's own path, as the API
	// writes autoscalers' (".../autoscalers?autoscaler=NAME"); "" when the
	// name is in the path.
	UpdateByQuery string
	// SharedAcrossProjects lets a resource of another project reference
	// it, as a Shared VPC's network and subnetworks are.
	SharedAcrossProjects bool
	// New returns a new zero value of the emulator's typed view of the
	// collection's resources (*HealthCheck for healthChecks).
	New func() any
}

// Schema is the name of the collection's schema in the API's description:
// its kind without the prefix, capitalised ("compute#healthCheck" is
// HealthCheck).
func (c Collection) Schema() string {
	if name, ok := schemaNames()[c.Kind]; ok {
		return name
	}
	return schemaName(c.Kind)
}

// schemaNames are the schema names of the catalogue's kinds, made once: a
// write asks for its collection's several times.
var schemaNames = sync.OnceValue(func() map[string]string {
	names := make(map[string]string, len(Catalogue))
	for _, c := range Catalogue {
		names[c.Kind] = schemaName(c.Kind)
	}
	return names
})

// schemaName is the schema of kind ("compute#healthCheck": "HealthCheck").
func schemaName(kind string) string {
	k := strings.TrimPrefix(kind, "compute#")
	return strings.ToUpper(k[:1]) + k[1:]
}

// WritesIn reports whether insert and delete are served in sc.
func (c Collection) WritesIn(sc Scopes) bool {
	if c.WriteScopes == 0 {
		return c.Scopes.Has(sc)
	}
	return c.WriteScopes.Has(sc)
}

// UpdatesIn reports whether update verb ("PUT", "PATCH") is served in sc.
func (c Collection) UpdatesIn(verb string, sc Scopes) bool {
	in := c.UpdateScopes
	if in == 0 {
		in = c.Scopes
	}
	for _, v := range c.Updates {
		if v == verb {
			return in.Has(sc)
		}
	}
	return false
}

// MethodScopes are the scopes method m is served in.
func (c Collection) MethodScopes(m Method) Scopes {
	if m.Scopes == 0 {
		return c.Scopes
	}
	return m.Scopes
}

func newOf[T any]() func() any { return func() any { return new(T) } }

var (
	putPatch  = []string{"PUT", "PATCH"}
	patchOnly = []string{"PATCH"}
)

// getHealth is the method of the collections that report health, answered
// with the schema response: a GET in the Compute API, also answered on
// POST for older clients.
func getHealth(response string, verbs ...string) []Method {
	var ms []Method
	for _, v := range verbs {
		ms = append(ms, Method{HTTP: v, Name: "getHealth", Response: response})
	}
	return ms
}

// Catalogue is every collection the emulator serves, in the order the API
// surface reads best. The route table, the synchronisation of the probe
// engine and the aggregator with the store, the reference checks, the
// schema generator and the provider read it: a collection that is not here
// is not served, and one that is here with a role cannot be left out of
// what acts on that role.
var Catalogue = []Collection{
	{Name: CollectionHealthChecks, Kind: KindHealthCheck, ListKind: KindHealthCheckList,
		Scopes: Global | Regional, Updates: putPatch, Role: ProbeInput, New: newOf[HealthCheck]()},
	{Name: CollectionNetworkEndpointGroups, Kind: KindNetworkEndpointGroup, ListKind: KindNetworkEndpointGroupList,
		// Global groups hold internet endpoints; the API has no update of
		// a group, and the emulator's PUT and PATCH of zonal and regional
		// ones replace their inline endpoints (an lbhealth extension).
		Scopes: Zonal | Regional | Global, Updates: putPatch, UpdateScopes: Zonal | Regional, Role: ProbeInput,
		New: newOf[NetworkEndpointGroup](),
		Methods: []Method{
			{HTTP: "POST", Name: "attachNetworkEndpoints",
				Requests: []string{"NetworkEndpointGroupsAttachEndpointsRequest", "RegionNetworkEndpointGroupsAttachEndpointsRequest"}},
			{HTTP: "POST", Name: "detachNetworkEndpoints",
				Requests: []string{"NetworkEndpointGroupsDetachEndpointsRequest", "RegionNetworkEndpointGroupsDetachEndpointsRequest"}},
			{HTTP: "POST", Name: "listNetworkEndpoints", Requests: []string{"NetworkEndpointGroupsListEndpointsRequest"},
				Response: "NetworkEndpointGroupsListNetworkEndpoints"},
		}},
	{Name: CollectionBackendServices, Kind: KindBackendService, ListKind: KindBackendServiceList,
		Scopes: Global | Regional, Updates: putPatch, Role: ProbeOwner, New: newOf[BackendService](),
		Methods: []Method{
			{HTTP: "POST", Name: "getHealth", Requests: []string{"ResourceGroupReference"}, Response: "BackendServiceGroupHealth"},
			{HTTP: "POST", Name: "setSecurityPolicy", Requests: []string{"SecurityPolicyReference"}},
			{HTTP: "POST", Name: "setEdgeSecurityPolicy", Scopes: Global, Requests: []string{"SecurityPolicyReference"}},
		}},
	{Name: CollectionHTTPHealthChecks, Kind: KindHTTPHealthCheck, ListKind: KindHTTPHealthCheckList,
		Scopes: Global, Updates: putPatch, Role: ProbeInput, New: newOf[LegacyHealthCheck]()},
	{Name: CollectionHTTPSHealthChecks, Kind: KindHTTPSHealthCheck, ListKind: KindHTTPSHealthCheckList,
		Scopes: Global, Updates: putPatch, Role: ProbeInput, New: newOf[LegacyHealthCheck]()},
	{Name: CollectionTargetPools, Kind: KindTargetPool, ListKind: KindTargetPoolList,
		Scopes: Regional, Updates: putPatch, Role: ProbeOwner, New: newOf[TargetPool](),
		Methods: []Method{
			{HTTP: "POST", Name: "getHealth", Requests: []string{"InstanceReference"}, Response: "TargetPoolInstanceHealth"},
			{HTTP: "POST", Name: "addInstance", Requests: []string{"TargetPoolsAddInstanceRequest"}},
			{HTTP: "POST", Name: "removeInstance", Requests: []string{"TargetPoolsRemoveInstanceRequest"}},
			{HTTP: "POST", Name: "addHealthCheck", Requests: []string{"TargetPoolsAddHealthCheckRequest"}},
			{HTTP: "POST", Name: "removeHealthCheck", Requests: []string{"TargetPoolsRemoveHealthCheckRequest"}},
		}},
	{Name: CollectionForwardingRules, Kind: KindForwardingRule, ListKind: KindForwardingRuleList,
		Scopes: Global | Regional, Updates: putPatch, Role: ProbeInput, New: newOf[ForwardingRule](),
		Methods: []Method{{HTTP: "POST", Name: "setTarget", Requests: []string{"TargetReference"}}}},
	// The load balancer's front end: what forwarding rules send traffic
	// to, and what a proxy ends TLS with.
	{Name: CollectionURLMaps, Kind: KindURLMap, ListKind: KindURLMapList,
		Scopes: Global | Regional, Updates: putPatch, Role: ProbeInput, New: newOf[URLMap](),
		Methods: []Method{
			{HTTP: "POST", Name: "validate", Requests: []string{"UrlMapsValidateRequest", "RegionUrlMapsValidateRequest"}, Response: "UrlMapsValidateResponse"},
			{HTTP: "POST", Name: "invalidateCache", Scopes: Global, Requests: []string{"CacheInvalidationRule"}},
		}},
	{Name: CollectionTargetHTTPProxies, Kind: KindTargetHTTPProxy, ListKind: KindTargetHTTPProxyList,
		Scopes: Global | Regional, Updates: patchOnly, UpdateScopes: Global, Role: ProbeInput, New: newOf[TargetHTTPProxy](),
		Methods: []Method{{HTTP: "POST", Name: "setUrlMap", Requests: []string{"UrlMapReference"}, ProjectPath: true}}},
	{Name: CollectionTargetHTTPSProxies, Kind: KindTargetHTTPSProxy, ListKind: KindTargetHTTPSProxyList,
		Scopes: Global | Regional, Updates: patchOnly, Role: ProbeInput, New: newOf[TargetHTTPSProxy](),
		Methods: []Method{
			{HTTP: "POST", Name: "setUrlMap", Requests: []string{"UrlMapReference"}, ProjectPath: true},
			{HTTP: "POST", Name: "setSslCertificates", ProjectPath: true,
				Requests: []string{"TargetHttpsProxiesSetSslCertificatesRequest", "RegionTargetHttpsProxiesSetSslCertificatesRequest"}},
			{HTTP: "POST", Name: "setQuicOverride", Scopes: Global, Requests: []string{"TargetHttpsProxiesSetQuicOverrideRequest"}},
			{HTTP: "POST", Name: "setSslPolicy", Scopes: Global, Requests: []string{"SslPolicyReference"}},
		}},
	{Name: CollectionTargetTCPProxies, Kind: KindTargetTCPProxy, ListKind: KindTargetTCPProxyList,
		Scopes: Global | Regional, Role: ProbeInput, New: newOf[TargetTCPProxy](),
		Methods: []Method{
			{HTTP: "POST", Name: "setBackendService", Scopes: Global, Requests: []string{"TargetTcpProxiesSetBackendServiceRequest"}},
			{HTTP: "POST", Name: "setProxyHeader", Scopes: Global, Requests: []string{"TargetTcpProxiesSetProxyHeaderRequest"}},
		}},
	{Name: CollectionTargetSSLProxies, Kind: KindTargetSSLProxy, ListKind: KindTargetSSLProxyList,
		Scopes: Global, Role: ProbeInput, New: newOf[TargetSSLProxy](),
		Methods: []Method{
			{HTTP: "POST", Name: "setBackendService", Requests: []string{"TargetSslProxiesSetBackendServiceRequest"}},
			{HTTP: "POST", Name: "setSslCertificates", Requests: []string{"TargetSslProxiesSetSslCertificatesRequest"}},
			{HTTP: "POST", Name: "setSslPolicy", Requests: []string{"SslPolicyReference"}},
			{HTTP: "POST", Name: "setProxyHeader", Requests: []string{"TargetSslProxiesSetProxyHeaderRequest"}},
		}},
	{Name: CollectionTargetInstances, Kind: KindTargetInstance, ListKind: KindTargetInstanceList,
		Scopes: Zonal, New: newOf[TargetInstance]()},
	// Proxyless gRPC: stored and followed, carries no traffic.
	{Name: CollectionTargetGrpcProxies, Kind: KindTargetGrpcProxy, ListKind: KindTargetGrpcProxyList,
		Scopes: Global, Updates: patchOnly, New: newOf[TargetGrpcProxy]()},
	{Name: CollectionSSLCertificates, Kind: KindSSLCertificate, ListKind: KindSSLCertificateList,
		Scopes: Global | Regional, New: newOf[SSLCertificate]()},
	{Name: CollectionSSLPolicies, Kind: KindSSLPolicy, ListKind: KindSSLPoliciesList,
		Scopes: Global | Regional, Updates: patchOnly, New: newOf[SSLPolicy]()},
	// Cloud Storage buckets behind a URL map: the data plane serves their
	// objects from a local directory.
	{Name: CollectionBackendBuckets, Kind: KindBackendBucket, ListKind: KindBackendBucketList,
		Scopes: Global | Regional, Updates: putPatch, New: newOf[BackendBucket](),
		Methods: []Method{{HTTP: "POST", Name: "setEdgeSecurityPolicy", Scopes: Global, Requests: []string{"SecurityPolicyReference"}}}},
	// Cloud Armor: the data plane enforces the policies of the backend
	// services it carries requests to.
	{Name: CollectionSecurityPolicies, Kind: KindSecurityPolicy, ListKind: KindSecurityPolicyList,
		Scopes: Global | Regional, Updates: patchOnly, New: newOf[SecurityPolicy](),
		Methods: []Method{
			{HTTP: "POST", Name: "addRule", Requests: []string{"SecurityPolicyRule"}},
			{HTTP: "GET", Name: "getRule", Response: "SecurityPolicyRule"},
			{HTTP: "POST", Name: "patchRule", Requests: []string{"SecurityPolicyRule"}},
			{HTTP: "POST", Name: "removeRule"},
		}},
	// The minimal compute resources around load balancing, with only the
	// verbs the Compute API has for them.
	{Name: CollectionInstances, Kind: KindInstance, ListKind: KindInstanceList,
		Scopes: Zonal, Role: ProbeInput, New: newOf[Instance]()},
	{Name: CollectionDisks, Kind: KindDisk, ListKind: KindDiskList,
		Scopes: Zonal, New: newOf[Disk]()},
	{Name: CollectionInstanceGroups, Kind: KindInstanceGroup, ListKind: KindInstanceGroupList,
		Scopes: Zonal | Regional, WriteScopes: Zonal, Role: ProbeInput, New: newOf[InstanceGroup](),
		Methods: []Method{
			{HTTP: "POST", Name: "addInstances", Scopes: Zonal, Requests: []string{"InstanceGroupsAddInstancesRequest"}},
			{HTTP: "POST", Name: "removeInstances", Scopes: Zonal, Requests: []string{"InstanceGroupsRemoveInstancesRequest"}},
			{HTTP: "POST", Name: "listInstances", Requests: []string{"InstanceGroupsListInstancesRequest", "RegionInstanceGroupsListInstancesRequest"},
				Response: "InstanceGroupsListInstances"},
			{HTTP: "POST", Name: "setNamedPorts", Requests: []string{"InstanceGroupsSetNamedPortsRequest", "RegionInstanceGroupsSetNamedPortsRequest"}},
		}},
	{Name: CollectionInstanceTemplates, Kind: KindInstanceTemplate, ListKind: KindInstanceTemplateList,
		Scopes: Global | Regional, New: newOf[InstanceTemplate]()},
	{Name: CollectionInstanceGroupManagers, Kind: KindInstanceGroupManager, ListKind: KindInstanceGroupManagerList,
		Scopes: Zonal | Regional, Updates: patchOnly, Role: ProbeOwner, New: newOf[InstanceGroupManager](),
		Methods: []Method{
			{HTTP: "POST", Name: "resize"},
			{HTTP: "POST", Name: "listManagedInstances", Response: "InstanceGroupManagersListManagedInstancesResponse"},
			{HTTP: "POST", Name: "recreateInstances", Requests: []string{"InstanceGroupManagersRecreateInstancesRequest"}},
		}},
	{Name: CollectionNetworks, Kind: KindNetwork, ListKind: KindNetworkList,
		Scopes: Global, Updates: patchOnly, SharedAcrossProjects: true, New: newOf[Network](),
		Methods: []Method{{HTTP: "GET", Name: "getEffectiveFirewalls", Response: "NetworksGetEffectiveFirewallsResponse"}}},
	{Name: CollectionRoutes, Kind: KindRoute, ListKind: KindRouteList,
		Scopes: Global, New: newOf[Route]()},
	{Name: CollectionSubnetworks, Kind: KindSubnetwork, ListKind: KindSubnetworkList,
		Scopes: Regional, Updates: patchOnly, SharedAcrossProjects: true, Role: ProbeInput, New: newOf[Subnetwork](),
		Methods: []Method{{HTTP: "POST", Name: "expandIpCidrRange", Requests: []string{"SubnetworksExpandIpCidrRangeRequest"}}}},
	{Name: CollectionFirewalls, Kind: KindFirewall, ListKind: KindFirewallList,
		Scopes: Global, Updates: putPatch, Role: ProbeInput, New: newOf[Firewall]()},
	// Cloud Routers and their NAT gateways: stored and validated, so that
	// the managed groups of real configurations (a Cloud NAT beside them
	// for their egress) apply; no traffic is translated.
	{Name: CollectionRouters, Kind: KindRouter, ListKind: KindRouterList,
		Scopes: Regional, Updates: putPatch, New: newOf[Router](),
		Methods: []Method{{HTTP: "GET", Name: "getRouterStatus", Response: "RouterStatusResponse"}}},
	// Private Service Connect: stored and validated; no consumer connects.
	{Name: CollectionServiceAttachments, Kind: KindServiceAttachment, ListKind: KindServiceAttachmentList,
		Scopes: Regional, Updates: patchOnly, New: newOf[ServiceAttachment]()},
	// Autoscalers resize the managed groups they target by the load the
	// data plane carries to them (control.Autoscaler).
	{Name: CollectionAutoscalers, Kind: KindAutoscaler, ListKind: KindAutoscalerList,
		Scopes: Zonal | Regional, Updates: putPatch, UpdateByQuery: "autoscaler", New: newOf[Autoscaler]()},
	{Name: CollectionAddresses, Kind: KindAddress, ListKind: KindAddressList,
		Scopes: Regional | Global, New: newOf[Address]()},
	{Name: CollectionHealthAggregationPolicies, Kind: KindHealthAggregationPolicy, ListKind: KindHealthAggregationPolicyList,
		Scopes: Regional, Updates: putPatch, Role: Aggregated, New: newOf[HealthAggregationPolicy]()},
	{Name: CollectionHealthSources, Kind: KindHealthSource, ListKind: KindHealthSourceList,
		Scopes: Regional, Updates: putPatch, Role: Aggregated, New: newOf[HealthSource](), Methods: getHealth("HealthSourceHealth", "GET", "POST")},
	{Name: CollectionCompositeHealthChecks, Kind: KindCompositeHealthCheck, ListKind: KindCompositeHealthCheckList,
		Scopes: Regional, Updates: putPatch, Role: Aggregated, New: newOf[CompositeHealthCheck](), Methods: getHealth("CompositeHealthCheckHealth", "GET", "POST")},
}

// CollectionNamed returns the catalogue's entry for name, or false when the
// emulator does not serve it.
func CollectionNamed(name string) (Collection, bool) {
	for _, c := range Catalogue {
		if c.Name == name {
			return c, true
		}
	}
	return Collection{}, false
}

// MustCollection is CollectionNamed for names the code itself writes: a
// name the catalogue lacks is a bug, and panics.
func MustCollection(name string) Collection {
	c, ok := CollectionNamed(name)
	if !ok {
		panic("collection " + name + " is not in the catalogue (internal/api/catalogue.go)")
	}
	return c
}

// CollectionsWith lists the collections of the catalogue whose role is one
// of roles, in catalogue order.
func CollectionsWith(roles ...Role) []Collection {
	var out []Collection
	for _, c := range Catalogue {
		for _, r := range roles {
			if c.Role == r {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
