package provider

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// forwardingRuleModel is the Terraform data of lbhealth_forwarding_rule.
type forwardingRuleModel struct {
	ID                  types.String `tfsdk:"id"`
	Name                types.String `tfsdk:"name"`
	Description         types.String `tfsdk:"description"`
	Project             types.String `tfsdk:"project"`
	Region              types.String `tfsdk:"region"`
	IPAddress           types.String `tfsdk:"ip_address"`
	PortRange           types.String `tfsdk:"port_range"`
	LoadBalancingScheme types.String `tfsdk:"load_balancing_scheme"`
	BackendService      types.String `tfsdk:"backend_service"`
	Target              types.String `tfsdk:"target"`
	SelfLink            types.String `tfsdk:"self_link"`
	CreationTimestamp   types.String `tfsdk:"creation_timestamp"`
	ForwardingRuleID    types.String `tfsdk:"forwarding_rule_id"`
}

// scope is where the rule lives. Project must already be resolved
// (ModifyPlan or ImportState fill the provider's default).
func (m *forwardingRuleModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString(), Region: m.Region.ValueString()}
}

// refs resolves the references the rule makes: a bare name is in the rule's
// own scope, as the emulator reads it.
func (m *forwardingRuleModel) refs() refResolver {
	scopePath := "global"
	if r := m.Region.ValueString(); r != "" {
		scopePath = "regions/" + r
	}
	return refResolver{project: m.Project.ValueString(), scopePath: scopePath}
}

// forwardingRuleNaming spells the API's field paths in Terraform names: the
// API capitalises IPAddress, as the Compute API does.
var forwardingRuleNaming = terraformNaming(map[string]string{"IPAddress": "ip_address"})

// expandForwardingRule converts a plan or a configuration into the API
// object. References are sent as written: the emulator resolves them.
func expandForwardingRule(m forwardingRuleModel) (*api.ForwardingRule, *expander) {
	e := &expander{}
	return &api.ForwardingRule{
		Meta:                api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		IPAddress:           e.str("IPAddress", m.IPAddress),
		PortRange:           e.str("portRange", m.PortRange),
		LoadBalancingScheme: e.str("loadBalancingScheme", m.LoadBalancingScheme),
		BackendService:      e.str("backendService", m.BackendService),
		Target:              e.str("target", m.Target),
	}, e
}

// flattenForwardingRule converts the API object into Terraform data. prior
// is the plan (Create, Update) or the state (Read): it keeps the empty
// strings and the form of the references the user wrote.
func flattenForwardingRule(fr *api.ForwardingRule, scope client.Scope, prior forwardingRuleModel) forwardingRuleModel {
	region := scope.Region
	if fr.Region != "" {
		region = lastPathSegment(fr.Region) // the API gives the region's URL
	}
	m := forwardingRuleModel{
		ID:                  types.StringValue(scopedID(scope.Project, region, api.CollectionForwardingRules, fr.Name)),
		Name:                types.StringValue(fr.Name),
		Description:         flattenString(fr.Description, prior.Description),
		Project:             types.StringValue(scope.Project),
		Region:              flattenString(region, types.StringNull()),
		IPAddress:           flattenRuleAddress(fr.IPAddress, prior.IPAddress),
		PortRange:           flattenString(fr.PortRange, prior.PortRange),
		LoadBalancingScheme: types.StringValue(fr.LoadBalancingScheme),
		SelfLink:            types.StringValue(fr.SelfLink),
		CreationTimestamp:   types.StringValue(fr.CreationTimestamp),
		ForwardingRuleID:    types.StringValue(strconv.FormatUint(fr.ID, 10)),
	}
	refs := m.refs()
	m.BackendService = flattenRef(refs, fr.BackendService, prior.BackendService, api.CollectionBackendServices)
	m.Target = flattenRef(refs, fr.Target, prior.Target, api.CollectionTargetPools)
	return m
}

// flattenRef maps an optional reference: null (or the prior "") when the
// API has none, else the prior form when it names the same resource.
func flattenRef(refs refResolver, got string, prior types.String, collection string) types.String {
	if got == "" {
		return flattenString(got, prior)
	}
	return refs.flatten(got, prior, collection)
}

// keepEquivalentForwardingRefs plans the state's form of a reference the
// configuration writes in another form that names the same resource (see
// keepEquivalentRefs), within one scope.
func keepEquivalentForwardingRefs(plan *forwardingRuleModel, state forwardingRuleModel) {
	if !sameScope(plan.Project, plan.Region, state.Project, state.Region) {
		return
	}
	refs := state.refs()
	plan.BackendService = keepEquivalentRef(plan.BackendService, state.BackendService, refs, api.CollectionBackendServices)
	plan.Target = keepEquivalentRef(plan.Target, state.Target, refs, api.CollectionTargetPools)
}

// forwardingRuleConfigViolations checks a raw configuration and keeps only
// the violations that do not depend on a value unknown at plan time. What
// the references point at (their existence and scope) is the emulator's to
// check at apply.
func forwardingRuleConfigViolations(config forwardingRuleModel) rules.Violations {
	fr, e := expandForwardingRule(config)
	vs := rules.ForwardingRule(fr)
	if !config.Region.IsUnknown() {
		// A rule without region is global here, and target pools are regional.
		if v := rules.ForwardingRuleTarget(fr.Target, !config.Region.IsNull()); v != nil {
			vs = append(vs, *v)
		}
	}
	vs = append(vs, explicitlyEmptyDefaults(e.empty, map[string]string{"loadBalancingScheme": api.SchemeExternal})...)
	vs = append(vs, scopeViolations(config.Project, config.Region, types.StringNull())...)
	return knownViolations(vs, e.unknown)
}

// flattenRuleAddress keeps a configured reference to an address resource:
// the emulator answers with the address it names, which is no change.
func flattenRuleAddress(v string, prior types.String) types.String {
	if p := prior.ValueString(); p != "" && !prior.IsUnknown() && !rules.IsIPOrRange(p) {
		return prior
	}
	return flattenString(v, prior)
}
