package provider

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const instanceTemplateNoun = "instance template"

// instanceTemplateModel is the Terraform data of lbhealth_instance_template.
type instanceTemplateModel struct {
	ID                 types.String `tfsdk:"id"`
	Name               types.String `tfsdk:"name"`
	Description        types.String `tfsdk:"description"`
	Project            types.String `tfsdk:"project"`
	MachineType        types.String `tfsdk:"machine_type"`
	Network            types.String `tfsdk:"network"`
	Subnetwork         types.String `tfsdk:"subnetwork"`
	SelfLink           types.String `tfsdk:"self_link"`
	CreationTimestamp  types.String `tfsdk:"creation_timestamp"`
	InstanceTemplateID types.String `tfsdk:"instance_template_id"`
}

func (m *instanceTemplateModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString()}
}

// instanceTemplateNaming spells the API's field paths in Terraform names:
// the template's one network interface is its top-level attributes.
var instanceTemplateNaming = terraformNaming(map[string]string{
	"properties.machineType":                     "machine_type",
	"properties.networkInterfaces[0].network":    "network",
	"properties.networkInterfaces[0].subnetwork": "subnetwork",
})

// expandInstanceTemplate converts a plan or a configuration into the API
// object: instances of a machine type with one network interface.
func expandInstanceTemplate(m instanceTemplateModel) (*api.InstanceTemplate, *expander) {
	e := &expander{}
	return &api.InstanceTemplate{
		Meta: api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		Properties: &api.InstanceProperties{
			MachineType: e.str("properties.machineType", m.MachineType),
			NetworkInterfaces: []api.NetworkInterface{{
				Network:    e.str("properties.networkInterfaces[0].network", m.Network),
				Subnetwork: e.str("properties.networkInterfaces[0].subnetwork", m.Subnetwork),
			}},
		},
	}, e
}

// flattenInstanceTemplate converts the API object into Terraform data;
// prior keeps the form the user wrote references in.
func flattenInstanceTemplate(t *api.InstanceTemplate, scope client.Scope, prior instanceTemplateModel) instanceTemplateModel {
	m := instanceTemplateModel{
		ID:                 types.StringValue(scopedID(scope.Project, "", api.CollectionInstanceTemplates, t.Name)),
		Name:               types.StringValue(t.Name),
		Description:        flattenString(t.Description, prior.Description),
		Project:            types.StringValue(scope.Project),
		SelfLink:           types.StringValue(t.SelfLink),
		CreationTimestamp:  types.StringValue(t.CreationTimestamp),
		InstanceTemplateID: types.StringValue(strconv.FormatUint(t.ID, 10)),
		MachineType:        types.StringNull(),
		Network:            types.StringNull(),
		Subnetwork:         types.StringNull(),
	}
	if p := t.Properties; p != nil {
		// A template's machine type is a name; keep the prior one when the
		// API wrote it as a URL of the same type.
		m.MachineType = flattenString(p.MachineType, prior.MachineType)
		if !prior.MachineType.IsNull() && !prior.MachineType.IsUnknown() && lastPathSegment(p.MachineType) == prior.MachineType.ValueString() {
			m.MachineType = prior.MachineType
		}
		if len(p.NetworkInterfaces) > 0 {
			ni := p.NetworkInterfaces[0]
			// A bare subnetwork name is kept as written (its region is
			// each group's), so it compares as written.
			refs := refResolver{project: scope.Project, scopePath: "global"}
			m.Network = flattenRef(refs, ni.Network, prior.Network, api.CollectionNetworks)
			m.Subnetwork = flattenRef(refs, ni.Subnetwork, prior.Subnetwork, api.CollectionSubnetworks)
		}
	}
	return m
}

// instanceTemplateConfigViolations checks a raw configuration with the
// emulator's rules and keeps the violations that read no unknown value.
func instanceTemplateConfigViolations(config instanceTemplateModel) rules.Violations {
	t, e := expandInstanceTemplate(config)
	vs := rules.InstanceTemplate(t)
	vs = append(vs, scopeViolations(config.Project, types.StringNull(), types.StringNull())...)
	return knownViolations(vs, e.unknown)
}

// instanceTemplateKind is lbhealth_instance_template.
var instanceTemplateKind = &resourceKind[instanceTemplateModel, *api.InstanceTemplate]{
	crud: crud[instanceTemplateModel, *api.InstanceTemplate]{
		noun:    instanceTemplateNoun,
		scope:   (*instanceTemplateModel).scope,
		name:    func(m instanceTemplateModel) string { return m.Name.ValueString() },
		expand:  ignoreSecond(expandInstanceTemplate),
		flatten: noDiags(flattenInstanceTemplate),
		insert:  (*client.Client).InsertInstanceTemplate,
		get:     (*client.Client).GetInstanceTemplate,
		put:     noUpdate[*api.InstanceTemplate](instanceTemplateNoun),
		del:     (*client.Client).DeleteInstanceTemplate,
	},
	typeName:   "instance_template",
	collection: api.CollectionInstanceTemplates,
	imports:    importGlobal,
	schema:     instanceTemplateSchema,
	violations: instanceTemplateConfigViolations,
	naming:     instanceTemplateNaming,
	plan: func(s *planStep[instanceTemplateModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.ID = planID(p.Project, types.StringNull(), p.Name, api.CollectionInstanceTemplates)
	},
}

func newInstanceTemplateResource() resource.Resource {
	return &managedResource[instanceTemplateModel, *api.InstanceTemplate]{kind: instanceTemplateKind}
}

var instanceTemplateDescriptions = map[string]string{
	"id": "`projects/{project}/global/instanceTemplates/{name}`. A managed instance group's `instance_template` " +
		"takes it, or `self_link`.",
	"name": "Name of the template, unique per project: 1-63 characters, a lowercase letter first, then lowercase " +
		"letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the template.",
	"description": fmt.Sprintf("Free-form description, at most %d characters. Changing it replaces the template.",
		rules.MaxDescriptionLength),
	"project":      "Project of the template. Defaults to the provider's `project`. Changing it replaces the template.",
	"machine_type": "Machine type of the instances, such as `e2-small`: stored and shown on each instance. Changing it replaces the template.",
	"network": "Network of the instances' interface: its `self_link`, its `id` or its name. Without `network` and " +
		"`subnetwork`, the project's `default` network when it has one. Changing it replaces the template.",
	"subnetwork": "Subnetwork of the instances' interface: its `self_link`, its `id` or its name (then looked up in " +
		"the region of each group that uses the template). Changing it replaces the template.",
	"self_link":            "URL of the template, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp":   "When the template was created (RFC 3339).",
	"instance_template_id": "Numeric id the server assigned to the template, as a string.",
}

func instanceTemplateSchema() schema.Schema {
	d := instanceTemplateDescriptions
	replacing := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: d[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}
	}
	attrs := resourceAttributes(d, map[string]schema.Attribute{
		"machine_type":         replacing("machine_type"),
		"network":              replacing("network"),
		"subnetwork":           replacing("subnetwork"),
		"instance_template_id": computedString(d, "instance_template_id"),
	})
	attrs["description"] = replacingDescription(d)
	return schema.Schema{
		MarkdownDescription: "An instance template: what the instances of a managed instance group " +
			"(`lbhealth_instance_group_manager`) are. The emulator makes each instance from it with an address of " +
			"its `--managed-instance-range` (127.1.0.0/16 unless set), where a local server or the target " +
			"simulator answers for it. Templates cannot change: every change replaces the template (give it " +
			"`lifecycle { create_before_destroy = true }`, as in the cloud, to move a group to the new one). A " +
			"template a group uses cannot be deleted.",
		Attributes: attrs,
	}
}
