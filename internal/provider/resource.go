package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// managedResource is every resource of the provider: the framework's
// methods written once over a resourceKind, which holds what differs from
// one resource to the next. Each <noun>_resource.go declares its kind.
type managedResource[M, A any] struct {
	kind *resourceKind[M, A]
	data *providerData
}

var (
	_ resource.Resource                   = (*managedResource[healthCheckModel, any])(nil)
	_ resource.ResourceWithConfigure      = (*managedResource[healthCheckModel, any])(nil)
	_ resource.ResourceWithImportState    = (*managedResource[healthCheckModel, any])(nil)
	_ resource.ResourceWithModifyPlan     = (*managedResource[healthCheckModel, any])(nil)
	_ resource.ResourceWithValidateConfig = (*managedResource[healthCheckModel, any])(nil)
)

// importScope says which ids ImportState takes.
type importScope int

const (
	// importGlobal: a name, or projects/{project}/global/{collection}/{name}.
	importGlobal importScope = iota
	// importRegional: a name in the provider's region, or a regional or
	// zonal path; never global.
	importRegional
	// importAnyScope: a global or regional path, or a name, which is looked
	// up globally first.
	importAnyScope
	// importZonal: a zonal path only, projects/{project}/zones/{zone}/...:
	// a name does not say the zone.
	importZonal
)

// resourceKind is what one resource type is made of: its name, schema, API
// driver, planning and plan-time rules.
type resourceKind[M, A any] struct {
	crud[M, A]
	typeName   string // after the provider's name: "health_check"
	collection string // the API collection, for ids and import
	imports    importScope
	schema     func() schema.Schema
	// plan plans what the resource computes (project, region, id ...) once
	// the plan, configuration and state are read; the shared steps around
	// it are in ModifyPlan.
	plan func(*planStep[M])
	// fingerprinted resources are updated with optimistic locking: their
	// fingerprint is planned unknown when anything else changes.
	fingerprinted bool
	// violations are the emulator's own rules, run on the configuration at
	// plan time; naming spells their API field paths as Terraform's (nil:
	// the snake_case of the API's).
	violations func(config M) rules.Violations
	naming     func(string) string
}

// planStep is what a resource's plan hook works on: the plan it changes, the
// configuration and the prior state (the zero model on create) it reads.
type planStep[M any] struct {
	plan          *M
	config, state M
	hasState      bool // false on create
	data          *providerData
	replace       []path.Path
	diags         diag.Diagnostics
}

// defaulted plans an attribute the provider defaults (project, region): the
// configuration's value, else the provider's; a change from what the state
// holds replaces the resource.
func (s *planStep[M]) defaulted(name string, config, state types.String, def string) types.String {
	v, replace := planDefault(config, state, def)
	if replace {
		s.replace = append(s.replace, path.Root(name))
	}
	return v
}

// project plans the project attribute.
func (s *planStep[M]) project(config, state types.String) types.String {
	return s.defaulted("project", config, state, s.data.project)
}

// region plans the region attribute.
func (s *planStep[M]) region(config, state types.String) types.String {
	return s.defaulted("region", config, state, s.data.region)
}

func (r *managedResource[M, A]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typeName
}

func (r *managedResource[M, A]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *managedResource[M, A]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.kind.schema()
}

func (r *managedResource[M, A]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.kind.create(ctx, r.data, req, resp)
}

func (r *managedResource[M, A]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.kind.read(ctx, r.data, req, resp)
}

func (r *managedResource[M, A]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.kind.update(ctx, r.data, req, resp)
}

func (r *managedResource[M, A]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.kind.delete(ctx, r.data, req, resp)
}

func (r *managedResource[M, A]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	lookup := func(ctx context.Context, scope client.Scope, name string) error {
		_, err := r.kind.get(r.data.client, ctx, scope, name)
		return err
	}
	importState(ctx, r.data, r.kind.collection, r.kind.noun, r.kind.imports, lookup, req, resp)
}

// ModifyPlan reads the plan, the configuration and the state, lets the
// kind plan what it computes, and sets the plan (nothing on destroy, or
// while the provider is not configured yet).
func (r *managedResource[M, A]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil || r.kind.plan == nil {
		return
	}
	var plan M
	s := planStep[M]{plan: &plan, data: r.data, hasState: !req.State.Raw.IsNull()}
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &s.config)...)
	if s.hasState {
		resp.Diagnostics.Append(req.State.Get(ctx, &s.state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	r.kind.plan(&s)
	resp.RequiresReplace = append(resp.RequiresReplace, s.replace...)
	resp.Diagnostics.Append(s.diags...)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	if r.kind.fingerprinted {
		planFingerprint(ctx, req, resp)
	}
}

// ValidateConfig runs the emulator's own rules at plan time, in Terraform
// names.
func (r *managedResource[M, A]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if r.kind.violations == nil {
		return
	}
	var config M
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	naming := r.kind.naming
	if naming == nil {
		naming = rules.TerraformName
	}
	addViolations(&resp.Diagnostics, r.kind.violations(config), "Invalid "+r.kind.noun, naming)
}

// resourceAttributes are attrs with the attributes every resource has,
// described by d: id, name (changing it replaces the resource),
// description, project (the provider's when none is set: ModifyPlan plans
// it and asks for replacement when it changes; the modifier here covers a
// configured one), self_link and creation_timestamp.
func resourceAttributes(d map[string]string, attrs map[string]schema.Attribute) map[string]schema.Attribute {
	attrs["id"] = computedString(d, "id")
	attrs["name"] = schema.StringAttribute{Required: true, MarkdownDescription: d["name"],
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	attrs["description"] = schema.StringAttribute{Optional: true, MarkdownDescription: d["description"]}
	attrs["project"] = defaultedString(d, "project")
	attrs["self_link"] = computedString(d, "self_link")
	attrs["creation_timestamp"] = computedString(d, "creation_timestamp")
	return attrs
}

// defaultedString is an attribute the provider defaults (project, region):
// ModifyPlan fills the provider's value and asks for replacement when it
// changes (planStep.defaulted); the modifier covers a configured one.
func defaultedString(d map[string]string, name string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d[name],
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}}
}

// computedString is an attribute the server sets once, kept across plans.
func computedString(d map[string]string, name string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}
