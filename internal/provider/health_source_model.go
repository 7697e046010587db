package provider

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// healthSourceMutable are the API fields an update may change; the source
// type cannot change (Terraform replaces the source).
var healthSourceMutable = []string{"description", "sources", "healthAggregationPolicy"}

// healthSourceModel is the Terraform data of lbhealth_health_source.
type healthSourceModel struct {
	ID                      types.String `tfsdk:"id"`
	Name                    types.String `tfsdk:"name"`
	Description             types.String `tfsdk:"description"`
	Project                 types.String `tfsdk:"project"`
	Region                  types.String `tfsdk:"region"`
	SourceType              types.String `tfsdk:"source_type"`
	Sources                 types.List   `tfsdk:"sources"`
	HealthAggregationPolicy types.String `tfsdk:"health_aggregation_policy"`
	SelfLink                types.String `tfsdk:"self_link"`
	CreationTimestamp       types.String `tfsdk:"creation_timestamp"`
	HealthSourceID          types.String `tfsdk:"health_source_id"`
	Fingerprint             types.String `tfsdk:"fingerprint"`
}

// scope is where the source lives. Project and region must already be
// resolved (ModifyPlan or ImportState fill the provider's defaults).
func (m *healthSourceModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString()}
}

// expandHealthSource converts a plan, a state or a configuration into the
// API object. References are sent as written: the emulator resolves them.
func expandHealthSource(m healthSourceModel) (*api.HealthSource, *expander) {
	e := &expander{}
	return &api.HealthSource{
		Meta:                    api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		SourceType:              e.str("sourceType", m.SourceType),
		Sources:                 e.strings("sources", m.Sources),
		HealthAggregationPolicy: e.str("healthAggregationPolicy", m.HealthAggregationPolicy),
	}, e
}

// flattenHealthSource converts the API object into Terraform data. prior
// (plan or state) keeps the form the user wrote references in.
func flattenHealthSource(hs *api.HealthSource, scope client.Scope, prior healthSourceModel) (healthSourceModel, diag.Diagnostics) {
	m := healthSourceModel{
		ID:                types.StringValue(scopedID(scope.Project, scope.Region, api.CollectionHealthSources, hs.Name)),
		Name:              types.StringValue(hs.Name),
		Description:       flattenString(hs.Description, prior.Description),
		Project:           types.StringValue(scope.Project),
		Region:            types.StringValue(scope.Region),
		SourceType:        types.StringValue(hs.SourceType),
		SelfLink:          types.StringValue(hs.SelfLink),
		CreationTimestamp: types.StringValue(hs.CreationTimestamp),
		HealthSourceID:    types.StringValue(strconv.FormatUint(hs.ID, 10)),
		Fingerprint:       types.StringValue(hs.Fingerprint),
	}
	refs := regionalRefs(m.Project, m.Region)
	m.HealthAggregationPolicy = refs.flatten(hs.HealthAggregationPolicy, prior.HealthAggregationPolicy, api.CollectionHealthAggregationPolicies)
	var diags diag.Diagnostics
	m.Sources, diags = flattenRefList(hs.Sources, prior.Sources, refs, api.CollectionBackendServices)
	return m, diags
}

// keepEquivalentSourceRefs keeps the state's form of references the plan
// writes differently but that name the same resources: no diff for a
// change that changes nothing.
func keepEquivalentSourceRefs(plan *healthSourceModel, state healthSourceModel) diag.Diagnostics {
	if !sameScope(plan.Project, plan.Region, state.Project, state.Region) {
		return nil
	}
	refs := regionalRefs(state.Project, state.Region)
	var diags diag.Diagnostics
	plan.Sources = keepEquivalentRefList(plan.Sources, state.Sources, refs, api.CollectionBackendServices, &diags)
	plan.HealthAggregationPolicy = keepEquivalentRef(plan.HealthAggregationPolicy, state.HealthAggregationPolicy, refs, api.CollectionHealthAggregationPolicies)
	return diags
}

// healthSourceConfigViolations checks a raw configuration with the
// emulator's rules and keeps the violations that read no unknown value.
// What the references point at (an internal regional service of VM
// endpoint groups, a policy of the same region) needs the referenced
// objects: the emulator checks it at apply, and its message reaches the
// user unchanged.
func healthSourceConfigViolations(config healthSourceModel) rules.Violations {
	hs, e := expandHealthSource(config)
	vs := rules.HealthSource(hs)
	vs = append(vs, scopeViolations(config.Project, config.Region, types.StringNull())...)
	return knownViolations(vs, e.unknown)
}
