package compute

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// getComputeProject answers the Compute API's projects.get: the project's
// number and default service account.
func (s *Service) getComputeProject(r *googleapi.Call) (any, error) {
	project := r.PathValue("project")
	if v := rules.Project("project", project); v != nil {
		return nil, googleapi.Invalid("%s", v.Error())
	}
	return map[string]any{"kind": "compute#project", "id": googleapi.ProjectNumber(project), "name": project,
		"selfLink": s.Link("projects/" + project), "defaultServiceAccount": googleapi.DefaultComputeAccount(project),
		"creationTimestamp": "2024-01-01T00:00:00.000-07:00", "xpnProjectStatus": "UNSPECIFIED_XPN_PROJECT_STATUS",
		"defaultNetworkTier": "PREMIUM", "commonInstanceMetadata": map[string]any{"kind": "compute#metadata", "fingerprint": "AAAAAAAAAAA="}}, nil
}
