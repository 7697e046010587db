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

// policy is an IAM policy as the APIs answer it.
type policy struct {
	Version      int             `json:"version,omitempty"`
	Etag         string          `json:"etag"`
	Bindings     []binding       `json:"bindings,omitempty"`
	AuditConfigs json.RawMessage `json:"auditConfigs,omitempty"`
}

type binding struct {
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
	k := policyKey(project, resource)
	if method == "getIamPolicy" {
		return s.loadPolicy(r, k)
	}
	var req struct {
		Policy policy `json:"policy"`
	}
	if err := googleapi.ReadJSON(r, &req); err != nil {
		return nil, err
	}
	if err := checkPolicy(req.Policy); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	current, err := s.loadPolicy(r, k)
	if err != nil {
		return nil, err
	}
	if req.Policy.Etag != "" && req.Policy.Etag != current.Etag {
		return nil, googleapi.Errorf(http.StatusConflict, "ABORTED",
			"etag (%q) is stale: the policy of %s has changed since (its etag is now %q); get it again and re-apply the change.", req.Policy.Etag, resource, current.Etag)
	}
	p := req.Policy
	p.Etag = newEtag()
	if p.Version == 0 {
		p.Version = 1
	}
	if err := s.upsert(r, k, p); err != nil {
		return nil, err
	}
	return p, nil
}

func (s *Service) loadPolicy(r *googleapi.Call, k store.Key) (policy, error) {
	o, err := s.store.Get(r.Context(), k)
	if errors.Is(err, store.ErrNotFound) {
		return policy{Version: 1, Etag: emptyPolicyEtag}, nil
	}
	if err != nil {
		return policy{}, err
	}
	var p policy
	return p, json.Unmarshal(o.Body, &p)
}

// memberPrefixes are the kinds of principal a binding may name.
var memberPrefixes = []string{"user:", "serviceAccount:", "group:", "domain:", "deleted:", "principal://", "principalSet://",
	"projectOwner:", "projectEditor:", "projectViewer:"}

// checkPolicy refuses a binding with no role, a role not of the forms
// roles/NAME, projects/P/roles/NAME or organizations/O/roles/NAME, or a
// member of no known kind.
func checkPolicy(p policy) error {
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
