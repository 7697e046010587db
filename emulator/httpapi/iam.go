package httpapi

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// The APIs beside Compute that load-balancing configurations call, served
// on the same port under their own paths, only as deep as Terraform needs
// to create, read, update, import and destroy what they hold:
//
//   - IAM (/iam/v1/): service accounts, and their IAM policies;
//   - Resource Manager (/resourcemanager/v1/): a project's read, and its
//     IAM policy;
//   - IAP (/iap/v1/): the IAM policy of a backend service behind IAP.
//
// Nothing is enforced: a policy is stored and returned, no request is
// authorized by it. Their errors have these APIs' shape (a status word
// beside the code). terraform-provider-google reaches them through
// iam_custom_endpoint, resource_manager_custom_endpoint and
// iap_custom_endpoint (lbhealth-emulator terraform-override writes them).

// Paths of the APIs beside Compute.
const (
	iamPath             = "/iam/v1/"
	resourceManagerPath = "/resourcemanager/v1/"
	iapPath             = "/iap/v1/"
)

// Store collections of what the APIs beside Compute hold (not Compute
// collections: outside the catalogue, like operations).
const (
	serviceAccountsCollection = "iam.serviceAccounts"
	iamPoliciesCollection     = "iam.policies"
)

// googleError is an error of the APIs beside Compute: its HTTP code and
// status word ("NOT_FOUND"), which is also its reason.
func googleError(code int, status, format string, args ...any) *apiError {
	return &apiError{code: code, reason: status, message: fmt.Sprintf(format, args...)}
}

// routeIAM serves the APIs beside Compute. IAM and Resource Manager are
// also served with their version twice ("/iam/v1/v1/projects/..."):
// terraform-provider-google 5.x takes the version off a custom endpoint
// only when it is https, then its Go client adds "v1/" again.
func (s *Server) routeIAM() {
	for _, iam := range []string{iamPath, iamPath + "v1/"} {
		s.mux.HandleFunc("POST "+iam+"projects/{project}/serviceAccounts", s.serve(s.createServiceAccount))
		s.mux.HandleFunc("GET "+iam+"projects/{project}/serviceAccounts", s.serve(s.listServiceAccounts))
		s.mux.HandleFunc("GET "+iam+"projects/{project}/serviceAccounts/{account}", s.serve(s.getServiceAccount))
		s.mux.HandleFunc("PATCH "+iam+"projects/{project}/serviceAccounts/{account}", s.serve(s.patchServiceAccount))
		s.mux.HandleFunc("DELETE "+iam+"projects/{project}/serviceAccounts/{account}", s.serve(s.deleteServiceAccount))
		// "{email}:enable", ":disable", ":getIamPolicy", ":setIamPolicy".
		s.mux.HandleFunc("POST "+iam+"projects/{project}/serviceAccounts/{account}", s.serve(s.serviceAccountMethod))
	}
	for _, rm := range []string{resourceManagerPath, resourceManagerPath + "v1/"} {
		s.mux.HandleFunc("GET "+rm+"projects", s.serve(s.listProjects))
		s.mux.HandleFunc("GET "+rm+"projects/{project}", s.serve(s.getProject))
		s.mux.HandleFunc("POST "+rm+"projects/{project}", s.serve(s.projectMethod))
	}
	// The Compute API's own read of a project: its number and default
	// service account.
	s.mux.HandleFunc("GET /compute/v1/projects/{project}", s.serve(s.getComputeProject))

	// {where} is compute (global services) or compute-REGION.
	s.mux.HandleFunc("POST "+iapPath+"projects/{project}/iap_web/{where}/services/{service}", s.serve(s.iapMethod))
}

// projectNumber is the number of project: the same for an id every time.
func projectNumber(project string) string {
	h := fnv.New64a()
	h.Write([]byte(project))
	return strconv.FormatUint(100000000000+h.Sum64()%900000000000, 10)
}

// defaultComputeAccount is the email of a project's Compute Engine default
// service account, which every project has.
func defaultComputeAccount(project string) string {
	return projectNumber(project) + "-compute@developer.gserviceaccount.com"
}

// serviceAccount is an IAM service account as the API answers it.
type serviceAccount struct {
	Name           string `json:"name"`
	ProjectID      string `json:"projectId"`
	UniqueID       string `json:"uniqueId"`
	Email          string `json:"email"`
	DisplayName    string `json:"displayName,omitempty"`
	Description    string `json:"description,omitempty"`
	Oauth2ClientID string `json:"oauth2ClientId"`
	Disabled       bool   `json:"disabled,omitempty"`
	Etag           string `json:"etag"`
}

// accountID is what the IAM API takes as a service account's id.
var accountID = regexp.MustCompile(`^[a-z](?:[-a-z0-9]{4,28}[a-z0-9])$`)

func (s *Server) newServiceAccount(project, email string) serviceAccount {
	id := fmt.Sprintf("1%020d", newID()) // 21 digits, as the API's
	return serviceAccount{Name: "projects/" + project + "/serviceAccounts/" + email, ProjectID: project, UniqueID: id, Email: email,
		Oauth2ClientID: id, Etag: newEtag()}
}

// newEtag is a fresh etag, base64 as the API's.
func newEtag() string {
	var b [8]byte
	rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

func (s *Server) createServiceAccount(r *http.Request) (any, error) {
	project := r.PathValue("project")
	var req struct {
		AccountID      string         `json:"accountId"`
		ServiceAccount serviceAccount `json:"serviceAccount"`
	}
	if err := readAPIJSON(r, &req); err != nil {
		return nil, err
	}
	if !accountID.MatchString(req.AccountID) {
		return nil, googleError(http.StatusBadRequest, "INVALID_ARGUMENT",
			"accountId (%q) must be 6 to 30 lower-case letters, digits or dashes, starting with a letter and not ending with a dash.", req.AccountID)
	}
	if v := rules.Project("project", project); v != nil {
		return nil, googleError(http.StatusBadRequest, "INVALID_ARGUMENT", "%s", v.Error())
	}
	sa := s.newServiceAccount(project, req.AccountID+"@"+project+".iam.gserviceaccount.com")
	sa.DisplayName, sa.Description = req.ServiceAccount.DisplayName, req.ServiceAccount.Description
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	k := store.Key{Project: project, Scope: "global", Collection: serviceAccountsCollection, Name: sa.Email}
	if err := s.store.Insert(r.Context(), store.Object{Key: k, Body: mustJSON(sa)}); err != nil {
		if errors.Is(err, store.ErrAlreadyExists) {
			return nil, googleError(http.StatusConflict, "ALREADY_EXISTS", "Service account %s already exists within project projects/%s.", req.AccountID, project)
		}
		return nil, err
	}
	return sa, nil
}

// loadServiceAccount finds the account the path names (by email or unique
// id; project "-" is any), with its key; the default Compute account is
// always there.
func (s *Server) loadServiceAccount(r *http.Request) (serviceAccount, store.Key, error) {
	project, account := r.PathValue("project"), r.PathValue("account")
	account, _, _ = strings.Cut(account, ":")
	if project == "-" && strings.Contains(account, "@") {
		project = accountProject(account)
	}
	all, err := s.serviceAccounts(r, project)
	if err != nil {
		return serviceAccount{}, store.Key{}, err
	}
	for _, sa := range all {
		if sa.Email == account || sa.UniqueID == account {
			return sa, store.Key{Project: sa.ProjectID, Scope: "global", Collection: serviceAccountsCollection, Name: sa.Email}, nil
		}
	}
	return serviceAccount{}, store.Key{}, googleError(http.StatusNotFound, "NOT_FOUND", "Service account projects/%s/serviceAccounts/%s not found.", project, account)
}

// accountProject is the project of a service account's email
// ("a@p.iam.gserviceaccount.com" is p's).
func accountProject(email string) string {
	_, domain, _ := strings.Cut(email, "@")
	project, _, _ := strings.Cut(domain, ".")
	return project
}

// serviceAccounts are project's accounts: its default Compute account and
// those created.
func (s *Server) serviceAccounts(r *http.Request, project string) ([]serviceAccount, error) {
	objects, err := s.store.List(r.Context(), store.ListOptions{Project: project, Scope: "global", Collection: serviceAccountsCollection})
	if err != nil {
		return nil, err
	}
	def := s.newServiceAccount(project, defaultComputeAccount(project))
	def.UniqueID, def.Oauth2ClientID, def.Etag = projectNumber(project)+"00000000", projectNumber(project)+"00000000", "MDEwMjE5MjA="
	def.DisplayName = "Compute Engine default service account"
	out := []serviceAccount{def}
	for _, o := range objects {
		var sa serviceAccount
		if err := json.Unmarshal(o.Body, &sa); err != nil {
			return nil, err
		}
		out = append(out, sa)
	}
	return out, nil
}

func (s *Server) getServiceAccount(r *http.Request) (any, error) {
	sa, _, err := s.loadServiceAccount(r)
	return sa, err
}

func (s *Server) listServiceAccounts(r *http.Request) (any, error) {
	all, err := s.serviceAccounts(r, r.PathValue("project"))
	return map[string]any{"accounts": all}, err
}

// patchServiceAccount changes what updateMask names (displayName,
// description).
func (s *Server) patchServiceAccount(r *http.Request) (any, error) {
	var req struct {
		ServiceAccount serviceAccount `json:"serviceAccount"`
		UpdateMask     string         `json:"updateMask"`
	}
	if err := readAPIJSON(r, &req); err != nil {
		return nil, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	sa, k, err := s.loadServiceAccount(r)
	if err != nil {
		return nil, err
	}
	for f := range strings.SplitSeq(req.UpdateMask, ",") {
		switch strings.TrimSpace(f) {
		case "displayName", "display_name":
			sa.DisplayName = req.ServiceAccount.DisplayName
		case "description":
			sa.Description = req.ServiceAccount.Description
		case "":
		default:
			return nil, googleError(http.StatusBadRequest, "INVALID_ARGUMENT", "updateMask names %q: a service account's displayName and description can be changed.", f)
		}
	}
	return sa, s.putServiceAccount(r, k, sa)
}

// putServiceAccount stores sa at k with a new etag (the default account,
// not stored until changed, is stored then).
func (s *Server) putServiceAccount(r *http.Request, k store.Key, sa serviceAccount) error {
	sa.Etag = newEtag()
	return s.upsert(r, store.Object{Key: k, Body: mustJSON(sa)})
}

// upsert stores o in place of what is at its key, or as new.
func (s *Server) upsert(r *http.Request, o store.Object) error {
	if err := s.store.Update(r.Context(), o); !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.store.Insert(r.Context(), o)
}

func (s *Server) deleteServiceAccount(r *http.Request) (any, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, k, err := s.loadServiceAccount(r)
	if err != nil {
		return nil, err
	}
	if err := s.store.Delete(r.Context(), k); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	s.store.Delete(r.Context(), policyKey(k.Project, "projects/"+k.Project+"/serviceAccounts/"+k.Name))
	return map[string]any{}, nil
}

// serviceAccountMethod answers {account}:enable, :disable, :getIamPolicy
// and :setIamPolicy.
func (s *Server) serviceAccountMethod(r *http.Request) (any, error) {
	_, method, _ := strings.Cut(r.PathValue("account"), ":")
	switch method {
	case "enable", "disable":
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		sa, k, err := s.loadServiceAccount(r)
		if err != nil {
			return nil, err
		}
		sa.Disabled = method == "disable"
		return map[string]any{}, s.putServiceAccount(r, k, sa)
	case "getIamPolicy", "setIamPolicy":
		sa, _, err := s.loadServiceAccount(r)
		if err != nil {
			return nil, err
		}
		return s.iamPolicyMethod(r, method, sa.ProjectID, sa.Name)
	}
	return nil, notRouted(r)
}

// getProject answers Resource Manager's projects.get: any project id the
// rules take exists, ACTIVE, with its number.
func (s *Server) getProject(r *http.Request) (any, error) {
	project := r.PathValue("project")
	if strings.Contains(project, ":") {
		return nil, notRouted(r)
	}
	if v := rules.Project("projectId", project); v != nil {
		return nil, googleError(http.StatusBadRequest, "INVALID_ARGUMENT", "%s", v.Error())
	}
	return projectOf(project), nil
}

func projectOf(project string) map[string]any {
	return map[string]any{"projectNumber": projectNumber(project), "projectId": project, "name": project,
		"lifecycleState": "ACTIVE", "createTime": "2024-01-01T00:00:00.000Z"}
}

// listProjects answers Resource Manager's projects.list: with a filter
// "id:ID" (google_projects' usual one), that project; otherwise the
// projects requests have named so far.
func (s *Server) listProjects(r *http.Request) (any, error) {
	filter := strings.TrimSpace(r.URL.Query().Get("filter"))
	if id, ok := strings.CutPrefix(filter, "id:"); ok && rules.Project("id", strings.TrimSpace(id)) == nil {
		return map[string]any{"projects": []any{projectOf(strings.TrimSpace(id))}}, nil
	}
	if filter != "" {
		return nil, googleError(http.StatusBadRequest, "INVALID_ARGUMENT", "filter (%q) is not one the emulator answers: id:PROJECT_ID.", filter)
	}
	markers, err := s.store.All(r.Context(), projectsCollection)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, o := range markers {
		out = append(out, projectOf(o.Key.Project))
	}
	return map[string]any{"projects": out}, nil
}

// projectMethod answers projects/{project}:getIamPolicy and :setIamPolicy.
func (s *Server) projectMethod(r *http.Request) (any, error) {
	project, method, _ := strings.Cut(r.PathValue("project"), ":")
	if method != "getIamPolicy" && method != "setIamPolicy" {
		return nil, notRouted(r)
	}
	return s.iamPolicyMethod(r, method, project, "projects/"+project)
}

// getComputeProject answers the Compute API's projects.get.
func (s *Server) getComputeProject(r *http.Request) (any, error) {
	project := r.PathValue("project")
	if v := rules.Project("project", project); v != nil {
		return nil, invalid("%s", v.Error())
	}
	return map[string]any{"kind": "compute#project", "id": projectNumber(project), "name": project,
		"selfLink": s.link("projects/" + project), "defaultServiceAccount": defaultComputeAccount(project),
		"creationTimestamp": "2024-01-01T00:00:00.000-07:00", "xpnProjectStatus": "UNSPECIFIED_XPN_PROJECT_STATUS",
		"defaultNetworkTier": "PREMIUM", "commonInstanceMetadata": map[string]any{"kind": "compute#metadata", "fingerprint": "AAAAAAAAAAA="}}, nil
}

// iapMethod answers the IAM policy methods of a backend service behind
// IAP: iap_web/compute[-REGION]/services/{service}:getIamPolicy and
// :setIamPolicy. The service must exist.
func (s *Server) iapMethod(r *http.Request) (any, error) {
	project := r.PathValue("project")
	service, method, _ := strings.Cut(r.PathValue("service"), ":")
	if method != "getIamPolicy" && method != "setIamPolicy" {
		return nil, notRouted(r)
	}
	where, sc := r.PathValue("where"), "global"
	switch region, ok := strings.CutPrefix(where, "compute-"); {
	case ok && region != "":
		sc = "regions/" + region
	case where != "compute":
		return nil, notRouted(r)
	}
	k := store.Key{Project: project, Scope: sc, Collection: api.CollectionBackendServices, Name: service}
	if _, err := s.store.Get(r.Context(), k); errors.Is(err, store.ErrNotFound) {
		return nil, googleError(http.StatusNotFound, "NOT_FOUND", "%s does not exist: IAP protects a backend service that exists.", k.Path())
	} else if err != nil {
		return nil, err
	}
	resource := "projects/" + projectNumber(project) + "/iap_web/" + where + "/services/" + service
	return s.iamPolicyMethod(r, method, project, resource)
}

// iamPolicy is an IAM policy as the APIs answer it.
type iamPolicy struct {
	Version      int             `json:"version,omitempty"`
	Etag         string          `json:"etag"`
	Bindings     []iamBinding    `json:"bindings,omitempty"`
	AuditConfigs json.RawMessage `json:"auditConfigs,omitempty"`
}

type iamBinding struct {
	Role      string          `json:"role"`
	Members   []string        `json:"members"`
	Condition json.RawMessage `json:"condition,omitempty"`
}

func policyKey(project, resource string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: iamPoliciesCollection, Name: resource}
}

// emptyPolicyEtag is the etag of a policy never set.
const emptyPolicyEtag = "ACAB"

// iamPolicyMethod answers getIamPolicy or setIamPolicy of resource (of
// project): a policy stored as set, guarded by its etag.
func (s *Server) iamPolicyMethod(r *http.Request, method, project, resource string) (any, error) {
	k := policyKey(project, resource)
	if method == "getIamPolicy" {
		return s.loadPolicy(r, k)
	}
	var req struct {
		Policy iamPolicy `json:"policy"`
	}
	if err := readAPIJSON(r, &req); err != nil {
		return nil, err
	}
	if err := checkPolicy(req.Policy); err != nil {
		return nil, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	current, err := s.loadPolicy(r, k)
	if err != nil {
		return nil, err
	}
	if req.Policy.Etag != "" && req.Policy.Etag != current.Etag {
		return nil, googleError(http.StatusConflict, "ABORTED",
			"etag (%q) is stale: the policy of %s has changed since (its etag is now %q); get it again and re-apply the change.", req.Policy.Etag, resource, current.Etag)
	}
	p := req.Policy
	p.Etag = newEtag()
	if p.Version == 0 {
		p.Version = 1
	}
	if err := s.upsert(r, store.Object{Key: k, Body: mustJSON(p)}); err != nil {
		return nil, err
	}
	return p, nil
}

func (s *Server) loadPolicy(r *http.Request, k store.Key) (iamPolicy, error) {
	o, err := s.store.Get(r.Context(), k)
	if errors.Is(err, store.ErrNotFound) {
		return iamPolicy{Version: 1, Etag: emptyPolicyEtag}, nil
	}
	if err != nil {
		return iamPolicy{}, err
	}
	var p iamPolicy
	return p, json.Unmarshal(o.Body, &p)
}

// memberPrefixes are the kinds of principal a binding may name.
var memberPrefixes = []string{"user:", "serviceAccount:", "group:", "domain:", "deleted:", "principal://", "principalSet://",
	"projectOwner:", "projectEditor:", "projectViewer:"}

// checkPolicy refuses a binding with no role, a role not of the forms
// roles/NAME, projects/P/roles/NAME or organizations/O/roles/NAME, or a
// member of no known kind.
func checkPolicy(p iamPolicy) error {
	for i, b := range p.Bindings {
		if !strings.HasPrefix(b.Role, "roles/") && !customRole.MatchString(b.Role) {
			return googleError(http.StatusBadRequest, "INVALID_ARGUMENT",
				"policy.bindings[%d].role (%q) is not a role: roles/NAME, projects/PROJECT/roles/NAME or organizations/ORG/roles/NAME.", i, b.Role)
		}
		for j, m := range b.Members {
			if m == "allUsers" || m == "allAuthenticatedUsers" || slices.ContainsFunc(memberPrefixes, func(p string) bool { return strings.HasPrefix(m, p) && len(m) > len(p) }) {
				continue
			}
			return googleError(http.StatusBadRequest, "INVALID_ARGUMENT",
				"policy.bindings[%d].members[%d] (%q) is not a principal: user:, serviceAccount:, group: or domain: and its name, allUsers, allAuthenticatedUsers, or a principal:// identifier.", i, j, m)
		}
	}
	return nil
}

var customRole = regexp.MustCompile(`^(projects|organizations)/[^/]+/roles/[^/]+$`)

// readAPIJSON reads a request body of the APIs beside Compute into v.
func readAPIJSON(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return googleError(http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received: %s.", err.Error())
	}
	return nil
}
