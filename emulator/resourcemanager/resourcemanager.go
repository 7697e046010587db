// Package resourcemanager serves Resource Manager (/resourcemanager/v1/)
// as deep as load-balancing configurations need: a project's read, the
// projects list, and a project's IAM policy (kept by IAM). Any project id
// the rules take exists, ACTIVE, with its number. terraform-provider-google
// reaches it through resource_manager_custom_endpoint (lbhealth-emulator
// terraform-override writes it).
package resourcemanager

import (
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iam"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Path is where Resource Manager is served.
const Path = "/resourcemanager/v1/"

// Service is Resource Manager: projects, their IAM policies kept by IAM.
type Service struct {
	// store holds the projects the Compute API has provisioned, which
	// projects.list lists.
	store    store.Store
	policies *iam.Service
}

// New returns Resource Manager over st, with policies kept by policies.
func New(st store.Store, policies *iam.Service) *Service {
	return &Service{store: st, policies: policies}
}

// Routes mounts Resource Manager, also with its version twice
// ("/resourcemanager/v1/v1/projects"): terraform-provider-google 5.x takes
// the version off a custom endpoint only when it is https, then its Go
// client adds "v1/" again.
func (s *Service) Routes(m googleapi.Mux) {
	for _, rm := range []string{Path, Path + "v1/"} {
		m.Handle("GET "+rm+"projects", s.listProjects)
		m.Handle("GET "+rm+"projects/{project}", s.getProject)
		m.Handle("POST "+rm+"projects/{project}", s.projectMethod)
	}
}

// getProject answers projects.get.
func (s *Service) getProject(r *googleapi.Call) (any, error) {
	project := r.PathValue("project")
	if strings.Contains(project, ":") {
		return nil, googleapi.NotRouted(r.Method, r.Path)
	}
	if v := rules.Project("projectId", project); v != nil {
		return nil, googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "%s", v.Error())
	}
	return projectOf(project), nil
}

func projectOf(project string) map[string]any {
	return map[string]any{"projectNumber": googleapi.ProjectNumber(project), "projectId": project, "name": project,
		"lifecycleState": "ACTIVE", "createTime": "2024-01-01T00:00:00.000Z"}
}

// listProjects answers projects.list: with a filter "id:ID"
// (google_projects' usual one), that project; otherwise the projects
// requests have named so far (those the Compute API has provisioned).
func (s *Service) listProjects(r *googleapi.Call) (any, error) {
	filter := strings.TrimSpace(r.Query().Get("filter"))
	if id, ok := strings.CutPrefix(filter, "id:"); ok && rules.Project("id", strings.TrimSpace(id)) == nil {
		return map[string]any{"projects": []any{projectOf(strings.TrimSpace(id))}}, nil
	}
	if filter != "" {
		return nil, googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "filter (%q) is not one the emulator answers: id:PROJECT_ID.", filter)
	}
	markers, err := s.store.All(r.Context(), api.CollectionProvisionedProjects)
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
func (s *Service) projectMethod(r *googleapi.Call) (any, error) {
	project, method, _ := strings.Cut(r.PathValue("project"), ":")
	if method != "getIamPolicy" && method != "setIamPolicy" {
		return nil, googleapi.NotRouted(r.Method, r.Path)
	}
	return s.policies.PolicyMethod(r, method, project, "projects/"+project)
}
