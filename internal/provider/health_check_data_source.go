package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func newHealthCheckDataSource() datasource.DataSource {
	return &readDataSource[healthCheckModel]{typeName: "health_check", schema: healthCheckDataSourceSchema, read: readHealthCheck}
}

func healthCheckDataSourceSchema() schema.Schema {
	desc := healthCheckDescriptions
	computed := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc[name]}
	}
	attrs := map[string]schema.Attribute{
		"name":                schema.StringAttribute{Required: true, MarkdownDescription: "Name of the health check to read."},
		"project":             schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project of the health check. Defaults to the provider's `project`."},
		"region":              schema.StringAttribute{Optional: true, MarkdownDescription: "Region of a regional health check; unset reads a global one."},
		"id":                  computed("id"),
		"description":         computed("description"),
		"self_link":           computed("self_link"),
		"creation_timestamp":  computed("creation_timestamp"),
		"health_check_id":     computed("health_check_id"),
		"type":                computed("type"),
		"check_interval_sec":  schema.Int64Attribute{Computed: true, MarkdownDescription: desc["check_interval_sec"]},
		"timeout_sec":         schema.Int64Attribute{Computed: true, MarkdownDescription: desc["timeout_sec"]},
		"healthy_threshold":   schema.Int64Attribute{Computed: true, MarkdownDescription: desc["healthy_threshold"]},
		"unhealthy_threshold": schema.Int64Attribute{Computed: true, MarkdownDescription: desc["unhealthy_threshold"]},
		"source_regions":      schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: desc["source_regions"]},
		"log_config": schema.SingleNestedAttribute{Computed: true, MarkdownDescription: "Logging of health state transitions.",
			Attributes: map[string]schema.Attribute{
				"enable": schema.BoolAttribute{Computed: true, MarkdownDescription: desc["log_config.enable"]},
			}},
	}
	for _, b := range protocolBlocks {
		attrs[b.name] = blockDataSourceSchema(b)
	}
	return schema.Schema{
		MarkdownDescription: "Reads a health check (global, or regional with `region`) by name.",
		Attributes:          attrs,
	}
}

// readHealthCheck reads what config asks for.
func readHealthCheck(ctx context.Context, data *providerData, config healthCheckModel) (*healthCheckModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	if config.Project.IsNull() {
		config.Project = types.StringValue(data.project)
	}
	got, err := data.client.GetHealthCheck(ctx, config.scope(), config.Name.ValueString())
	if err != nil {
		addClientError(&diags, "reading", healthCheckNoun, err)
		return nil, diags
	}
	// A non-null prior log_config: a data source shows every value.
	config.LogConfig = types.ObjectUnknown(logConfigAttrTypes)
	state, flattenDiags := flattenHealthCheck(got, config.scope(), config)
	diags.Append(flattenDiags...)
	return &state, diags
}
