package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const backendServiceNoun = "backend service"

var backendServiceCRUD = crud[backendServiceModel, *api.BackendService]{
	noun:    backendServiceNoun,
	scope:   (*backendServiceModel).scope,
	name:    func(m backendServiceModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandBackendService),
	flatten: flattenBackendService,
	insert:  (*client.Client).InsertBackendService,
	get:     (*client.Client).GetBackendService,
	put:     (*client.Client).UpdateBackendService,
	del:     (*client.Client).DeleteBackendService,
}

// backendServiceKind is lbhealth_backend_service.
var backendServiceKind = &resourceKind[backendServiceModel, *api.BackendService]{
	crud:          backendServiceCRUD,
	typeName:      "backend_service",
	collection:    api.CollectionBackendServices,
	imports:       importAnyScope,
	schema:        backendServiceSchema,
	fingerprinted: false,
	violations:    backendServiceConfigViolations,
	naming:        backendServiceNaming,
	plan: func(s *planStep[backendServiceModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.ID = planID(p.Project, p.Region, p.Name, api.CollectionBackendServices)
		if s.hasState {
			s.diags.Append(keepEquivalentRefs(p, s.state)...)
		}
	},
}

func newBackendServiceResource() resource.Resource {
	return &managedResource[backendServiceModel, *api.BackendService]{kind: backendServiceKind}
}

var backendServiceDescriptions = map[string]string{
	"id": "`projects/{project}/global/backendServices/{name}`, or `projects/{project}/regions/{region}/backendServices/{name}` " +
		"for a regional service.",
	"name": "Name of the backend service, unique per project and scope: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the service.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the service. Defaults to the provider's `project`. Changing it replaces the service.",
	"region": "Region of a regional service. Unset (the default), the service is global. Changing it replaces " +
		"the service.",
	"protocol": "Protocol of the service: `" + strings.Join([]string{api.ProtocolHTTP, api.ProtocolHTTPS, api.ProtocolHTTP2,
		api.ProtocolTCP, api.ProtocolSSL, api.ProtocolUDP, api.ProtocolGRPC}, "`, `") + "`. Default `HTTP`. A `GRPC` " +
		"service takes only gRPC or TCP health checks.",
	"load_balancing_scheme": "`EXTERNAL` (default), `EXTERNAL_MANAGED`, `INTERNAL` or `INTERNAL_MANAGED`. Legacy " +
		"health checks are accepted by `EXTERNAL` services only. Changing it replaces the service, as it makes another " +
		"kind of load balancer.",
	"health_checks": "The health check of the service, as a list of one reference: its `self_link`, its `id` " +
		"(`projects/...`), or its name (then in the service's own scope). The reference stays as written: it never " +
		"shows as a diff against the URL the emulator stores, and writing the same check in another form plans " +
		"nothing. A regional service takes a check of its own region or a global one (as in the Compute API), a " +
		"global one a global check; a check with `source_regions` cannot be used. An `EXTERNAL` global service may " +
		"instead take a legacy check (`lbhealth_legacy_http_check` or `lbhealth_legacy_https_check`, by `self_link` " +
		"or `id`); any other service refuses one, at plan time when the reference shows its kind. Every endpoint of " +
		"every backend is probed and judged on its own with this one check.",
	"self_link":          "URL of the backend service, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the backend service was created (RFC 3339).",
	"backend_service_id": "Numeric id the server assigned to the backend service, as a string.",
	"named_port": "A named port: what health checks with `port_name` (or `port_specification = \"USE_NAMED_PORT\"`) " +
		"probe. Names must be different.",
	"named_port.name": "Name of the port (RFC 1035, like resource names).",
	"named_port.port": fmt.Sprintf("Port number, %d-%d.", rules.MinPort, rules.MaxPort),
	"backend": "A backend of the service: one endpoint group, of any zone or region of the project. An endpoint in " +
		"several backend services is probed once per service.",
	"backend.group": "The endpoint group: its `self_link` or its `id` (a name would be looked for in the service's " +
		"own scope, where zonal groups never are). The reference stays as written, as for `health_checks`.",
}

func backendServiceSchema() schema.Schema {
	d := backendServiceDescriptions
	return schema.Schema{
		MarkdownDescription: "A backend service, global or regional: endpoint groups and the one health check that " +
			"probes their endpoints. Read their live health with the `lbhealth_backend_health` data source. Changes " +
			"to backends, named ports, protocol and health check are updates in place (HTTP PUT) that take effect at the " +
			"next probe. A health check or endpoint group the service uses cannot be deleted until the service stops " +
			"using it.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"region": schema.StringAttribute{Optional: true, MarkdownDescription: d["region"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"protocol": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["protocol"],
				Default: stringdefault.StaticString(api.ProtocolHTTP)},
			"load_balancing_scheme": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: d["load_balancing_scheme"],
				Default:             stringdefault.StaticString(api.SchemeExternal),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"health_checks": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: d["health_checks"]},
			"backend_service_id": computedString(d, "backend_service_id"),
		}),
		// Lists, not sets, as for endpoint blocks: the emulator keeps the
		// order written, and validation points at named_port[1].name.
		Blocks: map[string]schema.Block{
			"named_port": schema.ListNestedBlock{
				MarkdownDescription: d["named_port"],
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: d["named_port.name"]},
					"port": schema.Int64Attribute{Required: true, MarkdownDescription: d["named_port.port"]},
				}},
			},
			"backend": schema.ListNestedBlock{
				MarkdownDescription: d["backend"],
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"group": schema.StringAttribute{Required: true, MarkdownDescription: d["backend.group"]},
				}},
			},
		},
	}
}
