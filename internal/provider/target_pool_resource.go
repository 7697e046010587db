package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const targetPoolNoun = "target pool"

var targetPoolCRUD = crud[targetPoolModel, *api.TargetPool]{
	noun:    targetPoolNoun,
	scope:   (*targetPoolModel).scope,
	name:    func(m targetPoolModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandTargetPool),
	flatten: flattenTargetPool,
	insert:  (*client.Client).InsertTargetPool,
	get:     (*client.Client).GetTargetPool,
	put:     (*client.Client).UpdateTargetPool,
	del:     (*client.Client).DeleteTargetPool,
}

// targetPoolKind is lbhealth_target_pool.
var targetPoolKind = &resourceKind[targetPoolModel, *api.TargetPool]{
	crud:          targetPoolCRUD,
	typeName:      "target_pool",
	collection:    api.CollectionTargetPools,
	imports:       importRegional,
	schema:        targetPoolSchema,
	fingerprinted: false,
	violations:    targetPoolConfigViolations,
	plan: func(s *planStep[targetPoolModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.Region = s.region(s.config.Region, s.state.Region)
		p.ID = planID(p.Project, p.Region, p.Name, api.CollectionTargetPools)
		if s.hasState {
			s.diags.Append(keepEquivalentCheckRefs(p, s.state)...)
		}
	},
}

func newTargetPoolResource() resource.Resource {
	return &managedResource[targetPoolModel, *api.TargetPool]{kind: targetPoolKind}
}

var targetPoolDescriptions = map[string]string{
	"id": "`projects/{project}/regions/{region}/targetPools/{name}`. A forwarding rule's `target` takes it, or `self_link`.",
	"name": "Name of the target pool, unique per project and region: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the pool.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the pool. Defaults to the provider's `project`. Changing it replaces the pool.",
	"region": "Region of the pool: target pools are always regional. Defaults to the provider's `region`, and this " +
		"attribute shows it. Changing it replaces the pool.",
	"instances": "The instances of the pool, as endpoint addresses: `\"ip:port\"`, or `\"ip\"` to probe the check's " +
		"`port`. Each may be listed once; the order written is kept. The emulator probes loopback addresses only, " +
		"unless it is started with `--probe-networks`.",
	"health_checks": "The health check of the pool, as a list of at most one reference to an " +
		"`lbhealth_legacy_http_check`: its `self_link`, its `id` (`projects/.../global/httpHealthChecks/...`) or its " +
		"name. Target pools take one legacy HTTP check only: a legacy HTTPS check or a regular health check is " +
		"refused (at plan time when the reference shows its collection). Unset: the instances are not probed. The " +
		"reference stays as written, as for a backend service's `health_checks`.",
	"self_link":          "URL of the target pool, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the target pool was created (RFC 3339).",
	"target_pool_id":     "Numeric id the server assigned to the target pool, as a string.",
}

func targetPoolSchema() schema.Schema {
	d := targetPoolDescriptions
	return schema.Schema{
		MarkdownDescription: "A target pool, the backend of a network load balancer: instances probed by one legacy " +
			"HTTP health check (`lbhealth_legacy_http_check`). Read their live health with the " +
			"`lbhealth_target_pool_health` data source. Changing the instances or the check updates the pool in place " +
			"(HTTP PUT). A check the pool uses cannot be deleted until the pool stops using it, and a pool a " +
			"forwarding rule uses cannot be deleted either.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"region": defaultedString(d, "region"),
			"instances": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["instances"]},
			"health_checks": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["health_checks"]},
			"target_pool_id": computedString(d, "target_pool_id"),
		}),
	}
}
