package httpapi

import (
	"net/http"
	"slices"

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
	schemaName() string
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

// routes is the route table: the whole API surface, in one place.
func (s *Server) routes() {
	healthChecks := s.healthChecks()
	s.collection(globalPath+"healthChecks", healthChecks)
	s.collection(regionalPath+"healthChecks", healthChecks)

	groups := s.networkEndpointGroups()
	s.collection(zonalPath+"networkEndpointGroups", groups)
	s.collection(regionalPath+"networkEndpointGroups", groups)
	// Global groups hold internet endpoints (globalNetworkEndpointGroups).
	s.collectionWith(globalPath+"networkEndpointGroups", groups)
	for _, prefix := range []string{zonalPath, regionalPath, globalPath} {
		s.mux.HandleFunc("POST "+prefix+"networkEndpointGroups/{name}/attachNetworkEndpoints", s.serve(s.attachNetworkEndpoints))
		s.mux.HandleFunc("POST "+prefix+"networkEndpointGroups/{name}/detachNetworkEndpoints", s.serve(s.detachNetworkEndpoints))
		s.mux.HandleFunc("POST "+prefix+"networkEndpointGroups/{name}/listNetworkEndpoints", s.serve(s.listNetworkEndpoints))
	}

	services := s.backendServices()
	s.collection(globalPath+"backendServices", services)
	s.collection(regionalPath+"backendServices", services)
	s.mux.HandleFunc("POST "+globalPath+"backendServices/{name}/getHealth", s.serve(s.backendServiceHealth))
	s.mux.HandleFunc("POST "+regionalPath+"backendServices/{name}/getHealth", s.serve(s.backendServiceHealth))

	s.collection(globalPath+api.CollectionHTTPHealthChecks,
		s.legacyHealthChecks(api.CollectionHTTPHealthChecks, api.KindHTTPHealthCheck, api.KindHTTPHealthCheckList))
	s.collection(globalPath+api.CollectionHTTPSHealthChecks,
		s.legacyHealthChecks(api.CollectionHTTPSHealthChecks, api.KindHTTPSHealthCheck, api.KindHTTPSHealthCheckList))

	s.collection(regionalPath+"targetPools", s.targetPools())
	s.mux.HandleFunc("POST "+regionalPath+"targetPools/{name}/getHealth", s.serve(s.targetPoolHealth))
	s.mux.HandleFunc("POST "+regionalPath+"targetPools/{name}/addInstance", s.serve(s.targetPoolAddInstance))
	s.mux.HandleFunc("POST "+regionalPath+"targetPools/{name}/removeInstance", s.serve(s.targetPoolRemoveInstance))
	s.mux.HandleFunc("POST "+regionalPath+"targetPools/{name}/addHealthCheck", s.serve(s.targetPoolAddHealthCheck))
	s.mux.HandleFunc("POST "+regionalPath+"targetPools/{name}/removeHealthCheck", s.serve(s.targetPoolRemoveHealthCheck))

	forwardingRules := s.forwardingRules()
	s.collection(globalPath+"forwardingRules", forwardingRules)
	s.collection(regionalPath+"forwardingRules", forwardingRules)
	s.mux.HandleFunc("POST "+globalPath+"forwardingRules/{name}/setTarget", s.serve(s.forwardingRuleSetTarget))
	s.mux.HandleFunc("POST "+regionalPath+"forwardingRules/{name}/setTarget", s.serve(s.forwardingRuleSetTarget))

	// The minimal compute resources around load balancing, with only the
	// verbs the Compute API has for them.
	s.collectionWith(zonalPath+api.CollectionInstances, s.instances())
	s.collectionWith(globalPath+api.CollectionNetworks, s.networks(), "PATCH")
	s.collectionWith(regionalPath+api.CollectionSubnetwork, s.subnetworks(), "PATCH")
	s.collectionWith(globalPath+api.CollectionFirewalls, s.firewalls(), "PUT", "PATCH")
	addresses := s.addresses()
	s.collectionWith(regionalPath+api.CollectionAddresses, addresses)
	s.collectionWith(globalPath+api.CollectionAddresses, addresses)

	// Public images, read only: what configurations look their boot disks
	// up in (images.go).
	s.mux.HandleFunc("GET "+globalPath+"images/{name}", s.serve(s.getImage))
	s.mux.HandleFunc("GET "+globalPath+"images/family/{family}", s.serve(s.getImageFromFamily))

	s.collection(regionalPath+api.CollectionHealthAggregationPolicies, s.healthAggregationPolicies())
	s.collection(regionalPath+api.CollectionHealthSources, s.healthSources())
	// getHealth is a GET in the Compute API; POST stays for older clients.
	s.mux.HandleFunc("GET "+regionalPath+api.CollectionHealthSources+"/{name}/getHealth", s.serve(s.healthSourceHealth))
	s.mux.HandleFunc("POST "+regionalPath+api.CollectionHealthSources+"/{name}/getHealth", s.serve(s.healthSourceHealth))
	s.collection(regionalPath+api.CollectionCompositeHealthChecks, s.compositeHealthChecks())
	s.mux.HandleFunc("GET "+regionalPath+api.CollectionCompositeHealthChecks+"/{name}/getHealth", s.serve(s.compositeHealth))
	s.mux.HandleFunc("POST "+regionalPath+api.CollectionCompositeHealthChecks+"/{name}/getHealth", s.serve(s.compositeHealth))

	for _, prefix := range []string{globalPath, regionalPath, zonalPath} {
		s.mux.HandleFunc("GET "+prefix+"operations/{name}", s.serve(s.getOperation))
		s.mux.HandleFunc("POST "+prefix+"operations/{name}/wait", s.serve(s.getOperation))
	}

	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /{$}", s.status)
	s.mux.HandleFunc("POST /_emulator/reset", s.serve(s.reset))
	s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	s.mux.HandleFunc("/", s.serve(s.noRoute))
}

// collection registers the six verbs of one collection under path.
func (s *Server) collection(path string, c verbs) {
	s.collectionWith(path, c, "PUT", "PATCH")
}

// collectionWith registers insert, list, get and delete of one collection
// under path, and of update (PUT) and patch (PATCH) those named.
func (s *Server) collectionWith(path string, c verbs, updates ...string) {
	if h, ok := c.holder(); ok && !s.holding(h.collection) {
		s.holders = append(s.holders, h)
	}
	s.mux.HandleFunc("POST "+path, s.serve(c.insert))
	s.mux.HandleFunc("GET "+path, s.serve(c.list))
	s.mux.HandleFunc("GET "+path+"/{name}", s.serve(c.get))
	if slices.Contains(updates, "PUT") {
		s.mux.HandleFunc("PUT "+path+"/{name}", s.serve(c.update))
	}
	if slices.Contains(updates, "PATCH") {
		s.mux.HandleFunc("PATCH "+path+"/{name}", s.serve(c.patch))
	}
	s.mux.HandleFunc("DELETE "+path+"/{name}", s.serve(c.delete))
	if schema.Has(c.schemaName(), "labels") && schema.Has(c.schemaName(), "labelFingerprint") {
		s.mux.HandleFunc("POST "+path+"/{name}/setLabels", s.serve(c.setLabels))
	}
	// One aggregated list per collection, for the collections the API
	// gives one.
	aggregated := projectPath + "aggregated/" + lastSegment(path)
	if schema.AggregatedKind(c.schemaName()) != "" && !s.aggregated[aggregated] {
		s.aggregated[aggregated] = true
		s.mux.HandleFunc("GET "+aggregated, s.serve(c.aggregatedList))
	}
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// serveMetrics answers /metrics with what SetMetrics installed.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.metrics == nil {
		s.serve(s.noRoute)(w, r)
		return
	}
	s.metrics.ServeHTTP(w, r)
}

// reset deletes everything, for test suites that share one emulator.
func (s *Server) reset(r *http.Request) (any, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.store.Reset(r.Context()); err != nil {
		return nil, err
	}
	s.refs.reset()
	s.resetOperations()
	if s.onChange != nil {
		s.onChange(r.Context(), nil)
	}
	s.log.Info("reset: every resource deleted")
	return map[string]string{"status": "reset"}, nil
}

// noRoute answers paths (and methods) the API does not have, in the API's
// error format rather than net/http's plain text.
func (s *Server) noRoute(r *http.Request) (any, error) {
	return nil, &apiError{http.StatusNotFound, "notFound", "The emulator has no " + r.Method + " " + r.URL.Path + ": see README.md for the API."}
}
