package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

var (
	_ resource.Resource                   = (*legacyCheckResource)(nil)
	_ resource.ResourceWithConfigure      = (*legacyCheckResource)(nil)
	_ resource.ResourceWithImportState    = (*legacyCheckResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*legacyCheckResource)(nil)
	_ resource.ResourceWithValidateConfig = (*legacyCheckResource)(nil)
)

// legacyCheckResource is lbhealth_legacy_http_check or
// lbhealth_legacy_https_check, as kind says: the two differ only in their
// collection and default port.
type legacyCheckResource struct {
	kind legacyKind
	data *providerData
}

func newLegacyHTTPCheckResource() resource.Resource { return &legacyCheckResource{kind: legacyHTTP} }

func newLegacyHTTPSCheckResource() resource.Resource { return &legacyCheckResource{kind: legacyHTTPS} }

func (r *legacyCheckResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typeSuffix
}

func (r *legacyCheckResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// legacyCheckCRUD is built per kind: the collection and the noun are what
// tell the HTTP and HTTPS resources apart.
func legacyCheckCRUD(k legacyKind) crud[legacyCheckModel, *api.LegacyHealthCheck] {
	return crud[legacyCheckModel, *api.LegacyHealthCheck]{
		noun:   k.noun(),
		scope:  (*legacyCheckModel).scope,
		name:   func(m legacyCheckModel) string { return m.Name.ValueString() },
		expand: ignoreSecond(expandLegacyCheck),
		flatten: func(got *api.LegacyHealthCheck, scope client.Scope, prior legacyCheckModel) (legacyCheckModel, diag.Diagnostics) {
			return flattenLegacyCheck(got, k.collection, scope, prior), nil
		},
		insert: func(c *client.Client, ctx context.Context, scope client.Scope, hc *api.LegacyHealthCheck) (*api.LegacyHealthCheck, error) {
			return c.InsertLegacyHealthCheck(ctx, scope, k.collection, hc)
		},
		get: func(c *client.Client, ctx context.Context, scope client.Scope, name string) (*api.LegacyHealthCheck, error) {
			return c.GetLegacyHealthCheck(ctx, scope, k.collection, name)
		},
		put: func(c *client.Client, ctx context.Context, scope client.Scope, hc *api.LegacyHealthCheck) (*api.LegacyHealthCheck, error) {
			return c.UpdateLegacyHealthCheck(ctx, scope, k.collection, hc)
		},
		del: func(c *client.Client, ctx context.Context, scope client.Scope, name string) error {
			return c.DeleteLegacyHealthCheck(ctx, scope, k.collection, name)
		},
	}
}

func (r *legacyCheckResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	legacyCheckCRUD(r.kind).create(ctx, r.data, req, resp)
}

func (r *legacyCheckResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	legacyCheckCRUD(r.kind).read(ctx, r.data, req, resp)
}

func (r *legacyCheckResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	legacyCheckCRUD(r.kind).update(ctx, r.data, req, resp)
}

func (r *legacyCheckResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	legacyCheckCRUD(r.kind).delete(ctx, r.data, req, resp)
}

func (r *legacyCheckResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importGlobal(ctx, r.data, r.kind.collection, req, resp)
}

// ModifyPlan fills what the plan can know before apply: the provider's
// project when none is set (replacing the check when it changes) and the id.
func (r *legacyCheckResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state legacyCheckModel
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
	plan.ID = planID(plan.Project, types.StringNull(), plan.Name, r.kind.collection) // always global
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// ValidateConfig runs rules.LegacyHealthCheck, the emulator's own
// rules, at plan time, in Terraform names.
func (r *legacyCheckResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config legacyCheckModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, legacyCheckConfigViolations(config), "Invalid "+r.kind.noun(), rules.TerraformName)
}

// descriptions are those of kind's resource; the timing ones not tied to
// source_regions are the regular checks' own.
func (k legacyKind) descriptions() map[string]string {
	hc := healthCheckDescriptions
	return map[string]string{
		"id": fmt.Sprintf("`projects/{project}/global/%s/{name}`. The `health_checks` of %s take it, or "+
			"`self_link`.", k.collection, k.usedBy),
		"name": "Name of the check, unique per project among " + k.noun() + "s: 1-63 characters, a lowercase " +
			"letter first, then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing " +
			"it replaces the check.",
		"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
		"project":     "Project of the check. Defaults to the provider's `project`. Changing it replaces the check.",
		"host":        "Host header of the probe request. Default: the address probed.",
		"port": fmt.Sprintf("Port probed, %d-%d. Default %d, and this attribute shows it. A target-pool instance "+
			"written `ip:port` is probed on its own port.", rules.MinPort, rules.MaxPort, k.defaultPort()),
		"request_path": "Path requested; it must start with `/` and follow RFC 3986, with no query string. Default `/`.",
		"check_interval_sec": fmt.Sprintf("Seconds from the start of one probe to the start of the next probe by "+
			"the same prober, %d-%d. Default %d.", rules.MinSeconds, rules.MaxSeconds, rules.DefaultCheckIntervalSec),
		"timeout_sec":         hc["timeout_sec"],
		"healthy_threshold":   hc["healthy_threshold"],
		"unhealthy_threshold": hc["unhealthy_threshold"],
		"self_link":           "URL of the check in the emulator's API.",
		"creation_timestamp":  "When the check was created (RFC 3339).",
		"health_check_id":     "Numeric id the server assigned to the check, as a string.",
	}
}

func (r *legacyCheckResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := r.kind.descriptions()
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	number := func(name string, def int64) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(def),
			MarkdownDescription: d[name]}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("A %s, always global, used only by %s; everything else takes an "+
			"`lbhealth_health_check`. Probes pass on status 200 only; every other status, redirects included, "+
			"fails. Only `port` chooses the port. Updates replace the whole object in place; changing `name` or "+
			"`project` replaces the check. A check in use cannot be deleted.", r.kind.noun(), r.kind.usedBy),
		Attributes: map[string]schema.Attribute{
			"id": computed("id"),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: d["name"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: d["description"]},
			// ModifyPlan fills the provider's project and asks for replacement
			// when it changes; this modifier covers a configured project.
			"project": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["project"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"host": schema.StringAttribute{Optional: true, MarkdownDescription: d["host"]},
			// The default is planned, so a port the emulator fills in never
			// shows as (known after apply) nor as a diff.
			"port": number("port", r.kind.defaultPort()),
			"request_path": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["request_path"],
				Default: stringdefault.StaticString(rules.DefaultRequestPath)},
			"check_interval_sec":  number("check_interval_sec", rules.DefaultCheckIntervalSec),
			"timeout_sec":         number("timeout_sec", rules.DefaultTimeoutSec),
			"healthy_threshold":   number("healthy_threshold", rules.DefaultHealthyThreshold),
			"unhealthy_threshold": number("unhealthy_threshold", rules.DefaultUnhealthyThreshold),
			"self_link":           computed("self_link"),
			"creation_timestamp":  computed("creation_timestamp"),
			"health_check_id":     computed("health_check_id"),
		},
	}
}
