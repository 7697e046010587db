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
	_ resource.Resource                   = (*compositeCheckResource)(nil)
	_ resource.ResourceWithConfigure      = (*compositeCheckResource)(nil)
	_ resource.ResourceWithImportState    = (*compositeCheckResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*compositeCheckResource)(nil)
	_ resource.ResourceWithValidateConfig = (*compositeCheckResource)(nil)
)

const compositeCheckNoun = "composite health check"

type compositeCheckResource struct {
	data *providerData
}

func newCompositeCheckResource() resource.Resource { return &compositeCheckResource{} }

func (r *compositeCheckResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_composite_check"
}

func (r *compositeCheckResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

var compositeCheckCRUD = crud[compositeCheckModel, *api.CompositeHealthCheck]{
	noun:    compositeCheckNoun,
	scope:   (*compositeCheckModel).scope,
	name:    func(m compositeCheckModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandCompositeCheck),
	flatten: flattenCompositeCheck,
	insert:  (*client.Client).InsertCompositeHealthCheck,
	get:     (*client.Client).GetCompositeHealthCheck,
	patch:   (*client.Client).PatchCompositeHealthCheck,
	mutable: compositeCheckMutable,
	setFingerprint: func(obj *api.CompositeHealthCheck, state compositeCheckModel) {
		obj.Fingerprint = state.Fingerprint.ValueString()
	},
	del: (*client.Client).DeleteCompositeHealthCheck,
}

func (r *compositeCheckResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	compositeCheckCRUD.create(ctx, r.data, req, resp)
}

func (r *compositeCheckResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	compositeCheckCRUD.read(ctx, r.data, req, resp)
}

func (r *compositeCheckResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	compositeCheckCRUD.update(ctx, r.data, req, resp)
}

func (r *compositeCheckResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	compositeCheckCRUD.delete(ctx, r.data, req, resp)
}

func (r *compositeCheckResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importRegional(ctx, r.data, api.CollectionCompositeHealthChecks, req, resp)
}

// ModifyPlan fills the provider's project and region where none is set
// (replacing the check when they change) and the id, and keeps references
// that change form but not target as they are.
func (r *compositeCheckResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state compositeCheckModel
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
	plan.ID = planID(plan.Project, plan.Region, plan.Name, api.CollectionCompositeHealthChecks)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(keepEquivalentCompositeRefs(&plan, state)...)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	planFingerprint(ctx, req, resp)
}

// ValidateConfig runs rules.CompositeHealthCheck and rules.CompositeAsSource,
// the emulator's own rules, at plan time, in Terraform names.
func (r *compositeCheckResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config compositeCheckModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, compositeCheckConfigViolations(config), "Invalid composite health check", rules.TerraformName)
}

var compositeCheckDescriptions = map[string]string{
	"id": "`projects/{project}/regions/{region}/compositeHealthChecks/{name}`. Read its live health with the " +
		"`lbhealth_composite_health` data source.",
	"name": "Name of the composite health check, unique per project and region: 1-63 characters, a lowercase " +
		"letter first, then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it " +
		"replaces the check.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the check. Defaults to the provider's `project`. Changing it replaces the check.",
	"region": "Region of the check (composite checks are regional only). Defaults to the provider's `region`. " +
		"Changing it replaces the check.",
	"health_sources": fmt.Sprintf("The health sources combined, %d to %d, in order, each once: their `self_link`, "+
		"`id` or name (then in the check's region). All must be in the check's region and project. A composite "+
		"check cannot be a health source of another. Adding, removing or reordering sources is an update in place. "+
		"References stay as written.", rules.MinHealthSources, rules.MaxHealthSources),
	"health_destination": "The forwarding rule of the published service whose health the check reports: its " +
		"`self_link`, its `id` or its name (then in the check's region). A regional rule of the check's region and " +
		"project, with `load_balancing_scheme` `INTERNAL` or `INTERNAL_MANAGED`, and the destination of no other " +
		"composite check. Changing it is an update in place. The reference stays as written.",
	"self_link":          "URL of the composite health check in the emulator's API.",
	"creation_timestamp": "When the check was created (RFC 3339).",
	"composite_check_id": "Numeric id the server assigned to the composite health check, as a string.",
	"fingerprint": "Changes on every write. Updates send the value Terraform last read: when someone changed the " +
		"check outside Terraform in between, the emulator refuses the update (HTTP 412) rather than lose that change.",
}

func (r *compositeCheckResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := compositeCheckDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A composite health check: the health of one published regional service, combined " +
			"from its health sources and reported for its forwarding rule (the health destination), for cross-region " +
			"failover. `HEALTHY` when every source is; `UNHEALTHY` when at least one is; otherwise `UNKNOWN`. There " +
			"is no dry run: the check reports its state from the moment it exists. Read it with the " +
			"`lbhealth_composite_health` data source. Sources and destination change in place (HTTP PATCH with the " +
			"`fingerprint`). Destroy deletes in dependency order: the check, then its sources and their policies.",
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
			// A list, not a set: the API keeps the order written, and
			// validation points at health_sources[3].
			"health_sources": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: d["health_sources"]},
			"health_destination": schema.StringAttribute{Required: true, MarkdownDescription: d["health_destination"]},
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"composite_check_id": computed("composite_check_id"),
			// No UseStateForUnknown: every update changes it.
			"fingerprint": schema.StringAttribute{Computed: true, MarkdownDescription: d["fingerprint"]},
		},
	}
}
