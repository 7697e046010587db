package provider

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// instanceGroupModel is the Terraform data of lbhealth_instance_group.
type instanceGroupModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Description       types.String `tfsdk:"description"`
	Project           types.String `tfsdk:"project"`
	Zone              types.String `tfsdk:"zone"`
	Network           types.String `tfsdk:"network"`
	Instances         types.Set    `tfsdk:"instances"`
	NamedPorts        types.List   `tfsdk:"named_port"`
	Size              types.Int64  `tfsdk:"size"`
	SelfLink          types.String `tfsdk:"self_link"`
	CreationTimestamp types.String `tfsdk:"creation_timestamp"`
	InstanceGroupID   types.String `tfsdk:"instance_group_id"`
}

// scope is where the group lives.
func (m *instanceGroupModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Zone: m.Zone.ValueString()}
}

// instanceRefs resolves the group's instance references: a bare name is an
// instance of the group's zone, as the emulator reads it.
func (m *instanceGroupModel) instanceRefs() refResolver {
	return refResolver{project: m.Project.ValueString(), scopePath: "zones/" + m.Zone.ValueString()}
}

// instanceGroupNaming spells the API's field paths in Terraform names.
// instances is a set, whose elements have no index: a rule on one names
// the set (its message quotes the value).
func instanceGroupNaming(field string) string {
	if rest, ok := strings.CutPrefix(field, "instances["); ok {
		if _, after, ok := strings.Cut(rest, "]"); ok {
			field = "instances" + after
		}
	}
	return namedPortNaming(field)
}

var namedPortNaming = terraformNaming(map[string]string{"namedPorts": "named_port"})

// expandInstanceGroup converts a plan or a configuration into the API
// object.
func expandInstanceGroup(m instanceGroupModel) (*api.InstanceGroup, *expander) {
	e := &expander{}
	g := &api.InstanceGroup{
		Meta:       api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		Network:    e.str("network", m.Network),
		NamedPorts: expandNamedPorts(e, "namedPorts", m.NamedPorts),
	}
	if !e.isUnknown("instances", m.Instances) && !m.Instances.IsNull() {
		for i, el := range m.Instances.Elements() {
			s, _ := el.(types.String)
			g.Instances = append(g.Instances, e.str(fmt.Sprintf("instances[%d]", i), s))
		}
	}
	return g, e
}

// expandNamedPorts expands named_port blocks.
func expandNamedPorts(e *expander, field string, l types.List) []api.NamedPort {
	var out []api.NamedPort
	for i, attrs := range e.objects(field, l) {
		f := fmt.Sprintf("%s[%d]", field, i)
		out = append(out, api.NamedPort{
			Name: e.str(f+".name", stringAttr(attrs, "name")),
			Port: e.int64(f+".port", int64Attr(attrs, "port")),
		})
	}
	return out
}

// flattenInstanceGroup converts the API object into Terraform data; prior
// keeps the form the user wrote references in.
func flattenInstanceGroup(g *api.InstanceGroup, scope client.Scope, prior instanceGroupModel) (instanceGroupModel, diag.Diagnostics) {
	m := instanceGroupModel{
		ID:                types.StringValue(zonalID(scope.Project, scope.Zone, api.CollectionInstanceGroups, g.Name)),
		Name:              types.StringValue(g.Name),
		Description:       flattenString(g.Description, prior.Description),
		Project:           types.StringValue(scope.Project),
		Zone:              types.StringValue(scope.Zone),
		SelfLink:          types.StringValue(g.SelfLink),
		CreationTimestamp: types.StringValue(g.CreationTimestamp),
		InstanceGroupID:   types.StringValue(strconv.FormatUint(g.ID, 10)),
		Size:              types.Int64Value(int64(len(g.Instances))),
	}
	networks, _ := networkRefs(m.Project, m.Zone)
	m.Network = flattenRef(networks, g.Network, prior.Network, api.CollectionNetworks)
	var diags, d diag.Diagnostics
	m.NamedPorts, d = flattenNamedPorts(g.NamedPorts)
	diags.Append(d...)
	m.Instances, d = flattenRefSet(g.Instances, prior.Instances, m.instanceRefs(), api.CollectionInstances)
	diags.Append(d...)
	return m, diags
}

// flattenRefSet maps a set of references: each keeps the form of the prior
// element that names the same resource, else the API's URL. Null when the
// API has none, unless the prior value is a known empty set.
func flattenRefSet(urls []string, prior types.Set, refs refResolver, collection string) (types.Set, diag.Diagnostics) {
	if len(urls) == 0 && (prior.IsNull() || prior.IsUnknown() || len(prior.Elements()) > 0) {
		return types.SetNull(types.StringType), nil
	}
	written := map[string]types.String{}
	if !prior.IsNull() && !prior.IsUnknown() {
		for _, el := range prior.Elements() {
			if s, ok := el.(types.String); ok && !s.IsUnknown() && !s.IsNull() {
				written[refs.path(s.ValueString(), collection)] = s
			}
		}
	}
	elems := make([]attr.Value, len(urls))
	for i, u := range urls {
		elems[i] = types.StringValue(u)
		if s, ok := written[refs.path(u, collection)]; ok {
			elems[i] = s
		}
	}
	return types.SetValue(types.StringType, elems)
}

// instanceGroupConfigViolations checks a raw configuration with the
// emulator's rules and keeps the violations that read no unknown value.
// That each instance exists, in the group's zone and network, needs the
// instances: the emulator checks it at apply.
func instanceGroupConfigViolations(config instanceGroupModel) rules.Violations {
	g, e := expandInstanceGroup(config)
	vs := rules.InstanceGroup(g)
	vs = append(vs, scopeViolations(config.Project, types.StringNull(), config.Zone)...)
	return knownViolations(vs, e.unknown)
}
