package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// readDataSource is every data source of the provider: the framework's
// methods written once; each <noun>_data_source.go gives its type name,
// schema and read.
type readDataSource[M any] struct {
	typeName string // after the provider's name: "backend_health"
	schema   func() schema.Schema
	// read returns the data config asks for, or nil (with an error) when
	// there is nothing to show.
	read func(ctx context.Context, data *providerData, config M) (*M, diag.Diagnostics)
	data *providerData
}

var (
	_ datasource.DataSource              = (*readDataSource[healthCheckModel])(nil)
	_ datasource.DataSourceWithConfigure = (*readDataSource[healthCheckModel])(nil)
)

func (d *readDataSource[M]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.typeName
}

func (d *readDataSource[M]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *readDataSource[M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema()
}

// Read reads the configuration, then what it asks for, and sets the state
// even when flattening warned or failed, as the data sources always have.
func (d *readDataSource[M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var config M
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state, diags := d.read(ctx, d.data, config)
	resp.Diagnostics.Append(diags...)
	if state != nil {
		resp.Diagnostics.Append(resp.State.Set(ctx, *state)...)
	}
}

// readHealth is the read of the health data sources: find the resource
// the configuration names (attr, a reference to a noun), get its health,
// and flatten it over the configuration.
func readHealth[M, H any](attr, noun string, find func(M, *providerData) (client.Scope, string, error),
	get func(context.Context, *client.Client, client.Scope, string, M) (H, error),
	flatten func(H, client.Scope, string, M) (M, diag.Diagnostics)) func(context.Context, *providerData, M) (*M, diag.Diagnostics) {
	return func(ctx context.Context, data *providerData, config M) (*M, diag.Diagnostics) {
		var diags diag.Diagnostics
		scope, name, err := find(config, data)
		if err != nil {
			diags.AddAttributeError(path.Root(attr), "Invalid "+noun, err.Error())
			return nil, diags
		}
		got, err := get(ctx, data.client, scope, name, config)
		if err != nil {
			addClientError(&diags, "reading the health of", noun, err)
			return nil, diags
		}
		state, flattenDiags := flatten(got, scope, name, config)
		diags.Append(flattenDiags...)
		return &state, diags
	}
}
