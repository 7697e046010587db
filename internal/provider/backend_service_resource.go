package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

var (
	_ resource.Resource                   = (*backendServiceResource)(nil)
	_ resource.ResourceWithConfigure      = (*backendServiceResource)(nil)
	_ resource.ResourceWithImportState    = (*backendServiceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*backendServiceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*backendServiceResource)(nil)
)

const backendServiceNoun = "backend service"

type backendServiceResource struct {
	data *providerData
}

func newBackendServiceResource() resource.Resource { return &backendServiceResource{} }

func (r *backendServiceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_backend_service"
}

func (r *backendServiceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

var backendServiceCRUD = crud[backendServiceModel, *api.BackendService]{
	noun:    backendServiceNoun,
	scope:   (*backendServiceModel).scope,
	name:    func(m backendServiceModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandBackendService),
	flatten: flattenBackendService,
	insert:  (*client.Client).InsertBackendService,
	get:     (*client.Client).GetBackendService,
	put:     (*client.Client).UpdateBackendService,
	del:     (*client.Client).DeleteBackendService,
}

func (r *backendServiceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	backendServiceCRUD.create(ctx, r.data, req, resp)
}

func (r *backendServiceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	backendServiceCRUD.read(ctx, r.data, req, resp)
}

func (r *backendServiceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	backendServiceCRUD.update(ctx, r.data, req, resp)
}

func (r *backendServiceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backendServiceCRUD.delete(ctx, r.data, req, resp)
}

func (r *backendServiceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	lookup := func(ctx context.Context, scope client.Scope, name string) error {
		_, err := r.data.client.GetBackendService(ctx, scope, name)
		return err
	}
	importScoped(ctx, r.data, api.CollectionBackendServices, backendServiceNoun, lookup, req, resp)
}

// ModifyPlan fills what the plan can know before apply: the provider's
// project when none is set (replacing the service when it changes) and the
// id; and it keeps references that change form but not target as they are.
func (r *backendServiceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or a provider not configured yet
	}
	var plan, config, state backendServiceModel
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
	plan.ID = planID(plan.Project, plan.Region, plan.Name, api.CollectionBackendServices)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(keepEquivalentRefs(&plan, state)...)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// ValidateConfig runs rules.BackendService, the emulator's own rules, at
// plan time, in Terraform names.
func (r *backendServiceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config backendServiceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addViolations(&resp.Diagnostics, backendServiceConfigViolations(config), "Invalid backend service", backendServiceNaming)
}

var backendServiceDescriptions = map[string]string{
	"id": "`projects/{project}/global/backendServices/{name}`, or `projects/{project}/regions/{region}/backendServices/{name}` " +
		"for a regional service.",
	"name": "Name of the backend service, unique per project and scope: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the service.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the service. Defaults to the provider's `project`. Changing it replaces the service.",
	"region": "Region of a regional service. Unset (the default), the service is global. Changing it replaces " +
		"the service.",
	"protocol": "Protocol of the service: `" + strings.Join([]string{api.ProtocolHTTP, api.ProtocolHTTPS, api.ProtocolHTTP2,
		api.ProtocolTCP, api.ProtocolSSL, api.ProtocolUDP, api.ProtocolGRPC}, "`, `") + "`. Default `HTTP`. A `GRPC` " +
		"service takes only gRPC or TCP health checks.",
	"load_balancing_scheme": "`EXTERNAL` (default), `EXTERNAL_MANAGED`, `INTERNAL` or `INTERNAL_MANAGED`. Legacy " +
		"health checks are accepted by `EXTERNAL` services only. Changing it replaces the service, as it makes another " +
		"kind of load balancer.",
	"health_checks": "The health check of the service, as a list of one reference: its `self_link`, its `id` " +
		"(`projects/...`), or its name (then in the service's own scope). The reference stays as written: it never " +
		"shows as a diff against the URL the emulator stores, and writing the same check in another form plans " +
		"nothing. A regional service takes a check of its own region or a global one (as in the Compute API), a " +
		"global one a global check; a check with `source_regions` cannot be used. An `EXTERNAL` global service may " +
		"instead take a legacy check (`lbhealth_legacy_http_check` or `lbhealth_legacy_https_check`, by `self_link` " +
		"or `id`); any other service refuses one, at plan time when the reference shows its kind. Every endpoint of " +
		"every backend is probed and judged on its own with this one check.",
	"self_link":          "URL of the backend service in the emulator's API.",
	"creation_timestamp": "When the backend service was created (RFC 3339).",
	"backend_service_id": "Numeric id the server assigned to the backend service, as a string.",
	"named_port": "A named port: what health checks with `port_name` (or `port_specification = \"USE_NAMED_PORT\"`) " +
		"probe. Names must be different.",
	"named_port.name": "Name of the port (RFC 1035, like resource names).",
	"named_port.port": fmt.Sprintf("Port number, %d-%d.", rules.MinPort, rules.MaxPort),
	"backend": "A backend of the service: one endpoint group, of any zone or region of the project. An endpoint in " +
		"several backend services is probed once per service.",
	"backend.group": "The endpoint group: its `self_link` or its `id` (a name would be looked for in the service's " +
		"own scope, where zonal groups never are). The reference stays as written, as for `health_checks`.",
}

func (r *backendServiceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	d := backendServiceDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A backend service, global or regional: endpoint groups and the one health check that " +
			"probes their endpoints. Read their live health with the `lbhealth_backend_health` data source. Changes " +
			"to backends, named ports, protocol and health check are updates in place (HTTP PUT) that take effect at the " +
			"next probe. A health check or endpoint group the service uses cannot be deleted until the service stops " +
			"using it.",
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
			"protocol": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["protocol"],
				Default: stringdefault.StaticString(api.ProtocolHTTP)},
			"load_balancing_scheme": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: d["load_balancing_scheme"],
				Default:             stringdefault.StaticString(api.SchemeExternal),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"health_checks": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["health_checks"]},
			"self_link":          computed("self_link"),
			"creation_timestamp": computed("creation_timestamp"),
			"backend_service_id": computed("backend_service_id"),
		},
		// Lists, not sets, as for endpoint blocks: the emulator keeps the
		// order written, and validation points at named_port[1].name.
		Blocks: map[string]schema.Block{
			"named_port": schema.ListNestedBlock{
				MarkdownDescription: d["named_port"],
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: d["named_port.name"]},
					"port": schema.Int64Attribute{Required: true, MarkdownDescription: d["named_port.port"]},
				}},
			},
			"backend": schema.ListNestedBlock{
				MarkdownDescription: d["backend"],
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"group": schema.StringAttribute{Required: true, MarkdownDescription: d["backend.group"]},
				}},
			},
		},
	}
}
