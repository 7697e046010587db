package storage

import (
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iam"
)

// bucketPolicy is a bucket's IAM policy as the JSON API answers it: the
// policy IAM keeps, with the bucket's resource id.
type bucketPolicy struct {
	Kind       string `json:"kind"`
	ResourceID string `json:"resourceId"`
	iam.Policy
}

// bucketIAM is buckets.getIamPolicy (GET .../b/BUCKET/iam) and
// buckets.setIamPolicy (PUT, the policy as the body): stored by IAM,
// guarded by its etag, checked as every IAM policy is; the bucket must
// exist. Nothing is authorized by it.
func (s *Service) bucketIAM(r *googleapi.Call) (any, error) {
	project, b, err := s.bucket(r.Context(), r.PathValue("bucket"))
	if err != nil {
		return nil, err
	}
	resource := "projects/_/buckets/" + b.Name
	var p iam.Policy
	if r.Method == http.MethodPut {
		var sent bucketPolicy
		if err := googleapi.ReadJSON(r, &sent); err != nil {
			return nil, err
		}
		p, err = s.policies.SetPolicy(r, project, resource, sent.Policy)
	} else {
		p, err = s.policies.GetPolicy(r, project, resource)
	}
	if err != nil {
		return nil, err
	}
	return bucketPolicy{Kind: "storage#policy", ResourceID: resource, Policy: p}, nil
}

// serviceAccount is projects.serviceAccount.get: the project's Cloud
// Storage service agent, named by its number as the cloud names it.
func (s *Service) serviceAccount(r *googleapi.Call) (any, error) {
	project := r.PathValue("project")
	if project == "" || strings.ContainsAny(project, "/ ") {
		return nil, googleapi.Errorf(http.StatusBadRequest, "invalid", "project (%q) is not a project id.", project)
	}
	return map[string]string{
		"kind":          "storage#serviceAccount",
		"email_address": "service-" + googleapi.ProjectNumber(project) + "@gs-project-accounts.iam.gserviceaccount.com",
	}, nil
}
