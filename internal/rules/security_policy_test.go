package rules

import (
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestSecurityPolicy(t *testing.T) {
	const def = `{"priority": 2147483647, "action": "allow", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}}}`
	policy := func(rules ...string) string {
		body := `{"name": "p", "rules": [` + def
		for _, r := range rules {
			body += ", " + r
		}
		return body + `]}`
	}
	ips := `"match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["10.0.0.0/8"]}}`
	rate := func(action, opts string) string {
		return `{"priority": 10, "action": "` + action + `", ` + ips + `, "rateLimitOptions": {` + opts + `}}`
	}
	limit := `"rateLimitThreshold": {"count": 5, "intervalSec": 10}, "conformAction": "allow", "exceedAction": "deny(429)"`
	global := func(p *api.SecurityPolicy) Violations { return SecurityPolicy(p, false) }
	regional := func(p *api.SecurityPolicy) Violations { return SecurityPolicy(p, true) }
	checkCases(t, global, []struct{ name, body, want, field string }{
		{name: "no rules", body: `{"name": "p"}`},
		{name: "ranges and expressions", body: policy(`{"priority": 1000, "action": "deny(403)", `+ips+`}`,
			`{"priority": 2000, "action": "deny(404)", "preview": true, "match": {"expr": {"expression": "request.path.startsWith('/admin') && inIpRange(origin.ip, '10.0.0.0/8')"}}}`)},
		{name: "throttle", body: policy(rate("throttle", limit+`, "enforceOnKey": "HTTP_HEADER", "enforceOnKeyName": "x-user"`))},
		{name: "ban", body: policy(rate("rate_based_ban", limit+`, "banDurationSec": 60, "banThreshold": {"count": 10, "intervalSec": 60}`))},
		{name: "redirect", body: policy(`{"priority": 5, "action": "redirect", ` + ips + `, "redirectOptions": {"type": "EXTERNAL_302", "target": "https://example.com/"}}`)},
		{name: "header action", body: policy(`{"priority": 5, "action": "allow", ` + ips + `, "headerAction": {"requestHeadersToAdds": [{"headerName": "x-armor", "headerValue": "1"}]}}`)},

		{name: "no default", body: `{"name": "p", "rules": [{"priority": 1, "action": "allow", ` + ips + `}]}`, field: "rules",
			want: `rules has no default rule: add one with priority 2147483647 that matches every request (versionedExpr SRC_IPS_V1, srcIpRanges ["*"]), or send no rules to get an allow-all default.`},
		{name: "default narrows", body: `{"name": "p", "rules": [{"priority": 2147483647, "action": "allow", ` + ips + `}]}`, field: "rules[0].match",
			want: `rules[0].match of the default rule (priority 2147483647) must match every request: versionedExpr SRC_IPS_V1 with srcIpRanges ["*"].`},
		{name: "same priority", body: policy(`{"priority": 2147483647, "action": "deny(403)", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}}}`),
			field: "rules[1].priority", want: "rules[1].priority (2147483647) repeats the priority of rules[0]: each rule of a policy has its own priority."},
		{name: "no priority", body: policy(`{"action": "allow", ` + ips + `}`), field: "rules[1].priority",
			want: "rules[1].priority is required: rules are evaluated from priority 0 (first) to 2147483647 (the default rule, last)."},
		{name: "negative priority", body: policy(`{"priority": -1, "action": "allow", ` + ips + `}`), field: "rules[1].priority",
			want: "rules[1].priority (-1) must be between 0 and 2147483647."},
		{name: "no action", body: policy(`{"priority": 1, ` + ips + `}`), field: "rules[1].action",
			want: "rules[1].action is required: allow, deny(403), deny(404), deny(502), redirect, throttle or rate_based_ban."},
		{name: "bad action", body: policy(`{"priority": 1, "action": "deny(401)", ` + ips + `}`), field: "rules[1].action",
			want: `rules[1].action ("deny(401)") must be allow, deny(403), deny(404), deny(502), redirect, throttle or rate_based_ban (or deny, in a CLOUD_ARMOR_NETWORK policy).`},
		{name: "plain deny", body: policy(`{"priority": 1, "action": "deny", ` + ips + `}`), field: "rules[1].action",
			want: `rules[1].action ("deny") takes a status on a global CLOUD_ARMOR policy: deny(403), deny(404) or deny(502); a plain deny is for CLOUD_ARMOR_NETWORK policies.`},
		{name: "no match", body: policy(`{"priority": 1, "action": "allow"}`), field: "rules[1].match",
			want: "rules[1].match is required: the requests the rule acts on, by source range (versionedExpr SRC_IPS_V1 with config.srcIpRanges) or by a CEL expression (expr)."},
		{name: "empty match", body: policy(`{"priority": 1, "action": "allow", "match": {}}`), field: "rules[1].match",
			want: "rules[1].match is required: the requests the rule acts on, by source range (versionedExpr SRC_IPS_V1 with config.srcIpRanges) or by a CEL expression (expr)."},
		{name: "both matchers", body: policy(`{"priority": 1, "action": "allow", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}, "expr": {"expression": "true"}}}`),
			field: "rules[1].match.expr", want: "rules[1].match.expr is set with rules[1].match.versionedExpr: a rule matches by source ranges or by an expression, not both."},
		{name: "config alone", body: policy(`{"priority": 1, "action": "allow", "match": {"config": {"srcIpRanges": ["*"]}}}`),
			field: "rules[1].match.config", want: "rules[1].match.config is set without rules[1].match.versionedExpr: source ranges go with versionedExpr SRC_IPS_V1."},
		{name: "no ranges", body: policy(`{"priority": 1, "action": "allow", "match": {"versionedExpr": "SRC_IPS_V1"}}`),
			field: "rules[1].match.config.srcIpRanges", want: `rules[1].match.config.srcIpRanges is required when rules[1].match.versionedExpr is SRC_IPS_V1: the source ranges the rule matches ("*" for all).`},
		{name: "eleven ranges", body: policy(`{"priority": 1, "action": "allow", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["1.0.0.1","1.0.0.2","1.0.0.3","1.0.0.4","1.0.0.5","1.0.0.6","1.0.0.7","1.0.0.8","1.0.0.9","1.0.0.10","1.0.0.11"]}}}`),
			field: "rules[1].match.config.srcIpRanges", want: "rules[1].match.config.srcIpRanges lists 11 ranges: a rule takes at most 10."},
		{name: "bad range", body: policy(`{"priority": 1, "action": "allow", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["10.0.0.0/40"]}}}`),
			field: "rules[1].match.config.srcIpRanges[0]", want: `rules[1].match.config.srcIpRanges[0] ("10.0.0.0/40") must be "*", an IP address or a range in CIDR form, such as "10.0.0.0/8".`},
		{name: "empty expression", body: policy(`{"priority": 1, "action": "allow", "match": {"expr": {"title": "t"}}}`),
			field: "rules[1].match.expr.expression", want: "rules[1].match.expr.expression is required: a CEL condition over the request, such as inIpRange(origin.ip, '10.0.0.0/8')."},
		{name: "bad expression", body: policy(`{"priority": 1, "action": "allow", "match": {"expr": {"expression": "request.pathh == '/'"}}}`),
			field: "rules[1].match.expr.expression", want: `rules[1].match.expr.expression ("request.pathh == '/'") is not a Cloud Armor expression: ERROR: <input>:1:8: undeclared reference to 'request.pathh' (did you mean 'request.path'?)  | request.pathh == '/'  | .......^.`},
		{name: "unknown WAF rule set", body: policy(`{"priority": 1, "action": "deny(403)", "match": {"expr": {"expression": "evaluatePreconfiguredWaf('sqli-v99-stable', {'sensitivity': 1})"}}}`),
			field: "rules[1].match.expr.expression", want: `rules[1].match.expr.expression ("evaluatePreconfiguredWaf('sqli-v99-stable', {'sensitivity': 1})") is not a Cloud Armor expression: "sqli-v99-stable" is not a preconfigured WAF rule set: a set is a family (java, lfi, methodenforcement, nodejs, php, protocolattack, rce, rfi, scannerdetection, sessionfixation, sqli, xss) with its version and stability, such as sqli-v33-stable or xss-v422-canary.`},
		{name: "long expression", body: policy(`{"priority": 1, "action": "allow", "match": {"expr": {"expression": "` + longExpr() + `"}}}`),
			field: "rules[1].match.expr.expression", want: "rules[1].match.expr.expression is 2050 characters long: an expression has at most 2048."},
		{name: "redirect without options", body: policy(`{"priority": 1, "action": "redirect", ` + ips + `}`), field: "rules[1].redirectOptions",
			want: "rules[1].redirectOptions is required when rules[1].action is redirect: where the redirect goes."},
		{name: "redirect options on allow", body: policy(`{"priority": 1, "action": "allow", ` + ips + `, "redirectOptions": {"type": "GOOGLE_RECAPTCHA"}}`),
			field: "rules[1].redirectOptions", want: `rules[1].redirectOptions is set, but rules[1].action is "allow": redirect options go with action redirect.`},
		{name: "redirect type", body: policy(`{"priority": 1, "action": "redirect", ` + ips + `, "redirectOptions": {"target": "https://example.com/"}}`),
			field: "rules[1].redirectOptions.type", want: "rules[1].redirectOptions.type is required: EXTERNAL_302 (to target) or GOOGLE_RECAPTCHA."},
		{name: "302 without target", body: policy(`{"priority": 1, "action": "redirect", ` + ips + `, "redirectOptions": {"type": "EXTERNAL_302"}}`),
			field: "rules[1].redirectOptions.target", want: "rules[1].redirectOptions.target is required when rules[1].redirectOptions.type is EXTERNAL_302: the URL the client is sent to."},
		{name: "recaptcha with target", body: policy(`{"priority": 1, "action": "redirect", ` + ips + `, "redirectOptions": {"type": "GOOGLE_RECAPTCHA", "target": "https://x/"}}`),
			field: "rules[1].redirectOptions.target", want: `rules[1].redirectOptions.target ("https://x/") must not be set when rules[1].redirectOptions.type is GOOGLE_RECAPTCHA.`},
		{name: "throttle without options", body: policy(`{"priority": 1, "action": "throttle", ` + ips + `}`), field: "rules[1].rateLimitOptions",
			want: "rules[1].rateLimitOptions is required when rules[1].action is throttle: the threshold and what happens above it."},
		{name: "options on deny", body: policy(`{"priority": 1, "action": "deny(403)", ` + ips + `, "rateLimitOptions": {` + limit + `}}`), field: "rules[1].rateLimitOptions",
			want: `rules[1].rateLimitOptions is set, but rules[1].action is "deny(403)": rate limits go with action throttle or rate_based_ban.`},
		{name: "no threshold", body: policy(rate("throttle", `"conformAction": "allow", "exceedAction": "deny(429)"`)), field: "rules[1].rateLimitOptions.rateLimitThreshold",
			want: "rules[1].rateLimitOptions.rateLimitThreshold is required: the count of requests in intervalSec above which the rule acts."},
		{name: "zero count", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 0, "intervalSec": 10}, "conformAction": "allow", "exceedAction": "deny(429)"`)),
			field: "rules[1].rateLimitOptions.rateLimitThreshold.count", want: "rules[1].rateLimitOptions.rateLimitThreshold.count must be at least 1: the number of requests allowed in the interval."},
		{name: "no interval", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 5}, "conformAction": "allow", "exceedAction": "deny(429)"`)),
			field: "rules[1].rateLimitOptions.rateLimitThreshold.intervalSec", want: "rules[1].rateLimitOptions.rateLimitThreshold.intervalSec is required: one of 10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700, 3600 seconds."},
		{name: "odd interval", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 5, "intervalSec": 15}, "conformAction": "allow", "exceedAction": "deny(429)"`)),
			field: "rules[1].rateLimitOptions.rateLimitThreshold.intervalSec", want: "rules[1].rateLimitOptions.rateLimitThreshold.intervalSec (15) must be one of 10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700, 3600 seconds."},
		{name: "conform deny", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 5, "intervalSec": 10}, "conformAction": "deny(403)", "exceedAction": "deny(429)"`)),
			field: "rules[1].rateLimitOptions.conformAction", want: `rules[1].rateLimitOptions.conformAction ("deny(403)") must be allow: requests under the threshold pass.`},
		{name: "no exceed", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 5, "intervalSec": 10}, "conformAction": "allow"`)),
			field: "rules[1].rateLimitOptions.exceedAction", want: "rules[1].rateLimitOptions.exceedAction is required: deny(403), deny(404), deny(429), deny(502) or redirect, for requests above the threshold."},
		{name: "bad exceed", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 5, "intervalSec": 10}, "conformAction": "allow", "exceedAction": "allow"`)),
			field: "rules[1].rateLimitOptions.exceedAction", want: `rules[1].rateLimitOptions.exceedAction ("allow") must be deny(403), deny(404), deny(429), deny(502) or redirect.`},
		{name: "exceed redirect without options", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 5, "intervalSec": 10}, "conformAction": "allow", "exceedAction": "redirect"`)),
			field: "rules[1].rateLimitOptions.exceedRedirectOptions", want: "rules[1].rateLimitOptions.exceedRedirectOptions is required when rules[1].rateLimitOptions.exceedAction is redirect: where the redirect goes."},
		{name: "exceed options on deny", body: policy(rate("throttle", limit+`, "exceedRedirectOptions": {"type": "GOOGLE_RECAPTCHA"}`)),
			field: "rules[1].rateLimitOptions.exceedRedirectOptions", want: `rules[1].rateLimitOptions.exceedRedirectOptions is set, but rules[1].rateLimitOptions.exceedAction is "deny(429)": redirect options go with exceed action redirect.`},
		{name: "ban on throttle", body: policy(rate("throttle", limit+`, "banThreshold": {"count": 10, "intervalSec": 60}`)),
			field: "rules[1].rateLimitOptions.banThreshold", want: `rules[1].rateLimitOptions.banThreshold is set, but rules[1].action is "throttle": a ban goes with action rate_based_ban.`},
		{name: "ban duration on throttle", body: policy(rate("throttle", limit+`, "banDurationSec": 60`)),
			field: "rules[1].rateLimitOptions.banDurationSec", want: `rules[1].rateLimitOptions.banDurationSec is set, but rules[1].action is "throttle": a ban goes with action rate_based_ban.`},
		{name: "zero ban", body: policy(rate("rate_based_ban", limit+`, "banDurationSec": 0`)),
			field: "rules[1].rateLimitOptions.banDurationSec", want: "rules[1].rateLimitOptions.banDurationSec (0) must be at least 1: the seconds a client stays banned."},
		{name: "header key without name", body: policy(rate("throttle", limit+`, "enforceOnKey": "HTTP_HEADER"`)),
			field: "rules[1].rateLimitOptions.enforceOnKeyName", want: "rules[1].rateLimitOptions.enforceOnKeyName is required when rules[1].rateLimitOptions.enforceOnKey is HTTP_HEADER: the name of the header or cookie counted by."},
		{name: "key name on ip", body: policy(rate("throttle", limit+`, "enforceOnKey": "IP", "enforceOnKeyName": "x"`)),
			field: "rules[1].rateLimitOptions.enforceOnKeyName", want: `rules[1].rateLimitOptions.enforceOnKeyName ("x") is set, but rules[1].rateLimitOptions.enforceOnKey is "IP": a key name goes with HTTP_HEADER or HTTP_COOKIE.`},
		{name: "header without name", body: policy(`{"priority": 5, "action": "allow", ` + ips + `, "headerAction": {"requestHeadersToAdds": [{"headerValue": "1"}]}}`),
			field: "rules[1].headerAction.requestHeadersToAdds[0].headerName", want: "rules[1].headerAction.requestHeadersToAdds[0].headerName is required: the name of the request header to add."},
		{name: "edge throttle", body: `{"name": "p", "type": "CLOUD_ARMOR_EDGE", "rules": [` + def + `, ` + rate("throttle", limit) + `]}`,
			field: "rules[1].action", want: `rules[1].action ("throttle") is not an action of a CLOUD_ARMOR_EDGE policy: edge policies allow or deny.`},
		{name: "edge header", body: `{"name": "p", "type": "CLOUD_ARMOR_EDGE", "rules": [` + def + `, {"priority": 5, "action": "allow", ` + ips + `, "headerAction": {"requestHeadersToAdds": [{"headerName": "a"}]}}]}`,
			field: "rules[1].headerAction", want: "rules[1].headerAction is set on a global CLOUD_ARMOR_EDGE policy: headers are added only by global policies of type CLOUD_ARMOR."},
	})
	checkCases(t, regional, []struct{ name, body, want, field string }{
		{name: "regional", body: policy(`{"priority": 1000, "action": "deny(403)", ` + ips + `}`)},
		{name: "network deny", body: `{"name": "p", "type": "CLOUD_ARMOR_NETWORK", "rules": [{"priority": 1000, "action": "deny", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["10.0.0.0/8"]}}}]}`},
		{name: "regional edge", body: `{"name": "p", "type": "CLOUD_ARMOR_EDGE"}`, field: "type",
			want: `type ("CLOUD_ARMOR_EDGE") is a global type: an edge policy filters at Google's edge, for global services; a regional policy is CLOUD_ARMOR or CLOUD_ARMOR_NETWORK.`},
		{name: "regional redirect", body: policy(`{"priority": 5, "action": "redirect", ` + ips + `, "redirectOptions": {"type": "EXTERNAL_302", "target": "https://example.com/"}}`),
			field: "rules[1].action", want: `rules[1].action ("redirect") is set on a regional CLOUD_ARMOR policy: redirect is only supported in global policies of type CLOUD_ARMOR.`},
		{name: "regional exceed redirect", body: policy(rate("throttle", `"rateLimitThreshold": {"count": 5, "intervalSec": 10}, "conformAction": "allow", "exceedAction": "redirect", "exceedRedirectOptions": {"type": "GOOGLE_RECAPTCHA"}`)),
			field: "rules[1].rateLimitOptions.exceedAction", want: `rules[1].rateLimitOptions.exceedAction ("redirect") is set on a regional CLOUD_ARMOR policy: redirect is only supported in global policies of type CLOUD_ARMOR.`},
	})
}

// longExpr is a valid expression of 2,050 characters.
func longExpr() string { return "true" + strings.Repeat(" ", 2046) }

func TestSecurityPolicyDefaults(t *testing.T) {
	p := &api.SecurityPolicy{}
	ApplySecurityPolicyDefaults(p)
	if p.Type != api.PolicyCloudArmor || len(p.Rules) != 1 || p.Rules[0].PriorityValue() != api.DefaultRulePriority || p.Rules[0].Action != "allow" {
		t.Fatalf("defaults: %+v", p)
	}
	one, two := int64(1), int64(2)
	p = &api.SecurityPolicy{Rules: []api.SecurityPolicyRule{DefaultRule(), {Priority: &two}, {Priority: &one}}}
	ApplySecurityPolicyDefaults(p)
	if p.Rules[0].PriorityValue() != 1 || p.Rules[1].PriorityValue() != 2 || p.Rules[2].Kind != api.KindSecurityPolicyRule {
		t.Fatalf("rules not in order: %+v", p.Rules)
	}
}
