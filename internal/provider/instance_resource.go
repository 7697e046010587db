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

const instanceNoun = "instance"

// instanceKind is lbhealth_instance.
var instanceKind = &resourceKind[instanceModel, *api.Instance]{
	crud: crud[instanceModel, *api.Instance]{
		noun:    instanceNoun,
		scope:   (*instanceModel).scope,
		name:    func(m instanceModel) string { return m.Name.ValueString() },
		expand:  ignoreSecond(expandInstance),
		flatten: noDiags(flattenInstance),
		insert:  (*client.Client).InsertInstance,
		get:     (*client.Client).GetInstance,
		put:     noUpdate[*api.Instance](instanceNoun),
		del:     (*client.Client).DeleteInstance,
	},
	typeName:   "instance",
	collection: api.CollectionInstances,
	imports:    importZonal,
	schema:     instanceSchema,
	violations: instanceConfigViolations,
	naming:     instanceNaming,
	plan: func(s *planStep[instanceModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.ID = planZonalID(p.Project, p.Zone, p.Name, api.CollectionInstances)
	},
}

func newInstanceResource() resource.Resource {
	return &managedResource[instanceModel, *api.Instance]{kind: instanceKind}
}

// planZonalID is the id a zonal resource will have, unknown while its
// project, zone or name is.
func planZonalID(project, zone, name types.String, collection string) types.String {
	if project.IsUnknown() || zone.IsUnknown() || name.IsUnknown() {
		return types.StringUnknown()
	}
	return types.StringValue(zonalID(project.ValueString(), zone.ValueString(), collection, name.ValueString()))
}

var instanceDescriptions = map[string]string{
	"id": "`projects/{project}/zones/{zone}/instances/{name}`. An instance group's `instances` takes it, or " +
		"`self_link`.",
	"name": "Name of the instance, unique per project and zone: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the instance.",
	"description": fmt.Sprintf("Free-form description, at most %d characters. Changing it replaces the instance.",
		rules.MaxDescriptionLength),
	"project": "Project of the instance. Defaults to the provider's `project`. Changing it replaces the instance.",
	"zone":    "Zone of the instance, such as `us-central1-a`. Changing it replaces the instance.",
	"network": "Network of the instance's interface: its `self_link`, its `id` or its name. Without `network` and " +
		"`subnetwork`, the project's `default` network when it has one. Changing it replaces the instance.",
	"subnetwork": "Subnetwork of the instance's interface, in the zone's region: its `self_link`, its `id` or its " +
		"name. The instance's address then comes from its range. Changing it replaces the instance.",
	"network_ip": "IPv4 address of the instance, where probes reach it. Without one, the next free address of " +
		"`subnetwork`, or, with no subnetwork, a loopback address (127.0.x.y) so that probes reach this machine. A " +
		"private address is probed at the loopback address the emulator's `--probe-map` maps it to. Changing it " +
		"replaces the instance.",
	"status":             "`RUNNING`: an instance runs as soon as it exists.",
	"self_link":          "URL of the instance, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the instance was created (RFC 3339).",
	"instance_id":        "Numeric id the server assigned to the instance, as a string.",
}

func instanceSchema() schema.Schema {
	d := instanceDescriptions
	replaceIfSet := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()}}
	}
	attrs := resourceAttributes(d, map[string]schema.Attribute{
		"zone": schema.StringAttribute{Required: true, MarkdownDescription: d["zone"],
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"network":     replaceIfSet("network"),
		"subnetwork":  replaceIfSet("subnetwork"),
		"network_ip":  replaceIfSet("network_ip"),
		"status":      computedString(d, "status"),
		"instance_id": computedString(d, "instance_id"),
	})
	attrs["description"] = replacingDescription(d)
	return schema.Schema{
		MarkdownDescription: "A VM instance with one network interface: what an unmanaged instance group " +
			"(`lbhealth_instance_group`) holds and a backend service over that group probes, at the instance's " +
			"`network_ip`. It stores no machine: whatever listens at that address answers its probes (a local " +
			"server, or the emulator's target simulator). Instances cannot change in place: every change replaces " +
			"the instance, and deleting it takes it out of its groups, as in the Compute API (a group then plans to " +
			"add a replaced instance back; `lifecycle { replace_triggered_by }` on the group does it in the same apply).",
		Attributes: attrs,
	}
}

// replacingDescription is the description of a resource the API cannot
// change in place.
func replacingDescription(d map[string]string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: d["description"],
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}
}
