package provider

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// backendServiceModel is the Terraform data of lbhealth_backend_service.
type backendServiceModel struct {
	ID                  types.String `tfsdk:"id"`
	Name                types.String `tfsdk:"name"`
	Description         types.String `tfsdk:"description"`
	Project             types.String `tfsdk:"project"`
	Region              types.String `tfsdk:"region"`
	Protocol            types.String `tfsdk:"protocol"`
	LoadBalancingScheme types.String `tfsdk:"load_balancing_scheme"`
	NamedPorts          types.List   `tfsdk:"named_port"`
	Backends            types.List   `tfsdk:"backend"`
	HealthChecks        types.List   `tfsdk:"health_checks"`
	SelfLink            types.String `tfsdk:"self_link"`
	CreationTimestamp   types.String `tfsdk:"creation_timestamp"`
	BackendServiceID    types.String `tfsdk:"backend_service_id"`
}

// scope is where the service lives. Project must already be resolved
// (ModifyPlan or ImportState fill the provider's default).
func (m *backendServiceModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString()}
}

// refs resolves the references the service makes: a bare name is in the
// service's own scope, as the emulator reads it.
func (m *backendServiceModel) refs() refResolver {
	scopePath := "global"
	if r := m.Region.ValueString(); r != "" {
		scopePath = "regions/" + r
	}
	return refResolver{project: m.Project.ValueString(), scopePath: scopePath}
}

var (
	namedPortAttrTypes = map[string]attr.Type{"name": types.StringType, "port": types.Int64Type}
	namedPortType      = types.ObjectType{AttrTypes: namedPortAttrTypes}
	backendAttrTypes   = map[string]attr.Type{"group": types.StringType}
	backendType        = types.ObjectType{AttrTypes: backendAttrTypes}
)

// backendServiceNaming spells the API's field paths in Terraform names.
var backendServiceNaming = terraformNaming(map[string]string{"namedPorts": "named_port", "backends": "backend"})

// expandBackendService converts a plan or a configuration into the API
// object. References are sent as written: the emulator resolves them.
func expandBackendService(m backendServiceModel) (*api.BackendService, *expander) {
	e := &expander{}
	bs := &api.BackendService{
		Meta:                api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		Protocol:            e.str("protocol", m.Protocol),
		LoadBalancingScheme: e.str("loadBalancingScheme", m.LoadBalancingScheme),
		HealthChecks:        e.strings("healthChecks", m.HealthChecks),
		NamedPorts:          expandNamedPorts(e, "namedPorts", m.NamedPorts),
	}
	for i, attrs := range e.objects("backends", m.Backends) {
		bs.Backends = append(bs.Backends, api.Backend{
			Group: e.str(fmt.Sprintf("backends[%d].group", i), stringAttr(attrs, "group")),
		})
	}
	return bs, e
}

// flattenBackendService converts the API object into Terraform data. prior
// is the plan (Create, Update) or the state (Read): it keeps the empty
// strings the user wrote and, for references, the form the user wrote
// when it names what the API's URL names.
func flattenBackendService(bs *api.BackendService, scope client.Scope, prior backendServiceModel) (backendServiceModel, diag.Diagnostics) {
	region := scope.Region
	if bs.Region != "" {
		region = lastPathSegment(bs.Region) // the API gives the region's URL
	}
	m := backendServiceModel{
		ID:                  types.StringValue(scopedID(scope.Project, region, api.CollectionBackendServices, bs.Name)),
		Name:                types.StringValue(bs.Name),
		Description:         flattenString(bs.Description, prior.Description),
		Project:             types.StringValue(scope.Project),
		Region:              flattenString(region, types.StringNull()),
		Protocol:            types.StringValue(bs.Protocol),
		LoadBalancingScheme: types.StringValue(bs.LoadBalancingScheme),
		SelfLink:            types.StringValue(bs.SelfLink),
		CreationTimestamp:   types.StringValue(bs.CreationTimestamp),
		BackendServiceID:    types.StringValue(strconv.FormatUint(bs.ID, 10)),
	}
	refs := m.refs()
	var diags, d diag.Diagnostics
	m.NamedPorts, d = flattenNamedPorts(bs.NamedPorts)
	diags.Append(d...)
	m.Backends, d = flattenBackends(bs.Backends, prior.Backends, refs)
	diags.Append(d...)
	m.HealthChecks, d = flattenRefList(bs.HealthChecks, prior.HealthChecks, refs, api.CollectionHealthChecks)
	diags.Append(d...)
	return m, diags
}

// flattenNamedPorts maps the named ports in API order, the order written.
// Never null: Terraform represents "no blocks" as an empty list.
func flattenNamedPorts(nps []api.NamedPort) (types.List, diag.Diagnostics) {
	elems := make([]attr.Value, 0, len(nps))
	for _, np := range nps {
		obj, diags := types.ObjectValue(namedPortAttrTypes, map[string]attr.Value{
			"name": types.StringValue(np.Name), "port": types.Int64PointerValue(np.Port)})
		if diags.HasError() {
			return types.ListNull(namedPortType), diags
		}
		elems = append(elems, obj)
	}
	return types.ListValue(namedPortType, elems)
}

// flattenBackends maps the backends, keeping the form of each group
// reference the prior value has at the same position.
func flattenBackends(backends []api.Backend, prior types.List, refs refResolver) (types.List, diag.Diagnostics) {
	priorElems := listElements(prior)
	elems := make([]attr.Value, 0, len(backends))
	for i, b := range backends {
		priorGroup := types.StringNull()
		if i < len(priorElems) {
			if obj, ok := priorElems[i].(types.Object); ok && !obj.IsNull() && !obj.IsUnknown() {
				priorGroup = stringAttr(obj.Attributes(), "group")
			}
		}
		obj, diags := types.ObjectValue(backendAttrTypes, map[string]attr.Value{
			"group": refs.flatten(b.Group, priorGroup, api.CollectionNetworkEndpointGroups)})
		if diags.HasError() {
			return types.ListNull(backendType), diags
		}
		elems = append(elems, obj)
	}
	return types.ListValue(backendType, elems)
}

// keepEquivalentRefs plans, for each reference the configuration writes in
// another form than the state (a self link for a name, say) but that names
// the same resource, the state's form: no diff for a change that changes
// nothing. Terraform accepts a planned value equal to the prior one in place
// of the configuration's. Only within one scope: a replacement keeps what
// the configuration says.
func keepEquivalentRefs(plan *backendServiceModel, state backendServiceModel) diag.Diagnostics {
	if !sameScope(plan.Project, plan.Region, state.Project, state.Region) {
		return nil
	}
	refs := state.refs()
	var diags diag.Diagnostics
	plan.HealthChecks = keepEquivalentRefList(plan.HealthChecks, state.HealthChecks, refs, api.CollectionHealthChecks, &diags)
	plan.Backends = keepEquivalentObjectRefs(plan.Backends, state.Backends, backendType, "group", refs, api.CollectionNetworkEndpointGroups, &diags)
	return diags
}

// keepEquivalentObjectRefs keeps, in each object of a list of blocks, the
// state's form of the reference attribute name where the plan's names the
// same resource (see keepEquivalentRefs); the other attributes are the
// plan's.
func keepEquivalentObjectRefs(plan, state types.List, objType types.ObjectType, name string, refs refResolver, collection string, diags *diag.Diagnostics) types.List {
	return keepEquivalentList(plan, state, objType, func(p, s attr.Value) attr.Value {
		po, ok1 := p.(types.Object)
		so, ok2 := s.(types.Object)
		if !ok1 || !ok2 || po.IsNull() || po.IsUnknown() || so.IsNull() || so.IsUnknown() {
			return p
		}
		attrs := make(map[string]attr.Value, len(objType.AttrTypes))
		for k, v := range po.Attributes() {
			attrs[k] = v
		}
		attrs[name] = keepEquivalent(refs, attrs[name], so.Attributes()[name], collection)
		obj, d := types.ObjectValue(objType.AttrTypes, attrs)
		diags.Append(d...)
		return obj
	}, diags)
}

// keepEquivalentList applies keep to the elements of plan and state, pair by
// pair, when both are known lists of one length.
func keepEquivalentList(plan, state types.List, elemType attr.Type, keep func(p, s attr.Value) attr.Value, diags *diag.Diagnostics) types.List {
	p, s := listElements(plan), listElements(state)
	if p == nil || len(p) != len(s) {
		return plan
	}
	out := make([]attr.Value, len(p))
	for i := range p {
		out[i] = keep(p[i], s[i])
	}
	l, d := types.ListValue(elemType, out)
	diags.Append(d...)
	if d.HasError() {
		return plan
	}
	return l
}

// keepEquivalent returns the state's reference when the plan's names the
// same resource, else the plan's.
func keepEquivalent(refs refResolver, plan, state attr.Value, collection string) attr.Value {
	ps, ok1 := plan.(types.String)
	ss, ok2 := state.(types.String)
	if !ok1 || !ok2 || ps.IsNull() || ps.IsUnknown() || ss.IsNull() || ss.IsUnknown() {
		return plan
	}
	if p := refs.path(ps.ValueString(), collection); p != "" && p == refs.path(ss.ValueString(), collection) {
		return ss
	}
	return plan
}

// listElements returns the elements of a known list, nil otherwise.
func listElements(l types.List) []attr.Value {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	return l.Elements()
}

// backendServiceConfigViolations checks a raw configuration and keeps only
// the violations that do not depend on a value unknown at plan time. The
// rules about what the service references (the check's protocol and scope)
// need the referenced objects: the emulator enforces them at apply.
func backendServiceConfigViolations(config backendServiceModel) rules.Violations {
	bs, e := expandBackendService(config)
	vs := rules.BackendService(bs)
	vs = append(vs, explicitlyEmptyDefaults(e.empty, map[string]string{
		"protocol":            api.ProtocolHTTP,
		"loadBalancingScheme": api.SchemeExternal,
	})...)
	vs = append(vs, backendServiceCheckKind(bs, config)...)
	vs = append(vs, scopeViolations(config.Project, config.Region, types.StringNull())...)
	return knownViolations(vs, e.unknown)
}

// backendServiceCheckKind refuses, before any call, a check reference whose
// path shows a kind the service cannot take: a legacy check (for global
// EXTERNAL and EXTERNAL_MANAGED services only) or no health check at all.
// The rules are the emulator's; what needs the check itself (its protocol,
// its region) is left to the emulator.
func backendServiceCheckKind(bs *api.BackendService, config backendServiceModel) rules.Violations {
	if len(bs.HealthChecks) != 1 || bs.HealthChecks[0] == "" || config.Region.IsUnknown() {
		return nil // two checks: rules.BackendService says so; unknown: the emulator checks
	}
	ref := bs.HealthChecks[0]
	switch collection := config.refs().collection(ref, api.CollectionHealthChecks); collection {
	case "", api.CollectionHealthChecks:
		return nil
	case api.CollectionHTTPHealthChecks, api.CollectionHTTPSHealthChecks:
		// An unknown scheme expands to "", which the rule reads as the
		// default EXTERNAL: only the region can then be refused.
		if v := rules.BackendServiceLegacyCheck(bs, config.Region.ValueString()); v != nil {
			return rules.Violations{*v}
		}
		return nil
	default:
		return rules.Violations{rules.CheckKindMismatch("healthChecks[0]", ref, collection, api.CollectionHealthChecks)}
	}
}
