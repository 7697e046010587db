package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const healthSourceNoun = "health source"

var healthSourceCRUD = crud[healthSourceModel, *api.HealthSource]{
	noun:    healthSourceNoun,
	scope:   (*healthSourceModel).scope,
	name:    func(m healthSourceModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandHealthSource),
	flatten: flattenHealthSource,
	insert:  (*client.Client).InsertHealthSource,
	get:     (*client.Client).GetHealthSource,
	patch:   (*client.Client).PatchHealthSource,
	mutable: healthSourceMutable,
	setFingerprint: func(obj *api.HealthSource, state healthSourceModel) {
		obj.Fingerprint = state.Fingerprint.ValueString()
	},
	del: (*client.Client).DeleteHealthSource,
}

// healthSourceKind is lbhealth_health_source.
var healthSourceKind = &resourceKind[healthSourceModel, *api.HealthSource]{
	crud:          healthSourceCRUD,
	typeName:      "health_source",
	collection:    api.CollectionHealthSources,
	imports:       importRegional,
	schema:        healthSourceSchema,
	fingerprinted: true,
	violations:    healthSourceConfigViolations,
	plan: func(s *planStep[healthSourceModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.Region = s.region(s.config.Region, s.state.Region)
		p.ID = planID(p.Project, p.Region, p.Name, api.CollectionHealthSources)
		if s.hasState {
			s.diags.Append(keepEquivalentSourceRefs(p, s.state)...)
		}
	},
}

func newHealthSourceResource() resource.Resource {
	return &managedResource[healthSourceModel, *api.HealthSource]{kind: healthSourceKind}
}

var healthSourceDescriptions = map[string]string{
	"id": "`projects/{project}/regions/{region}/healthSources/{name}`. A composite check's `health_sources` takes " +
		"it, or `self_link`.",
	"name": "Name of the health source, unique per project and region: 1-63 characters, a lowercase letter first, " +
		"then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the source.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the health source. Defaults to the provider's `project`. Changing it replaces the source.",
	"region": "Region of the health source (health sources are regional only). Defaults to the provider's " +
		"`region`. Changing it replaces the source.",
	"source_type": "What the source aggregates: `" + api.SourceTypeBackendService + "` (the only value). Changing it " +
		"replaces the source.",
	"sources": "Exactly one backend service, as a list of one reference: its `self_link`, its `id` or its name (then " +
		"in the source's region). It must be a regional service of the source's region and project, with " +
		"`load_balancing_scheme` `INTERNAL` or `INTERNAL_MANAGED`, whose backends are `GCE_VM_IP` or `GCE_VM_IP_PORT` " +
		"endpoint groups. Changing it is an update in place. The reference stays as written.",
	"health_aggregation_policy": "The policy that says when the backend service is healthy: its `self_link`, its " +
		"`id` or its name, in the source's region. Changing it is an update in place. The reference stays as written.",
	"self_link":          "URL of the health source, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the health source was created (RFC 3339).",
	"health_source_id":   "Numeric id the server assigned to the health source, as a string.",
	"fingerprint": "Changes on every write. Updates send the value Terraform last read: when someone changed the " +
		"source outside Terraform in between, the emulator refuses the update (HTTP 412) rather than lose that change.",
}

func healthSourceSchema() schema.Schema {
	d := healthSourceDescriptions
	return schema.Schema{
		MarkdownDescription: "A health source: the health of one backend service as one state, judged by a health " +
			"aggregation policy from the live health of its endpoints. `HEALTHY` when the policy holds counting only " +
			"healthy endpoints; `UNHEALTHY` when it fails even if every endpoint without a verdict yet turned healthy " +
			"(and when the service has no endpoint); otherwise `UNKNOWN`, as just after creation. Composite health " +
			"checks (`lbhealth_composite_check`) combine health sources. `sources` and the policy change in place " +
			"(HTTP PATCH with the `fingerprint`). A source in use cannot be deleted.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"region": defaultedString(d, "region"),
			"source_type": schema.StringAttribute{Required: true, MarkdownDescription: d["source_type"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			// A list, though it holds one reference: the API's shape, and
			// the count rule then points at it with the API's words.
			"sources": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: d["sources"]},
			"health_aggregation_policy": schema.StringAttribute{Required: true,
				MarkdownDescription: d["health_aggregation_policy"]},
			"health_source_id": computedString(d, "health_source_id"),
			// No UseStateForUnknown: every update changes it.
			"fingerprint": schema.StringAttribute{Computed: true, MarkdownDescription: d["fingerprint"]},
		}),
	}
}
