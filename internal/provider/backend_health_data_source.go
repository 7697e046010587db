package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

var (
	_ datasource.DataSource              = (*backendHealthDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*backendHealthDataSource)(nil)
)

// Health states of an endpoint, as getHealth reports them.
const (
	healthStateHealthy   = "HEALTHY"
	healthStateUnhealthy = "UNHEALTHY"
)

type backendHealthDataSource struct {
	data *providerData
}

func newBackendHealthDataSource() datasource.DataSource { return &backendHealthDataSource{} }

// backendHealthModel is the Terraform data of lbhealth_backend_health.
type backendHealthModel struct {
	ID             types.String `tfsdk:"id"`
	BackendService types.String `tfsdk:"backend_service"`
	Project        types.String `tfsdk:"project"`
	Region         types.String `tfsdk:"region"`
	Group          types.String `tfsdk:"group"`
	Endpoints      types.List   `tfsdk:"endpoints"`
	HealthyCount   types.Int64  `tfsdk:"healthy_count"`
	UnhealthyCount types.Int64  `tfsdk:"unhealthy_count"`
	UnknownCount   types.Int64  `tfsdk:"unknown_count"`
	AllHealthy     types.Bool   `tfsdk:"all_healthy"`
}

var endpointHealthAttrTypes = map[string]attr.Type{
	"ip_address":      types.StringType,
	"port":            types.Int64Type,
	"instance":        types.StringType,
	"group":           types.StringType,
	"health_state":    types.StringType,
	"reason":          types.StringType,
	"detail":          types.StringType,
	"last_probe_time": types.StringType,
}

var endpointHealthType = types.ObjectType{AttrTypes: endpointHealthAttrTypes}

func (d *backendHealthDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_backend_health"
}

func (d *backendHealthDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *backendHealthDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	count := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the live health of the endpoints of a backend service, as the emulator's probes " +
			"judge it (`backendServices.getHealth`), so that a `check` block or a postcondition can assert on it. " +
			"Terraform reads it at every plan: the values are those of that moment.",
		Attributes: map[string]schema.Attribute{
			"id": str("Id of the backend service, `projects/{project}/global/backendServices/{name}` or " +
				"`projects/{project}/regions/{region}/backendServices/{name}`."),
			"backend_service": schema.StringAttribute{Required: true,
				MarkdownDescription: "The backend service: its `self_link`, its `id`, `{project}/{name}` or its name."},
			"project": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Project of the service when `backend_service` does not say. Defaults to the provider's `project`."},
			"region": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Region of a regional service when `backend_service` is a name; unset reads a global one."},
			"group": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Only the endpoints of this endpoint group of the service (its `self_link` or `id`). Unset: every group."},
			"endpoints": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "Every endpoint probed for the service, ordered by group, address and port.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"ip_address": str("Address of the endpoint."),
					"port":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Port of the endpoint; null for `GCE_VM_IP` endpoints."},
					"instance":   str("Instance of the endpoint, when its group names one."),
					"group":      str("URL of the endpoint group of the endpoint."),
					"health_state": str("`HEALTHY`, `UNHEALTHY` or `UNKNOWN` (no verdict yet: a new endpoint, or a new " +
						"or changed check)."),
					"reason": str("Why the endpoint is in its state, such as `BAD_STATUS`, `TIMEOUT`, `CONNECTION_REFUSED` " +
						"or `STOPPED`; null when there is nothing to say."),
					"detail":          str("What the last probe saw, in words."),
					"last_probe_time": str("When the endpoint was last probed (RFC 3339); null before the first probe."),
				}},
			},
			"healthy_count":   count("Number of endpoints `HEALTHY`."),
			"unhealthy_count": count("Number of endpoints `UNHEALTHY`."),
			"unknown_count":   count("Number of endpoints with no verdict yet."),
			"all_healthy": schema.BoolAttribute{Computed: true, MarkdownDescription: "True when the service has at " +
				"least one endpoint and every one is `HEALTHY`. A service with no endpoint serves nothing: false."},
		},
	}
}

func (d *backendHealthDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config backendHealthModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scope, name, err := backendServiceScope(config, d.data)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("backend_service"), "Invalid backend service", err.Error())
		return
	}
	got, err := d.data.client.GetBackendServiceHealth(ctx, scope, name, config.Group.ValueString())
	if err != nil {
		addClientError(&resp.Diagnostics, "reading the health of", backendServiceNoun, err)
		return
	}
	state, diags := flattenBackendHealth(got, scope, name, config)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// backendServiceScope finds the service backend_service names: its own
// project and region when it is a self link or an id, else project and
// region (or the provider's project; global).
func backendServiceScope(m backendHealthModel, data *providerData) (client.Scope, string, error) {
	rid, err := parseResourceID(m.BackendService.ValueString(), backendServiceCollection)
	if err != nil {
		return client.Scope{}, "", fmt.Errorf("backend_service %w", err)
	}
	project, region := m.Project.ValueString(), m.Region.ValueString()
	if rid.Project != "" {
		if project != "" && project != rid.Project {
			return client.Scope{}, "", fmt.Errorf("backend_service is in project %q, but project is %q: remove project, or make them agree", rid.Project, project)
		}
		project = rid.Project
	}
	if !rid.Bare {
		if region != "" && region != rid.Region {
			return client.Scope{}, "", fmt.Errorf("backend_service is %s, but region is %q: remove region, or make them agree",
				scopeWords(rid.Region), region)
		}
		region = rid.Region
	}
	if project == "" {
		project = data.project
	}
	return client.Scope{Project: project, Region: region}, rid.Name, nil
}

func scopeWords(region string) string {
	if region == "" {
		return "global"
	}
	return fmt.Sprintf("in region %q", region)
}

// flattenBackendHealth maps a getHealth answer, in the emulator's order
// (group, address, port), and counts the states.
func flattenBackendHealth(h *api.BackendServiceGroupHealth, scope client.Scope, name string, config backendHealthModel) (backendHealthModel, diag.Diagnostics) {
	m := config
	m.ID = types.StringValue(scopedID(scope.Project, scope.Region, backendServiceCollection, name))
	m.Project = types.StringValue(scope.Project)
	m.Region = flattenString(scope.Region, types.StringNull())
	var healthy, unhealthy int64
	elems := make([]attr.Value, 0, len(h.HealthStatus))
	for _, hs := range h.HealthStatus {
		switch hs.HealthState {
		case healthStateHealthy:
			healthy++
		case healthStateUnhealthy:
			unhealthy++
		}
		obj, diags := endpointHealthValue(hs)
		if diags.HasError() {
			return m, diags
		}
		elems = append(elems, obj)
	}
	total := int64(len(h.HealthStatus))
	m.HealthyCount, m.UnhealthyCount = types.Int64Value(healthy), types.Int64Value(unhealthy)
	m.UnknownCount = types.Int64Value(total - healthy - unhealthy)
	m.AllHealthy = types.BoolValue(total > 0 && healthy == total)
	var diags diag.Diagnostics
	m.Endpoints, diags = types.ListValue(endpointHealthType, elems)
	return m, diags
}

func endpointHealthValue(hs api.HealthStatus) (types.Object, diag.Diagnostics) {
	port := types.Int64Null()
	if hs.Port != 0 {
		port = types.Int64Value(hs.Port)
	}
	str := func(s string) types.String { return flattenString(s, types.StringNull()) }
	return types.ObjectValue(endpointHealthAttrTypes, map[string]attr.Value{
		"ip_address":      types.StringValue(hs.IPAddress),
		"port":            port,
		"instance":        str(hs.Instance),
		"group":           str(hs.Group),
		"health_state":    types.StringValue(hs.HealthState),
		"reason":          str(hs.Reason),
		"detail":          str(hs.Detail),
		"last_probe_time": str(hs.LastProbeTime),
	})
}
