package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// ValidateConfig runs the rules of health checks (package rules) at plan time. They live in
// package rules, the one place the emulator also uses, so they are not
// repeated as schema validators: the provider and the emulator say the same
// thing in the same words, with Terraform attribute names here.
func (r *healthCheckResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config healthCheckModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, v := range healthCheckConfigViolations(config) {
		addViolation(&resp.Diagnostics, &v, "Invalid health check")
	}
}

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
