package provider

import (
	"path"
	"slices"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/provider/internal/naming"
)

// healthCheckModel is the Terraform data of lbhealth_health_check, shared by
// the resource and the data source (same attribute names).
type healthCheckModel struct {
	ID                 types.String `tfsdk:"id"`
	Name               types.String `tfsdk:"name"`
	Description        types.String `tfsdk:"description"`
	Project            types.String `tfsdk:"project"`
	Region             types.String `tfsdk:"region"`
	SelfLink           types.String `tfsdk:"self_link"`
	CreationTimestamp  types.String `tfsdk:"creation_timestamp"`
	HealthCheckID      types.String `tfsdk:"health_check_id"`
	Type               types.String `tfsdk:"type"`
	CheckIntervalSec   types.Int64  `tfsdk:"check_interval_sec"`
	TimeoutSec         types.Int64  `tfsdk:"timeout_sec"`
	HealthyThreshold   types.Int64  `tfsdk:"healthy_threshold"`
	UnhealthyThreshold types.Int64  `tfsdk:"unhealthy_threshold"`
	protocolBlockFields
	LogConfig     types.Object `tfsdk:"log_config"`
	SourceRegions types.List   `tfsdk:"source_regions"`
}

// scope is where the health check lives. Project must already be resolved
// (ModifyPlan or ImportState fill the provider's default).
func (m *healthCheckModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString()}
}

// protocolBlock describes one protocol block: its Terraform and API names,
// its type and which attributes it has.
type protocolBlock struct {
	name  string // Terraform block name
	field string // API field
	typ   string // API type
	attrs []string
	// apiNames maps each attribute but port to its API name.
	apiNames map[string]string
	// secret are the attributes the API takes but never returns
	// (api.Extension.Secret): sensitive, and kept as configured.
	secret map[string]bool
	// list are the attributes that are lists of references to health
	// checks (api.Extension.Lists).
	list map[string]bool
}

// portAttrs map the port attributes every block has to their API names.
var portAttrs = map[string]string{"port_name": "portName", "port_specification": "portSpecification", "proxy_header": "proxyHeader"}

// protocolBlocks lists the protocol blocks in API order (the order of
// healthCheckModel.blocks), one per protocol of the API's table.
var protocolBlocks = func() []protocolBlock {
	out := make([]protocolBlock, 0, len(api.Protocols))
	for _, p := range api.Protocols {
		b := protocolBlock{name: naming.SnakeCase(p.Field), field: p.Field, typ: p.Type, apiNames: map[string]string{},
			secret: map[string]bool{}, list: map[string]bool{}}
		var probe api.HealthCheck
		block, _ := probe.AddBlock(p.Type)
		if block.Ports != nil {
			b.attrs = append(b.attrs, "port")
		}
		if block.PortName != nil {
			b.attrs = append(b.attrs, "port_name")
		}
		if block.Ports != nil {
			b.attrs = append(b.attrs, "port_specification")
		}
		if block.ProxyHeader != nil {
			b.attrs = append(b.attrs, "proxy_header")
		}
		for _, name := range b.attrs {
			if name != "port" {
				b.apiNames[name] = portAttrs[name]
			}
		}
		for _, text := range p.Text {
			b.attrs = append(b.attrs, naming.SnakeCase(text))
			b.apiNames[naming.SnakeCase(text)] = text
			b.secret[naming.SnakeCase(text)] = p.IsSecret(text)
		}
		if p.Extension != nil {
			for _, name := range p.Extension.Lists {
				b.attrs = append(b.attrs, naming.SnakeCase(name))
				b.apiNames[naming.SnakeCase(name)] = name
				b.list[naming.SnakeCase(name)] = true
			}
		}
		out = append(out, b)
	}
	return out
}()

// attrTypes is the object type of the block.
func (b protocolBlock) attrTypes() map[string]attr.Type {
	ts := make(map[string]attr.Type, len(b.attrs))
	for _, a := range b.attrs {
		switch {
		case a == "port":
			ts[a] = types.Int64Type
		case b.list[a]:
			ts[a] = types.ListType{ElemType: types.StringType}
		default:
			ts[a] = types.StringType
		}
	}
	return ts
}

var logConfigAttrTypes = map[string]attr.Type{"enable": types.BoolType}

// blockValues holds the fields of any protocol block, so that one expand
// and one flatten serve every block.
type blockValues struct {
	Port                                     *int64
	PortName, PortSpecification, ProxyHeader string
	// Text holds the block's own string fields, by API name.
	Text map[string]string
	// Lists holds its lists of references, by API name.
	Lists map[string][]string
}

// get returns the attribute with API name apiName.
func (v *blockValues) get(apiName string) string {
	switch apiName {
	case "portName":
		return v.PortName
	case "portSpecification":
		return v.PortSpecification
	case "proxyHeader":
		return v.ProxyHeader
	}
	return v.Text[apiName]
}

// set sets the attribute with API name apiName.
func (v *blockValues) set(apiName, value string) {
	switch apiName {
	case "portName":
		v.PortName = value
	case "portSpecification":
		v.PortSpecification = value
	case "proxyHeader":
		v.ProxyHeader = value
	default:
		if v.Text == nil {
			v.Text = map[string]string{}
		}
		v.Text[apiName] = value
	}
}

// setBlock sets the API block of type typ from v.
func setBlock(hc *api.HealthCheck, typ string, v blockValues) {
	b, ok := hc.AddBlock(typ)
	if !ok {
		return
	}
	if b.Ports != nil {
		*b.Ports = api.PortSpec{Port: v.Port, PortSpecification: v.PortSpecification}
	}
	if b.ProxyHeader != nil {
		*b.ProxyHeader = v.ProxyHeader
	}
	if b.PortName != nil {
		*b.PortName = v.PortName
	}
	for name, value := range v.Text {
		if p := b.Text[name]; p != nil {
			*p = value
		}
	}
	for name, value := range v.Lists {
		if p := b.Lists[name]; p != nil {
			*p = value
		}
	}
}

// getBlock returns the API block of type typ, false when it is not set.
func getBlock(hc *api.HealthCheck, typ string) (blockValues, bool) {
	b, ok := hc.BlockOf(typ)
	if !ok {
		return blockValues{}, false
	}
	v := blockValues{Text: make(map[string]string, len(b.Text))}
	if b.Ports != nil {
		v.Port, v.PortSpecification = b.Ports.Port, b.Ports.PortSpecification
	}
	if b.ProxyHeader != nil {
		v.ProxyHeader = *b.ProxyHeader
	}
	if b.PortName != nil {
		v.PortName = *b.PortName
	}
	for name, p := range b.Text {
		v.Text[name] = *p
	}
	for name, p := range b.Lists {
		if v.Lists == nil {
			v.Lists = map[string][]string{}
		}
		v.Lists[name] = *p
	}
	return v, true
}

// expandHealthCheck converts a plan or a configuration into the API object.
// It also returns the API paths of the values that are unknown (they are
// left unset).
func expandHealthCheck(m healthCheckModel) (*api.HealthCheck, []string) {
	hc, e := expandHealthCheckFields(m)
	return hc, e.unknown
}

// expandHealthCheckFields is expandHealthCheck that also returns what the
// expander saw (unknown and explicitly empty fields).
func expandHealthCheckFields(m healthCheckModel) (*api.HealthCheck, *expander) {
	e := &expander{}
	hc := &api.HealthCheck{
		Meta:               api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		CheckIntervalSec:   e.int64("checkIntervalSec", m.CheckIntervalSec),
		TimeoutSec:         e.int64("timeoutSec", m.TimeoutSec),
		HealthyThreshold:   e.int64("healthyThreshold", m.HealthyThreshold),
		UnhealthyThreshold: e.int64("unhealthyThreshold", m.UnhealthyThreshold),
		SourceRegions:      e.strings("sourceRegions", m.SourceRegions),
	}
	for i, obj := range m.blocks() {
		b := protocolBlocks[i]
		if attrs := e.object(b.field, *obj); attrs != nil {
			setBlock(hc, b.typ, expandBlock(e, b, attrs))
		}
	}
	if attrs := e.object("logConfig", m.LogConfig); attrs != nil {
		enable, _ := attrs["enable"].(types.Bool)
		hc.LogConfig = &api.LogConfig{Enable: e.bool("logConfig.enable", enable)}
	}
	return hc, e
}

func expandBlock(e *expander, b protocolBlock, attrs map[string]attr.Value) blockValues {
	var v blockValues
	for _, name := range b.attrs {
		if name == "port" {
			port, _ := attrs[name].(types.Int64)
			v.Port = e.int64(b.field+".port", port)
			continue
		}
		apiName := b.apiNames[name]
		if b.list[name] {
			l, _ := attrs[name].(types.List)
			if v.Lists == nil {
				v.Lists = map[string][]string{}
			}
			v.Lists[apiName] = e.strings(b.field+"."+apiName, l)
			continue
		}
		s, _ := attrs[name].(types.String)
		v.set(apiName, e.str(b.field+"."+apiName, s))
	}
	return v
}

// flattenHealthCheck converts the API object into Terraform data. prior is
// the plan (Create, Update) or the state (Read): it decides how values the
// API omits are shown, so that an omitted block or an empty string never
// makes a diff.
func flattenHealthCheck(hc *api.HealthCheck, scope client.Scope, prior healthCheckModel) (healthCheckModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	region := scope.Region
	if hc.Region != "" {
		region = path.Base(hc.Region) // the API gives the region's URL
	}
	m := healthCheckModel{
		ID:                 types.StringValue(scopedID(scope.Project, region, api.CollectionHealthChecks, hc.Name)),
		Name:               types.StringValue(hc.Name),
		Description:        flattenString(hc.Description, prior.Description),
		Project:            types.StringValue(scope.Project),
		Region:             flattenString(region, types.StringNull()),
		SelfLink:           types.StringValue(hc.SelfLink),
		CreationTimestamp:  types.StringValue(hc.CreationTimestamp),
		HealthCheckID:      types.StringValue(strconv.FormatUint(hc.ID, 10)),
		Type:               types.StringValue(hc.Type),
		CheckIntervalSec:   types.Int64PointerValue(hc.CheckIntervalSec),
		TimeoutSec:         types.Int64PointerValue(hc.TimeoutSec),
		HealthyThreshold:   types.Int64PointerValue(hc.HealthyThreshold),
		UnhealthyThreshold: types.Int64PointerValue(hc.UnhealthyThreshold),
	}
	scopePath := "global"
	if region != "" {
		scopePath = "regions/" + region
	}
	refs := refResolver{project: scope.Project, scopePath: scopePath}
	priorBlocks := prior.blocks()
	for i, obj := range m.blocks() {
		var d diag.Diagnostics
		*obj, d = flattenBlock(hc, protocolBlocks[i], *priorBlocks[i], refs)
		diags.Append(d...)
	}
	var d diag.Diagnostics
	m.LogConfig, d = flattenLogConfig(hc.LogConfig, prior.LogConfig.IsNull())
	diags.Append(d...)
	var err error
	if m.SourceRegions, err = flattenStrings(hc.SourceRegions, prior.SourceRegions); err != nil {
		diags.AddError("Cannot map source_regions", err.Error())
	}
	return m, diags
}

// flattenBlock returns the block of b's type: null when the API has none.
func flattenBlock(hc *api.HealthCheck, b protocolBlock, prior types.Object, refs refResolver) (types.Object, diag.Diagnostics) {
	v, ok := getBlock(hc, b.typ)
	if !ok {
		return types.ObjectNull(b.attrTypes()), nil
	}
	priorAttrs := map[string]attr.Value{}
	if !prior.IsNull() && !prior.IsUnknown() {
		priorAttrs = prior.Attributes()
	}
	attrs := make(map[string]attr.Value, len(b.attrs))
	for _, name := range b.attrs {
		if name == "port" {
			attrs[name] = types.Int64PointerValue(v.Port)
			continue
		}
		if b.list[name] {
			priorList, ok := priorAttrs[name].(types.List)
			if !ok {
				priorList = types.ListNull(types.StringType)
			}
			l, d := flattenRefList(v.Lists[b.apiNames[name]], priorList, refs, api.CollectionHealthChecks)
			if d.HasError() {
				return types.ObjectNull(b.attrTypes()), d
			}
			attrs[name] = l
			continue
		}
		p, ok := priorAttrs[name].(types.String)
		if !ok {
			p = types.StringNull()
		}
		if b.secret[name] {
			// The API never returns it: what was configured stays (null
			// after an import, which cannot read it).
			attrs[name] = p
			if p.IsUnknown() {
				attrs[name] = types.StringNull()
			}
			continue
		}
		attrs[name] = flattenString(v.get(b.apiNames[name]), p)
	}
	return types.ObjectValue(b.attrTypes(), attrs)
}

// flattenLogConfig maps logConfig. With omitDefault (the configuration has
// no log_config block) the server's default, enable = false, stays null so
// that an omitted block never makes a diff; anything else is shown, so that
// logging turned on out of band is seen and undone.
func flattenLogConfig(lc *api.LogConfig, omitDefault bool) (types.Object, diag.Diagnostics) {
	enabled := lc != nil && lc.Enable != nil && *lc.Enable
	if omitDefault && !enabled {
		return types.ObjectNull(logConfigAttrTypes), nil
	}
	return types.ObjectValue(logConfigAttrTypes, map[string]attr.Value{"enable": types.BoolValue(enabled)})
}

// planType is the type a plan will get: that of the protocol block that is
// set, unknown while a block is unknown (built with dynamic) or none is set.
func planType(m healthCheckModel) types.String {
	found := types.StringUnknown()
	for i, obj := range m.blocks() {
		switch {
		case obj.IsUnknown():
			return types.StringUnknown()
		case !obj.IsNull() && found.IsUnknown():
			found = types.StringValue(protocolBlocks[i].typ)
		case !obj.IsNull():
			return types.StringUnknown() // two blocks: validation reports it
		}
	}
	return found
}

// planBlockPorts fills the port of the protocol block that is set when its
// configuration sets none, with what the emulator will store: no port when
// port_name or a named or serving port_specification takes over, else the
// protocol's default port (gRPC has none: no port). Without it every change
// to the check would show the port as (known after apply). It stays unknown
// only while port_name or port_specification is unknown.
func planBlockPorts(plan *healthCheckModel, config healthCheckModel) diag.Diagnostics {
	var diags diag.Diagnostics
	planBlocks, configBlocks := plan.blocks(), config.blocks()
	for i, obj := range planBlocks {
		cfg := *configBlocks[i]
		if obj.IsNull() || obj.IsUnknown() || cfg.IsNull() || cfg.IsUnknown() {
			continue
		}
		b := protocolBlocks[i]
		if !slices.Contains(b.attrs, "port") {
			continue // a check type that probes no port
		}
		cfgAttrs := cfg.Attributes()
		if port, _ := cfgAttrs["port"].(types.Int64); !port.IsNull() {
			continue
		}
		port, known := planBlockPort(b.typ, cfgAttrs)
		if !known {
			continue
		}
		attrs := make(map[string]attr.Value, len(b.attrs))
		for k, v := range obj.Attributes() {
			attrs[k] = v
		}
		attrs["port"] = port
		var d diag.Diagnostics
		*obj, d = types.ObjectValue(b.attrTypes(), attrs)
		diags.Append(d...)
	}
	return diags
}

// planBlockPort is the port the emulator stores for a block of type typ
// whose configuration (attrs) sets no port; false while it cannot be known.
func planBlockPort(typ string, attrs map[string]attr.Value) (types.Int64, bool) {
	def := api.DefaultPort(typ)
	if def == 0 {
		return types.Int64Null(), true // gRPC: no default port
	}
	name, _ := attrs["port_name"].(types.String)
	spec, _ := attrs["port_specification"].(types.String)
	if name.IsUnknown() || spec.IsUnknown() {
		return types.Int64Unknown(), false
	}
	switch {
	case name.ValueString() != "",
		spec.ValueString() == api.UseNamedPort, spec.ValueString() == api.UseServingPort:
		return types.Int64Null(), true
	}
	return types.Int64Value(def), true
}
