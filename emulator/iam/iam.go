// Package iam serves IAM (/iam/v1/) as deep as load-balancing
// configurations need: service accounts, and IAM policies, its own and
// those the APIs beside it keep (a project's, a backend service's behind
// IAP) through Policies.
//
// Nothing is enforced: a policy is stored and returned, no request is
// authorized by it. Errors have these APIs' shape (a status word beside the
// code). terraform-provider-google reaches it through iam_custom_endpoint
// (lbhealth-emulator terraform-override writes it).
package iam

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Path is where IAM is served.
const Path = "/iam/v1/"

// Store collections of what IAM holds (not Compute collections: outside
// the catalogue, like operations).
const (
	serviceAccountsCollection = "iam.serviceAccounts"
	policiesCollection        = "iam.policies"
)

// Service is IAM over the store.
type Service struct {
	store store.Store
	// mu serialises IAM's writes: each reads, then writes what it read.
	mu sync.Mutex
}

// New returns IAM over st.
func New(st store.Store) *Service { return &Service{store: st} }

// Routes mounts IAM. It is also served with its version twice
// ("/iam/v1/v1/projects/..."): terraform-provider-google 5.x takes the
// version off a custom endpoint only when it is https, then its Go client
// adds "v1/" again.
func (s *Service) Routes(m googleapi.Mux) {
	for _, iam := range []string{Path, Path + "v1/"} {
		m.Handle("POST "+iam+"projects/{project}/serviceAccounts", s.createServiceAccount)
		m.Handle("GET "+iam+"projects/{project}/serviceAccounts", s.listServiceAccounts)
		m.Handle("GET "+iam+"projects/{project}/serviceAccounts/{account}", s.getServiceAccount)
		m.Handle("PATCH "+iam+"projects/{project}/serviceAccounts/{account}", s.patchServiceAccount)
		m.Handle("DELETE "+iam+"projects/{project}/serviceAccounts/{account}", s.deleteServiceAccount)
		// "{email}:enable", ":disable", ":getIamPolicy", ":setIamPolicy".
		m.Handle("POST "+iam+"projects/{project}/serviceAccounts/{account}", s.serviceAccountMethod)
		m.Handle("POST "+iam+"projects/{project}/serviceAccounts/{account}/keys", s.createKey)
		m.Handle("GET "+iam+"projects/{project}/serviceAccounts/{account}/keys", s.listKeys)
		m.Handle("GET "+iam+"projects/{project}/serviceAccounts/{account}/keys/{key}", s.getKey)
		m.Handle("DELETE "+iam+"projects/{project}/serviceAccounts/{account}/keys/{key}", s.deleteKey)
	}
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

func newServiceAccount(project, email string) serviceAccount {
	id := fmt.Sprintf("1%020d", googleapi.NewID()) // 21 digits, as the API's
	return serviceAccount{Name: "projects/" + project + "/serviceAccounts/" + email, ProjectID: project, UniqueID: id, Email: email,
		Oauth2ClientID: id, Etag: newEtag()}
}

// newEtag is a fresh etag, base64 as the API's.
func newEtag() string {
	var b [8]byte
	rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

func invalidArgument(format string, args ...any) error {
	return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", format, args...)
}

func (s *Service) createServiceAccount(r *googleapi.Call) (any, error) {
	project := r.PathValue("project")
	var req struct {
		AccountID      string         `json:"accountId"`
		ServiceAccount serviceAccount `json:"serviceAccount"`
	}
	if err := googleapi.ReadJSON(r, &req); err != nil {
		return nil, err
	}
	if !accountID.MatchString(req.AccountID) {
		return nil, invalidArgument("accountId (%q) must be 6 to 30 lower-case letters, digits or dashes, starting with a letter and not ending with a dash.", req.AccountID)
	}
	if v := rules.Project("project", project); v != nil {
		return nil, invalidArgument("%s", v.Error())
	}
	sa := newServiceAccount(project, req.AccountID+"@"+project+".iam.gserviceaccount.com")
	sa.DisplayName, sa.Description = req.ServiceAccount.DisplayName, req.ServiceAccount.Description
	body, err := json.Marshal(sa)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := store.Key{Project: project, Scope: "global", Collection: serviceAccountsCollection, Name: sa.Email}
	if err := s.store.Insert(r.Context(), store.Object{Key: k, Body: body}); err != nil {
		if errors.Is(err, store.ErrAlreadyExists) {
			return nil, googleapi.Errorf(http.StatusConflict, "ALREADY_EXISTS", "Service account %s already exists within project projects/%s.", req.AccountID, project)
		}
		return nil, err
	}
	return sa, nil
}

// loadServiceAccount finds the account the path names (by email or unique
// id; project "-" is any), with its key; the default Compute account is
// always there.
func (s *Service) loadServiceAccount(r *googleapi.Call) (serviceAccount, store.Key, error) {
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
	return serviceAccount{}, store.Key{}, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Service account projects/%s/serviceAccounts/%s not found.", project, account)
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
func (s *Service) serviceAccounts(r *googleapi.Call, project string) ([]serviceAccount, error) {
	objects, err := s.store.List(r.Context(), store.ListOptions{Project: project, Scope: "global", Collection: serviceAccountsCollection})
	if err != nil {
		return nil, err
	}
	number := googleapi.ProjectNumber(project)
	def := newServiceAccount(project, googleapi.DefaultComputeAccount(project))
	def.UniqueID, def.Oauth2ClientID, def.Etag = number+"00000000", number+"00000000", "MDEwMjE5MjA="
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

func (s *Service) getServiceAccount(r *googleapi.Call) (any, error) {
	sa, _, err := s.loadServiceAccount(r)
	return sa, err
}

func (s *Service) listServiceAccounts(r *googleapi.Call) (any, error) {
	all, err := s.serviceAccounts(r, r.PathValue("project"))
	return map[string]any{"accounts": all}, err
}

// patchServiceAccount changes what updateMask names (displayName,
// description).
func (s *Service) patchServiceAccount(r *googleapi.Call) (any, error) {
	var req struct {
		ServiceAccount serviceAccount `json:"serviceAccount"`
		UpdateMask     string         `json:"updateMask"`
	}
	if err := googleapi.ReadJSON(r, &req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
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
			return nil, invalidArgument("updateMask names %q: a service account's displayName and description can be changed.", f)
		}
	}
	return sa, s.putServiceAccount(r, k, sa)
}

// putServiceAccount stores sa at k with a new etag (the default account,
// not stored until changed, is stored then).
func (s *Service) putServiceAccount(r *googleapi.Call, k store.Key, sa serviceAccount) error {
	sa.Etag = newEtag()
	return s.upsert(r, k, sa)
}

// upsert stores v at k, in place of what is there or as new.
func (s *Service) upsert(r *googleapi.Call, k store.Key, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	o := store.Object{Key: k, Body: body}
	if err := s.store.Update(r.Context(), o); !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.store.Insert(r.Context(), o)
}

func (s *Service) deleteServiceAccount(r *googleapi.Call) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, k, err := s.loadServiceAccount(r)
	if err != nil {
		return nil, err
	}
	if err := s.store.Delete(r.Context(), k); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	s.store.Delete(r.Context(), policyKey(k.Project, "projects/"+k.Project+"/serviceAccounts/"+k.Name))
	// Its keys go with it.
	keys, err := s.store.All(r.Context(), keysCollection)
	if err != nil {
		return nil, err
	}
	for _, o := range keys {
		if o.Key.Project == k.Project && strings.HasPrefix(o.Key.Name, k.Name+"/") {
			s.store.Delete(r.Context(), o.Key)
		}
	}
	return map[string]any{}, nil
}

// serviceAccountMethod answers {account}:enable, :disable, :getIamPolicy
// and :setIamPolicy.
func (s *Service) serviceAccountMethod(r *googleapi.Call) (any, error) {
	_, method, _ := strings.Cut(r.PathValue("account"), ":")
	switch method {
	case "enable", "disable":
		s.mu.Lock()
		defer s.mu.Unlock()
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
		return s.PolicyMethod(r, method, sa.ProjectID, sa.Name)
	}
	return nil, googleapi.NotRouted(r.Method, r.Path)
}
