package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

var (
	_ resource.Resource                   = (*healthSourceResource)(nil)
	_ resource.ResourceWithConfigure      = (*healthSourceResource)(nil)
	_ resource.ResourceWithImportState    = (*healthSourceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*healthSourceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*healthSourceResource)(nil)
)

const healthSourceNoun = "health source"

type healthSourceResource struct {
	data *providerData
}

func newHealthSourceResource() resource.Resource { return &healthSourceResource{} }

func (r *healthSourceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_health_source"
}

func (r *healthSourceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

var healthSourceCRUD = crud[healthSourceModel, *api.HealthSource]{
	noun:    healthSourceNoun,
	scope:   (*healthSourceModel).scope,
	name:    func(m healthSourceModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandHealthSource),
	flatten: flattenHealthSource,
	insert:  (*client.Client).InsertHealthSource,
	get:     (*client.Client).GetHealthSource,
	patch:   (*client.Client).PatchHealthSource,
	mutable: healthSourceMutable,
	setFingerprint: func(obj *api.HealthSource, state healthSourceModel) {
		obj.Fingerprint = state.Fingerprint.ValueString()
	},
	del: (*client.Client).DeleteHealthSource,
}

func (r *healthSourceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	healthSourceCRUD.create(ctx, r.data, req, resp)
}

func (r *healthSourceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	healthSourceCRUD.read(ctx, r.data, req, resp)
}

func (r *healthSourceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	healthSourceCRUD.update(ctx, r.data, req, resp)
}

func (r *healthSourceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	healthSourceCRUD.delete(ctx, r.data, req, resp)
}

func (r *healthSourceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importRegional(ctx, r.data, api.CollectionHealthSources, req, resp)
}

// ModifyPlan fills the provider's project and region where none is set
// (replacing the source when they change) and the id, and keeps references
// that change form but not target as they are.
func (r *healthSourceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state healthSourceModel
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
	plan.ID = planID(plan.Project, plan.Region, plan.Name, api.CollectionHealthSources)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(keepEquivalentSourceRefs(&plan, state)...)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	planFingerprint(ctx, req, resp)
}

// ValidateConfig runs rules.HealthSource, the emulator's own rules, at plan
// time, in Terraform names.
func (r *healthSourceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config healthSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, healthSourceConfigViolations(config), "Invalid health source", rules.TerraformName)
}

var healthSourceDescriptions = map[string]string{
	"id": "`projects/{project}/regions/{region}/healthSources/{name}`. A composite check's `health_sources` takes " +
		"it, or `self_link`.",
	"name": "Name of the health source, unique per project and region: 1-63 characters, a lowercase letter first, " +
		"then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the source.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the health source. Defaults to the provider's `project`. Changing it replaces the source.",
	"region": "Region of the health source (health sources are regional only). Defaults to the provider's " +
		"`region`. Changing it replaces the source.",
	"source_type": "What the source aggregates: `" + api.SourceTypeBackendService + "` (the only value). Changing it " +
		"replaces the source.",
	"sources": "Exactly one backend service, as a list of one reference: its `self_link`, its `id` or its name (then " +
		"in the source's region). It must be a regional service of the source's region and project, with " +
		"`load_balancing_scheme` `INTERNAL` or `INTERNAL_MANAGED`, whose backends are `GCE_VM_IP` or `GCE_VM_IP_PORT` " +
		"endpoint groups. Changing it is an update in place. The reference stays as written.",
	"health_aggregation_policy": "The policy that says when the backend service is healthy: its `self_link`, its " +
		"`id` or its name, in the source's region. Changing it is an update in place. The reference stays as written.",
	"self_link":          "URL of the health source in the emulator's API.",
	"creation_timestamp": "When the health source was created (RFC 3339).",
	"health_source_id":   "Numeric id the server assigned to the health source, as a string.",
	"fingerprint": "Changes on every write. Updates send the value Terraform last read: when someone changed the " +
		"source outside Terraform in between, the emulator refuses the update (HTTP 412) rather than lose that change.",
}

func (r *healthSourceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := healthSourceDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A health source: the health of one backend service as one state, judged by a health " +
			"aggregation policy from the live health of its endpoints. `HEALTHY` when the policy holds counting only " +
			"healthy endpoints; `UNHEALTHY` when it fails even if every endpoint without a verdict yet turned healthy " +
			"(and when the service has no endpoint); otherwise `UNKNOWN`, as just after creation. Composite health " +
			"checks (`lbhealth_composite_check`) combine health sources. `sources` and the policy change in place " +
			"(HTTP PATCH with the `fingerprint`). A source in use cannot be deleted.",
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
			"source_type": schema.StringAttribute{Required: true, MarkdownDescription: d["source_type"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			// A list, though it holds one reference: the API's shape, and
			// the count rule then points at it with the API's words.
			"sources": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: d["sources"]},
			"health_aggregation_policy": schema.StringAttribute{Required: true,
				MarkdownDescription: d["health_aggregation_policy"]},
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"health_source_id":   computed("health_source_id"),
			// No UseStateForUnknown: every update changes it.
			"fingerprint": schema.StringAttribute{Computed: true, MarkdownDescription: d["fingerprint"]},
		},
	}
}
