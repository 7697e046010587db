package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

func newCompositeHealthDataSource() datasource.DataSource {
	return &readDataSource[compositeHealthModel]{typeName: "composite_health", schema: compositeHealthDataSourceSchema, read: readCompositeHealth}
}

// compositeHealthModel is the Terraform data of lbhealth_composite_health.
type compositeHealthModel struct {
	ID             types.String `tfsdk:"id"`
	CompositeCheck types.String `tfsdk:"composite_check"`
	Project        types.String `tfsdk:"project"`
	Region         types.String `tfsdk:"region"`
	HealthState    types.String `tfsdk:"health_state"`
	Healthy        types.Bool   `tfsdk:"healthy"`
	Sources        types.List   `tfsdk:"sources"`
	// WaitFor is the wait_for block (wait.go); nil without one.
	WaitFor *healthyWaitModel `tfsdk:"wait_for"`
}

var sourceStateAttrTypes = map[string]attr.Type{
	"source":       types.StringType,
	"health_state": types.StringType,
}

var sourceStateType = types.ObjectType{AttrTypes: sourceStateAttrTypes}

func compositeHealthDataSourceSchema() schema.Schema {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	return schema.Schema{
		MarkdownDescription: "Reads the live health of a composite health check and of each of its health sources " +
			"(`compositeHealthChecks.getHealth`), as the emulator evaluates it from real probes, so that a `check` " +
			"block or a postcondition can assert on it. Terraform reads it at every plan and refresh: the values are " +
			"those of that moment (`terraform apply -refresh-only` shows them again), unless a `wait_for` block asks it " +
			"to wait until the check is `HEALTHY`.",
		Blocks: map[string]schema.Block{"wait_for": healthyWaitBlock()},
		Attributes: map[string]schema.Attribute{
			"id": str("Id of the composite health check, `projects/{project}/regions/{region}/compositeHealthChecks/{name}`."),
			"composite_check": schema.StringAttribute{Required: true,
				MarkdownDescription: "The composite health check: its `self_link`, its `id`, `{project}/{name}` or its name."},
			"project": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Project of the check when `composite_check` does not say. Defaults to the provider's `project`."},
			"region": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Region of the check when `composite_check` does not say. Defaults to the provider's `region`."},
			"health_state": str("`HEALTHY` when every health source is, `UNHEALTHY` when at least one is, else " +
				"`UNKNOWN` (no verdict yet, as just after creation)."),
			"healthy": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "True when `health_state` is `HEALTHY`: `UNKNOWN` is not healthy."},
			"sources": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "Each health source of the check, in the check's order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"source":       str("URL of the health source."),
					"health_state": str("`HEALTHY`, `UNHEALTHY` or `UNKNOWN`, as its aggregation policy judges its backend service."),
				}},
			},
		},
	}
}

// readCompositeHealth reads the health of the resource config names,
// again until it is as its wait_for block asks.
var readCompositeHealth = readHealth("composite_check", compositeCheckNoun, compositeCheckScope,
	func(ctx context.Context, c *client.Client, scope client.Scope, name string, config compositeHealthModel) (*api.CompositeHealthCheckHealth, error) {
		get := func(ctx context.Context) (*api.CompositeHealthCheckHealth, error) {
			return c.GetCompositeHealthCheckHealth(ctx, scope, name)
		}
		if config.WaitFor == nil {
			return get(ctx)
		}
		return waitingGet(ctx, config.WaitFor.Timeout, get, client.CompositeHealthy)
	},
	flattenCompositeHealth)

// compositeCheckScope finds the check composite_check names, as
// targetPoolScope finds a pool: a check named by its name alone is in the
// provider's region, as composite checks are regional only.
func compositeCheckScope(m compositeHealthModel, data *providerData) (client.Scope, string, error) {
	scope, name, err := referencedScope("composite_check", m.CompositeCheck.ValueString(), api.CollectionCompositeHealthChecks,
		m.Project.ValueString(), m.Region.ValueString(), data.project, data.region)
	if err == nil && scope.Region == "" {
		err = fmt.Errorf("composite_check %q is global, but composite health checks are regional only: "+
			"use projects/{project}/regions/{region}/%s/{name}", m.CompositeCheck.ValueString(), api.CollectionCompositeHealthChecks)
	}
	return scope, name, err
}

// flattenCompositeHealth maps a getHealth answer, sources in the check's order.
func flattenCompositeHealth(h *api.CompositeHealthCheckHealth, scope client.Scope, name string, config compositeHealthModel) (compositeHealthModel, diag.Diagnostics) {
	m := config
	m.ID = types.StringValue(scopedID(scope.Project, scope.Region, api.CollectionCompositeHealthChecks, name))
	m.Project, m.Region = types.StringValue(scope.Project), types.StringValue(scope.Region)
	m.HealthState = types.StringValue(h.HealthState)
	m.Healthy = types.BoolValue(h.HealthState == api.StateHealthy)
	elems := make([]attr.Value, 0, len(h.HealthSources))
	for _, s := range h.HealthSources {
		obj, diags := types.ObjectValue(sourceStateAttrTypes, map[string]attr.Value{
			"source": types.StringValue(s.Source), "health_state": types.StringValue(s.HealthState)})
		if diags.HasError() {
			return m, diags
		}
		elems = append(elems, obj)
	}
	var diags diag.Diagnostics
	m.Sources, diags = types.ListValue(sourceStateType, elems)
	return m, diags
}
