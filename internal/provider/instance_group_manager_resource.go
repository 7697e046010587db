package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const instanceGroupManagerNoun = "managed instance group"

// instanceGroupManagerKind is lbhealth_instance_group_manager.
var instanceGroupManagerKind = &resourceKind[instanceGroupManagerModel, *api.InstanceGroupManager]{
	crud: crud[instanceGroupManagerModel, *api.InstanceGroupManager]{
		noun:    instanceGroupManagerNoun,
		scope:   (*instanceGroupManagerModel).scope,
		name:    func(m instanceGroupManagerModel) string { return m.Name.ValueString() },
		expand:  ignoreSecond(expandInstanceGroupManager),
		flatten: flattenInstanceGroupManager,
		insert:  (*client.Client).InsertInstanceGroupManager,
		get:     (*client.Client).GetInstanceGroupManager,
		patch:   (*client.Client).PatchInstanceGroupManager,
		mutable: managerMutable,
		setFingerprint: func(obj *api.InstanceGroupManager, state instanceGroupManagerModel) {
			obj.Fingerprint = state.Fingerprint.ValueString()
		},
		del: (*client.Client).DeleteInstanceGroupManager,
	},
	typeName:      "instance_group_manager",
	collection:    api.CollectionInstanceGroupManagers,
	imports:       importRegional,
	schema:        instanceGroupManagerSchema,
	fingerprinted: true,
	violations:    instanceGroupManagerConfigViolations,
	naming:        managerNaming,
	plan: func(s *planStep[instanceGroupManagerModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		if s.config.Zone.IsNull() {
			p.Region = s.region(s.config.Region, s.state.Region)
			p.ID = planID(p.Project, p.Region, p.Name, api.CollectionInstanceGroupManagers)
		} else {
			if s.config.Region.IsNull() {
				p.Region = types.StringNull() // a zonal group has no region
			}
			p.ID = planZonalID(p.Project, p.Zone, p.Name, api.CollectionInstanceGroupManagers)
		}
		if s.hasState {
			s.diags.Append(keepEquivalentManagerRefs(p, s.state)...)
		}
	},
}

func newInstanceGroupManagerResource() resource.Resource {
	return &managedResource[instanceGroupManagerModel, *api.InstanceGroupManager]{kind: instanceGroupManagerKind}
}

var instanceGroupManagerDescriptions = map[string]string{
	"id": "`projects/{project}/zones/{zone}/instanceGroupManagers/{name}` for a zonal group, " +
		"`projects/{project}/regions/{region}/instanceGroupManagers/{name}` for a regional one.",
	"name": "Name of the group, unique per project and zone or region: 1-63 characters, a lowercase letter first, " +
		"then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). The instance group it " +
		"keeps its instances in has the same name. Changing it replaces the group.",
	"description": fmt.Sprintf("Free-form description, at most %d characters. Changing it replaces the group.",
		rules.MaxDescriptionLength),
	"project": "Project of the group. Defaults to the provider's `project`. Changing it replaces the group.",
	"zone":    "Zone of a zonal group. Conflicts with `region`. Changing it replaces the group.",
	"region": "Region of a regional group, whose instances are spread over the zones `-a`, `-b` and `-c` of the " +
		"region. With neither `zone` nor `region`, the group is regional in the provider's `region`, and this " +
		"attribute shows it. Changing it replaces the group.",
	"base_instance_name": fmt.Sprintf("Prefix of the names of the group's instances: `{base}-{4 random characters}`, "+
		"or, for a base ending in hash signs (`web-###`), numbered names (`web-001`). 1-%d characters. Changing it "+
		"replaces the group.", rules.MaxBaseInstanceNameLength),
	"instance_template": "The template the group makes its instances from: its `self_link`, its `id` or its name. " +
		"Changing it is an update in place: instances made from then on, recreated ones included, use the new " +
		"template. The reference stays as written.",
	"target_size": fmt.Sprintf("Number of instances the group keeps, 0-%d (0 when not set). Changing it is an "+
		"update in place: the group makes or deletes instances; an instance deleted by hand is made again.",
		rules.MaxManagedInstances),
	"named_port": "A named port of the group's instance group: the port a backend service's `port_name`, and a " +
		"health check's `port_specification = \"USE_NAMED_PORT\"`, resolve to on every instance. Changing them " +
		"updates the group in place.",
	"named_port.name": "Name of the port: 1-63 characters, RFC 1035.",
	"named_port.port": fmt.Sprintf("Port number, %d-%d.", rules.MinPort, rules.MaxPort),
	"auto_healing_policies": "Autohealing: the health check whose verdict recreates an instance. The check probes " +
		"every instance with its own probes, independent of any load balancer's; an instance it finds `UNHEALTHY` " +
		"is recreated (new id and creation time, the same name and address), then verified until it passes. One " +
		"policy at most. Changing it is an update in place.",
	"auto_healing_policies.health_check": "The check: its `self_link`, its `id` or its name (a global check); a " +
		"regional check must be in the group's region. The reference stays as written.",
	"auto_healing_policies.initial_delay_sec": fmt.Sprintf("Seconds a new or recreated instance has before the check's "+
		"verdict counts, 0-%d (default 0). Shorter than the instance's start-up, autohealing recreates it again "+
		"before it could pass: the group's status reports a recreate loop (the `lbhealth_managed_instances` data "+
		"source shows it).", rules.MaxInitialDelaySec),
	"auto_healing_policies.hook_url": "lbhealth extension: an http or https URL of this machine (127.0.0.0/8, ::1 " +
		"or localhost) the emulator calls (POST) each time it recreates an instance, so that a test can restart " +
		"what answers at the instance's address (the target simulator's recover endpoint is one); the new instance " +
		"is made, and probed, once the hook has answered (5 s at most).",
	"instance_group":     "URL of the instance group that holds the group's instances: what a backend service's `backend.group` takes.",
	"self_link":          "URL of the group, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the group was created (RFC 3339).",
	"manager_id":         "Numeric id the server assigned to the group, as a string.",
	"fingerprint": "Changes on every write. Updates send the value Terraform last read: when someone changed the " +
		"group outside Terraform in between, the emulator refuses the update (HTTP 412) rather than lose that change.",
}

func instanceGroupManagerSchema() schema.Schema {
	d := instanceGroupManagerDescriptions
	attrs := resourceAttributes(d, map[string]schema.Attribute{
		"zone": schema.StringAttribute{Optional: true, MarkdownDescription: d["zone"],
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("region"))}},
		"region": defaultedString(d, "region"),
		"base_instance_name": schema.StringAttribute{Required: true, MarkdownDescription: d["base_instance_name"],
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"instance_template": schema.StringAttribute{Required: true, MarkdownDescription: d["instance_template"]},
		"target_size": schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: d["target_size"],
			PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}},
		"instance_group": computedString(d, "instance_group"),
		"manager_id":     computedString(d, "manager_id"),
		// No UseStateForUnknown: every update changes it.
		"fingerprint": schema.StringAttribute{Computed: true, MarkdownDescription: d["fingerprint"]},
	})
	attrs["description"] = replacingDescription(d)
	return schema.Schema{
		MarkdownDescription: "A managed instance group: `target_size` instances the emulator makes from an instance " +
			"template (`lbhealth_instance_template`), each with an address of its `--managed-instance-range`, kept in " +
			"the instance group of the same name (`instance_group`, which a backend service's `backend.group` " +
			"takes), and, with `auto_healing_policies`, recreated when their check finds them unhealthy. Zonal with " +
			"`zone`, regional with `region`, and with neither, regional in the provider's region. The template, the " +
			"size, the named ports and autohealing change in place (HTTP PATCH with the `fingerprint`). The " +
			"`lbhealth_managed_instances` data source reads its instances, their current action and verdict.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"named_port": namedPortBlock(d),
			"auto_healing_policies": schema.ListNestedBlock{
				MarkdownDescription: d["auto_healing_policies"],
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"health_check": schema.StringAttribute{Required: true, MarkdownDescription: d["auto_healing_policies.health_check"]},
					"initial_delay_sec": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0),
						MarkdownDescription: d["auto_healing_policies.initial_delay_sec"]},
					"hook_url": schema.StringAttribute{Optional: true, MarkdownDescription: d["auto_healing_policies.hook_url"]},
				}},
			},
		},
	}
}
