package httpapi

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthChecks is the global and regional healthChecks collection.
func (s *Server) healthChecks() *collection[api.HealthCheck, *api.HealthCheck] {
	return &collection[api.HealthCheck, *api.HealthCheck]{
		s:   s,
		def: api.MustCollection(api.CollectionHealthChecks),
		check: func(hc *api.HealthCheck, sc scope) rules.Violations {
			return rules.HealthCheck(hc, sc.region != "")
		},
		defaults: rules.ApplyHealthCheckDefaults,
	}
}
