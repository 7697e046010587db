package compute

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// legacyHealthChecks is the global httpHealthChecks or httpsHealthChecks
// collection (name says which).
func (s backends) legacyHealthChecks(name string) *collection[api.LegacyHealthCheck, *api.LegacyHealthCheck] {
	c := newCollection[api.LegacyHealthCheck, *api.LegacyHealthCheck](s.Service, name, rules.LegacyHealthCheck, func(hc *api.LegacyHealthCheck) { rules.ApplyLegacyHealthCheckDefaults(hc, name) })
	return c
}
