package compute

import (
	"context"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Scope prefixes of the request paths.
const (
	projectPath  = "/compute/v1/projects/{project}/"
	globalPath   = projectPath + "global/"
	regionalPath = projectPath + "regions/{region}/"
	zonalPath    = projectPath + "zones/{zone}/"
)

// verbs are the handlers every collection has.
type verbs interface {
	Insert(*googleapi.Call) (any, error)
	Get(*googleapi.Call) (any, error)
	List(*googleapi.Call) (any, error)
	Update(*googleapi.Call) (any, error)
	Patch(*googleapi.Call) (any, error)
	Delete(*googleapi.Call) (any, error)
	AggregatedList(*googleapi.Call) (any, error)
	SetLabels(*googleapi.Call) (any, error)
	Holder() (core.Holder, bool)
}

// handlers are a collection's verbs and its custom methods, by name.
type handlers struct {
	verbs   verbs
	methods map[string]googleapi.Handler
}

// collectionHandlers are the handlers of every collection of the catalogue
// (api.Catalogue), by collection name: a collection's file in this package
// writes them, this table puts them together.
func (s *Service) collectionHandlers() map[string]handlers {
	b, f, fl, n := backends{s.API}, frontends{s.API}, fleet{s.API}, networking{s.API}
	return map[string]handlers{
		api.CollectionHealthChecks: {verbs: b.healthChecks()},
		api.CollectionNetworkEndpointGroups: {verbs: b.networkEndpointGroups(), methods: map[string]googleapi.Handler{
			"attachNetworkEndpoints": b.attachNetworkEndpoints,
			"detachNetworkEndpoints": b.detachNetworkEndpoints,
			"listNetworkEndpoints":   b.listNetworkEndpoints,
		}},
		api.CollectionBackendServices: {verbs: b.backendServices(), methods: map[string]googleapi.Handler{
			"getHealth":             b.backendServiceHealth,
			"setSecurityPolicy":     f.backendServiceSetSecurityPolicy,
			"setEdgeSecurityPolicy": f.backendServiceSetEdgeSecurityPolicy,
		}},
		api.CollectionHTTPHealthChecks:  {verbs: b.legacyHealthChecks(api.CollectionHTTPHealthChecks)},
		api.CollectionHTTPSHealthChecks: {verbs: b.legacyHealthChecks(api.CollectionHTTPSHealthChecks)},
		api.CollectionTargetPools: {verbs: b.targetPools(), methods: map[string]googleapi.Handler{
			"getHealth":         b.targetPoolHealth,
			"addInstance":       b.targetPoolAddInstance,
			"removeInstance":    b.targetPoolRemoveInstance,
			"addHealthCheck":    b.targetPoolAddHealthCheck,
			"removeHealthCheck": b.targetPoolRemoveHealthCheck,
		}},
		api.CollectionForwardingRules: {verbs: f.forwardingRules(), methods: map[string]googleapi.Handler{"setTarget": f.forwardingRuleSetTarget}},
		api.CollectionInstances:       {verbs: fl.instances()},
		api.CollectionDisks:           {verbs: fl.disks()},
		api.CollectionInstanceGroups: {verbs: fl.instanceGroups(), methods: map[string]googleapi.Handler{
			"addInstances":    fl.instanceGroupAddInstances,
			"removeInstances": fl.instanceGroupRemoveInstances,
			"listInstances":   fl.instanceGroupListInstances,
			"setNamedPorts":   fl.instanceGroupSetNamedPorts,
		}},
		api.CollectionInstanceTemplates: {verbs: fl.instanceTemplates()},
		api.CollectionInstanceGroupManagers: {verbs: fl.instanceGroupManagers(), methods: map[string]googleapi.Handler{
			"resize":               fl.managerResize,
			"listManagedInstances": fl.managerListInstances,
			"recreateInstances":    fl.managerRecreateInstances,
		}},
		api.CollectionURLMaps: {verbs: f.urlMaps(), methods: map[string]googleapi.Handler{
			"validate":        f.urlMapValidate,
			"invalidateCache": f.urlMapInvalidateCache,
		}},
		api.CollectionBackendBuckets: {verbs: b.backendBuckets(), methods: map[string]googleapi.Handler{
			"setEdgeSecurityPolicy": b.backendBucketSetEdgeSecurityPolicy,
		}},
		api.CollectionSecurityPolicies: {verbs: f.securityPolicies(), methods: map[string]googleapi.Handler{
			"addRule":    f.securityPolicyAddRule,
			"getRule":    f.securityPolicyGetRule,
			"patchRule":  f.securityPolicyPatchRule,
			"removeRule": f.securityPolicyRemoveRule,
		}},
		api.CollectionTargetHTTPProxies: {verbs: f.targetHTTPProxies(), methods: map[string]googleapi.Handler{"setUrlMap": f.httpProxySetURLMap}},
		api.CollectionTargetHTTPSProxies: {verbs: f.targetHTTPSProxies(), methods: map[string]googleapi.Handler{
			"setUrlMap":          f.httpsProxySetURLMap,
			"setSslCertificates": f.httpsProxySetCertificates,
			"setQuicOverride":    f.httpsProxySetQuicOverride,
			"setSslPolicy":       f.httpsProxySetSSLPolicy,
		}},
		api.CollectionTargetTCPProxies: {verbs: f.targetTCPProxies(), methods: map[string]googleapi.Handler{
			"setBackendService": f.tcpProxySetBackendService,
			"setProxyHeader":    f.tcpProxySetProxyHeader,
		}},
		api.CollectionTargetSSLProxies: {verbs: f.targetSSLProxies(), methods: map[string]googleapi.Handler{
			"setBackendService":  f.sslProxySetBackendService,
			"setSslCertificates": f.sslProxySetCertificates,
			"setSslPolicy":       f.sslProxySetSSLPolicy,
			"setProxyHeader":     f.sslProxySetProxyHeader,
		}},
		api.CollectionTargetInstances:   {verbs: f.targetInstances()},
		api.CollectionTargetGrpcProxies: {verbs: f.targetGrpcProxies()},
		api.CollectionSSLCertificates:   {verbs: f.sslCertificates()},
		api.CollectionSSLPolicies:       {verbs: f.sslPolicies()},
		api.CollectionNetworks: {verbs: n.networks(), methods: map[string]googleapi.Handler{
			"getEffectiveFirewalls": n.networkEffectiveFirewalls,
		}},
		api.CollectionRoutes: {verbs: n.vpcRoutes()},
		api.CollectionSubnetworks: {verbs: n.subnetworks(), methods: map[string]googleapi.Handler{
			"expandIpCidrRange": n.subnetworkExpandIPCidrRange,
		}},
		api.CollectionFirewalls:                 {verbs: n.firewalls()},
		api.CollectionRouters:                   {verbs: n.routers(), methods: map[string]googleapi.Handler{"getRouterStatus": n.routerStatus}},
		api.CollectionAutoscalers:               {verbs: fl.autoscalers()},
		api.CollectionServiceAttachments:        {verbs: f.serviceAttachments()},
		api.CollectionAddresses:                 {verbs: f.addresses()},
		api.CollectionHealthAggregationPolicies: {verbs: b.healthAggregationPolicies()},
		api.CollectionHealthSources:             {verbs: b.healthSources(), methods: map[string]googleapi.Handler{"getHealth": b.healthSourceHealth}},
		api.CollectionCompositeHealthChecks:     {verbs: b.compositeHealthChecks(), methods: map[string]googleapi.Handler{"getHealth": b.compositeHealth}},
	}
}

// scopePaths are the request path prefixes of each scope.
var scopePaths = map[api.Scopes]string{api.Global: globalPath, api.Regional: regionalPath, api.Zonal: zonalPath}

// Route is one REST binding of a method of the API: the pattern it is
// served at ("GET /compute/v1/projects/{project}/global/healthChecks")
// and its handler.
type Route struct {
	Pattern string
	Handler googleapi.Handler
}

// Routes is the route table of the Compute API: its whole surface, in one
// place. Every collection of the catalogue is served in each of its scopes
// with the verbs and methods the catalogue gives it, and nothing else is:
// a collection or a method without handlers (or handlers without an entry)
// stops the emulator at start, and a test.
func (s *Service) Routes() []Route {
	var routes []Route
	add := func(pattern string, h googleapi.Handler) { routes = append(routes, Route{pattern, h}) }
	all := s.collectionHandlers()
	for _, c := range api.Catalogue {
		h, ok := all[c.Name]
		if !ok {
			panic("compute: collection " + c.Name + " is in the catalogue but has no handlers in collectionHandlers")
		}
		delete(all, c.Name)
		serveCollection(c, h, add)
	}
	for name := range all {
		panic("compute: collectionHandlers has handlers for " + name + ", which is not in the catalogue (internal/api/catalogue.go)")
	}

	// Public images, read only: what configurations look their boot disks
	// up in (images.go). They are not stored, so not in the catalogue.
	add("GET "+globalPath+"images/{name}", fleet{s.API}.getImage)
	add("GET "+globalPath+"images/family/{family}", fleet{s.API}.getImageFromFamily)
	// Regions, zones and machine types, read only (geography.go).
	add("GET "+projectPath+"regions", networking{s.API}.listRegions)
	add("GET "+projectPath+"regions/{region}", networking{s.API}.getRegion)
	add("GET "+projectPath+"zones", networking{s.API}.listZones)
	add("GET "+projectPath+"zones/{zone}", networking{s.API}.getZone)
	add("GET "+zonalPath+"machineTypes/{name}", networking{s.API}.getMachineType)

	for _, prefix := range []string{globalPath, regionalPath, zonalPath} {
		add("GET "+prefix+"operations", s.ListOperations)
		add("GET "+prefix+"operations/{name}", s.GetOperation)
		add("DELETE "+prefix+"operations/{name}", s.DeleteOperation)
		add("POST "+prefix+"operations/{name}/wait", s.GetOperation)
	}
	add("GET "+projectPath+"aggregated/operations", s.AggregatedListOperations)

	// The Compute API's own read of a project, and its Shared VPC methods
	// (shared_vpc.go).
	add("GET /compute/v1/projects/{project}", s.getComputeProject)
	for _, m := range []struct {
		pattern string
		h       googleapi.Handler
	}{
		{"POST enableXpnHost", s.enableXpnHost}, {"POST disableXpnHost", s.disableXpnHost},
		{"POST enableXpnResource", s.enableXpnResource}, {"POST disableXpnResource", s.disableXpnResource},
		{"GET getXpnHost", s.getXpnHost}, {"GET getXpnResources", s.getXpnResources}, {"POST listXpnHosts", s.listXpnHosts},
		{"GET aggregated/subnetworks/listUsable", s.listUsableSubnetworks},
	} {
		method, name, _ := strings.Cut(m.pattern, " ")
		add(method+" "+projectPath+name, m.h)
	}
	return routes
}

// serveCollection adds, in every scope of collection c: list and get;
// insert and delete where the catalogue writes it; update (PUT) and patch
// (PATCH) where the catalogue has them; setLabels for resources with
// labels; c's custom methods; and one aggregated list when the API has one.
func serveCollection(c api.Collection, h handlers, add func(pattern string, h googleapi.Handler)) {
	for _, sc := range c.Scopes.List() {
		path := scopePaths[sc] + c.Name
		if c.WritesIn(sc) {
			add("POST "+path, h.verbs.Insert)
			add("DELETE "+path+"/{name}", h.verbs.Delete)
		}
		add("GET "+path, h.verbs.List)
		add("GET "+path+"/{name}", h.verbs.Get)
		for _, u := range []struct {
			verb string
			fn   googleapi.Handler
		}{{"PUT", h.verbs.Update}, {"PATCH", h.verbs.Patch}} {
			switch {
			case !c.UpdatesIn(u.verb, sc):
			case c.UpdateByQuery != "":
				add(u.verb+" "+path, nameFromQuery(c.UpdateByQuery, u.fn))
			default:
				add(u.verb+" "+path+"/{name}", u.fn)
			}
		}
		if schema.Has(c.Schema(), "labels") && schema.Has(c.Schema(), "labelFingerprint") {
			add("POST "+path+"/{name}/setLabels", h.verbs.SetLabels)
		}
		for _, m := range c.Methods {
			fn, ok := h.methods[m.Name]
			if !ok {
				panic("compute: method " + c.Name + "." + m.Name + " is in the catalogue but has no handler")
			}
			if c.MethodScopes(m).Has(sc) {
				add(m.HTTP+" "+methodPath(c, m, sc)+"/{name}/"+m.Name, fn)
			}
		}
	}
	for name := range h.methods {
		if !slices.ContainsFunc(c.Methods, func(m api.Method) bool { return m.Name == name }) {
			panic("compute: a handler for " + c.Name + "." + name + " is written, but the catalogue has no such method")
		}
	}
	if schema.AggregatedKind(c.Schema()) != "" {
		add("GET "+projectPath+"aggregated/"+c.Name, h.verbs.AggregatedList)
	}
}

// nameFromQuery is fn for an update that names its resource by the query
// parameter param instead of the path.
func nameFromQuery(param string, fn googleapi.Handler) googleapi.Handler {
	return func(r *googleapi.Call) (any, error) {
		name := r.Query().Get(param)
		if name == "" {
			return nil, googleapi.Invalid("%s is required: the name of the resource to update, as ?%s=NAME.", param, param)
		}
		r.SetPathValue("name", name)
		return fn(r)
	}
}

// methodPath is the path of collection c in scope sc that method m is
// served under: the collection's, but for the global methods whose path
// the API writes without "global/".
func methodPath(c api.Collection, m api.Method, sc api.Scopes) string {
	if m.ProjectPath && sc == api.Global {
		return projectPath + c.Name
	}
	return scopePaths[sc] + c.Name
}

// Reset deletes everything, for test suites that share one emulator.
func (s *Service) Reset(ctx context.Context) error {
	s.Core().Lock()
	defer s.Core().Unlock()
	if err := s.Store.Reset(ctx); err != nil {
		return err
	}
	s.Refs.Reset()
	s.Core().Operations().Reset()
	s.Provisioned.Clear()
	s.Core().Changed(ctx, nil)
	s.Log.Info("reset: every resource deleted")
	return nil
}
