package httpapi

import (
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
)

// routes is the route table: the Compute API's (compute.Routes, every
// collection of the catalogue with its verbs and methods) and the
// emulator's own endpoints beside it. The APIs beside Compute add theirs
// when mounted (Mount).
func (s *Server) routes() {
	for _, rt := range s.compute.Routes() {
		s.mux.HandleFunc(rt.Pattern, s.serve(rt.Handler))
	}
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

// reset deletes everything, for test suites that share one emulator.
func (s *Server) reset(r *googleapi.Call) (any, error) {
	if err := s.compute.Reset(r.Context()); err != nil {
		return nil, err
	}
	for _, svc := range s.resetters {
		if err := svc.Reset(r.Context()); err != nil {
			return nil, err
		}
	}
	return map[string]string{"status": "reset"}, nil
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

// noRoute answers paths (and methods) the API does not have, in the API's
// error format rather than net/http's plain text. On the Compute API's
// paths a method a resource does not have is a 404, as the cloud answers;
// on the emulator's own paths (/_emulator/reset, /metrics, /healthz, the
// status page) it is a 405 that lists the methods the path has.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		for _, h := range s.unrouted {
			if h(w, r) {
				return
			}
		}
	}
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

func notRouted(r *http.Request) error { return googleapi.NotRouted(r.Method, r.URL.Path) }

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
