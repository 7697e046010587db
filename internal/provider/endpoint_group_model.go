package provider

import (
	"fmt"
	"path"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// endpointGroupModel is the Terraform data of lbhealth_endpoint_group.
type endpointGroupModel struct {
	ID                  types.String `tfsdk:"id"`
	Name                types.String `tfsdk:"name"`
	Description         types.String `tfsdk:"description"`
	Project             types.String `tfsdk:"project"`
	Zone                types.String `tfsdk:"zone"`
	Region              types.String `tfsdk:"region"`
	NetworkEndpointType types.String `tfsdk:"network_endpoint_type"`
	DefaultPort         types.Int64  `tfsdk:"default_port"`
	Endpoints           types.List   `tfsdk:"endpoint"`
	SelfLink            types.String `tfsdk:"self_link"`
	CreationTimestamp   types.String `tfsdk:"creation_timestamp"`
	EndpointGroupID     types.String `tfsdk:"endpoint_group_id"`
	Size                types.Int64  `tfsdk:"size"`
}

// scope is where the group lives. Project and region must already be
// resolved (ModifyPlan or ImportState fill the provider's defaults).
func (m *endpointGroupModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString(), Zone: m.Zone.ValueString()}
}

// endpointAttrTypes is the object type of one endpoint block.
var endpointAttrTypes = map[string]attr.Type{
	"ip_address": types.StringType,
	"port":       types.Int64Type,
	"instance":   types.StringType,
	"state":      types.StringType,
}

var endpointObjectType = types.ObjectType{AttrTypes: endpointAttrTypes}

// endpointGroupNaming spells the API's field paths in Terraform names.
var endpointGroupNaming = terraformNaming(map[string]string{"endpoints": "endpoint"})

// expandEndpointGroup converts a plan or a configuration into the API
// object. The expander it returns holds the unknown and explicitly empty
// fields.
func expandEndpointGroup(m endpointGroupModel) (*api.NetworkEndpointGroup, *expander) {
	e := &expander{}
	g := &api.NetworkEndpointGroup{
		Meta:                api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		NetworkEndpointType: e.str("networkEndpointType", m.NetworkEndpointType),
		DefaultPort:         e.int64("defaultPort", m.DefaultPort),
	}
	for i, attrs := range e.objects("endpoints", m.Endpoints) {
		field := fmt.Sprintf("endpoints[%d]", i)
		g.Endpoints = append(g.Endpoints, api.NetworkEndpoint{
			IPAddress: e.str(field+".ipAddress", stringAttr(attrs, "ip_address")),
			Port:      e.int64(field+".port", int64Attr(attrs, "port")),
			Instance:  e.str(field+".instance", stringAttr(attrs, "instance")),
			State:     e.str(field+".state", stringAttr(attrs, "state")),
		})
	}
	return g, e
}

// flattenEndpointGroup converts the API object into Terraform data. prior
// is the plan (Create, Update) or the state (Read): it keeps the empty
// strings the user wrote, which the API omits.
func flattenEndpointGroup(g *api.NetworkEndpointGroup, scope client.Scope, prior endpointGroupModel) (endpointGroupModel, diag.Diagnostics) {
	zone, region, id := zonalOrRegional(scope, g.Zone, g.Region, api.CollectionNetworkEndpointGroups, g.Name)
	endpoints, diags := flattenEndpoints(g.Endpoints, prior.Endpoints)
	return endpointGroupModel{
		ID:                  types.StringValue(id),
		Name:                types.StringValue(g.Name),
		Description:         flattenString(g.Description, prior.Description),
		Project:             types.StringValue(scope.Project),
		Zone:                flattenString(zone, types.StringNull()),
		Region:              flattenString(region, types.StringNull()),
		NetworkEndpointType: types.StringValue(g.NetworkEndpointType),
		DefaultPort:         types.Int64PointerValue(g.DefaultPort),
		Endpoints:           endpoints,
		SelfLink:            types.StringValue(g.SelfLink),
		CreationTimestamp:   types.StringValue(g.CreationTimestamp),
		EndpointGroupID:     types.StringValue(strconv.FormatUint(g.ID, 10)),
		Size:                types.Int64Value(g.Size),
	}, diags
}

// flattenEndpoints maps the endpoints in API order, which is the order of
// the blocks the user wrote: the emulator keeps it.
func flattenEndpoints(eps []api.NetworkEndpoint, prior types.List) (types.List, diag.Diagnostics) {
	var priorElems []attr.Value
	if !prior.IsNull() && !prior.IsUnknown() {
		priorElems = prior.Elements()
	}
	elems := make([]attr.Value, 0, len(eps))
	for i, ep := range eps {
		priorInstance := types.StringNull()
		if i < len(priorElems) {
			if obj, ok := priorElems[i].(types.Object); ok && !obj.IsNull() && !obj.IsUnknown() {
				priorInstance = stringAttr(obj.Attributes(), "instance")
			}
		}
		obj, diags := types.ObjectValue(endpointAttrTypes, map[string]attr.Value{
			"ip_address": types.StringValue(ep.IPAddress),
			"port":       types.Int64PointerValue(ep.Port),
			"instance":   flattenString(ep.Instance, priorInstance),
			"state":      types.StringValue(ep.State),
		})
		if diags.HasError() {
			return types.ListNull(endpointObjectType), diags
		}
		elems = append(elems, obj)
	}
	// Never null: Terraform represents "no endpoint blocks" as an empty list.
	return types.ListValue(endpointObjectType, elems)
}

// planEndpointPorts fills the port of each endpoint whose configuration
// sets none with what the emulator will store: the group's default_port, or
// no port at all for GCE_VM_IP. Without it every change to the group would
// show those ports as (known after apply).
func planEndpointPorts(plan *endpointGroupModel, config endpointGroupModel) diag.Diagnostics {
	if plan.Endpoints.IsNull() || plan.Endpoints.IsUnknown() || config.Endpoints.IsUnknown() ||
		plan.NetworkEndpointType.IsUnknown() || plan.DefaultPort.IsUnknown() {
		return nil
	}
	configured, elems := config.Endpoints.Elements(), plan.Endpoints.Elements()
	if len(configured) != len(elems) {
		return nil // cannot happen: the plan of a block list follows the configuration
	}
	port := plan.DefaultPort
	if plan.NetworkEndpointType.ValueString() == api.GCEVMIP {
		port = types.Int64Null()
	}
	out := make([]attr.Value, len(elems))
	for i, el := range elems {
		out[i] = el
		obj, _ := el.(types.Object)
		cfg, _ := configured[i].(types.Object)
		if obj.IsNull() || obj.IsUnknown() || cfg.IsNull() || cfg.IsUnknown() || !int64Attr(cfg.Attributes(), "port").IsNull() {
			continue
		}
		attrs := make(map[string]attr.Value, len(endpointAttrTypes))
		for k, v := range obj.Attributes() {
			attrs[k] = v
		}
		attrs["port"] = port
		var diags diag.Diagnostics
		if out[i], diags = types.ObjectValue(endpointAttrTypes, attrs); diags.HasError() {
			return diags
		}
	}
	var diags diag.Diagnostics
	plan.Endpoints, diags = types.ListValue(endpointObjectType, out)
	return diags
}

// endpointGroupConfigViolations checks a raw configuration and keeps only
// the violations that do not depend on a value unknown at plan time.
func endpointGroupConfigViolations(config endpointGroupModel) rules.Violations {
	g, e := expandEndpointGroup(config)
	vs := rules.NetworkEndpointGroup(g)
	vs = append(vs, explicitlyEmptyDefaults(e.empty, map[string]string{
		"networkEndpointType": api.GCEVMIPPort,
		"state":               api.EndpointRunning,
	})...)
	vs = append(vs, scopeViolations(config.Project, config.Region, config.Zone)...)
	return knownViolations(vs, e.unknown)
}

// lastPathSegment is what follows the last "/" of a URL: the name of a
// region or zone; "" stays "".
func lastPathSegment(u string) string {
	if u == "" {
		return ""
	}
	return path.Base(u)
}
