package rules

import (
	"fmt"
	"path"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Scenario checks combine the verdicts of other checks with an operator.
const (
	ScenarioAnd = "AND"
	ScenarioOr  = "OR"
	// MaxScenarioChecks bounds how many checks one scenario probes with:
	// each probe of the scenario runs all of them.
	MaxScenarioChecks = 8
)

// scenarioOperator checks operator: required, AND or OR.
func scenarioOperator(field, value string) *Violation {
	if value == "" {
		v := violation(field, "%s is required: %s (every check passes) or %s (one does).", f(field), ScenarioAnd, ScenarioOr)
		return &v
	}
	return oneOf(field, value, ScenarioAnd, ScenarioOr)
}

// scenarioChecks checks the health checks a scenario combines: one to
// MaxScenarioChecks references, none twice. That they exist, are no
// scenario themselves and live in the scenario's scope, the emulator checks.
func scenarioChecks(field string, refs []string) Violations {
	if len(refs) == 0 {
		return Violations{violation(field, "%s is required: the health checks whose verdicts the scenario combines.", f(field))}
	}
	if len(refs) > MaxScenarioChecks {
		return Violations{violation(field, "%s lists %d health checks: a scenario combines at most %d.", f(field), len(refs), MaxScenarioChecks)}
	}
	var vs Violations
	seen := map[string]int{}
	for i, ref := range refs {
		item := fmt.Sprintf("%s[%d]", field, i)
		if ref == "" {
			vs = append(vs, violation(item, "%s is empty: name a health check.", f(item)))
			continue
		}
		// The members live in the scenario's scope: the name tells them apart.
		name := path.Base(ref)
		if j, ok := seen[name]; ok {
			vs = append(vs, violation(item, "%s (%q) is listed twice (also at %d): each check counts once.", f(item), ref, j))
		}
		seen[name] = i
	}
	return vs
}

// listRules are the rules of the lists of strings of protocol blocks, by
// JSON name.
var listRules = map[string]func(field string, values []string) Violations{
	"healthChecks": scenarioChecks,
}

// ScenarioMember checks one health check a scenario (named scenario)
// combines, once it is found: not the scenario itself, not a scenario.
func ScenarioMember(field, ref, scenario string, member *api.HealthCheck) *Violation {
	switch {
	case member.Name == scenario:
		v := violation(field, "%s (%q) is the scenario itself: a scenario combines other checks.", f(field), ref)
		return &v
	case member.Type == api.TypeScenario:
		v := violation(field, "%s (%q) is a scenario: a scenario combines checks that probe, not other scenarios (which could make a cycle).", f(field), ref)
		return &v
	}
	return nil
}
