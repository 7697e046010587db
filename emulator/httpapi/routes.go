package httpapi

import (
	"net/http"
	"slices"
	"strings"

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
	insert(*http.Request) (any, error)
	get(*http.Request) (any, error)
	list(*http.Request) (any, error)
	update(*http.Request) (any, error)
	patch(*http.Request) (any, error)
	delete(*http.Request) (any, error)
	aggregatedList(*http.Request) (any, error)
	setLabels(*http.Request) (any, error)
	holder() (holder, bool)
}

func (s *Server) holding(collection string) bool {
	for _, h := range s.holders {
		if h.collection == collection {
			return true
		}
	}
	return false
}

// handlers are a collection's verbs and its custom methods, by name.
type handlers struct {
	verbs   verbs
	methods map[string]handler
}

// collectionHandlers are the handlers of every collection of the catalogue
// (api.Catalogue), by collection name: a collection's file in this package
// writes them, this table puts them together.
func (s *Server) collectionHandlers() map[string]handlers {
	return map[string]handlers{
		api.CollectionHealthChecks: {verbs: s.healthChecks()},
		api.CollectionNetworkEndpointGroups: {verbs: s.networkEndpointGroups(), methods: map[string]handler{
			"attachNetworkEndpoints": s.attachNetworkEndpoints,
			"detachNetworkEndpoints": s.detachNetworkEndpoints,
			"listNetworkEndpoints":   s.listNetworkEndpoints,
		}},
		api.CollectionBackendServices: {verbs: s.backendServices(), methods: map[string]handler{
			"getHealth":             s.backendServiceHealth,
			"setSecurityPolicy":     s.backendServiceSetSecurityPolicy,
			"setEdgeSecurityPolicy": s.backendServiceSetEdgeSecurityPolicy,
		}},
		api.CollectionHTTPHealthChecks:  {verbs: s.legacyHealthChecks(api.CollectionHTTPHealthChecks)},
		api.CollectionHTTPSHealthChecks: {verbs: s.legacyHealthChecks(api.CollectionHTTPSHealthChecks)},
		api.CollectionTargetPools: {verbs: s.targetPools(), methods: map[string]handler{
			"getHealth":         s.targetPoolHealth,
			"addInstance":       s.targetPoolAddInstance,
			"removeInstance":    s.targetPoolRemoveInstance,
			"addHealthCheck":    s.targetPoolAddHealthCheck,
			"removeHealthCheck": s.targetPoolRemoveHealthCheck,
		}},
		api.CollectionForwardingRules: {verbs: s.forwardingRules(), methods: map[string]handler{"setTarget": s.forwardingRuleSetTarget}},
		api.CollectionInstances:       {verbs: s.instances()},
		api.CollectionDisks:           {verbs: s.disks()},
		api.CollectionInstanceGroups: {verbs: s.instanceGroups(), methods: map[string]handler{
			"addInstances":    s.instanceGroupAddInstances,
			"removeInstances": s.instanceGroupRemoveInstances,
			"listInstances":   s.instanceGroupListInstances,
			"setNamedPorts":   s.instanceGroupSetNamedPorts,
		}},
		api.CollectionInstanceTemplates: {verbs: s.instanceTemplates()},
		api.CollectionInstanceGroupManagers: {verbs: s.instanceGroupManagers(), methods: map[string]handler{
			"resize":               s.managerResize,
			"listManagedInstances": s.managerListInstances,
			"recreateInstances":    s.managerRecreateInstances,
		}},
		api.CollectionURLMaps: {verbs: s.urlMaps(), methods: map[string]handler{
			"validate":        s.urlMapValidate,
			"invalidateCache": s.urlMapInvalidateCache,
		}},
		api.CollectionBackendBuckets: {verbs: s.backendBuckets(), methods: map[string]handler{
			"setEdgeSecurityPolicy": s.backendBucketSetEdgeSecurityPolicy,
		}},
		api.CollectionSecurityPolicies: {verbs: s.securityPolicies(), methods: map[string]handler{
			"addRule":    s.securityPolicyAddRule,
			"getRule":    s.securityPolicyGetRule,
			"patchRule":  s.securityPolicyPatchRule,
			"removeRule": s.securityPolicyRemoveRule,
		}},
		api.CollectionTargetHTTPProxies: {verbs: s.targetHTTPProxies(), methods: map[string]handler{"setUrlMap": s.httpProxySetURLMap}},
		api.CollectionTargetHTTPSProxies: {verbs: s.targetHTTPSProxies(), methods: map[string]handler{
			"setUrlMap":          s.httpsProxySetURLMap,
			"setSslCertificates": s.httpsProxySetCertificates,
			"setQuicOverride":    s.httpsProxySetQuicOverride,
			"setSslPolicy":       s.httpsProxySetSSLPolicy,
		}},
		api.CollectionTargetTCPProxies: {verbs: s.targetTCPProxies(), methods: map[string]handler{
			"setBackendService": s.tcpProxySetBackendService,
			"setProxyHeader":    s.tcpProxySetProxyHeader,
		}},
		api.CollectionTargetSSLProxies: {verbs: s.targetSSLProxies(), methods: map[string]handler{
			"setBackendService":  s.sslProxySetBackendService,
			"setSslCertificates": s.sslProxySetCertificates,
			"setSslPolicy":       s.sslProxySetSSLPolicy,
			"setProxyHeader":     s.sslProxySetProxyHeader,
		}},
		api.CollectionTargetInstances:           {verbs: s.targetInstances()},
		api.CollectionSSLCertificates:           {verbs: s.sslCertificates()},
		api.CollectionSSLPolicies:               {verbs: s.sslPolicies()},
		api.CollectionNetworks:                  {verbs: s.networks()},
		api.CollectionSubnetworks:               {verbs: s.subnetworks()},
		api.CollectionFirewalls:                 {verbs: s.firewalls()},
		api.CollectionRouters:                   {verbs: s.routers(), methods: map[string]handler{"getRouterStatus": s.routerStatus}},
		api.CollectionAutoscalers:               {verbs: s.autoscalers()},
		api.CollectionServiceAttachments:        {verbs: s.serviceAttachments()},
		api.CollectionAddresses:                 {verbs: s.addresses()},
		api.CollectionHealthAggregationPolicies: {verbs: s.healthAggregationPolicies()},
		api.CollectionHealthSources:             {verbs: s.healthSources(), methods: map[string]handler{"getHealth": s.healthSourceHealth}},
		api.CollectionCompositeHealthChecks:     {verbs: s.compositeHealthChecks(), methods: map[string]handler{"getHealth": s.compositeHealth}},
	}
}

// scopePaths are the request path prefixes of each scope.
var scopePaths = map[api.Scopes]string{api.Global: globalPath, api.Regional: regionalPath, api.Zonal: zonalPath}

// routes is the route table: the whole API surface, in one place. Every
// collection of the catalogue is served in each of its scopes with the
// verbs and methods the catalogue gives it, and nothing else is: a
// collection or a method without handlers (or handlers without an entry)
// stops the emulator at start, and a test.
func (s *Server) routes() {
	all := s.collectionHandlers()
	for _, c := range api.Catalogue {
		h, ok := all[c.Name]
		if !ok {
			panic("httpapi: collection " + c.Name + " is in the catalogue but has no handlers in collectionHandlers")
		}
		delete(all, c.Name)
		s.serveCollection(c, h)
	}
	for name := range all {
		panic("httpapi: collectionHandlers has handlers for " + name + ", which is not in the catalogue (internal/api/catalogue.go)")
	}

	// Public images, read only: what configurations look their boot disks
	// up in (images.go). They are not stored, so not in the catalogue.
	s.mux.HandleFunc("GET "+globalPath+"images/{name}", s.serve(s.getImage))
	s.mux.HandleFunc("GET "+globalPath+"images/family/{family}", s.serve(s.getImageFromFamily))
	// Regions, zones and machine types, read only (geography.go).
	s.mux.HandleFunc("GET "+projectPath+"regions", s.serve(s.listRegions))
	s.mux.HandleFunc("GET "+projectPath+"regions/{region}", s.serve(s.getRegion))
	s.mux.HandleFunc("GET "+projectPath+"zones", s.serve(s.listZones))
	s.mux.HandleFunc("GET "+projectPath+"zones/{zone}", s.serve(s.getZone))
	s.mux.HandleFunc("GET "+zonalPath+"machineTypes/{name}", s.serve(s.getMachineType))

	for _, prefix := range []string{globalPath, regionalPath, zonalPath} {
		s.mux.HandleFunc("GET "+prefix+"operations/{name}", s.serve(s.getOperation))
		s.mux.HandleFunc("POST "+prefix+"operations/{name}/wait", s.serve(s.getOperation))
	}

	// The Compute API's own read of a project.
	s.mux.HandleFunc("GET /compute/v1/projects/{project}", s.serve(s.getComputeProject))

	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("POST /_emulator/reset", s.serve(s.reset))
	if s.forward != nil {
		s.mux.HandleFunc("POST "+fastForwardPath, s.fastForward)
	}
	if s.scenarios != nil {
		s.mux.HandleFunc("POST "+scenariosPath, s.serve(s.startScenario))
		s.mux.HandleFunc("GET "+scenariosPath, s.serve(s.listScenarios))
		s.mux.HandleFunc("GET "+scenariosPath+"/{name}", s.serve(s.getScenario))
		s.mux.HandleFunc("DELETE "+scenariosPath+"/{name}", s.serve(s.stopScenario))
	}
	s.mux.HandleFunc("GET "+workloadsPath, s.serve(s.listWorkloads))
	s.mux.HandleFunc("POST "+workloadsPath+"/projects/{project}/zones/{zone}/instances/{name}", s.serve(s.setWorkload))
	s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	s.mux.HandleFunc("/", s.noRoute)
}

// serveCollection registers, in every scope of collection c: list and get;
// insert and delete where the catalogue writes it; update (PUT) and patch (PATCH) where the catalogue has
// them; setLabels for resources with labels; c's custom methods; and one
// aggregated list when the API has one.
func (s *Server) serveCollection(c api.Collection, h handlers) {
	if hd, ok := h.verbs.holder(); ok && !s.holding(hd.collection) {
		s.holders = append(s.holders, hd)
	}
	for _, sc := range c.Scopes.List() {
		path := scopePaths[sc] + c.Name
		if c.WritesIn(sc) {
			s.mux.HandleFunc("POST "+path, s.serve(h.verbs.insert))
			s.mux.HandleFunc("DELETE "+path+"/{name}", s.serve(h.verbs.delete))
		}
		s.mux.HandleFunc("GET "+path, s.serve(h.verbs.list))
		s.mux.HandleFunc("GET "+path+"/{name}", s.serve(h.verbs.get))
		for _, u := range []struct {
			verb string
			fn   handler
		}{{"PUT", h.verbs.update}, {"PATCH", h.verbs.patch}} {
			switch {
			case !c.UpdatesIn(u.verb, sc):
			case c.UpdateByQuery != "":
				s.mux.HandleFunc(u.verb+" "+path, s.serve(nameFromQuery(c.UpdateByQuery, u.fn)))
			default:
				s.mux.HandleFunc(u.verb+" "+path+"/{name}", s.serve(u.fn))
			}
		}
		if schema.Has(c.Schema(), "labels") && schema.Has(c.Schema(), "labelFingerprint") {
			s.mux.HandleFunc("POST "+path+"/{name}/setLabels", s.serve(h.verbs.setLabels))
		}
		for _, m := range c.Methods {
			fn, ok := h.methods[m.Name]
			if !ok {
				panic("httpapi: method " + c.Name + "." + m.Name + " is in the catalogue but has no handler")
			}
			if c.MethodScopes(m).Has(sc) {
				s.mux.HandleFunc(m.HTTP+" "+methodPath(c, m, sc)+"/{name}/"+m.Name, s.serve(fn))
			}
		}
	}
	for name := range h.methods {
		if !slices.ContainsFunc(c.Methods, func(m api.Method) bool { return m.Name == name }) {
			panic("httpapi: a handler for " + c.Name + "." + name + " is written, but the catalogue has no such method")
		}
	}
	if schema.AggregatedKind(c.Schema()) != "" {
		s.mux.HandleFunc("GET "+projectPath+"aggregated/"+c.Name, s.serve(h.verbs.aggregatedList))
	}
}

// nameFromQuery is fn for an update that names its resource by the query
// parameter param instead of the path.
func nameFromQuery(param string, fn handler) handler {
	return func(r *http.Request) (any, error) {
		name := r.URL.Query().Get(param)
		if name == "" {
			return nil, invalid("%s is required: the name of the resource to update, as ?%s=NAME.", param, param)
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

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// serveMetrics answers /metrics with Options.Metrics.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.metrics == nil {
		s.writeError(w, r, notRouted(r))
		return
	}
	s.metrics.ServeHTTP(w, r)
}

// reset deletes everything, for test suites that share one emulator.
func (s *Server) reset(r *http.Request) (any, error) {
	s.core.Lock()
	defer s.core.Unlock()
	if err := s.store.Reset(r.Context()); err != nil {
		return nil, err
	}
	s.refs.reset()
	s.core.Operations().Reset()
	s.provisioned.Clear()
	s.core.Changed(r.Context(), nil)
	s.log.Info("reset: every resource deleted")
	return map[string]string{"status": "reset"}, nil
}

// noRoute answers paths (and methods) the API does not have, in the API's
// error format rather than net/http's plain text. On the Compute API's
// paths a method a resource does not have is a 404, as the cloud answers;
// on the emulator's own paths (/_emulator/reset, /metrics, /healthz, the
// status page) it is a 405 that lists the methods the path has.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/compute/") {
		if allow := s.allowed(r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.writeError(w, r, googleapi.NewError(http.StatusMethodNotAllowed, "methodNotAllowed",
				r.URL.Path+" does not take "+r.Method+"; it takes "+strings.Join(allow, ", ")+"."))
			return
		}
	}
	s.writeError(w, r, notRouted(r))
}

func notRouted(r *http.Request) error { return googleapi.NotRouted(r) }

// allowed lists the methods that have a route for r's path other than the
// catch-all.
func (s *Server) allowed(r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}
