package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthCheckConfigViolations checks a raw configuration (no defaults
// applied, as the rules expect) and keeps only the violations that do not
// depend on a value unknown at plan time.
func healthCheckConfigViolations(config healthCheckModel) rules.Violations {
	hc, e := expandHealthCheckFields(config)
	unknown := e.unknown
	// An unknown region is taken as global: the one rule that needs to know
	// (source_regions on a regional check) names region and is dropped.
	regional := !config.Region.IsNull() && !config.Region.IsUnknown()
	if config.Region.IsUnknown() {
		unknown = append(unknown, "region")
	}
	vs := rules.HealthCheck(hc, regional)
	vs = append(vs, explicitlyEmptyDefaults(e.empty, map[string]string{
		"requestPath": rules.DefaultRequestPath,
		"proxyHeader": api.ProxyHeaderNone,
	})...)
	vs = append(vs, scopeViolations(config.Project, config.Region, types.StringNull())...)
	return knownViolations(vs, unknown)
}
