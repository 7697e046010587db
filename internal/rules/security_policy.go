package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/armor"
)

// Limits of Cloud Armor security policies.
const (
	MaxSrcIPRanges = 10
)

// RateLimitIntervals are the intervals a rate limit may count over, in
// seconds.
var RateLimitIntervals = []int64{10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700, 3600}

// denyActions are the answers of a deny action, and of a rate limit's
// exceed action (which may also answer 429).
var (
	denyActions   = []string{"deny(403)", "deny(404)", "deny(502)"}
	exceedActions = []string{"deny(403)", "deny(404)", "deny(429)", "deny(502)", api.ActionRedirect}
)

// SecurityPolicy checks a Cloud Armor policy as a client sent it, global
// or regional: its type and its rules (see SecurityPolicyRule), which must
// have distinct priorities and, when there are any, a default rule.
func SecurityPolicy(p *api.SecurityPolicy, regional bool) Violations {
	var vs Violations
	vs.add(Name("name", p.Name))
	vs.add(Description("description", p.Description))
	if regional && p.Type == api.PolicyCloudArmorEdge {
		vs = append(vs, violation("type", "%s (%q) is a global type: an edge policy filters at Google's edge, for global services; a regional policy is CLOUD_ARMOR or CLOUD_ARMOR_NETWORK.", f("type"), p.Type))
	}
	seen := map[int64]int{}
	hasDefault := false
	for i, r := range p.Rules {
		field := fmt.Sprintf("rules[%d]", i)
		vs = append(vs, SecurityPolicyRule(field, &r, p.Type, regional)...)
		if r.Priority == nil {
			continue
		}
		if j, ok := seen[*r.Priority]; ok {
			vs = append(vs, violation(field+".priority", "%s (%d) repeats the priority of rules[%d]: each rule of a policy has its own priority.", f(field+".priority"), *r.Priority, j))
		}
		seen[*r.Priority] = i
		hasDefault = hasDefault || *r.Priority == api.DefaultRulePriority
	}
	if len(p.Rules) > 0 && !hasDefault && p.Type != api.PolicyCloudArmorNetwork {
		vs = append(vs, violation("rules", "%s has no default rule: add one with priority %d that matches every request (versionedExpr SRC_IPS_V1, srcIpRanges [\"*\"]), or send no rules to get an allow-all default.", f("rules"), api.DefaultRulePriority))
	}
	return vs
}

// SecurityPolicyRule checks one rule of a policy of type policyType
// ("" is CLOUD_ARMOR), named field in the request ("rules[0]", or "" for
// the body of addRule and patchRule).
func SecurityPolicyRule(field string, r *api.SecurityPolicyRule, policyType string, regional bool) Violations {
	var vs Violations
	at := func(name string) string {
		if field == "" {
			return name
		}
		return field + "." + name
	}
	vs.add(Description(at("description"), r.Description))
	switch p := r.Priority; {
	case p == nil:
		vs = append(vs, violation(at("priority"), "%s is required: rules are evaluated from priority 0 (first) to %d (the default rule, last).", f(at("priority")), api.DefaultRulePriority))
	case *p < 0 || *p > api.DefaultRulePriority:
		vs = append(vs, violation(at("priority"), "%s (%d) must be between 0 and %d.", f(at("priority")), *p, api.DefaultRulePriority))
	}
	vs = append(vs, ruleAction(at, r, policyType, regional)...)
	if policyType != api.PolicyCloudArmorNetwork {
		vs = append(vs, ruleMatch(at, r)...)
	}
	if r.HeaderAction != nil {
		if regional || cmpType(policyType) != api.PolicyCloudArmor {
			vs = append(vs, violation(at("headerAction"), "%s is set on a %s policy: headers are added only by global policies of type CLOUD_ARMOR.", f(at("headerAction")), scopeAndType(policyType, regional)))
		}
		for i, h := range r.HeaderAction.RequestHeadersToAdds {
			name := at(fmt.Sprintf("headerAction.requestHeadersToAdds[%d].headerName", i))
			if h.HeaderName == "" {
				vs = append(vs, violation(name, "%s is required: the name of the request header to add.", f(name)))
			}
		}
	}
	return vs
}

// cmpType is a policy's type, CLOUD_ARMOR when unset.
func cmpType(t string) string { return cmp.Or(t, api.PolicyCloudArmor) }

func scopeAndType(policyType string, regional bool) string {
	if regional {
		return "regional " + cmpType(policyType)
	}
	return "global " + cmpType(policyType)
}

// ruleAction checks a rule's action and the options that go with it.
func ruleAction(at func(string) string, r *api.SecurityPolicyRule, policyType string, regional bool) Violations {
	var vs Violations
	a := r.Action
	rateLimited := a == api.ActionThrottle || a == api.ActionRateBasedBan
	switch {
	case a == "":
		vs = append(vs, violation(at("action"), "%s is required: allow, deny(403), deny(404), deny(502), redirect, throttle or rate_based_ban.", f(at("action"))))
		return vs
	case a == "deny" && cmpType(policyType) == api.PolicyCloudArmorNetwork:
		// A network policy drops packets: its deny has no HTTP status.
	case a == "deny":
		vs = append(vs, violation(at("action"), "%s (%q) takes a status on a %s policy: deny(403), deny(404) or deny(502); a plain deny is for CLOUD_ARMOR_NETWORK policies.", f(at("action")), a, scopeAndType(policyType, regional)))
		return vs
	case a != api.ActionAllow && !slices.Contains(denyActions, a) && a != api.ActionRedirect && !rateLimited:
		vs = append(vs, violation(at("action"), "%s (%q) must be allow, deny(403), deny(404), deny(502), redirect, throttle or rate_based_ban (or deny, in a CLOUD_ARMOR_NETWORK policy).", f(at("action")), a))
		return vs
	case cmpType(policyType) == api.PolicyCloudArmorEdge && a != api.ActionAllow && !slices.Contains(denyActions, a):
		vs = append(vs, violation(at("action"), "%s (%q) is not an action of a CLOUD_ARMOR_EDGE policy: edge policies allow or deny.", f(at("action")), a))
	case a == api.ActionRedirect && (regional || cmpType(policyType) != api.PolicyCloudArmor):
		vs = append(vs, violation(at("action"), "%s (%q) is set on a %s policy: redirect is only supported in global policies of type CLOUD_ARMOR.", f(at("action")), a, scopeAndType(policyType, regional)))
	}
	switch {
	case a == api.ActionRedirect && r.RedirectOptions == nil:
		vs = append(vs, violation(at("redirectOptions"), "%s is required when %s is redirect: where the redirect goes.", f(at("redirectOptions")), f(at("action"))))
	case a != api.ActionRedirect && r.RedirectOptions != nil:
		vs = append(vs, violation(at("redirectOptions"), "%s is set, but %s is %q: redirect options go with action redirect.", f(at("redirectOptions")), f(at("action")), a))
	case r.RedirectOptions != nil:
		vs = append(vs, redirectOptions(at("redirectOptions"), r.RedirectOptions)...)
	}
	switch {
	case rateLimited && r.RateLimitOptions == nil:
		vs = append(vs, violation(at("rateLimitOptions"), "%s is required when %s is %s: the threshold and what happens above it.", f(at("rateLimitOptions")), f(at("action")), a))
	case !rateLimited && r.RateLimitOptions != nil:
		vs = append(vs, violation(at("rateLimitOptions"), "%s is set, but %s is %q: rate limits go with action throttle or rate_based_ban.", f(at("rateLimitOptions")), f(at("action")), a))
	case rateLimited:
		vs = append(vs, rateLimitOptions(at, a, r.RateLimitOptions, policyType, regional)...)
	}
	return vs
}

// redirectOptions checks where a redirect goes.
func redirectOptions(field string, o *api.SecurityPolicyRuleRedirectOptions) Violations {
	var vs Violations
	switch {
	case o.Type == "":
		vs = append(vs, violation(field+".type", "%s is required: EXTERNAL_302 (to target) or GOOGLE_RECAPTCHA.", f(field+".type")))
	case o.Type == api.RedirectExternal302 && o.Target == "":
		vs = append(vs, violation(field+".target", "%s is required when %s is EXTERNAL_302: the URL the client is sent to.", f(field+".target"), f(field+".type")))
	case o.Type == api.RedirectRecaptcha && o.Target != "":
		vs = append(vs, violation(field+".target", "%s (%q) must not be set when %s is GOOGLE_RECAPTCHA.", f(field+".target"), o.Target, f(field+".type")))
	}
	return vs
}

// rateLimitOptions checks a throttle or rate_based_ban rule's thresholds.
func rateLimitOptions(at func(string) string, action string, o *api.SecurityPolicyRuleRateLimitOptions, policyType string, regional bool) Violations {
	var vs Violations
	field := at("rateLimitOptions")
	vs = append(vs, threshold(field+".rateLimitThreshold", o.RateLimitThreshold, true)...)
	if o.ConformAction != api.ActionAllow {
		vs = append(vs, violation(field+".conformAction", "%s (%q) must be allow: requests under the threshold pass.", f(field+".conformAction"), o.ConformAction))
	}
	switch {
	case o.ExceedAction == "":
		vs = append(vs, violation(field+".exceedAction", "%s is required: deny(403), deny(404), deny(429), deny(502) or redirect, for requests above the threshold.", f(field+".exceedAction")))
	case !slices.Contains(exceedActions, o.ExceedAction):
		vs = append(vs, violation(field+".exceedAction", "%s (%q) must be deny(403), deny(404), deny(429), deny(502) or redirect.", f(field+".exceedAction"), o.ExceedAction))
	case o.ExceedAction == api.ActionRedirect && (regional || cmpType(policyType) != api.PolicyCloudArmor):
		vs = append(vs, violation(field+".exceedAction", "%s (%q) is set on a %s policy: redirect is only supported in global policies of type CLOUD_ARMOR.", f(field+".exceedAction"), o.ExceedAction, scopeAndType(policyType, regional)))
	case o.ExceedAction == api.ActionRedirect && o.ExceedRedirectOptions == nil:
		vs = append(vs, violation(field+".exceedRedirectOptions", "%s is required when %s is redirect: where the redirect goes.", f(field+".exceedRedirectOptions"), f(field+".exceedAction")))
	case o.ExceedAction != api.ActionRedirect && o.ExceedRedirectOptions != nil:
		vs = append(vs, violation(field+".exceedRedirectOptions", "%s is set, but %s is %q: redirect options go with exceed action redirect.", f(field+".exceedRedirectOptions"), f(field+".exceedAction"), o.ExceedAction))
	case o.ExceedRedirectOptions != nil:
		vs = append(vs, redirectOptions(field+".exceedRedirectOptions", o.ExceedRedirectOptions)...)
	}
	if action != api.ActionRateBasedBan {
		if o.BanThreshold != nil {
			vs = append(vs, violation(field+".banThreshold", "%s is set, but %s is %q: a ban goes with action rate_based_ban.", f(field+".banThreshold"), f(at("action")), action))
		}
		if o.BanDurationSec != nil {
			vs = append(vs, violation(field+".banDurationSec", "%s is set, but %s is %q: a ban goes with action rate_based_ban.", f(field+".banDurationSec"), f(at("action")), action))
		}
	}
	if o.BanThreshold != nil {
		vs = append(vs, threshold(field+".banThreshold", o.BanThreshold, false)...)
	}
	if o.BanDurationSec != nil && *o.BanDurationSec < 1 {
		vs = append(vs, violation(field+".banDurationSec", "%s (%d) must be at least 1: the seconds a client stays banned.", f(field+".banDurationSec"), *o.BanDurationSec))
	}
	named := o.EnforceOnKey == api.KeyHTTPHeader || o.EnforceOnKey == api.KeyHTTPCookie
	switch {
	case named && o.EnforceOnKeyName == "":
		vs = append(vs, violation(field+".enforceOnKeyName", "%s is required when %s is %s: the name of the header or cookie counted by.", f(field+".enforceOnKeyName"), f(field+".enforceOnKey"), o.EnforceOnKey))
	case !named && o.EnforceOnKeyName != "":
		vs = append(vs, violation(field+".enforceOnKeyName", "%s (%q) is set, but %s is %q: a key name goes with HTTP_HEADER or HTTP_COOKIE.", f(field+".enforceOnKeyName"), o.EnforceOnKeyName, f(field+".enforceOnKey"), cmp.Or(o.EnforceOnKey, api.KeyAll)))
	}
	return vs
}

// threshold checks a count of requests in an interval (required: the rate
// limit's own, which must be given).
func threshold(field string, t *api.RateLimitThreshold, required bool) Violations {
	var vs Violations
	if t == nil {
		if required {
			vs = append(vs, violation(field, "%s is required: the count of requests in intervalSec above which the rule acts.", f(field)))
		}
		return vs
	}
	if t.Count == nil || *t.Count < 1 {
		vs = append(vs, violation(field+".count", "%s must be at least 1: the number of requests allowed in the interval.", f(field+".count")))
	}
	switch {
	case t.IntervalSec == nil:
		vs = append(vs, violation(field+".intervalSec", "%s is required: one of %s seconds.", f(field+".intervalSec"), intervals()))
	case !slices.Contains(RateLimitIntervals, *t.IntervalSec):
		vs = append(vs, violation(field+".intervalSec", "%s (%d) must be one of %s seconds.", f(field+".intervalSec"), *t.IntervalSec, intervals()))
	}
	return vs
}

func intervals() string {
	s := make([]string, len(RateLimitIntervals))
	for i, v := range RateLimitIntervals {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

// ruleMatch checks what a rule matches: source ranges or an expression,
// and the default rule matches everything.
func ruleMatch(at func(string) string, r *api.SecurityPolicyRule) Violations {
	var vs Violations
	m := r.Match
	field := at("match")
	if m == nil {
		return append(vs, violation(field, "%s is required: the requests the rule acts on, by source range (versionedExpr SRC_IPS_V1 with config.srcIpRanges) or by a CEL expression (expr).", f(field)))
	}
	switch {
	case m.VersionedExpr != "" && m.Expr != nil:
		vs = append(vs, violation(field+".expr", "%s is set with %s: a rule matches by source ranges or by an expression, not both.", f(field+".expr"), f(field+".versionedExpr")))
	case m.VersionedExpr == "" && m.Config != nil:
		vs = append(vs, violation(field+".config", "%s is set without %s: source ranges go with versionedExpr SRC_IPS_V1.", f(field+".config"), f(field+".versionedExpr")))
	case m.VersionedExpr != "" && (m.Config == nil || len(m.Config.SrcIPRanges) == 0):
		vs = append(vs, violation(field+".config.srcIpRanges", "%s is required when %s is %s: the source ranges the rule matches (\"*\" for all).", f(field+".config.srcIpRanges"), f(field+".versionedExpr"), m.VersionedExpr))
	case m.VersionedExpr == "" && m.Expr == nil:
		vs = append(vs, violation(field, "%s is required: the requests the rule acts on, by source range (versionedExpr SRC_IPS_V1 with config.srcIpRanges) or by a CEL expression (expr).", f(field)))
	}
	if m.Config != nil {
		ranges := m.Config.SrcIPRanges
		if len(ranges) > MaxSrcIPRanges {
			vs = append(vs, violation(field+".config.srcIpRanges", "%s lists %d ranges: a rule takes at most %d.", f(field+".config.srcIpRanges"), len(ranges), MaxSrcIPRanges))
		}
		for i, s := range ranges {
			if !armor.ValidRange(s) {
				name := fmt.Sprintf("%s.config.srcIpRanges[%d]", field, i)
				vs = append(vs, violation(name, "%s (%q) must be \"*\", an IP address or a range in CIDR form, such as \"10.0.0.0/8\".", f(name), s))
			}
		}
	}
	if m.Expr != nil {
		vs = append(vs, ruleExpression(field+".expr.expression", m.Expr.Expression)...)
	}
	if r.PriorityValue() == api.DefaultRulePriority && !matchesAll(m) {
		vs = append(vs, violation(field, "%s of the default rule (priority %d) must match every request: versionedExpr SRC_IPS_V1 with srcIpRanges [\"*\"].", f(field), api.DefaultRulePriority))
	}
	return vs
}

func matchesAll(m *api.SecurityPolicyRuleMatcher) bool {
	return m.VersionedExpr == api.SrcIPsV1 && m.Config != nil && slices.Equal(m.Config.SrcIPRanges, []string{"*"})
}

// ruleExpression checks a rule's CEL expression.
func ruleExpression(field, expr string) Violations {
	var vs Violations
	switch {
	case expr == "":
		vs = append(vs, violation(field, "%s is required: a CEL condition over the request, such as inIpRange(origin.ip, '10.0.0.0/8').", f(field)))
	case len(expr) > armor.MaxExpressionLength:
		vs = append(vs, violation(field, "%s is %d characters long: an expression has at most %d.", f(field), len(expr), armor.MaxExpressionLength))
	default:
		if _, err := armor.Compile(expr); err != nil {
			vs = append(vs, violation(field, "%s (%q) is not a Cloud Armor expression: %s.", f(field), expr, err.Error()))
		}
	}
	return vs
}

// ApplySecurityPolicyDefaults fills the unset fields of a valid policy:
// its type, the allow-all default rule of a policy sent without rules,
// each rule's kind, and the rules in the order they are evaluated.
func ApplySecurityPolicyDefaults(p *api.SecurityPolicy) {
	if p.Type == "" {
		p.Type = api.PolicyCloudArmor
	}
	if len(p.Rules) == 0 && p.Type != api.PolicyCloudArmorNetwork {
		p.Rules = []api.SecurityPolicyRule{DefaultRule()}
	}
	for i := range p.Rules {
		p.Rules[i].Kind = api.KindSecurityPolicyRule
	}
	slices.SortFunc(p.Rules, func(a, b api.SecurityPolicyRule) int { return cmp.Compare(a.PriorityValue(), b.PriorityValue()) })
}

// DefaultRule is the rule a policy created without rules gets.
func DefaultRule() api.SecurityPolicyRule {
	priority := int64(api.DefaultRulePriority)
	return api.SecurityPolicyRule{Kind: api.KindSecurityPolicyRule, Description: "default rule", Priority: &priority,
		Action: api.ActionAllow, Match: &api.SecurityPolicyRuleMatcher{VersionedExpr: api.SrcIPsV1,
			Config: &api.SecurityPolicyRuleMatcherConfig{SrcIPRanges: []string{"*"}}}}
}
