package compute

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// legacyHealthChecks is the global httpHealthChecks or httpsHealthChecks
// collection (name says which).
func (s backends) legacyHealthChecks(name string) *core.Collection[api.LegacyHealthCheck, *api.LegacyHealthCheck] {
	c := core.NewCollection[api.LegacyHealthCheck, *api.LegacyHealthCheck](s.API, name, rules.LegacyHealthCheck, func(hc *api.LegacyHealthCheck) { rules.ApplyLegacyHealthCheckDefaults(hc, name) })
	return c
}
