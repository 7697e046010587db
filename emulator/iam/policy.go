package iam

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Policy is an IAM policy as the APIs answer it.
type Policy struct {
	Version      int             `json:"version,omitempty"`
	Etag         string          `json:"etag"`
	Bindings     []Binding       `json:"bindings,omitempty"`
	AuditConfigs json.RawMessage `json:"auditConfigs,omitempty"`
}

// Binding grants a role to members, under a condition.
type Binding struct {
	Role      string          `json:"role"`
	Members   []string        `json:"members"`
	Condition json.RawMessage `json:"condition,omitempty"`
}

func policyKey(project, resource string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: policiesCollection, Name: resource}
}

// emptyPolicyEtag is the etag of a policy never set.
const emptyPolicyEtag = "ACAB"

// PolicyMethod answers getIamPolicy or setIamPolicy (method) of resource,
// of project: a policy stored as set, guarded by its etag. Every API
// beside Compute that keeps IAM policies answers its :getIamPolicy and
// :setIamPolicy with it.
func (s *Service) PolicyMethod(r *googleapi.Call, method, project, resource string) (any, error) {
	if method == "getIamPolicy" {
		return s.GetPolicy(r, project, resource)
	}
	var req struct {
		Policy Policy `json:"policy"`
	}
	if err := googleapi.ReadJSON(r, &req); err != nil {
		return nil, err
	}
	return s.SetPolicy(r, project, resource, req.Policy)
}

// GetPolicy is the policy of resource, of project (an empty one, never
// set, until it is).
func (s *Service) GetPolicy(r *googleapi.Call, project, resource string) (Policy, error) {
	return s.loadPolicy(r, policyKey(project, resource))
}

// SetPolicy stores p as the policy of resource, of project, once checked:
// an etag sent must be the current one. It returns what is stored, with a
// new etag.
func (s *Service) SetPolicy(r *googleapi.Call, project, resource string, p Policy) (Policy, error) {
	k := policyKey(project, resource)
	if err := checkPolicy(p); err != nil {
		return Policy{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	current, err := s.loadPolicy(r, k)
	if err != nil {
		return Policy{}, err
	}
	if p.Etag != "" && p.Etag != current.Etag {
		return Policy{}, googleapi.Errorf(http.StatusConflict, "ABORTED",
			"etag (%q) is stale: the policy of %s has changed since (its etag is now %q); get it again and re-apply the change.", p.Etag, resource, current.Etag)
	}
	p.Etag = newEtag()
	if p.Version == 0 {
		p.Version = 1
	}
	if err := s.upsert(r, k, p); err != nil {
		return Policy{}, err
	}
	return p, nil
}

func (s *Service) loadPolicy(r *googleapi.Call, k store.Key) (Policy, error) {
	o, err := s.store.Get(r.Context(), k)
	if errors.Is(err, store.ErrNotFound) {
		return Policy{Version: 1, Etag: emptyPolicyEtag}, nil
	}
	if err != nil {
		return Policy{}, err
	}
	var p Policy
	return p, json.Unmarshal(o.Body, &p)
}

// memberPrefixes are the kinds of principal a binding may name.
var memberPrefixes = []string{"user:", "serviceAccount:", "group:", "domain:", "deleted:", "principal://", "principalSet://",
	"projectOwner:", "projectEditor:", "projectViewer:"}

// checkPolicy refuses a binding with no role, a role not of the forms
// roles/NAME, projects/P/roles/NAME or organizations/O/roles/NAME, or a
// member of no known kind.
func checkPolicy(p Policy) error {
	for i, b := range p.Bindings {
		if !strings.HasPrefix(b.Role, "roles/") && !customRole.MatchString(b.Role) {
			return invalidArgument("policy.bindings[%d].role (%q) is not a role: roles/NAME, projects/PROJECT/roles/NAME or organizations/ORG/roles/NAME.", i, b.Role)
		}
		for j, m := range b.Members {
			if m == "allUsers" || m == "allAuthenticatedUsers" || slices.ContainsFunc(memberPrefixes, func(p string) bool { return strings.HasPrefix(m, p) && len(m) > len(p) }) {
				continue
			}
			return invalidArgument("policy.bindings[%d].members[%d] (%q) is not a principal: user:, serviceAccount:, group: or domain: and its name, allUsers, allAuthenticatedUsers, or a principal:// identifier.", i, j, m)
		}
	}
	return nil
}

var customRole = regexp.MustCompile(`^(projects|organizations)/[^/]+/roles/[^/]+$`)
