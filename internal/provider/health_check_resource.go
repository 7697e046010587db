package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const healthCheckNoun = "health check"

var healthCheckCRUD = crud[healthCheckModel, *api.HealthCheck]{
	noun:   healthCheckNoun,
	scope:  (*healthCheckModel).scope,
	name:   func(m healthCheckModel) string { return m.Name.ValueString() },
	expand: ignoreSecond(expandHealthCheck),
	// prior decides log_config: with no block in it, the server's default
	// (logging off) stays null so that an omitted block never makes a diff.
	flatten: flattenHealthCheck,
	insert:  (*client.Client).InsertHealthCheck,
	get:     (*client.Client).GetHealthCheck,
	put:     (*client.Client).UpdateHealthCheck,
	del:     (*client.Client).DeleteHealthCheck,
}

// healthCheckKind is lbhealth_health_check.
var healthCheckKind = &resourceKind[healthCheckModel, *api.HealthCheck]{
	crud:          healthCheckCRUD,
	typeName:      "health_check",
	collection:    api.CollectionHealthChecks,
	imports:       importAnyScope,
	schema:        healthCheckSchema,
	fingerprinted: false,
	violations:    healthCheckConfigViolations,
	plan: func(s *planStep[healthCheckModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.Type = planType(*p)
		// A check of a type lbhealth adds keeps it: another type replaces it.
		if s.hasState && !p.Type.IsUnknown() && rules.CheckTypeChange(s.state.Type.ValueString(), p.Type.ValueString()) != nil {
			s.replace = append(s.replace, path.Root("type"))
		}
		p.ID = planID(p.Project, p.Region, p.Name, api.CollectionHealthChecks)
		s.diags.Append(planBlockPorts(p, s.config)...)
	},
}

func newHealthCheckResource() resource.Resource {
	return &managedResource[healthCheckModel, *api.HealthCheck]{kind: healthCheckKind}
}

func healthCheckSchema() schema.Schema {
	d := healthCheckDescriptions
	blocks := map[string]schema.Block{
		"log_config": schema.SingleNestedBlock{
			MarkdownDescription: d["log_config"],
			Attributes: map[string]schema.Attribute{
				"enable": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
					MarkdownDescription: d["log_config.enable"]},
			},
		},
	}
	for _, b := range protocolBlocks {
		blocks[b.name] = blockSchema(b)
	}
	timing := func(name string, def int64) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(def),
			MarkdownDescription: d[name]}
	}
	return schema.Schema{
		MarkdownDescription: "A load-balancer health check, global or regional: how the emulator probes " +
			"endpoints and when it calls them healthy. Set exactly one protocol block. Updates replace the whole " +
			"object in place, and so do switches between the Compute API's seven protocol blocks; switching to or from " +
			"one of the emulator's own blocks (DNS, SMTP, FTP, LDAP, SQL, UDP, ICMP, expression, scenario ...) replaces the " +
			"check, as does changing `name`, `project` or `region`. " +
			"A check used by a backend service cannot be deleted: where a replacement is planned, " +
			"`lifecycle { create_before_destroy = true }` lets Terraform move the reference first.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"region": schema.StringAttribute{Optional: true, MarkdownDescription: d["region"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"health_check_id": computedString(d, "health_check_id"),
			// No UseStateForUnknown: ModifyPlan derives type from the block.
			"type":                schema.StringAttribute{Computed: true, MarkdownDescription: d["type"]},
			"check_interval_sec":  timing("check_interval_sec", rules.DefaultCheckIntervalSec),
			"timeout_sec":         timing("timeout_sec", rules.DefaultTimeoutSec),
			"healthy_threshold":   timing("healthy_threshold", rules.DefaultHealthyThreshold),
			"unhealthy_threshold": timing("unhealthy_threshold", rules.DefaultUnhealthyThreshold),
			"source_regions": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["source_regions"]},
		}),
		Blocks: blocks,
	}
}
