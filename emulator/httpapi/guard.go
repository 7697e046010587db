package httpapi

import (
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/guard"
)

// Access says who may use the API (it is for the user's own tools,
// not for web pages).
type Access struct {
	// AllowedHosts are the names, besides IP addresses and localhost, that
	// requests may carry in their Host header (--allowed-hosts).
	AllowedHosts []string
	// Token, when set, must come as "Authorization: Bearer <token>" with
	// every API call (--token).
	Token string
}

// setAccess sets who may use the API. The paths served without the token
// are read-only views of health (the probe of a load balancer, the
// metrics scraper, and the views mounted with HandleView) that change
// nothing and show names, addresses and states, never settings.
func (s *Server) setAccess(a Access) {
	s.openPaths = map[string]bool{"/healthz": true, "/metrics": true}
	s.access = guard.New(guard.Config{AllowedHosts: a.AllowedHosts, Token: a.Token, Open: s.openRead, Media: s.media})
}

func (s *Server) media(r *http.Request) bool {
	for _, p := range s.mediaPaths {
		if strings.HasPrefix(r.URL.Path, p) {
			return true
		}
	}
	return false
}

func (s *Server) openRead(r *http.Request) bool {
	return s.openPaths[r.URL.Path] && (r.Method == http.MethodGet || r.Method == http.MethodHead)
}

// guard refuses what a web page could send through the user's browser, and
// API calls without the token (package guard). Its checks run before any
// handler, so a refused request has touched nothing.
func (s *Server) guard(r *http.Request) *apiError {
	if no := s.access.Check(r); no != nil {
		return googleapi.NewError(no.Status, no.Reason, no.Message)
	}
	return nil
}
