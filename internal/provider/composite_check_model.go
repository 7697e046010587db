package provider

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// compositeCheckMutable are the API fields an update may change.
var compositeCheckMutable = []string{"description", "healthSources", "healthDestination"}

// compositeCheckModel is the Terraform data of lbhealth_composite_check.
type compositeCheckModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Description       types.String `tfsdk:"description"`
	Project           types.String `tfsdk:"project"`
	Region            types.String `tfsdk:"region"`
	HealthSources     types.List   `tfsdk:"health_sources"`
	HealthDestination types.String `tfsdk:"health_destination"`
	SelfLink          types.String `tfsdk:"self_link"`
	CreationTimestamp types.String `tfsdk:"creation_timestamp"`
	CompositeCheckID  types.String `tfsdk:"composite_check_id"`
	Fingerprint       types.String `tfsdk:"fingerprint"`
}

// scope is where the check lives. Project and region must already be
// resolved (ModifyPlan or ImportState fill the provider's defaults).
func (m *compositeCheckModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString()}
}

// expandCompositeCheck converts a plan, a state or a configuration into the
// API object. References are sent as written: the emulator resolves them.
func expandCompositeCheck(m compositeCheckModel) (*api.CompositeHealthCheck, *expander) {
	e := &expander{}
	return &api.CompositeHealthCheck{
		Meta:              api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		HealthSources:     e.strings("healthSources", m.HealthSources),
		HealthDestination: e.str("healthDestination", m.HealthDestination),
	}, e
}

// flattenCompositeCheck converts the API object into Terraform data. prior
// (plan or state) keeps the form the user wrote references in.
func flattenCompositeCheck(c *api.CompositeHealthCheck, scope client.Scope, prior compositeCheckModel) (compositeCheckModel, diag.Diagnostics) {
	m := compositeCheckModel{
		ID:                types.StringValue(scopedID(scope.Project, scope.Region, api.CollectionCompositeHealthChecks, c.Name)),
		Name:              types.StringValue(c.Name),
		Description:       flattenString(c.Description, prior.Description),
		Project:           types.StringValue(scope.Project),
		Region:            types.StringValue(scope.Region),
		SelfLink:          types.StringValue(c.SelfLink),
		CreationTimestamp: types.StringValue(c.CreationTimestamp),
		CompositeCheckID:  types.StringValue(strconv.FormatUint(c.ID, 10)),
		Fingerprint:       types.StringValue(c.Fingerprint),
	}
	refs := regionalRefs(m.Project, m.Region)
	m.HealthDestination = refs.flatten(c.HealthDestination, prior.HealthDestination, api.CollectionForwardingRules)
	var diags diag.Diagnostics
	m.HealthSources, diags = flattenRefList(c.HealthSources, prior.HealthSources, refs, api.CollectionHealthSources)
	return m, diags
}

// keepEquivalentCompositeRefs keeps the state's form of references the
// plan writes differently but that name the same resources.
func keepEquivalentCompositeRefs(plan *compositeCheckModel, state compositeCheckModel) diag.Diagnostics {
	if !sameScope(plan.Project, plan.Region, state.Project, state.Region) {
		return nil
	}
	refs := regionalRefs(state.Project, state.Region)
	var diags diag.Diagnostics
	plan.HealthSources = keepEquivalentRefList(plan.HealthSources, state.HealthSources, refs, api.CollectionHealthSources, &diags)
	plan.HealthDestination = keepEquivalentRef(plan.HealthDestination, state.HealthDestination, refs, api.CollectionForwardingRules)
	return diags
}

// compositeCheckConfigViolations checks a raw configuration with the
// emulator's rules, and refuses a composite check listed as a health source
// when its reference says so: those need no call. What else the references
// point at (same region, schemes, a destination already taken) needs the
// referenced objects: the emulator checks it at apply, and its message
// reaches the user unchanged.
func compositeCheckConfigViolations(config compositeCheckModel) rules.Violations {
	c, e := expandCompositeCheck(config)
	vs := rules.CompositeHealthCheck(c)
	vs = append(vs, compositeAsSourceViolations(c.HealthSources)...)
	vs = append(vs, scopeViolations(config.Project, config.Region, types.StringNull())...)
	return knownViolations(vs, e.unknown)
}

// compositeAsSourceViolations refuses the health sources whose reference (a
// self link, an id or a path) names a composite health check. An unknown
// one is "" here, and names nothing.
func compositeAsSourceViolations(sources []string) rules.Violations {
	var vs rules.Violations
	for i, ref := range sources {
		if (refResolver{}).collection(ref, api.CollectionHealthSources) == api.CollectionCompositeHealthChecks {
			vs = append(vs, rules.CompositeAsSource(fmt.Sprintf("healthSources[%d]", i), ref))
		}
	}
	return vs
}
