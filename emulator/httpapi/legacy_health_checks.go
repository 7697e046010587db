package httpapi

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// legacyHealthChecks is the global httpHealthChecks or httpsHealthChecks
// collection (name says which).
func (s *Server) legacyHealthChecks(name string) *collection[api.LegacyHealthCheck, *api.LegacyHealthCheck] {
	return &collection[api.LegacyHealthCheck, *api.LegacyHealthCheck]{
		s:        s,
		def:      api.MustCollection(name),
		rule:     rules.LegacyHealthCheck,
		defaults: func(hc *api.LegacyHealthCheck) { rules.ApplyLegacyHealthCheckDefaults(hc, name) },
	}
}
