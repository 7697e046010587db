package compute

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// securityPolicies is the global and regional securityPolicies collection:
// Cloud Armor policies, which the data plane enforces on the requests of
// the backend services that use them (setSecurityPolicy). Their rules are
// edited whole by insert and patch, or one at a time by addRule, patchRule
// and removeRule, as terraform-provider-google edits them.
func (s frontends) securityPolicies() *core.Collection[api.SecurityPolicy, *api.SecurityPolicy] {
	c := core.NewCollection[api.SecurityPolicy, *api.SecurityPolicy](s.API, api.CollectionSecurityPolicies, nil, rules.ApplySecurityPolicyDefaults)
	c.Check = func(p *api.SecurityPolicy, sc core.Scope) rules.Violations {
		return rules.SecurityPolicy(p, sc.Region != "")
	}
	c.Fingerprint = func(p *api.SecurityPolicy) *string { return &p.Fingerprint }
	c.FingerprintOptional = true
	c.Whole = []string{"rules"} // sorted by priority, as the API returns them
	c.Immutable = func(prior, p *api.SecurityPolicy) error {
		if p.Type != "" && p.Type != prior.Type {
			return googleapi.Invalid("type (%q) cannot be changed: the policy is %s; create a new policy.", p.Type, prior.Type)
		}
		return nil
	}
	return c
}

// rulePriority reads the priority query parameter of getRule, patchRule
// and removeRule (0 when absent, as in the Compute API).
func rulePriority(r *googleapi.Call) (int64, error) {
	v := r.Query().Get("priority")
	if v == "" {
		return 0, nil
	}
	p, err := strconv.ParseInt(v, 10, 64)
	if err != nil || p < 0 || p > api.DefaultRulePriority {
		return 0, googleapi.Invalid("priority (%q) must be an integer between 0 and %d: the priority of the rule.", v, api.DefaultRulePriority)
	}
	return p, nil
}

// ruleAt returns the index of the rule of p with priority priority, or an
// error that names the policy.
func ruleAt(p *api.SecurityPolicy, priority int64) (int, error) {
	i := slices.IndexFunc(p.Rules, func(r api.SecurityPolicyRule) bool { return r.PriorityValue() == priority })
	if i < 0 {
		return i, googleapi.NewError(http.StatusNotFound, api.ReasonNotFound,
			fmt.Sprintf("priority (%d) is not the priority of a rule of security policy %s.", priority, p.Name))
	}
	return i, nil
}

// readRule reads the body of addRule and patchRule, a rule checked alone
// (field names as the client sent them) against a policy of type typ.
func (s frontends) readRule(r *googleapi.Call, typ string, regional bool) (api.SecurityPolicyRule, error) {
	var rule api.SecurityPolicyRule
	if err := s.ReadJSON(r, "SecurityPolicyRule", &rule); err != nil {
		return rule, err
	}
	if err := rules.SecurityPolicyRule("", &rule, typ, regional).Err(); err != nil {
		return rule, googleapi.Invalid("%s", err.Error())
	}
	return rule, nil
}

// securityPolicyAddRule answers securityPolicies.addRule: a rule of a new
// priority.
func (s frontends) securityPolicyAddRule(r *googleapi.Call) (any, error) {
	c := s.securityPolicies()
	return c.Modify(r, "addRule", func(stored *api.SecurityPolicy) (*api.SecurityPolicy, error) {
		sc, _ := core.ScopeOf(r)
		rule, err := s.readRule(r, stored.Type, sc.Region != "")
		if err != nil {
			return nil, err
		}
		if _, err := ruleAt(stored, rule.PriorityValue()); err == nil {
			return nil, googleapi.Invalid("priority (%d) is taken by a rule of security policy %s: change that rule with patchRule, or add this one at another priority.", rule.PriorityValue(), stored.Name)
		}
		p := cloneOf(stored)
		p.Rules = append(p.Rules, rule)
		return p, nil
	})
}

// securityPolicyGetRule answers securityPolicies.getRule.
func (s frontends) securityPolicyGetRule(r *googleapi.Call) (any, error) {
	priority, err := rulePriority(r)
	if err != nil {
		return nil, err
	}
	p, _, err := s.securityPolicies().Load(r)
	if err != nil {
		return nil, err
	}
	i, err := ruleAt(p, priority)
	if err != nil {
		return nil, err
	}
	return p.Rules[i], nil
}

// securityPolicyPatchRule answers securityPolicies.patchRule: the rule of
// the priority parameter replaced by the body (which may move it to the
// priority it names).
func (s frontends) securityPolicyPatchRule(r *googleapi.Call) (any, error) {
	priority, err := rulePriority(r)
	if err != nil {
		return nil, err
	}
	return s.securityPolicies().Modify(r, "patchRule", func(stored *api.SecurityPolicy) (*api.SecurityPolicy, error) {
		i, err := ruleAt(stored, priority)
		if err != nil {
			return nil, err
		}
		sc, _ := core.ScopeOf(r)
		rule, err := s.readRule(r, stored.Type, sc.Region != "")
		if err != nil {
			return nil, err
		}
		if rule.Priority == nil {
			rule.Priority = &priority
		}
		p := cloneOf(stored)
		p.Rules[i] = rule
		return p, nil
	})
}

// securityPolicyRemoveRule answers securityPolicies.removeRule; the
// default rule stays.
func (s frontends) securityPolicyRemoveRule(r *googleapi.Call) (any, error) {
	priority, err := rulePriority(r)
	if err != nil {
		return nil, err
	}
	return s.securityPolicies().Modify(r, "removeRule", func(stored *api.SecurityPolicy) (*api.SecurityPolicy, error) {
		i, err := ruleAt(stored, priority)
		if err != nil {
			return nil, err
		}
		if priority == api.DefaultRulePriority && stored.Type != api.PolicyCloudArmorNetwork {
			return nil, googleapi.Invalid("priority (%d) is the default rule's: a policy always has one; change its action with patchRule instead.", priority)
		}
		p := cloneOf(stored)
		p.Rules = slices.Delete(p.Rules, i, i+1)
		return p, nil
	})
}

// backendServiceSetSecurityPolicy answers backendServices.setSecurityPolicy.
func (s frontends) backendServiceSetSecurityPolicy(r *googleapi.Call) (any, error) {
	return s.setServicePolicy(r, "setSecurityPolicy", false)
}

// backendServiceSetEdgeSecurityPolicy answers
// backendServices.setEdgeSecurityPolicy.
func (s frontends) backendServiceSetEdgeSecurityPolicy(r *googleapi.Call) (any, error) {
	return s.setServicePolicy(r, "setEdgeSecurityPolicy", true)
}

// setServicePolicy attaches the policy the body names to the backend
// service (or detaches it, for an empty one): a CLOUD_ARMOR policy of the
// service's scope, or for edge a global CLOUD_ARMOR_EDGE one.
func (s frontends) setServicePolicy(r *googleapi.Call, method string, edge bool) (any, error) {
	var req api.SecurityPolicyReference
	if err := s.ReadJSON(r, "SecurityPolicyReference", &req); err != nil {
		return nil, err
	}
	return backends{s.API}.backendServices().Modify(r, method, func(stored *api.BackendService) (*api.BackendService, error) {
		bs := cloneOf(stored)
		if edge {
			bs.EdgeSecurityPolicy = req.SecurityPolicy
		} else {
			bs.SecurityPolicy = req.SecurityPolicy
		}
		return bs, nil
	})
}

// resolveServicePolicies checks the security policies a backend service
// uses and writes them as URLs: resolveBackendService's part for them.
func (s frontends) resolveServicePolicies(ctx context.Context, bs *api.BackendService, sc core.Scope) error {
	if err := s.resolvePolicy(ctx, "securityPolicy", &bs.SecurityPolicy, false, sc); err != nil {
		return err
	}
	return s.resolvePolicy(ctx, "edgeSecurityPolicy", &bs.EdgeSecurityPolicy, true, sc)
}

// resolvePolicy checks the security policy *value names (none when empty),
// a backend policy or, for edge, an edge policy, of scope sc, and writes
// it as a URL.
func (s frontends) resolvePolicy(ctx context.Context, field string, value *string, edge bool, sc core.Scope) error {
	if *value == "" {
		return nil
	}
	var p api.SecurityPolicy
	k, err := s.Lookup(ctx, field, *value, sc, api.CollectionSecurityPolicies, &p)
	if err != nil {
		return err
	}
	switch {
	case k.Scope != sc.Path():
		return googleapi.Invalid("%s (%q) is in %s: a backend in %s takes a security policy of its own scope.", field, *value, k.Scope, sc.Path())
	case edge && p.Type != api.PolicyCloudArmorEdge:
		return googleapi.Invalid("%s (%q) is a %s policy: an edge security policy is of type CLOUD_ARMOR_EDGE.", field, *value, p.Type)
	case !edge && p.Type == api.PolicyCloudArmorEdge:
		return googleapi.Invalid("%s (%q) is a CLOUD_ARMOR_EDGE policy: attach it with setEdgeSecurityPolicy; a backend security policy is of type CLOUD_ARMOR.", field, *value)
	}
	*value = s.Link(k.Path())
	return nil
}
