package provider

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const firewallNoun = "firewall rule"

// firewallModel is the Terraform data of lbhealth_firewall.
type firewallModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Description       types.String `tfsdk:"description"`
	Project           types.String `tfsdk:"project"`
	Network           types.String `tfsdk:"network"`
	Direction         types.String `tfsdk:"direction"`
	Priority          types.Int64  `tfsdk:"priority"`
	SourceRanges      types.List   `tfsdk:"source_ranges"`
	DestinationRanges types.List   `tfsdk:"destination_ranges"`
	SourceTags        types.List   `tfsdk:"source_tags"`
	TargetTags        types.List   `tfsdk:"target_tags"`
	Disabled          types.Bool   `tfsdk:"disabled"`
	Allow             types.List   `tfsdk:"allow"`
	Deny              types.List   `tfsdk:"deny"`
	SelfLink          types.String `tfsdk:"self_link"`
	CreationTimestamp types.String `tfsdk:"creation_timestamp"`
	FirewallID        types.String `tfsdk:"firewall_id"`
}

func (m *firewallModel) scope() client.Scope {
	return client.Scope{Project: m.Project.ValueString()}
}

// firewallNaming spells the API's field paths in Terraform names.
var firewallNaming = terraformNaming(map[string]string{"allowed": "allow", "denied": "deny", "IPProtocol": "protocol"})

var (
	firewallRuleAttrTypes = map[string]attr.Type{"protocol": types.StringType, "ports": types.ListType{ElemType: types.StringType}}
	firewallRuleType      = types.ObjectType{AttrTypes: firewallRuleAttrTypes}
)

// expandFirewall converts a plan or a configuration into the API object.
func expandFirewall(m firewallModel) (*api.Firewall, *expander) {
	e := &expander{}
	fw := &api.Firewall{
		Meta:              api.Meta{Name: e.str("name", m.Name), Description: e.str("description", m.Description)},
		Network:           e.str("network", m.Network),
		Direction:         e.str("direction", m.Direction),
		Priority:          e.int64("priority", m.Priority),
		SourceRanges:      e.strings("sourceRanges", m.SourceRanges),
		DestinationRanges: e.strings("destinationRanges", m.DestinationRanges),
		SourceTags:        e.strings("sourceTags", m.SourceTags),
		TargetTags:        e.strings("targetTags", m.TargetTags),
		Allowed:           expandFirewallRules(e, "allowed", m.Allow),
		Denied:            expandFirewallRules(e, "denied", m.Deny),
	}
	if d := e.bool("disabled", m.Disabled); d != nil {
		fw.Disabled = *d
	}
	return fw, e
}

func expandFirewallRules(e *expander, field string, l types.List) []api.FirewallRule {
	var out []api.FirewallRule
	for i, attrs := range e.objects(field, l) {
		f := fmt.Sprintf("%s[%d]", field, i)
		ports, _ := attrs["ports"].(types.List)
		out = append(out, api.FirewallRule{
			IPProtocol: e.str(f+".IPProtocol", stringAttr(attrs, "protocol")),
			Ports:      e.strings(f+".ports", ports),
		})
	}
	return out
}

// flattenFirewall converts the API object into Terraform data; prior keeps
// the form the user wrote the network in, and empty lists.
func flattenFirewall(fw *api.Firewall, scope client.Scope, prior firewallModel) (firewallModel, diag.Diagnostics) {
	m := firewallModel{
		ID:                types.StringValue(scopedID(scope.Project, "", api.CollectionFirewalls, fw.Name)),
		Name:              types.StringValue(fw.Name),
		Description:       flattenString(fw.Description, prior.Description),
		Project:           types.StringValue(scope.Project),
		Direction:         types.StringValue(fw.Direction),
		Priority:          types.Int64PointerValue(fw.Priority),
		Disabled:          types.BoolValue(fw.Disabled),
		SelfLink:          types.StringValue(fw.SelfLink),
		CreationTimestamp: types.StringValue(fw.CreationTimestamp),
		FirewallID:        types.StringValue(strconv.FormatUint(fw.ID, 10)),
	}
	m.Network = flattenRef(refResolver{project: scope.Project, scopePath: "global"}, fw.Network, prior.Network, api.CollectionNetworks)
	var diags diag.Diagnostics
	for _, l := range []struct {
		dst   *types.List
		got   []string
		prior types.List
	}{{&m.SourceRanges, fw.SourceRanges, prior.SourceRanges}, {&m.DestinationRanges, fw.DestinationRanges, prior.DestinationRanges},
		{&m.SourceTags, fw.SourceTags, prior.SourceTags}, {&m.TargetTags, fw.TargetTags, prior.TargetTags}} {
		var err error
		if *l.dst, err = flattenStrings(l.got, l.prior); err != nil {
			diags.AddError("Cannot map a list", err.Error())
		}
	}
	var d diag.Diagnostics
	m.Allow, d = flattenFirewallRules(fw.Allowed)
	diags.Append(d...)
	m.Deny, d = flattenFirewallRules(fw.Denied)
	diags.Append(d...)
	return m, diags
}

func flattenFirewallRules(rs []api.FirewallRule) (types.List, diag.Diagnostics) {
	elems := make([]attr.Value, 0, len(rs))
	for _, r := range rs {
		ports, err := flattenStrings(r.Ports, types.ListNull(types.StringType)) // none: null
		if err != nil {
			return types.ListNull(firewallRuleType), diag.Diagnostics{diag.NewErrorDiagnostic("Cannot map ports", err.Error())}
		}
		obj, diags := types.ObjectValue(firewallRuleAttrTypes, map[string]attr.Value{"protocol": types.StringValue(r.IPProtocol), "ports": ports})
		if diags.HasError() {
			return types.ListNull(firewallRuleType), diags
		}
		elems = append(elems, obj)
	}
	return types.ListValue(firewallRuleType, elems)
}

// firewallConfigViolations checks a raw configuration with the emulator's
// rules and keeps the violations that read no unknown value.
func firewallConfigViolations(config firewallModel) rules.Violations {
	fw, e := expandFirewall(config)
	vs := rules.Firewall(fw)
	vs = append(vs, scopeViolations(config.Project, types.StringNull(), types.StringNull())...)
	return knownViolations(vs, e.unknown)
}

// firewallKind is lbhealth_firewall.
var firewallKind = &resourceKind[firewallModel, *api.Firewall]{
	crud: crud[firewallModel, *api.Firewall]{
		noun:    firewallNoun,
		scope:   (*firewallModel).scope,
		name:    func(m firewallModel) string { return m.Name.ValueString() },
		expand:  ignoreSecond(expandFirewall),
		flatten: flattenFirewall,
		insert:  (*client.Client).InsertFirewall,
		get:     (*client.Client).GetFirewall,
		put:     (*client.Client).UpdateFirewall,
		del:     (*client.Client).DeleteFirewall,
	},
	typeName:   "firewall",
	collection: api.CollectionFirewalls,
	imports:    importGlobal,
	schema:     firewallSchema,
	violations: firewallConfigViolations,
	naming:     firewallNaming,
	plan: func(s *planStep[firewallModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.ID = planID(p.Project, types.StringNull(), p.Name, api.CollectionFirewalls)
		if s.hasState && p.Project.Equal(s.state.Project) {
			// The network as imported (its URL) names what the
			// configuration's name does: no change.
			p.Network = keepEquivalentRef(p.Network, s.state.Network, refResolver{project: p.Project.ValueString(), scopePath: "global"},
				api.CollectionNetworks)
		}
	},
}

func newFirewallResource() resource.Resource {
	return &managedResource[firewallModel, *api.Firewall]{kind: firewallKind}
}

var firewallDescriptions = map[string]string{
	"id": "`projects/{project}/global/firewalls/{name}`.",
	"name": "Name of the rule, unique per project: 1-63 characters, a lowercase letter first, then lowercase " +
		"letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the rule.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the rule. Defaults to the provider's `project`. Changing it replaces the rule.",
	"network": "Network the rule applies to: its `self_link`, its `id` or its name. Defaults to `default`, the " +
		"network a project gets. Changing it replaces the rule.",
	"direction":          "`INGRESS` (the default: traffic to the network's instances, which is what the probers send) or `EGRESS`.",
	"priority":           fmt.Sprintf("0 (first) to %d; default %d. Of the rules that match, the lowest number decides.", rules.MaxFirewallPriority, rules.DefaultPriority),
	"source_ranges":      "Sources an ingress rule matches, in CIDR form. The cloud's probers come from `35.191.0.0/16` and `130.211.0.0/22` (most load balancers) or from the ranges of the load balancer's type, which the emulator's findings name.",
	"destination_ranges": "Destinations an egress rule matches, in CIDR form.",
	"source_tags":        "Instance network tags an ingress rule matches as sources: never the probers.",
	"target_tags":        "Network tags of the instances the rule applies to; unset, it applies to every instance of the network.",
	"disabled":           "A disabled rule is stored but matches nothing. Default false.",
	"allow":              "What the rule allows, one block a protocol. A rule either allows or denies.",
	"deny":               "What the rule denies, one block a protocol.",
	"allow.protocol":     "`tcp`, `udp`, `icmp`, `esp`, `ah`, `ipip`, `sctp` or `all`.",
	"allow.ports":        "Ports or ranges (`\"80\"`, `\"8000-8080\"`) for `tcp`, `udp` and `sctp`; unset, every port.",
	"self_link":          "URL of the rule, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the rule was created (RFC 3339).",
	"firewall_id":        "Numeric id the server assigned to the rule, as a string.",
}

func firewallSchema() schema.Schema {
	d := firewallDescriptions
	list := func(name string) schema.ListAttribute {
		return schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: d[name]}
	}
	rulesBlock := func(name string) schema.ListNestedBlock {
		return schema.ListNestedBlock{MarkdownDescription: d[name], NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"protocol": schema.StringAttribute{Required: true, MarkdownDescription: d["allow.protocol"]},
			"ports":    schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: d["allow.ports"]},
		}}}
	}
	return schema.Schema{
		MarkdownDescription: "A VPC firewall rule. The emulator filters no traffic: it reads the ingress rules of a " +
			"backend's network to say whether the cloud's health-check probers would reach it (a finding on " +
			"`getHealth` and the status page; with `--firewalls enforce`, such a backend is `UNHEALTHY`). A rule " +
			"that allows the probers' ranges to the backends' ports clears the finding. Changes update the rule in place (HTTP PUT).",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"network": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["network"],
				Default: stringdefault.StaticString(api.DefaultNetwork), PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"direction": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["direction"],
				Default: stringdefault.StaticString(api.DirectionIngress)},
			"priority": schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: d["priority"],
				Default: int64default.StaticInt64(rules.DefaultPriority)},
			"source_ranges":      list("source_ranges"),
			"destination_ranges": list("destination_ranges"),
			"source_tags":        list("source_tags"),
			"target_tags":        list("target_tags"),
			"disabled": schema.BoolAttribute{Optional: true, Computed: true, MarkdownDescription: d["disabled"],
				Default: booldefault.StaticBool(false)},
			"firewall_id": computedString(d, "firewall_id"),
		}),
		Blocks: map[string]schema.Block{"allow": rulesBlock("allow"), "deny": rulesBlock("deny")},
	}
}
