package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

var (
	_ resource.Resource                   = (*forwardingRuleResource)(nil)
	_ resource.ResourceWithConfigure      = (*forwardingRuleResource)(nil)
	_ resource.ResourceWithImportState    = (*forwardingRuleResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*forwardingRuleResource)(nil)
	_ resource.ResourceWithValidateConfig = (*forwardingRuleResource)(nil)
)

const forwardingRuleNoun = "forwarding rule"

type forwardingRuleResource struct {
	data *providerData
}

func newForwardingRuleResource() resource.Resource { return &forwardingRuleResource{} }

func (r *forwardingRuleResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_forwarding_rule"
}

func (r *forwardingRuleResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

var forwardingRuleCRUD = crud[forwardingRuleModel, *api.ForwardingRule]{
	noun:    forwardingRuleNoun,
	scope:   (*forwardingRuleModel).scope,
	name:    func(m forwardingRuleModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandForwardingRule),
	flatten: noDiags(flattenForwardingRule),
	insert:  (*client.Client).InsertForwardingRule,
	get:     (*client.Client).GetForwardingRule,
	put:     (*client.Client).UpdateForwardingRule,
	del:     (*client.Client).DeleteForwardingRule,
}

func (r *forwardingRuleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	forwardingRuleCRUD.create(ctx, r.data, req, resp)
}

func (r *forwardingRuleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	forwardingRuleCRUD.read(ctx, r.data, req, resp)
}

func (r *forwardingRuleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	forwardingRuleCRUD.update(ctx, r.data, req, resp)
}

func (r *forwardingRuleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	forwardingRuleCRUD.delete(ctx, r.data, req, resp)
}

func (r *forwardingRuleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	lookup := func(ctx context.Context, scope client.Scope, name string) error {
		_, err := r.data.client.GetForwardingRule(ctx, scope, name)
		return err
	}
	importScoped(ctx, r.data, api.CollectionForwardingRules, forwardingRuleNoun, lookup, req, resp)
}

// ModifyPlan fills what the plan can know before apply: the provider's
// project when none is set (replacing the rule when it changes) and the id;
// and it keeps references that change form but not target as they are.
func (r *forwardingRuleResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state forwardingRuleModel
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
	plan.ID = planID(plan.Project, plan.Region, plan.Name, api.CollectionForwardingRules)
	if !req.State.Raw.IsNull() {
		keepEquivalentForwardingRefs(&plan, state)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// ValidateConfig runs rules.ForwardingRule, the emulator's own rules, at
// plan time, in Terraform names.
func (r *forwardingRuleResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config forwardingRuleModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, forwardingRuleConfigViolations(config), "Invalid forwarding rule", forwardingRuleNaming)
}

var forwardingRuleDescriptions = map[string]string{
	"id": "`projects/{project}/global/forwardingRules/{name}`, or `projects/{project}/regions/{region}/forwardingRules/{name}` " +
		"for a regional rule. A composite health check's `health_destination` takes it, or `self_link`.",
	"name": "Name of the forwarding rule, unique per project and scope: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the rule.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the rule. Defaults to the provider's `project`. Changing it replaces the rule.",
	"region": "Region of a regional rule. Unset (the default), the rule is global, like the other resources of this " +
		"provider that take a `region` (the Google provider has a separate global resource instead). A rule with " +
		"`target` must be regional, as target pools are; so must the health destination of a composite health check. " +
		"Changing it replaces the rule.",
	"ip_address": "IPv4 or IPv6 address the rule receives traffic on (or an IPv6 range, or a reference to an address " +
		"resource, which the emulator replaces with its address). Unset: the emulator assigns one in 127.1.0.0/16, " +
		"as the Compute API assigns an ephemeral address, and keeps it for the life of the rule.",
	"port_range": fmt.Sprintf("Port (`\"80\"`) or range of ports, low to high (`\"8080-8090\"`), between %d and %d. "+
		"Unset: every port.", rules.MinPort, rules.MaxPort),
	"load_balancing_scheme": "`EXTERNAL` (default), `EXTERNAL_MANAGED`, `INTERNAL` or `INTERNAL_MANAGED`. A composite " +
		"health check's destination must be `INTERNAL` or `INTERNAL_MANAGED`. Changing it replaces the rule, as it makes " +
		"another kind of load balancer.",
	"backend_service": "The backend service the rule sends traffic to, of the rule's own scope: its `self_link`, its " +
		"`id` or its name. Exactly one of `backend_service` and `target` is set; switching from one to the other is " +
		"an update in place. The reference stays as written: it never shows as a diff against the URL the emulator " +
		"stores, and writing the same service in another form plans nothing.",
	"target": "The target pool the rule sends traffic to (a network load balancer), of the rule's own region: its " +
		"`self_link`, its `id` or its name. Only on a regional rule. The reference stays as written, as for " +
		"`backend_service`.",
	"self_link":          "URL of the forwarding rule in the emulator's API.",
	"creation_timestamp": "When the forwarding rule was created (RFC 3339).",
	"forwarding_rule_id": "Numeric id the server assigned to the forwarding rule, as a string.",
}

func (r *forwardingRuleResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := forwardingRuleDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	optional := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: d[name]}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A forwarding rule, global or regional: an address and port range whose traffic goes to " +
			"a backend service or a target pool. The emulator sends no traffic; forwarding rules are what composite " +
			"health checks report for (their health destination). Changes to the address, ports, backend service or " +
			"target are updates in place (HTTP PUT). A backend service or target pool a rule uses cannot be deleted " +
			"until the rule stops using it.",
		Attributes: map[string]schema.Attribute{
			"id": computed("id"),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: d["name"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"description": optional("description"),
			// ModifyPlan fills the provider's project and asks for replacement
			// when it changes; this modifier covers a configured project.
			"project": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["project"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"region": schema.StringAttribute{Optional: true, MarkdownDescription: d["region"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			// Optional+Computed: unset, the emulator assigns one, as the API
			// assigns an ephemeral address, and it stays across updates.
			"ip_address": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["ip_address"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"port_range": optional("port_range"),
			"load_balancing_scheme": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: d["load_balancing_scheme"],
				Default:             stringdefault.StaticString(api.SchemeExternal),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"backend_service":    optional("backend_service"),
			"target":             optional("target"),
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"forwarding_rule_id": computed("forwarding_rule_id"),
		},
	}
}
