package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

func newBackendHealthDataSource() datasource.DataSource {
	return &readDataSource[backendHealthModel]{typeName: "backend_health", schema: backendHealthDataSourceSchema, read: readBackendHealth}
}

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
	// WaitFor is the wait_for block (wait.go); nil without one.
	WaitFor *endpointsWaitModel `tfsdk:"wait_for"`
}

// endpointHealthType is the element type of endpoints.
var endpointHealthType = healthStatusType("ip_address", "port", "instance", "group", "health_state", "reason",
	"detail", "last_probe_time", "load_balancer", "firewall")

func backendHealthDataSourceSchema() schema.Schema {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the backend service, " +
			"`projects/{project}/global/backendServices/{name}` or `projects/{project}/regions/{region}/backendServices/{name}`."},
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
			NestedObject: healthStatusSchema(endpointHealthType, map[string]string{
				"instance": "Instance of the endpoint, when its group names one."}),
		},
	}
	return schema.Schema{
		MarkdownDescription: "Reads the live health of the endpoints of a backend service, as the emulator's probes " +
			"judge it (`backendServices.getHealth`), so that a `check` block or a postcondition can assert on it. " +
			"Terraform reads it at every plan: the values are those of that moment, unless a `wait_for` block asks " +
			"it to wait until they are healthy (as right after an apply, before the first probes have answered).",
		Attributes: withHealthCounts(attrs, "endpoints", "service"),
		Blocks:     map[string]schema.Block{"wait_for": endpointsWaitBlock()},
	}
}

// readBackendHealth reads the health of the resource config names, again
// until it is as its wait_for block asks.
var readBackendHealth = readHealth("backend_service", backendServiceNoun, backendServiceScope,
	func(ctx context.Context, c *client.Client, scope client.Scope, name string, config backendHealthModel) (*api.BackendServiceGroupHealth, error) {
		get := func(ctx context.Context) (*api.BackendServiceGroupHealth, error) {
			return c.GetBackendServiceHealth(ctx, scope, name, config.Group.ValueString())
		}
		if config.WaitFor == nil {
			return get(ctx)
		}
		return waitingGet(ctx, config.WaitFor.Timeout, get, func(h *api.BackendServiceGroupHealth) (bool, string) {
			return config.WaitFor.ready(h.HealthStatus)
		})
	},
	flattenBackendHealth)

// backendServiceScope finds the service backend_service names: its own
// project and region when it is a self link or an id, else project and
// region (or the provider's project; global).
func backendServiceScope(m backendHealthModel, data *providerData) (client.Scope, string, error) {
	return referencedScope("backend_service", m.BackendService.ValueString(), api.CollectionBackendServices,
		m.Project.ValueString(), m.Region.ValueString(), data.project, "")
}

// flattenBackendHealth maps a getHealth answer, in the emulator's order
// (group, address, port), and counts the states.
func flattenBackendHealth(h *api.BackendServiceGroupHealth, scope client.Scope, name string, config backendHealthModel) (backendHealthModel, diag.Diagnostics) {
	m := config
	m.ID = types.StringValue(scopedID(scope.Project, scope.Region, api.CollectionBackendServices, name))
	m.Project = types.StringValue(scope.Project)
	m.Region = flattenString(scope.Region, types.StringNull())
	sum, diags := summarizeHealth(h.HealthStatus, endpointHealthType)
	m.Endpoints, m.AllHealthy = sum.List, sum.AllHealthy
	m.HealthyCount, m.UnhealthyCount, m.UnknownCount = sum.HealthyCount, sum.UnhealthyCount, sum.UnknownCount
	return m, diags
}
