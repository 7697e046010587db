package httpapi

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthChecks is the global and regional healthChecks collection.
func (s *Server) healthChecks() *collection[api.HealthCheck, *api.HealthCheck] {
	c := newCollection[api.HealthCheck, *api.HealthCheck](s, api.CollectionHealthChecks, nil, rules.ApplyHealthCheckDefaults)
	c.check = func(hc *api.HealthCheck, sc scope) rules.Violations {
		return rules.HealthCheck(hc, sc.region != "")
	}
	return c
}
