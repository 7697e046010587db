package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

const forwardingRuleNoun = "forwarding rule"

var forwardingRuleCRUD = crud[forwardingRuleModel, *api.ForwardingRule]{
	noun:    forwardingRuleNoun,
	scope:   (*forwardingRuleModel).scope,
	name:    func(m forwardingRuleModel) string { return m.Name.ValueString() },
	expand:  ignoreSecond(expandForwardingRule),
	flatten: noDiags(flattenForwardingRule),
	insert:  (*client.Client).InsertForwardingRule,
	get:     (*client.Client).GetForwardingRule,
	put:     (*client.Client).UpdateForwardingRule,
	del:     (*client.Client).DeleteForwardingRule,
}

// forwardingRuleKind is lbhealth_forwarding_rule.
var forwardingRuleKind = &resourceKind[forwardingRuleModel, *api.ForwardingRule]{
	crud:          forwardingRuleCRUD,
	typeName:      "forwarding_rule",
	collection:    api.CollectionForwardingRules,
	imports:       importAnyScope,
	schema:        forwardingRuleSchema,
	fingerprinted: false,
	violations:    forwardingRuleConfigViolations,
	naming:        forwardingRuleNaming,
	plan: func(s *planStep[forwardingRuleModel]) {
		p := s.plan
		p.Project = s.project(s.config.Project, s.state.Project)
		p.ID = planID(p.Project, p.Region, p.Name, api.CollectionForwardingRules)
		if s.hasState {
			keepEquivalentForwardingRefs(p, s.state)
		}
	},
}

func newForwardingRuleResource() resource.Resource {
	return &managedResource[forwardingRuleModel, *api.ForwardingRule]{kind: forwardingRuleKind}
}

var forwardingRuleDescriptions = map[string]string{
	"id": "`projects/{project}/global/forwardingRules/{name}`, or `projects/{project}/regions/{region}/forwardingRules/{name}` " +
		"for a regional rule. A composite health check's `health_destination` takes it, or `self_link`.",
	"name": "Name of the forwarding rule, unique per project and scope: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the rule.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the rule. Defaults to the provider's `project`. Changing it replaces the rule.",
	"region": "Region of a regional rule. Unset (the default), the rule is global, like the other resources of this " +
		"provider that take a `region` (the Google provider has a separate global resource instead). A rule with " +
		"`target` must be regional, as target pools are; so must the health destination of a composite health check. " +
		"Changing it replaces the rule.",
	"ip_address": "IPv4 or IPv6 address the rule receives traffic on (or an IPv6 range, or a reference to an address " +
		"resource, which the emulator replaces with its address). Unset: the emulator assigns one in 127.2.0.0/16, " +
		"as the Compute API assigns an ephemeral address, and keeps it for the life of the rule.",
	"port_range": fmt.Sprintf("Port (`\"80\"`) or range of ports, low to high (`\"8080-8090\"`), between %d and %d. "+
		"Unset: every port.", rules.MinPort, rules.MaxPort),
	"load_balancing_scheme": "`EXTERNAL` (default), `EXTERNAL_MANAGED`, `INTERNAL` or `INTERNAL_MANAGED`. A composite " +
		"health check's destination must be `INTERNAL` or `INTERNAL_MANAGED`. Changing it replaces the rule, as it makes " +
		"another kind of load balancer.",
	"backend_service": "The backend service the rule sends traffic to, of the rule's own scope: its `self_link`, its " +
		"`id` or its name. Exactly one of `backend_service` and `target` is set; switching from one to the other is " +
		"an update in place. The reference stays as written: it never shows as a diff against the URL the emulator " +
		"stores, and writing the same service in another form plans nothing.",
	"target": "The target pool the rule sends traffic to (a network load balancer), of the rule's own region: its " +
		"`self_link`, its `id` or its name. Only on a regional rule. The reference stays as written, as for " +
		"`backend_service`.",
	"self_link":          "URL of the forwarding rule, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the forwarding rule was created (RFC 3339).",
	"forwarding_rule_id": "Numeric id the server assigned to the forwarding rule, as a string.",
}

func forwardingRuleSchema() schema.Schema {
	d := forwardingRuleDescriptions
	optional := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: d[name]}
	}
	return schema.Schema{
		MarkdownDescription: "A forwarding rule, global or regional: an address and port range whose traffic goes to " +
			"a backend service or a target pool. When the rule's address is on loopback (as the one the emulator " +
			"assigns is), the emulator listens there and carries its connections to the endpoints its probes find " +
			"`HEALTHY` (the guide *Traffic that follows health*). Forwarding rules are also what composite health " +
			"checks report for (their health destination). Changes to the address, ports, backend service or " +
			"target are updates in place (HTTP PUT). A backend service or target pool a rule uses cannot be deleted " +
			"until the rule stops using it.",
		Attributes: resourceAttributes(d, map[string]schema.Attribute{
			"region": schema.StringAttribute{Optional: true, MarkdownDescription: d["region"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			// Optional+Computed: unset, the emulator assigns one, as the API
			// assigns an ephemeral address, and it stays across updates.
			"ip_address": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: d["ip_address"],
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"port_range": optional("port_range"),
			"load_balancing_scheme": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: d["load_balancing_scheme"],
				Default:             stringdefault.StaticString(api.SchemeExternal),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"backend_service":    optional("backend_service"),
			"target":             optional("target"),
			"forwarding_rule_id": computedString(d, "forwarding_rule_id"),
		}),
	}
}
