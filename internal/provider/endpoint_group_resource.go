package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const endpointGroupNoun = "endpoint group"

var endpointGroupCRUD = crud[endpointGroupModel, *api.NetworkEndpointGroup]{
	noun:    endpointGroupNoun,
	scope:   (*endpointGroupModel).scope,
	name:    func(m endpointGroupModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandEndpointGroup),
	flatten: flattenEndpointGroup,
	insert:  (*client.Client).InsertNetworkEndpointGroup,
	get:     (*client.Client).GetNetworkEndpointGroup,
	put:     (*client.Client).UpdateNetworkEndpointGroup,
	del:     (*client.Client).DeleteNetworkEndpointGroup,
}

// endpointGroupKind is lbhealth_endpoint_group.
var endpointGroupKind = &resourceKind[endpointGroupModel, *api.NetworkEndpointGroup]{
	crud:          endpointGroupCRUD,
	typeName:      "endpoint_group",
	collection:    api.CollectionNetworkEndpointGroups,
	imports:       importRegional,
	schema:        endpointGroupSchema,
	fingerprinted: false,
	violations:    endpointGroupConfigViolations,
	naming:        endpointGroupNaming,
	plan: func(s *planStep[endpointGroupModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		if s.config.Zone.IsNull() {
			p.Region = s.region(s.config.Region, s.state.Region)
		} else if s.config.Region.IsNull() {
			p.Region = types.StringNull() // a zonal group has no region
		}
		s.diags.Append(planEndpointPorts(p, s.config)...)
		p.Size = types.Int64Unknown()
		if !p.Endpoints.IsUnknown() {
			p.Size = types.Int64Value(int64(len(p.Endpoints.Elements())))
		}
		p.ID = planEndpointGroupID(*p)
	},
}

func newEndpointGroupResource() resource.Resource {
	return &managedResource[endpointGroupModel, *api.NetworkEndpointGroup]{kind: endpointGroupKind}
}

// planEndpointGroupID is the id the group will have, unknown while its
// name or scope is.
func planEndpointGroupID(m endpointGroupModel) types.String {
	if m.Project.IsUnknown() || m.Region.IsUnknown() || m.Zone.IsUnknown() || m.Name.IsUnknown() {
		return types.StringUnknown()
	}
	if !m.Zone.IsNull() {
		return types.StringValue(zonalID(m.Project.ValueString(), m.Zone.ValueString(), api.CollectionNetworkEndpointGroups, m.Name.ValueString()))
	}
	return types.StringValue(scopedID(m.Project.ValueString(), m.Region.ValueString(), api.CollectionNetworkEndpointGroups, m.Name.ValueString()))
}

var endpointGroupDescriptions = map[string]string{
	"id": "`projects/{project}/zones/{zone}/networkEndpointGroups/{name}` for a zonal group, " +
		"`projects/{project}/regions/{region}/networkEndpointGroups/{name}` for a regional one. A backend service's " +
		"`backend.group` takes it, or `self_link`.",
	"name": "Name of the group, unique per project and zone or region: 1-63 characters, a lowercase letter first, " +
		"then lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the group.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the group. Defaults to the provider's `project`. Changing it replaces the group.",
	"zone":        "Zone of a zonal group. Conflicts with `region`. Changing it replaces the group.",
	"region": "Region of a regional group. With neither `zone` nor `region`, the group is regional in the provider's " +
		"`region`, and this attribute shows it. Changing it replaces the group.",
	"network_endpoint_type": "`GCE_VM_IP_PORT` (default: an address and a port), `GCE_VM_IP` (an address only: the " +
		"health check's port is probed), `NON_GCP_PRIVATE_IP_PORT`, `INTERNET_IP_PORT` or `INTERNET_FQDN_PORT` " +
		"(internet endpoints are probed only when their address is in the emulator's `--probe-networks`), or " +
		"`SERVERLESS`, `PRIVATE_SERVICE_CONNECT`, `GCE_VM_IP_PORTMAP`, `GCE_VM_IP_DEDICATED_BACKEND` (stored, with nothing to probe). " +
		"Changing it replaces the group.",
	"default_port": fmt.Sprintf("Port of the endpoints that set none, %d-%d. Not allowed with `GCE_VM_IP`.",
		rules.MinPort, rules.MaxPort),
	"self_link":          "URL of the group, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the group was created (RFC 3339).",
	"endpoint_group_id":  "Numeric id the server assigned to the group, as a string.",
	"size":               "Number of endpoints.",
	"endpoint": "One endpoint of the group, listed in the order written (the emulator keeps it, so there is never a " +
		"diff from ordering). Adding, removing, changing or stopping endpoints updates the group in place. Each " +
		"address and port may be listed once.",
	"endpoint.ip_address": "IPv4 or IPv6 address of the endpoint. The emulator probes loopback addresses only, unless " +
		"it is started with `--probe-networks`.",
	"endpoint.port": fmt.Sprintf("Port of the endpoint, %d-%d. Required with `GCE_VM_IP_PORT` and "+
		"`NON_GCP_PRIVATE_IP_PORT` unless the group sets `default_port`, which then shows here; not allowed with "+
		"`GCE_VM_IP`.", rules.MinPort, rules.MaxPort),
	"endpoint.instance": "Name of the machine that holds the endpoint, for information.",
	"endpoint.state": "`RUNNING` (default) or `STOPPED`. A stopped endpoint is never probed and reports `UNHEALTHY` " +
		"with reason `STOPPED`, as a stopped machine does.",
}

func endpointGroupSchema() schema.Schema {
	d := endpointGroupDescriptions
	return schema.Schema{
		MarkdownDescription: "A network endpoint group: the endpoints a backend service's health check probes. Zonal " +
			"with `zone`, regional with `region`, and with neither, regional in the provider's region. Endpoints are " +
			"`endpoint` blocks of the group itself; changing them updates the group in place (HTTP PUT). A group used " +
			"by a backend service cannot be deleted, so a change that replaces it (name, scope, type) fails while a " +
			"service uses it: move the service to a new group first.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"zone": schema.StringAttribute{Optional: true, MarkdownDescription: d["zone"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("region"))}},
			"region": defaultedString(d, "region"),
			"network_endpoint_type": schema.StringAttribute{Optional: true, Computed: true,
				Default:             stringdefault.StaticString(api.GCEVMIPPort),
				MarkdownDescription: d["network_endpoint_type"],
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"default_port":      schema.Int64Attribute{Optional: true, MarkdownDescription: d["default_port"]},
			"endpoint_group_id": computedString(d, "endpoint_group_id"),
			// No UseStateForUnknown: ModifyPlan counts the endpoints.
			"size": schema.Int64Attribute{Computed: true, MarkdownDescription: d["size"]},
		}),
		Blocks: map[string]schema.Block{
			// A list, not a set: the emulator keeps the order, so a list never
			// diffs; its indexes let validation point at endpoint[1].port; and
			// a set of objects with a computed port (filled from default_port)
			// would change identity between plan and apply.
			"endpoint": schema.ListNestedBlock{
				MarkdownDescription: d["endpoint"],
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"ip_address": schema.StringAttribute{Required: true, MarkdownDescription: d["endpoint.ip_address"]},
					// Optional+Computed: ModifyPlan plans default_port (or no
					// port for GCE_VM_IP) where the configuration sets none.
					"port":     schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: d["endpoint.port"]},
					"instance": schema.StringAttribute{Optional: true, MarkdownDescription: d["endpoint.instance"]},
					"state": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["endpoint.state"],
						Default: stringdefault.StaticString(api.EndpointRunning)},
				}},
			},
		},
	}
}
