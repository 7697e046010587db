package provider

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// aggregationPolicyMutable are the API fields an update may change; the
// policy type cannot change (Terraform replaces the policy).
var aggregationPolicyMutable = []string{"description", "healthyPercentThreshold", "minHealthyThreshold"}

// aggregationPolicyModel is the Terraform data of lbhealth_aggregation_policy.
type aggregationPolicyModel struct {
	ID                      types.String `tfsdk:"id"`
	Name                    types.String `tfsdk:"name"`
	Description             types.String `tfsdk:"description"`
	Project                 types.String `tfsdk:"project"`
	Region                  types.String `tfsdk:"region"`
	HealthyPercentThreshold types.Int64  `tfsdk:"healthy_percent_threshold"`
	MinHealthyThreshold     types.Int64  `tfsdk:"min_healthy_threshold"`
	PolicyType              types.String `tfsdk:"policy_type"`
	SelfLink                types.String `tfsdk:"self_link"`
	CreationTimestamp       types.String `tfsdk:"creation_timestamp"`
	PolicyID                types.String `tfsdk:"policy_id"`
	Fingerprint             types.String `tfsdk:"fingerprint"`
}

// scope is where the policy lives. Project and region must already be
// resolved (ModifyPlan or ImportState fill the provider's defaults).
func (m *aggregationPolicyModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString()}
}

// expandAggregationPolicy converts a plan, a state or a configuration into
// the API object.
func expandAggregationPolicy(m aggregationPolicyModel) (*api.HealthAggregationPolicy, *expander) {
	e := &expander{}
	return &api.HealthAggregationPolicy{
		Meta:                    api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		HealthyPercentThreshold: e.int64("healthyPercentThreshold", m.HealthyPercentThreshold),
		MinHealthyThreshold:     e.int64("minHealthyThreshold", m.MinHealthyThreshold),
		PolicyType:              e.str("policyType", m.PolicyType),
	}, e
}

// flattenAggregationPolicy converts the API object into Terraform data.
// prior (plan or state) keeps a description the user wrote as "".
func flattenAggregationPolicy(p *api.HealthAggregationPolicy, scope client.Scope, prior aggregationPolicyModel) aggregationPolicyModel {
	return aggregationPolicyModel{
		ID:                      types.StringValue(scopedID(scope.Project, scope.Region, api.CollectionHealthAggregationPolicies, p.Name)),
		Name:                    types.StringValue(p.Name),
		Description:             flattenString(p.Description, prior.Description),
		Project:                 types.StringValue(scope.Project),
		Region:                  types.StringValue(scope.Region),
		HealthyPercentThreshold: types.Int64PointerValue(p.HealthyPercentThreshold),
		MinHealthyThreshold:     types.Int64PointerValue(p.MinHealthyThreshold),
		PolicyType:              types.StringValue(p.PolicyType),
		SelfLink:                types.StringValue(p.SelfLink),
		CreationTimestamp:       types.StringValue(p.CreationTimestamp),
		PolicyID:                types.StringValue(strconv.FormatUint(p.ID, 10)),
		Fingerprint:             types.StringValue(p.Fingerprint),
	}
}

// aggregationPolicyConfigViolations checks a raw configuration with the
// emulator's rules and keeps the violations that read no unknown value.
func aggregationPolicyConfigViolations(config aggregationPolicyModel) rules.Violations {
	p, e := expandAggregationPolicy(config)
	vs := rules.HealthAggregationPolicy(p)
	vs = append(vs, explicitlyEmptyDefaults(e.empty, map[string]string{"policyType": api.PolicyTypeBackendService})...)
	vs = append(vs, scopeViolations(config.Project, config.Region, types.StringNull())...)
	return knownViolations(vs, e.unknown)
}
