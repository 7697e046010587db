package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

var (
	_ resource.Resource                   = (*endpointGroupResource)(nil)
	_ resource.ResourceWithConfigure      = (*endpointGroupResource)(nil)
	_ resource.ResourceWithImportState    = (*endpointGroupResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*endpointGroupResource)(nil)
	_ resource.ResourceWithValidateConfig = (*endpointGroupResource)(nil)
)

const endpointGroupNoun = "endpoint group"

type endpointGroupResource struct {
	data *providerData
}

func newEndpointGroupResource() resource.Resource { return &endpointGroupResource{} }

func (r *endpointGroupResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_endpoint_group"
}

func (r *endpointGroupResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

var endpointGroupCRUD = crud[endpointGroupModel, *api.NetworkEndpointGroup]{
	noun:    endpointGroupNoun,
	scope:   (*endpointGroupModel).scope,
	name:    func(m endpointGroupModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandEndpointGroup),
	flatten: flattenEndpointGroup,
	insert:  (*client.Client).InsertNetworkEndpointGroup,
	get:     (*client.Client).GetNetworkEndpointGroup,
	put:     (*client.Client).UpdateNetworkEndpointGroup,
	del:     (*client.Client).DeleteNetworkEndpointGroup,
}

func (r *endpointGroupResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	endpointGroupCRUD.create(ctx, r.data, req, resp)
}

func (r *endpointGroupResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	endpointGroupCRUD.read(ctx, r.data, req, resp)
}

func (r *endpointGroupResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	endpointGroupCRUD.update(ctx, r.data, req, resp)
}

func (r *endpointGroupResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	endpointGroupCRUD.delete(ctx, r.data, req, resp)
}

func (r *endpointGroupResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	// Zonal or regional, never global: a bare name is in the provider's region.
	importRegional(ctx, r.data, api.CollectionNetworkEndpointGroups, req, resp)
}

// ModifyPlan fills what the plan can know before apply: the provider's
// project, and its region when neither zone nor region is set (replacing
// the group when they change), the id, the size, and the ports the
// emulator will give endpoints that set none.
func (r *endpointGroupResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state endpointGroupModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var replaceProject, replaceRegion bool
	plan.Project, replaceProject = planDefault(config.Project, state.Project, r.data.project)
	if config.Zone.IsNull() {
		plan.Region, replaceRegion = planDefault(config.Region, state.Region, r.data.region)
	} else if config.Region.IsNull() {
		plan.Region = types.StringNull() // a zonal group has no region
	}
	if replaceProject {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("project"))
	}
	if replaceRegion {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("region"))
	}
	resp.Diagnostics.Append(planEndpointPorts(&plan, config)...)
	plan.Size = types.Int64Unknown()
	if !plan.Endpoints.IsUnknown() {
		plan.Size = types.Int64Value(int64(len(plan.Endpoints.Elements())))
	}
	plan.ID = planEndpointGroupID(plan)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// planEndpointGroupID is the id the group will have, unknown while its
// name or scope is.
func planEndpointGroupID(m endpointGroupModel) types.String {
	if m.Project.IsUnknown() || m.Region.IsUnknown() || m.Zone.IsUnknown() || m.Name.IsUnknown() {
		return types.StringUnknown()
	}
	if !m.Zone.IsNull() {
		return types.StringValue(zonalID(m.Project.ValueString(), m.Zone.ValueString(), api.CollectionNetworkEndpointGroups, m.Name.ValueString()))
	}
	return types.StringValue(scopedID(m.Project.ValueString(), m.Region.ValueString(), api.CollectionNetworkEndpointGroups, m.Name.ValueString()))
}

// ValidateConfig runs rules.NetworkEndpointGroup, the emulator's own rules,
// at plan time, in Terraform names.
func (r *endpointGroupResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config endpointGroupModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, endpointGroupConfigViolations(config), "Invalid endpoint group", endpointGroupNaming)
}

var endpointGroupDescriptions = map[string]string{
	"id": "`projects/{project}/zones/{zone}/networkEndpointGroups/{name}` for a zonal group, " +
		"`projects/{project}/regions/{region}/networkEndpointGroups/{name}` for a regional one. A backend service's " +
		"`backend.group` takes it, or `self_link`.",
	"name": "Name of the group, unique per project and zone or region: 1-63 characters, a lowercase letter first, " +
		"then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the group.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the group. Defaults to the provider's `project`. Changing it replaces the group.",
	"zone":        "Zone of a zonal group. Conflicts with `region`. Changing it replaces the group.",
	"region": "Region of a regional group. With neither `zone` nor `region`, the group is regional in the provider's " +
		"`region`, and this attribute shows it. Changing it replaces the group.",
	"network_endpoint_type": "`GCE_VM_IP_PORT` (default: an address and a port), `GCE_VM_IP` (an address only: the " +
		"health check's port is probed), `NON_GCP_PRIVATE_IP_PORT`, `INTERNET_IP_PORT` or `INTERNET_FQDN_PORT` " +
		"(internet endpoints are probed only when their address is in the emulator's `--probe-networks`), or " +
		"`SERVERLESS`, `PRIVATE_SERVICE_CONNECT`, `GCE_VM_IP_PORTMAP`, `GCE_VM_IP_DEDICATED_BACKEND` (stored, with nothing to probe). " +
		"Changing it replaces the group.",
	"default_port": fmt.Sprintf("Port of the endpoints that set none, %d-%d. Not allowed with `GCE_VM_IP`.",
		rules.MinPort, rules.MaxPort),
	"self_link":          "URL of the group in the emulator's API.",
	"creation_timestamp": "When the group was created (RFC 3339).",
	"endpoint_group_id":  "Numeric id the server assigned to the group, as a string.",
	"size":               "Number of endpoints.",
	"endpoint": "One endpoint of the group, listed in the order written (the emulator keeps it, so there is never a " +
		"diff from ordering). Adding, removing, changing or stopping endpoints updates the group in place. Each " +
		"address and port may be listed once.",
	"endpoint.ip_address": "IPv4 or IPv6 address of the endpoint. The emulator probes loopback addresses only, unless " +
		"it is started with `--probe-networks`.",
	"endpoint.port": fmt.Sprintf("Port of the endpoint, %d-%d. Required with `GCE_VM_IP_PORT` and "+
		"`NON_GCP_PRIVATE_IP_PORT` unless the group sets `default_port`, which then shows here; not allowed with "+
		"`GCE_VM_IP`.", rules.MinPort, rules.MaxPort),
	"endpoint.instance": "Name of the machine that holds the endpoint, for information.",
	"endpoint.state": "`RUNNING` (default) or `STOPPED`. A stopped endpoint is never probed and reports `UNHEALTHY` " +
		"with reason `STOPPED`, as a stopped machine does.",
}

func (r *endpointGroupResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := endpointGroupDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A network endpoint group: the endpoints a backend service's health check probes. Zonal " +
			"with `zone`, regional with `region`, and with neither, regional in the provider's region. Endpoints are " +
			"`endpoint` blocks of the group itself; changing them updates the group in place (HTTP PUT). A group used " +
			"by a backend service cannot be deleted, so a change that replaces it (name, scope, type) fails while a " +
			"service uses it: move the service to a new group first.",
		Attributes: map[string]schema.Attribute{
			"id": computed("id"),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: d["name"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: d["description"]},
			// ModifyPlan fills the provider's project and region and asks for
			// replacement when they change; these modifiers cover configured ones.
			"project": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["project"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"zone": schema.StringAttribute{Optional: true, MarkdownDescription: d["zone"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("region"))}},
			"region": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["region"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured()}},
			"network_endpoint_type": schema.StringAttribute{Optional: true, Computed: true,
				Default:             stringdefault.StaticString(api.GCEVMIPPort),
				MarkdownDescription: d["network_endpoint_type"],
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"default_port":       schema.Int64Attribute{Optional: true, MarkdownDescription: d["default_port"]},
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"endpoint_group_id":  computed("endpoint_group_id"),
			// No UseStateForUnknown: ModifyPlan counts the endpoints.
			"size": schema.Int64Attribute{Computed: true, MarkdownDescription: d["size"]},
		},
		Blocks: map[string]schema.Block{
			// A list, not a set: the emulator keeps the order, so a list never
			// diffs; its indexes let validation point at endpoint[1].port; and
			// a set of objects with a computed port (filled from default_port)
			// would change identity between plan and apply.
			"endpoint": schema.ListNestedBlock{
				MarkdownDescription: d["endpoint"],
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"ip_address": schema.StringAttribute{Required: true, MarkdownDescription: d["endpoint.ip_address"]},
					// Optional+Computed: ModifyPlan plans default_port (or no
					// port for GCE_VM_IP) where the configuration sets none.
					"port":     schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: d["endpoint.port"]},
					"instance": schema.StringAttribute{Optional: true, MarkdownDescription: d["endpoint.instance"]},
					"state": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["endpoint.state"],
						Default: stringdefault.StaticString(api.EndpointRunning)},
				}},
			},
		},
	}
}
