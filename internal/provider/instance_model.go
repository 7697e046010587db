package provider

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// instanceModel is the Terraform data of lbhealth_instance.
type instanceModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Description       types.String `tfsdk:"description"`
	Project           types.String `tfsdk:"project"`
	Zone              types.String `tfsdk:"zone"`
	Network           types.String `tfsdk:"network"`
	Subnetwork        types.String `tfsdk:"subnetwork"`
	NetworkIP         types.String `tfsdk:"network_ip"`
	Status            types.String `tfsdk:"status"`
	SelfLink          types.String `tfsdk:"self_link"`
	CreationTimestamp types.String `tfsdk:"creation_timestamp"`
	InstanceID        types.String `tfsdk:"instance_id"`
}

// scope is where the instance lives.
func (m *instanceModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Zone: m.Zone.ValueString()}
}

// networkRefs resolves network and subnetwork references made from zone: a
// bare network name is global, a bare subnetwork name in the zone's region.
func networkRefs(project, zone types.String) (network, subnetwork refResolver) {
	p := project.ValueString()
	return refResolver{project: p, scopePath: "global"},
		refResolver{project: p, scopePath: "regions/" + rules.ZoneRegion(zone.ValueString())}
}

// instanceNaming spells the API's field paths in Terraform names: the
// resource's one network interface is its top-level attributes.
var instanceNaming = terraformNaming(map[string]string{
	"networkInterfaces[0].network":    "network",
	"networkInterfaces[0].subnetwork": "subnetwork",
	"networkInterfaces[0].networkIP":  "network_ip",
})

// expandInstance converts a plan or a configuration into the API object:
// an instance with one network interface.
func expandInstance(m instanceModel) (*api.Instance, *expander) {
	e := &expander{}
	return &api.Instance{
		Meta: api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		NetworkInterfaces: []api.NetworkInterface{{
			Network:    e.str("networkInterfaces[0].network", m.Network),
			Subnetwork: e.str("networkInterfaces[0].subnetwork", m.Subnetwork),
			NetworkIP:  e.str("networkInterfaces[0].networkIP", m.NetworkIP),
		}},
	}, e
}

// flattenInstance converts the API object into Terraform data; prior keeps
// the form the user wrote references in.
func flattenInstance(in *api.Instance, scope client.Scope, prior instanceModel) instanceModel {
	m := instanceModel{
		ID:                types.StringValue(zonalID(scope.Project, scope.Zone, api.CollectionInstances, in.Name)),
		Name:              types.StringValue(in.Name),
		Description:       flattenString(in.Description, prior.Description),
		Project:           types.StringValue(scope.Project),
		Zone:              types.StringValue(scope.Zone),
		Status:            types.StringValue(in.Status),
		SelfLink:          types.StringValue(in.SelfLink),
		CreationTimestamp: types.StringValue(in.CreationTimestamp),
		InstanceID:        types.StringValue(strconv.FormatUint(in.ID, 10)),
		Network:           types.StringNull(),
		Subnetwork:        types.StringNull(),
		NetworkIP:         types.StringNull(),
	}
	if len(in.NetworkInterfaces) > 0 {
		ni := in.NetworkInterfaces[0]
		networks, subnetworks := networkRefs(m.Project, m.Zone)
		m.Network = flattenRef(networks, ni.Network, prior.Network, api.CollectionNetworks)
		m.Subnetwork = flattenRef(subnetworks, ni.Subnetwork, prior.Subnetwork, api.CollectionSubnetworks)
		m.NetworkIP = flattenString(ni.NetworkIP, types.StringNull())
	}
	return m
}

// instanceConfigViolations checks a raw configuration with the emulator's
// rules and keeps the violations that read no unknown value.
func instanceConfigViolations(config instanceModel) rules.Violations {
	in, e := expandInstance(config)
	vs := rules.Instance(in)
	vs = append(vs, scopeViolations(config.Project, types.StringNull(), config.Zone)...)
	return knownViolations(vs, e.unknown)
}
