package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/lbhealth/lbhealth"

// Environment variables the provider reads when its configuration leaves a
// setting out, and the defaults after them.
const (
	EnvEndpoint    = "LBHEALTH_EMULATOR_HOST"
	EnvProject     = "LBHEALTH_PROJECT"
	EnvRegion      = "LBHEALTH_REGION"
	EnvToken       = "LBHEALTH_TOKEN"
	DefaultProject = "demo-project"
	DefaultRegion  = "us-central1"
)

var _ provider.Provider = (*lbhealthProvider)(nil)

type lbhealthProvider struct {
	version string
}

type providerModel struct {
	Endpoint types.String `tfsdk:"endpoint"`
	Project  types.String `tfsdk:"project"`
	Region   types.String `tfsdk:"region"`
	Token    types.String `tfsdk:"token"`
}

// providerData is what Configure hands to every resource and data source.
type providerData struct {
	client  *client.Client
	project string // default project of resources that name none
	region  string // region tried by imports of a bare name; default region of endpoint groups
}

// New returns a constructor of the provider, as providerserver wants.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &lbhealthProvider{version: version} }
}

func (p *lbhealthProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "lbhealth"
	resp.Version = p.version
}

func (p *lbhealthProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The lbhealth provider declares load-balancer health checks and the targets they probe " +
			"in the `lbhealth-emulator`, which stores them and runs real probes.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Where the emulator listens, as `host:port` or a URL. Defaults to the `" + EnvEndpoint +
					"` environment variable, then `" + client.DefaultEndpoint + "`.",
			},
			"project": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Project of resources that set none. Defaults to the `" + EnvProject +
					"` environment variable, then `" + DefaultProject + "`.",
			},
			"region": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Default region of the resources that are always regional (target pools, aggregation " +
					"policies, health sources, composite checks, and endpoint groups that set neither `zone` nor `region`), " +
					"and the region tried when importing a resource by its bare name. Defaults to the `" + EnvRegion +
					"` environment variable, then `" + DefaultRegion + "`. Health checks, backend services and forwarding " +
					"rules are global unless they set `region`.",
			},
			"token": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "The token of an emulator started with `--token` (or `" + EnvToken + "`), sent as " +
					"`Authorization: Bearer` with every call. Defaults to the `" + EnvToken + "` environment variable; " +
					"prefer it to writing the token in a configuration.",
			},
		},
	}
}

func (p *lbhealthProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var config providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	endpoint, endpointSource := setting(config.Endpoint, `provider "endpoint"`, EnvEndpoint, client.DefaultEndpoint)
	project, _ := setting(config.Project, "", EnvProject, DefaultProject)
	region, _ := setting(config.Region, "", EnvRegion, DefaultRegion)
	token, _ := setting(config.Token, "", EnvToken, "")
	for _, s := range []struct {
		name  string
		value types.String
	}{{"endpoint", config.Endpoint}, {"project", config.Project}, {"region", config.Region}, {"token", config.Token}} {
		if s.value.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(s.name), "Unknown provider setting",
				"The provider's "+s.name+" depends on a value known only after apply: set it to a known value.")
		}
	}
	addViolation(&resp.Diagnostics, rules.Project("project", project), "Invalid provider configuration")
	addViolation(&resp.Diagnostics, rules.Region("region", region), "Invalid provider configuration")
	if resp.Diagnostics.HasError() {
		return
	}
	data := &providerData{
		client: client.New(endpoint, project,
			client.WithEndpointSource(endpointSource),
			client.WithUserAgent("terraform-provider-lbhealth/"+p.version),
			client.WithToken(token)),
		project: project,
		region:  region,
	}
	resp.ResourceData = data
	resp.DataSourceData = data
}

// setting resolves one provider setting: the configuration, then the
// environment variable, then the default. It also says which one won.
func setting(v types.String, configSource, env, def string) (value, source string) {
	if !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		return v.ValueString(), configSource
	}
	if s := os.Getenv(env); s != "" {
		return s, env
	}
	return def, "the default"
}

func (p *lbhealthProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newHealthCheckResource,
		newEndpointGroupResource,
		newBackendServiceResource,
		newAggregationPolicyResource,
		newHealthSourceResource,
		newCompositeCheckResource,
		newForwardingRuleResource,
		newLegacyHTTPCheckResource,
		newLegacyHTTPSCheckResource,
		newTargetPoolResource,
		newInstanceResource,
		newInstanceGroupResource,
		newInstanceTemplateResource,
		newInstanceGroupManagerResource,
		newFirewallResource,
		newWorkloadResource,
	}
}

func (p *lbhealthProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newHealthCheckDataSource,
		newBackendHealthDataSource,
		newTargetPoolHealthDataSource,
		newManagedInstancesDataSource,
		newCompositeHealthDataSource,
	}
}
