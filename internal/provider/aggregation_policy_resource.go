package provider

import (
	"context"
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

var (
	_ resource.Resource                   = (*aggregationPolicyResource)(nil)
	_ resource.ResourceWithConfigure      = (*aggregationPolicyResource)(nil)
	_ resource.ResourceWithImportState    = (*aggregationPolicyResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*aggregationPolicyResource)(nil)
	_ resource.ResourceWithValidateConfig = (*aggregationPolicyResource)(nil)
)

const aggregationPolicyNoun = "health aggregation policy"

type aggregationPolicyResource struct {
	data *providerData
}

func newAggregationPolicyResource() resource.Resource { return &aggregationPolicyResource{} }

func (r *aggregationPolicyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_aggregation_policy"
}

func (r *aggregationPolicyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

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

func (r *aggregationPolicyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	aggregationPolicyCRUD.create(ctx, r.data, req, resp)
}

func (r *aggregationPolicyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	aggregationPolicyCRUD.read(ctx, r.data, req, resp)
}

func (r *aggregationPolicyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	aggregationPolicyCRUD.update(ctx, r.data, req, resp)
}

func (r *aggregationPolicyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	aggregationPolicyCRUD.delete(ctx, r.data, req, resp)
}

func (r *aggregationPolicyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importRegional(ctx, r.data, api.CollectionHealthAggregationPolicies, req, resp)
}

// ModifyPlan fills the provider's project and region where none is set
// (replacing the policy when they change) and the id.
func (r *aggregationPolicyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state aggregationPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	s := planRegionalScope(r.data, config.Project, config.Region, state.Project, state.Region)
	plan.Project, plan.Region = s.Project, s.Region
	resp.RequiresReplace = append(resp.RequiresReplace, s.Replace...)
	plan.ID = planID(plan.Project, plan.Region, plan.Name, api.CollectionHealthAggregationPolicies)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	planFingerprint(ctx, req, resp)
}

// ValidateConfig runs rules.HealthAggregationPolicy, the emulator's own
// rules, at plan time, in Terraform names. They are not repeated as schema
// validators, so that the provider and the emulator say the same thing.
func (r *aggregationPolicyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config aggregationPolicyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, aggregationPolicyConfigViolations(config), "Invalid health aggregation policy", rules.TerraformName)
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
	"self_link":          "URL of the policy in the emulator's API.",
	"creation_timestamp": "When the policy was created (RFC 3339).",
	"policy_id":          "Numeric id the server assigned to the policy, as a string.",
	"fingerprint": "Changes on every write. Updates send the value Terraform last read: when someone changed the " +
		"policy outside Terraform in between, the emulator refuses the update (HTTP 412) rather than lose that change.",
}

func (r *aggregationPolicyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := aggregationPolicyDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A health aggregation policy: when a backend service counts as healthy, from the health " +
			"of its endpoints. A service is healthy when at least `healthy_percent_threshold` percent of its endpoints " +
			"**and** at least `min_healthy_threshold` of them are healthy. Health sources use it " +
			"(`lbhealth_health_source`). Threshold changes are updates in place (HTTP PATCH with the `fingerprint`) " +
			"that re-evaluate every health source using the policy at once. A policy in use cannot be deleted.",
		Attributes: map[string]schema.Attribute{
			"id": computed("id"),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: d["name"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: d["description"]},
			// ModifyPlan fills the provider's project and region and asks for
			// replacement when they change; these modifiers cover configured ones.
			"project": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["project"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"region": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["region"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"healthy_percent_threshold": schema.Int64Attribute{Optional: true, Computed: true,
				MarkdownDescription: d["healthy_percent_threshold"],
				Default:             int64default.StaticInt64(rules.DefaultHealthyPercentThreshold)},
			"min_healthy_threshold": schema.Int64Attribute{Optional: true, Computed: true,
				MarkdownDescription: d["min_healthy_threshold"],
				Default:             int64default.StaticInt64(rules.DefaultMinHealthyThreshold)},
			"policy_type": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["policy_type"],
				Default:       stringdefault.StaticString(api.PolicyTypeBackendService),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"policy_id":          computed("policy_id"),
			// No UseStateForUnknown: every update changes it.
			"fingerprint": schema.StringAttribute{Computed: true, MarkdownDescription: d["fingerprint"]},
		},
	}
}
