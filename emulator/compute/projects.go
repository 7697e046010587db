package compute

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
)

// getComputeProject answers the Compute API's projects.get: the project's
// number, default service account and place in a Shared VPC.
func (s *Service) getComputeProject(r *googleapi.Call) (any, error) {
	project, err := projectOf(r)
	if err != nil {
		return nil, err
	}
	v, err := s.sharedVpcOf(r.Context(), project)
	if err != nil {
		return nil, err
	}
	status := xpnNone
	if v.Host {
		status = xpnHost
	}
	return s.projectResource(project, status), nil
}

// projectResource is the Compute API's Project resource of project, whose
// xpnProjectStatus is status.
func (s *Service) projectResource(project, status string) map[string]any {
	return map[string]any{"kind": "compute#project", "id": googleapi.ProjectNumber(project), "name": project,
		"selfLink": s.Link("projects/" + project), "defaultServiceAccount": googleapi.DefaultComputeAccount(project),
		"creationTimestamp": "2024-01-01T00:00:00.000-07:00", "xpnProjectStatus": status,
		"defaultNetworkTier": "PREMIUM", "commonInstanceMetadata": map[string]any{"kind": "compute#metadata", "fingerprint": "AAAAAAAAAAA="}}
}
