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
	c.immutable = func(prior, hc *api.HealthCheck) error {
		if v := rules.CheckTypeChange(checkType(prior), checkType(hc)); v != nil {
			return invalid("%s", v.Error())
		}
		return nil
	}
	return c
}

// checkType is a check's type: as sent, else that of its one protocol
// block ("" when it has none or several: its rules say so).
func checkType(hc *api.HealthCheck) string {
	if hc.Type != "" {
		return hc.Type
	}
	if b, ok := hc.Block(); ok {
		return b.Type
	}
	return ""
}
