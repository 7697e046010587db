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

const instanceGroupNoun = "instance group"

// instanceGroupKind is lbhealth_instance_group.
var instanceGroupKind = &resourceKind[instanceGroupModel, *api.InstanceGroup]{
	crud: crud[instanceGroupModel, *api.InstanceGroup]{
		noun:    instanceGroupNoun,
		scope:   (*instanceGroupModel).scope,
		name:    func(m instanceGroupModel) string { return m.Name.ValueString() },
		expand:  ignoreSecond(expandInstanceGroup),
		flatten: flattenInstanceGroup,
		insert:  (*client.Client).InsertInstanceGroup,
		get:     (*client.Client).GetInstanceGroup,
		put:     (*client.Client).UpdateInstanceGroup,
		del:     (*client.Client).DeleteInstanceGroup,
	},
	typeName:   "instance_group",
	collection: api.CollectionInstanceGroups,
	imports:    importZonal,
	schema:     instanceGroupSchema,
	violations: instanceGroupConfigViolations,
	naming:     instanceGroupNaming,
	plan: func(s *planStep[instanceGroupModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.ID = planZonalID(p.Project, p.Zone, p.Name, api.CollectionInstanceGroups)
		p.Size = types.Int64Unknown()
		switch {
		case p.Instances.IsNull():
			p.Size = types.Int64Value(0)
		case !p.Instances.IsUnknown():
			p.Size = types.Int64Value(int64(len(p.Instances.Elements())))
		}
	},
}

func newInstanceGroupResource() resource.Resource {
	return &managedResource[instanceGroupModel, *api.InstanceGroup]{kind: instanceGroupKind}
}

var instanceGroupDescriptions = map[string]string{
	"id": "`projects/{project}/zones/{zone}/instanceGroups/{name}`. A backend service's `backend.group` takes it, " +
		"or `self_link`.",
	"name": "Name of the group, unique per project and zone: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the group.",
	"description": fmt.Sprintf("Free-form description, at most %d characters. Changing it replaces the group.",
		rules.MaxDescriptionLength),
	"project": "Project of the group. Defaults to the provider's `project`. Changing it replaces the group.",
	"zone":    "Zone of the group, such as `us-central1-a`; its instances are in the same zone. Changing it replaces the group.",
	"network": "Network of the group: its `self_link`, its `id` or its name. Without one, the network of the first " +
		"instance, as in the Compute API. Every instance must be in it. Changing it replaces the group.",
	"instances": "The group's instances: each an instance's `self_link` or `id` (`projects/{project}/zones/{zone}/" +
		"instances/{name}`), of the group's zone and network. Adding or removing one updates the group in place " +
		"(the API's `addInstances` and `removeInstances`). A reference stays as written.",
	"named_port": "A named port of the group: the port a backend service's `port_name`, and a health check's " +
		"`port_specification = \"USE_NAMED_PORT\"` with its `port_name`, resolve to on every instance. A name may be " +
		"listed with several ports. Changing them updates the group in place (`setNamedPorts`).",
	"named_port.name":    "Name of the port: 1-63 characters, RFC 1035.",
	"named_port.port":    fmt.Sprintf("Port number, %d-%d.", rules.MinPort, rules.MaxPort),
	"size":               "Number of instances in the group.",
	"self_link":          "URL of the group, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the group was created (RFC 3339).",
	"instance_group_id":  "Numeric id the server assigned to the group, as a string.",
}

func instanceGroupSchema() schema.Schema {
	d := instanceGroupDescriptions
	attrs := resourceAttributes(d, map[string]schema.Attribute{
		"zone": schema.StringAttribute{Required: true, MarkdownDescription: d["zone"],
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"network": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["network"],
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()}},
		"instances":         schema.SetAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: d["instances"]},
		"size":              schema.Int64Attribute{Computed: true, MarkdownDescription: d["size"]},
		"instance_group_id": computedString(d, "instance_group_id"),
	})
	attrs["description"] = replacingDescription(d)
	return schema.Schema{
		MarkdownDescription: "An unmanaged instance group: instances a backend service balances over " +
			"(`lbhealth_backend_service`'s `backend.group`), each probed at its `network_ip`, and the named ports " +
			"that say which of their ports serve what. Instances and named ports change in place; the rest replaces " +
			"the group. A group a backend service uses cannot be deleted.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"named_port": namedPortBlock(d),
		},
	}
}

// namedPortBlock is the named_port blocks of an instance group or a
// managed one, in the order written (the emulator keeps it).
func namedPortBlock(d map[string]string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: d["named_port"],
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Required: true, MarkdownDescription: d["named_port.name"]},
			"port": schema.Int64Attribute{Required: true, MarkdownDescription: d["named_port.port"]},
		}},
	}
}
