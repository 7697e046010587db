package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const aggregationPolicyNoun = "health aggregation policy"

var aggregationPolicyCRUD = crud[aggregationPolicyModel, *api.HealthAggregationPolicy]{
	noun:    aggregationPolicyNoun,
	scope:   (*aggregationPolicyModel).scope,
	name:    func(m aggregationPolicyModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandAggregationPolicy),
	flatten: noDiags(flattenAggregationPolicy),
	insert:  (*client.Client).InsertHealthAggregationPolicy,
	get:     (*client.Client).GetHealthAggregationPolicy,
	patch:   (*client.Client).PatchHealthAggregationPolicy,
	mutable: aggregationPolicyMutable,
	setFingerprint: func(obj *api.HealthAggregationPolicy, state aggregationPolicyModel) {
		obj.Fingerprint = state.Fingerprint.ValueString()
	},
	del: (*client.Client).DeleteHealthAggregationPolicy,
}

// aggregationPolicyKind is lbhealth_aggregation_policy.
var aggregationPolicyKind = &resourceKind[aggregationPolicyModel, *api.HealthAggregationPolicy]{
	crud:          aggregationPolicyCRUD,
	typeName:      "aggregation_policy",
	collection:    api.CollectionHealthAggregationPolicies,
	imports:       importRegional,
	schema:        aggregationPolicySchema,
	fingerprinted: true,
	violations:    aggregationPolicyConfigViolations,
	plan: func(s *planStep[aggregationPolicyModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.Region = s.region(s.config.Region, s.state.Region)
		p.ID = planID(p.Project, p.Region, p.Name, api.CollectionHealthAggregationPolicies)
	},
}

func newAggregationPolicyResource() resource.Resource {
	return &managedResource[aggregationPolicyModel, *api.HealthAggregationPolicy]{kind: aggregationPolicyKind}
}

var aggregationPolicyDescriptions = map[string]string{
	"id": "`projects/{project}/regions/{region}/healthAggregationPolicies/{name}`. A health source's " +
		"`health_aggregation_policy` takes it, or `self_link`.",
	"name": "Name of the policy, unique per project and region: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the policy.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the policy. Defaults to the provider's `project`. Changing it replaces the policy.",
	"region": "Region of the policy (policies are regional only). Defaults to the provider's `region`. Changing it " +
		"replaces the policy.",
	"healthy_percent_threshold": fmt.Sprintf("Least share of a backend service's endpoints, in percent (0-100), that "+
		"must be healthy for the service to be healthy. Default %d. 3 of 5 healthy is 60%%: enough under 60, not "+
		"under 61.", rules.DefaultHealthyPercentThreshold),
	"min_healthy_threshold": fmt.Sprintf("Least number of healthy endpoints (at least 1) for the service to be "+
		"healthy, whatever their share. Default %d.", rules.DefaultMinHealthyThreshold),
	"policy_type": "`" + api.PolicyTypeBackendService + "`, the default and the only value for regional policies. " +
		"Changing it replaces the policy.",
	"self_link":          "URL of the policy, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the policy was created (RFC 3339).",
	"policy_id":          "Numeric id the server assigned to the policy, as a string.",
	"fingerprint": "Changes on every write. Updates send the value Terraform last read: when someone changed the " +
		"policy outside Terraform in between, the emulator refuses the update (HTTP 412) rather than lose that change.",
}

func aggregationPolicySchema() schema.Schema {
	d := aggregationPolicyDescriptions
	return schema.Schema{
		MarkdownDescription: "A health aggregation policy: when a backend service counts as healthy, from the health " +
			"of its endpoints. A service is healthy when at least `healthy_percent_threshold` percent of its endpoints " +
			"**and** at least `min_healthy_threshold` of them are healthy. Health sources use it " +
			"(`lbhealth_health_source`). Threshold changes are updates in place (HTTP PATCH with the `fingerprint`) " +
			"that re-evaluate every health source using the policy at once. A policy in use cannot be deleted.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"region": defaultedString(d, "region"),
			"healthy_percent_threshold": schema.Int64Attribute{Optional: true, Computed: true,
				MarkdownDescription: d["healthy_percent_threshold"],
				Default:             int64default.StaticInt64(rules.DefaultHealthyPercentThreshold)},
			"min_healthy_threshold": schema.Int64Attribute{Optional: true, Computed: true,
				MarkdownDescription: d["min_healthy_threshold"],
				Default:             int64default.StaticInt64(rules.DefaultMinHealthyThreshold)},
			"policy_type": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["policy_type"],
				Default:       stringdefault.StaticString(api.PolicyTypeBackendService),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"policy_id": computedString(d, "policy_id"),
			// No UseStateForUnknown: every update changes it.
			"fingerprint": schema.StringAttribute{Computed: true, MarkdownDescription: d["fingerprint"]},
		}),
	}
}
