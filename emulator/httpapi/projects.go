package httpapi

import (
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
)

// Handle mounts h at pattern (googleapi.Mux): an API beside Compute is
// served as Compute's endpoints are, behind the same guard, with the same
// answers and errors.
func (s *Server) Handle(pattern string, h googleapi.Handler) {
	s.mux.HandleFunc(pattern, s.serve(h))
}

// HandleHTTP mounts h, which writes its own answer (googleapi.Mux).
func (s *Server) HandleHTTP(pattern string, h http.HandlerFunc) { s.mux.HandleFunc(pattern, h) }

// HandleView mounts h, open without the token for reads (googleapi.Mux).
func (s *Server) HandleView(pattern string, h http.HandlerFunc) {
	_, path, _ := strings.Cut(pattern, " ")
	s.openPaths[strings.TrimSuffix(path, "{$}")] = true
	s.mux.HandleFunc(pattern, h)
}

// HandleMedia mounts h at prefix, its calls' bodies of any type
// (googleapi.Mux).
func (s *Server) HandleMedia(prefix string, h http.HandlerFunc) {
	s.mediaPaths = append(s.mediaPaths, prefix)
	s.mux.HandleFunc(prefix, h)
}

// HandleUnrouted gives h the reads no route takes (googleapi.Mux).
func (s *Server) HandleUnrouted(h func(w http.ResponseWriter, r *http.Request) bool) {
	s.unrouted = append(s.unrouted, h)
}

// WriteError answers err as the API answers a handler's error
// (googleapi.Mux).
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeError(w, r, err)
}

// Mount mounts the APIs beside Compute and the views beside them.
func (s *Server) Mount(services ...googleapi.Service) {
	for _, svc := range services {
		svc.Routes(s)
		if r, ok := svc.(googleapi.Resetter); ok {
			s.resetters = append(s.resetters, r)
		}
	}
}
