package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

func newTargetPoolHealthDataSource() datasource.DataSource {
	return &readDataSource[targetPoolHealthModel]{typeName: "target_pool_health", schema: targetPoolHealthDataSourceSchema, read: readTargetPoolHealth}
}

// targetPoolHealthModel is the Terraform data of lbhealth_target_pool_health.
type targetPoolHealthModel struct {
	ID             types.String `tfsdk:"id"`
	TargetPool     types.String `tfsdk:"target_pool"`
	Project        types.String `tfsdk:"project"`
	Region         types.String `tfsdk:"region"`
	Instance       types.String `tfsdk:"instance"`
	Instances      types.List   `tfsdk:"instances"`
	HealthyCount   types.Int64  `tfsdk:"healthy_count"`
	UnhealthyCount types.Int64  `tfsdk:"unhealthy_count"`
	UnknownCount   types.Int64  `tfsdk:"unknown_count"`
	AllHealthy     types.Bool   `tfsdk:"all_healthy"`
}

// instanceHealthType is the element type of instances: a backend health
// endpoint without group (a pool has none).
var instanceHealthType = healthStatusType("instance", "ip_address", "port", "health_state", "reason", "detail",
	"last_probe_time", "load_balancer", "firewall")

func targetPoolHealthDataSourceSchema() schema.Schema {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true,
			MarkdownDescription: "Id of the target pool, `projects/{project}/regions/{region}/targetPools/{name}`."},
		"target_pool": schema.StringAttribute{Required: true,
			MarkdownDescription: "The target pool: its `self_link`, its `id`, `{project}/{name}` or its name."},
		"project": schema.StringAttribute{Optional: true, Computed: true,
			MarkdownDescription: "Project of the pool when `target_pool` does not say. Defaults to the provider's `project`."},
		"region": schema.StringAttribute{Optional: true, Computed: true,
			MarkdownDescription: "Region of the pool when `target_pool` is a name. Defaults to the provider's `region`."},
		"instance": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Only this instance of the pool, written as the pool lists it (`\"ip:port\"` or `\"ip\"`). Unset: every instance."},
		"instances": schema.ListNestedAttribute{Computed: true,
			MarkdownDescription: "Every instance probed for the pool, ordered by address and port. A pool without a " +
				"health check probes nothing and lists none.",
			NestedObject: healthStatusSchema(instanceHealthType, map[string]string{
				"instance":   "The instance, as the pool lists it.",
				"ip_address": "Address of the instance.",
				"port":       "Port probed when the instance names one; null when it is written `\"ip\"` (the check's `port` is probed).",
			}),
		},
	}
	return schema.Schema{
		MarkdownDescription: "Reads the live health of the instances of a target pool, as the emulator's probes with " +
			"the pool's legacy HTTP check judge it (`targetPools.getHealth`), so that a `check` block or a " +
			"postcondition can assert on it. Terraform reads it at every plan: the values are those of that moment.",
		Attributes: withHealthCounts(attrs, "instances", "pool"),
	}
}

// readTargetPoolHealth reads the health of the resource config names.
var readTargetPoolHealth = readHealth("target_pool", targetPoolNoun, targetPoolScope,
	func(ctx context.Context, c *client.Client, scope client.Scope, name string, config targetPoolHealthModel) (*api.TargetPoolInstanceHealth, error) {
		return c.GetTargetPoolHealth(ctx, scope, name, config.Instance.ValueString())
	},
	flattenTargetPoolHealth)

// targetPoolScope finds the pool target_pool names, as backendServiceScope
// does, except that a pool named by its name alone is in the provider's
// region: pools are always regional.
func targetPoolScope(m targetPoolHealthModel, data *providerData) (client.Scope, string, error) {
	scope, name, err := referencedScope("target_pool", m.TargetPool.ValueString(), api.CollectionTargetPools,
		m.Project.ValueString(), m.Region.ValueString(), data.project, data.region)
	if err == nil && scope.Region == "" {
		err = fmt.Errorf("target_pool %q is global, but target pools are regional: use "+
			"projects/{project}/regions/{region}/targetPools/{name}", m.TargetPool.ValueString())
	}
	return scope, name, err
}

// flattenTargetPoolHealth maps a getHealth answer, in the emulator's order
// (address, port), and counts the states.
func flattenTargetPoolHealth(h *api.TargetPoolInstanceHealth, scope client.Scope, name string, config targetPoolHealthModel) (targetPoolHealthModel, diag.Diagnostics) {
	m := config
	m.ID = types.StringValue(scopedID(scope.Project, scope.Region, api.CollectionTargetPools, name))
	m.Project = types.StringValue(scope.Project)
	m.Region = types.StringValue(scope.Region)
	sum, diags := summarizeHealth(h.HealthStatus, instanceHealthType)
	m.Instances, m.AllHealthy = sum.List, sum.AllHealthy
	m.HealthyCount, m.UnhealthyCount, m.UnknownCount = sum.HealthyCount, sum.UnhealthyCount, sum.UnknownCount
	return m, diags
}
