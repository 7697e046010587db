package api

import "encoding/json"

// Kinds and the collection of Cloud Armor security policies.
const (
	CollectionSecurityPolicies = "securityPolicies"
	KindSecurityPolicy         = "compute#securityPolicy"
	KindSecurityPolicyList     = "compute#securityPolicyList"
	KindSecurityPolicyRule     = "compute#securityPolicyRule"
)

// Values of a security policy's enumerated fields that the emulator acts on.
const (
	PolicyCloudArmor        = "CLOUD_ARMOR"
	PolicyCloudArmorEdge    = "CLOUD_ARMOR_EDGE"
	PolicyCloudArmorNetwork = "CLOUD_ARMOR_NETWORK"
	SrcIPsV1                = "SRC_IPS_V1"
	// DefaultRulePriority is the priority of a policy's default rule, the
	// one that matches every request: the lowest there is.
	DefaultRulePriority = 2147483647
	// The actions of a rule.
	ActionAllow        = "allow"
	ActionRedirect     = "redirect"
	ActionThrottle     = "throttle"
	ActionRateBasedBan = "rate_based_ban"
	// The rate-limit keys the data plane counts by.
	KeyAll        = "ALL"
	KeyIP         = "IP"
	KeyHTTPHeader = "HTTP_HEADER"
	KeyXFFIP      = "XFF_IP"
	KeyHTTPCookie = "HTTP_COOKIE"
	KeyHTTPPath   = "HTTP_PATH"
	// The types of a redirect.
	RedirectExternal302 = "EXTERNAL_302"
	RedirectRecaptcha   = "GOOGLE_RECAPTCHA"
)

// SecurityPolicy is a Cloud Armor security policy (collection
// securityPolicies, global and regional): rules a backend service's
// requests pass through before a backend sees them. The data plane
// enforces the rules of CLOUD_ARMOR and CLOUD_ARMOR_EDGE policies.
type SecurityPolicy struct {
	Meta
	Type  string               `json:"type,omitempty"`
	Rules []SecurityPolicyRule `json:"rules,omitempty"`
	// Fingerprint changes on every write; a patch that sends a stale one
	// gets 412.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// SecurityPolicyRule is one rule of a policy. Every field of the API's
// schema is here: the methods that edit one rule (addRule, patchRule)
// rewrite the list, and the fields the emulator does not act on are
// carried as sent.
type SecurityPolicyRule struct {
	Kind             string                              `json:"kind,omitempty"`
	Description      string                              `json:"description,omitempty"`
	Priority         *int64                              `json:"priority,omitempty"`
	Action           string                              `json:"action,omitempty"`
	Preview          bool                                `json:"preview,omitempty"`
	Match            *SecurityPolicyRuleMatcher          `json:"match,omitempty"`
	RateLimitOptions *SecurityPolicyRuleRateLimitOptions `json:"rateLimitOptions,omitempty"`
	RedirectOptions  *SecurityPolicyRuleRedirectOptions  `json:"redirectOptions,omitempty"`
	HeaderAction     *SecurityPolicyRuleHeaderAction     `json:"headerAction,omitempty"`
	// Not acted on.
	NetworkMatch json.RawMessage `json:"networkMatch,omitempty"`
	// Kept as sent; WafExclusions reads it.
	PreconfiguredWafConfig json.RawMessage `json:"preconfiguredWafConfig,omitempty"`
}

// WafExclusion is one exclusion of a rule's preconfiguredWafConfig: the
// request fields the preconfigured WAF rule set TargetRuleSet does not
// inspect, for its signatures TargetRuleIds (all when empty).
type WafExclusion struct {
	TargetRuleSet               string          `json:"targetRuleSet,omitempty"`
	TargetRuleIds               []string        `json:"targetRuleIds,omitempty"`
	RequestHeadersToExclude     []WafFieldMatch `json:"requestHeadersToExclude,omitempty"`
	RequestCookiesToExclude     []WafFieldMatch `json:"requestCookiesToExclude,omitempty"`
	RequestQueryParamsToExclude []WafFieldMatch `json:"requestQueryParamsToExclude,omitempty"`
	RequestUrisToExclude        []WafFieldMatch `json:"requestUrisToExclude,omitempty"`
}

// WafFieldMatch names request fields by an operator (EQUALS, STARTS_WITH,
// ENDS_WITH, CONTAINS, EQUALS_ANY) and a value.
type WafFieldMatch struct {
	Op  string `json:"op,omitempty"`
	Val string `json:"val,omitempty"`
}

// WafExclusions are the exclusions of the rule's preconfiguredWafConfig.
func (r SecurityPolicyRule) WafExclusions() ([]WafExclusion, error) {
	if len(r.PreconfiguredWafConfig) == 0 {
		return nil, nil
	}
	var c struct {
		Exclusions []WafExclusion `json:"exclusions"`
	}
	err := json.Unmarshal(r.PreconfiguredWafConfig, &c)
	return c.Exclusions, err
}

// PriorityValue is the rule's priority (0 when unset: the rules refuse
// that).
func (r SecurityPolicyRule) PriorityValue() int64 {
	if r.Priority == nil {
		return 0
	}
	return *r.Priority
}

// SecurityPolicyRuleMatcher is what a rule matches: source ranges
// (versionedExpr SRC_IPS_V1 with config), or a CEL expression.
type SecurityPolicyRuleMatcher struct {
	VersionedExpr string                           `json:"versionedExpr,omitempty"`
	Config        *SecurityPolicyRuleMatcherConfig `json:"config,omitempty"`
	Expr          *Expr                            `json:"expr,omitempty"`
	ExprOptions   json.RawMessage                  `json:"exprOptions,omitempty"`
}

// SecurityPolicyRuleMatcherConfig holds a SRC_IPS_V1 matcher's ranges.
type SecurityPolicyRuleMatcherConfig struct {
	SrcIPRanges []string `json:"srcIpRanges,omitempty"`
}

// Expr is a CEL expression.
type Expr struct {
	Expression  string `json:"expression,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Location    string `json:"location,omitempty"`
}

// SecurityPolicyRuleRateLimitOptions are a throttle or rate_based_ban
// rule's thresholds.
type SecurityPolicyRuleRateLimitOptions struct {
	RateLimitThreshold    *RateLimitThreshold                `json:"rateLimitThreshold,omitempty"`
	ConformAction         string                             `json:"conformAction,omitempty"`
	ExceedAction          string                             `json:"exceedAction,omitempty"`
	ExceedRedirectOptions *SecurityPolicyRuleRedirectOptions `json:"exceedRedirectOptions,omitempty"`
	EnforceOnKey          string                             `json:"enforceOnKey,omitempty"`
	EnforceOnKeyName      string                             `json:"enforceOnKeyName,omitempty"`
	BanThreshold          *RateLimitThreshold                `json:"banThreshold,omitempty"`
	BanDurationSec        *int64                             `json:"banDurationSec,omitempty"`
	// Not acted on: the first key is counted by.
	EnforceOnKeyConfigs json.RawMessage `json:"enforceOnKeyConfigs,omitempty"`
}

// RateLimitThreshold is a count of requests in an interval.
type RateLimitThreshold struct {
	Count       *int64 `json:"count,omitempty"`
	IntervalSec *int64 `json:"intervalSec,omitempty"`
}

// SecurityPolicyRuleRedirectOptions says where a redirect goes.
type SecurityPolicyRuleRedirectOptions struct {
	Type   string `json:"type,omitempty"`
	Target string `json:"target,omitempty"`
}

// SecurityPolicyRuleHeaderAction adds request headers to what a rule
// lets through.
type SecurityPolicyRuleHeaderAction struct {
	RequestHeadersToAdds []SecurityPolicyHeaderOption `json:"requestHeadersToAdds,omitempty"`
}

// SecurityPolicyHeaderOption is one header a rule adds.
type SecurityPolicyHeaderOption struct {
	HeaderName  string `json:"headerName,omitempty"`
	HeaderValue string `json:"headerValue,omitempty"`
}

// SecurityPolicyReference is the body of a backend service's
// setSecurityPolicy and setEdgeSecurityPolicy: a policy's URL, or "" to
// detach it.
type SecurityPolicyReference struct {
	SecurityPolicy string `json:"securityPolicy"`
}
