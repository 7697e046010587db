package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

var (
	_ resource.Resource                   = (*healthCheckResource)(nil)
	_ resource.ResourceWithConfigure      = (*healthCheckResource)(nil)
	_ resource.ResourceWithImportState    = (*healthCheckResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*healthCheckResource)(nil)
	_ resource.ResourceWithValidateConfig = (*healthCheckResource)(nil)
)

const healthCheckNoun = "health check"

type healthCheckResource struct {
	data *providerData
}

func newHealthCheckResource() resource.Resource { return &healthCheckResource{} }

func (r *healthCheckResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_health_check"
}

func (r *healthCheckResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

var healthCheckCRUD = crud[healthCheckModel, *api.HealthCheck]{
	noun:   healthCheckNoun,
	scope:  (*healthCheckModel).scope,
	name:   func(m healthCheckModel) string { return m.Name.ValueString() },
	expand: ignoreSecond(expandHealthCheck),
	// prior decides log_config: with no block in it, the server's default
	// (logging off) stays null so that an omitted block never makes a diff.
	flatten: flattenHealthCheck,
	insert:  (*client.Client).InsertHealthCheck,
	get:     (*client.Client).GetHealthCheck,
	put:     (*client.Client).UpdateHealthCheck,
	del:     (*client.Client).DeleteHealthCheck,
}

func (r *healthCheckResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	healthCheckCRUD.create(ctx, r.data, req, resp)
}

func (r *healthCheckResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	healthCheckCRUD.read(ctx, r.data, req, resp)
}

func (r *healthCheckResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	healthCheckCRUD.update(ctx, r.data, req, resp)
}

func (r *healthCheckResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	healthCheckCRUD.delete(ctx, r.data, req, resp)
}

func (r *healthCheckResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	lookup := func(ctx context.Context, scope client.Scope, name string) error {
		_, err := r.data.client.GetHealthCheck(ctx, scope, name)
		return err
	}
	importScoped(ctx, r.data, api.CollectionHealthChecks, healthCheckNoun, lookup, req, resp)
}

// ModifyPlan fills what the plan can know before apply: the provider's
// project when none is set (replacing the check when it changes), the id,
// type from the protocol block, so that a protocol switch shows as a change
// of type, and the port the server will store when none is configured.
func (r *healthCheckResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state healthCheckModel
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
	plan.Type = planType(plan)
	plan.ID = planID(plan.Project, plan.Region, plan.Name, api.CollectionHealthChecks)
	resp.Diagnostics.Append(planBlockPorts(&plan, config)...)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

func (r *healthCheckResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := healthCheckDescriptions
	blocks := map[string]schema.Block{
		"log_config": schema.SingleNestedBlock{
			MarkdownDescription: d["log_config"],
			Attributes: map[string]schema.Attribute{
				"enable": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
					MarkdownDescription: d["log_config.enable"]},
			},
		},
	}
	for _, b := range protocolBlocks {
		blocks[b.name] = blockSchema(b)
	}
	timing := func(name string, def int64) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(def),
			MarkdownDescription: d[name]}
	}
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A load-balancer health check, global or regional: how the emulator probes " +
			"endpoints and when it calls them healthy. Set exactly one protocol block. Updates replace the whole " +
			"object in place, protocol switches included; changing `name`, `project` or `region` replaces the check. " +
			"A check used by a backend service cannot be deleted: where a replacement is planned, " +
			"`lifecycle { create_before_destroy = true }` lets Terraform move the reference first.",
		Attributes: map[string]schema.Attribute{
			"id": computed("id"),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: d["name"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: d["description"]},
			// ModifyPlan fills the provider's project and asks for replacement
			// when it changes; this modifier covers a configured project.
			"project": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["project"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"region": schema.StringAttribute{Optional: true, MarkdownDescription: d["region"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"health_check_id":    computed("health_check_id"),
			// No UseStateForUnknown: ModifyPlan derives type from the block.
			"type":                schema.StringAttribute{Computed: true, MarkdownDescription: d["type"]},
			"check_interval_sec":  timing("check_interval_sec", rules.DefaultCheckIntervalSec),
			"timeout_sec":         timing("timeout_sec", rules.DefaultTimeoutSec),
			"healthy_threshold":   timing("healthy_threshold", rules.DefaultHealthyThreshold),
			"unhealthy_threshold": timing("unhealthy_threshold", rules.DefaultUnhealthyThreshold),
			"source_regions": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["source_regions"]},
		},
		Blocks: blocks,
	}
}
