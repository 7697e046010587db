package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
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
	_ resource.Resource                   = (*targetPoolResource)(nil)
	_ resource.ResourceWithConfigure      = (*targetPoolResource)(nil)
	_ resource.ResourceWithImportState    = (*targetPoolResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*targetPoolResource)(nil)
	_ resource.ResourceWithValidateConfig = (*targetPoolResource)(nil)
)

const targetPoolNoun = "target pool"

type targetPoolResource struct {
	data *providerData
}

func newTargetPoolResource() resource.Resource { return &targetPoolResource{} }

func (r *targetPoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_target_pool"
}

func (r *targetPoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

var targetPoolCRUD = crud[targetPoolModel, *api.TargetPool]{
	noun:    targetPoolNoun,
	scope:   (*targetPoolModel).scope,
	name:    func(m targetPoolModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandTargetPool),
	flatten: flattenTargetPool,
	insert:  (*client.Client).InsertTargetPool,
	get:     (*client.Client).GetTargetPool,
	put:     (*client.Client).UpdateTargetPool,
	del:     (*client.Client).DeleteTargetPool,
}

func (r *targetPoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	targetPoolCRUD.create(ctx, r.data, req, resp)
}

func (r *targetPoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	targetPoolCRUD.read(ctx, r.data, req, resp)
}

func (r *targetPoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	targetPoolCRUD.update(ctx, r.data, req, resp)
}

func (r *targetPoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	targetPoolCRUD.delete(ctx, r.data, req, resp)
}

func (r *targetPoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importRegional(ctx, r.data, api.CollectionTargetPools, req, resp) // target pools are never global
}

// ModifyPlan fills what the plan can know before apply: the provider's
// project and region when none is set (replacing the pool when they
// change) and the id; and it keeps a check reference that changes form but
// not target as it is.
func (r *targetPoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state targetPoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var replace bool
	if plan.Project, replace = planDefault(config.Project, state.Project, r.data.project); replace {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("project"))
	}
	if plan.Region, replace = planDefault(config.Region, state.Region, r.data.region); replace {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("region"))
	}
	plan.ID = planID(plan.Project, plan.Region, plan.Name, api.CollectionTargetPools)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(keepEquivalentCheckRefs(&plan, state)...)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// ValidateConfig runs rules.TargetPool and rules.TargetPoolHealthCheck, the
// emulator's own rules, at plan time, in Terraform names.
func (r *targetPoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config targetPoolModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, targetPoolConfigViolations(config), "Invalid target pool", rules.TerraformName)
}

var targetPoolDescriptions = map[string]string{
	"id": "`projects/{project}/regions/{region}/targetPools/{name}`. A forwarding rule's `target` takes it, or `self_link`.",
	"name": "Name of the target pool, unique per project and region: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the pool.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the pool. Defaults to the provider's `project`. Changing it replaces the pool.",
	"region": "Region of the pool: target pools are always regional. Defaults to the provider's `region`, and this " +
		"attribute shows it. Changing it replaces the pool.",
	"instances": "The instances of the pool, as endpoint addresses: `\"ip:port\"`, or `\"ip\"` to probe the check's " +
		"`port`. Each may be listed once; the order written is kept. The emulator probes loopback addresses only, " +
		"unless it is started with `--probe-networks`.",
	"health_checks": "The health check of the pool, as a list of at most one reference to an " +
		"`lbhealth_legacy_http_check`: its `self_link`, its `id` (`projects/.../global/httpHealthChecks/...`) or its " +
		"name. Target pools take one legacy HTTP check only: a legacy HTTPS check or a regular health check is " +
		"refused (at plan time when the reference shows its collection). Unset: the instances are not probed. The " +
		"reference stays as written, as for a backend service's `health_checks`.",
	"self_link":          "URL of the target pool in the emulator's API.",
	"creation_timestamp": "When the target pool was created (RFC 3339).",
	"target_pool_id":     "Numeric id the server assigned to the target pool, as a string.",
}

func (r *targetPoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := targetPoolDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A target pool, the backend of a network load balancer: instances probed by one legacy " +
			"HTTP health check (`lbhealth_legacy_http_check`). Read their live health with the " +
			"`lbhealth_target_pool_health` data source. Changing the instances or the check updates the pool in place " +
			"(HTTP PUT). A check the pool uses cannot be deleted until the pool stops using it, and a pool a " +
			"forwarding rule uses cannot be deleted either.",
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
			"instances": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["instances"]},
			"health_checks": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["health_checks"]},
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"target_pool_id":     computed("target_pool_id"),
		},
	}
}
