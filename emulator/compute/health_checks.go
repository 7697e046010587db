package compute

import (
	"context"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthChecks is the global and regional healthChecks collection.
func (s backends) healthChecks() *core.Collection[api.HealthCheck, *api.HealthCheck] {
	c := core.NewCollection[api.HealthCheck, *api.HealthCheck](s.API, api.CollectionHealthChecks, nil, rules.ApplyHealthCheckDefaults)
	c.ComputedType = true
	c.Check = func(hc *api.HealthCheck, sc core.Scope) rules.Violations {
		return rules.HealthCheck(hc, sc.Region != "")
	}
	c.Resolve = s.resolveScenario
	c.Refs = func(hc *api.HealthCheck) []string {
		if b, ok := hc.BlockOf(api.TypeScenario); ok {
			return append([]string(nil), *b.Lists["healthChecks"]...)
		}
		return nil
	}
	c.Immutable = func(prior, hc *api.HealthCheck) error {
		if v := rules.CheckTypeChange(checkType(prior), checkType(hc)); v != nil {
			return googleapi.Invalid("%s", v.Error())
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

// resolveScenario checks the health checks a scenario combines: each must
// exist in the scenario's own scope and be neither the scenario nor a
// scenario; the references are stored as URLs.
func (s backends) resolveScenario(ctx context.Context, hc *api.HealthCheck, sc core.Scope) error {
	b, ok := hc.BlockOf(api.TypeScenario)
	if !ok {
		return nil
	}
	members := *b.Lists["healthChecks"]
	for i, ref := range members {
		field := fmt.Sprintf("scenarioHealthCheck.healthChecks[%d]", i)
		var member api.HealthCheck
		k, err := s.Lookup(ctx, field, ref, sc, api.CollectionHealthChecks, &member)
		if err != nil {
			return err
		}
		if k.Scope != sc.Path() {
			return googleapi.Invalid("%s (%q) is in %s: a scenario combines health checks of its own scope (%s).", field, ref, k.Scope, sc.Path())
		}
		if v := rules.ScenarioMember(field, ref, hc.Name, &member); v != nil {
			return googleapi.Invalid("%s", v.Error())
		}
		members[i] = s.Link(k.Path())
	}
	return nil
}
