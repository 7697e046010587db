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

const compositeCheckNoun = "composite health check"

var compositeCheckCRUD = crud[compositeCheckModel, *api.CompositeHealthCheck]{
	noun:    compositeCheckNoun,
	scope:   (*compositeCheckModel).scope,
	name:    func(m compositeCheckModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandCompositeCheck),
	flatten: flattenCompositeCheck,
	insert:  (*client.Client).InsertCompositeHealthCheck,
	get:     (*client.Client).GetCompositeHealthCheck,
	patch:   (*client.Client).PatchCompositeHealthCheck,
	mutable: compositeCheckMutable,
	setFingerprint: func(obj *api.CompositeHealthCheck, state compositeCheckModel) {
		obj.Fingerprint = state.Fingerprint.ValueString()
	},
	del: (*client.Client).DeleteCompositeHealthCheck,
}

// compositeCheckKind is lbhealth_composite_check.
var compositeCheckKind = &resourceKind[compositeCheckModel, *api.CompositeHealthCheck]{
	crud:          compositeCheckCRUD,
	typeName:      "composite_check",
	collection:    api.CollectionCompositeHealthChecks,
	imports:       importRegional,
	schema:        compositeCheckSchema,
	fingerprinted: true,
	violations:    compositeCheckConfigViolations,
	plan: func(s *planStep[compositeCheckModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.Region = s.region(s.config.Region, s.state.Region)
		p.ID = planID(p.Project, p.Region, p.Name, api.CollectionCompositeHealthChecks)
		if s.hasState {
			s.diags.Append(keepEquivalentCompositeRefs(p, s.state)...)
		}
	},
}

func newCompositeCheckResource() resource.Resource {
	return &managedResource[compositeCheckModel, *api.CompositeHealthCheck]{kind: compositeCheckKind}
}

var compositeCheckDescriptions = map[string]string{
	"id": "`projects/{project}/regions/{region}/compositeHealthChecks/{name}`. Read its live health with the " +
		"`lbhealth_composite_health` data source.",
	"name": "Name of the composite health check, unique per project and region: 1-63 characters, a lowercase " +
		"letter first, then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it " +
		"replaces the check.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the check. Defaults to the provider's `project`. Changing it replaces the check.",
	"region": "Region of the check (composite checks are regional only). Defaults to the provider's `region`. " +
		"Changing it replaces the check.",
	"health_sources": fmt.Sprintf("The health sources combined, %d to %d, in order, each once: their `self_link`, "+
		"`id` or name (then in the check's region). All must be in the check's region and project. A composite "+
		"check cannot be a health source of another. Adding, removing or reordering sources is an update in place. "+
		"References stay as written.", rules.MinHealthSources, rules.MaxHealthSources),
	"health_destination": "The forwarding rule of the published service whose health the check reports: its " +
		"`self_link`, its `id` or its name (then in the check's region). A regional rule of the check's region and " +
		"project, with `load_balancing_scheme` `INTERNAL` or `INTERNAL_MANAGED`, and the destination of no other " +
		"composite check. Changing it is an update in place. The reference stays as written.",
	"self_link":          "URL of the composite health check, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the check was created (RFC 3339).",
	"composite_check_id": "Numeric id the server assigned to the composite health check, as a string.",
	"fingerprint": "Changes on every write. Updates send the value Terraform last read: when someone changed the " +
		"check outside Terraform in between, the emulator refuses the update (HTTP 412) rather than lose that change.",
}

func compositeCheckSchema() schema.Schema {
	d := compositeCheckDescriptions
	return schema.Schema{
		MarkdownDescription: "A composite health check: the health of one published regional service, combined " +
			"from its health sources and reported for its forwarding rule (the health destination), for cross-region " +
			"failover. `HEALTHY` when every source is; `UNHEALTHY` when at least one is; otherwise `UNKNOWN`. There " +
			"is no dry run: the check reports its state from the moment it exists. Read it with the " +
			"`lbhealth_composite_health` data source. Sources and destination change in place (HTTP PATCH with the " +
			"`fingerprint`). Destroy deletes in dependency order: the check, then its sources and their policies.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"region": defaultedString(d, "region"),
			// A list, not a set: the API keeps the order written, and
			// validation points at health_sources[3].
			"health_sources": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: d["health_sources"]},
			"health_destination": schema.StringAttribute{Required: true, MarkdownDescription: d["health_destination"]},
			"composite_check_id": computedString(d, "composite_check_id"),
			// No UseStateForUnknown: every update changes it.
			"fingerprint": schema.StringAttribute{Computed: true, MarkdownDescription: d["fingerprint"]},
		}),
	}
}
