// Package iap serves IAP (/iap/v1/) as deep as load-balancing
// configurations need: the IAM policy of a backend service behind IAP
// (kept by IAM). terraform-provider-google reaches it through
// iap_custom_endpoint (lbhealth-emulator terraform-override writes it).
package iap

import (
	"errors"
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iam"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Path is where IAP is served.
const Path = "/iap/v1/"

// Service is IAP: the backend services it protects are Compute's, their
// IAM policies IAM's.
type Service struct {
	compute  *core.Core
	policies *iam.Service
}

// New returns IAP in front of core's backend services, with policies
// kept by policies.
func New(core *core.Core, policies *iam.Service) *Service {
	return &Service{compute: core, policies: policies}
}

// Routes mounts IAP. {where} is compute (global services) or
// compute-REGION.
func (s *Service) Routes(m googleapi.Mux) {
	m.Handle("POST "+Path+"projects/{project}/iap_web/{where}/services/{service}", s.serviceMethod)
}

// serviceMethod answers the IAM policy methods of a backend service behind
// IAP: iap_web/compute[-REGION]/services/{service}:getIamPolicy and
// :setIamPolicy. The service must exist.
func (s *Service) serviceMethod(r *googleapi.Call) (any, error) {
	project := r.PathValue("project")
	service, method, _ := strings.Cut(r.PathValue("service"), ":")
	if method != "getIamPolicy" && method != "setIamPolicy" {
		return nil, googleapi.NotRouted(r.Method, r.Path)
	}
	where, sc := r.PathValue("where"), "global"
	switch region, ok := strings.CutPrefix(where, "compute-"); {
	case ok && region != "":
		sc = "regions/" + region
	case where != "compute":
		return nil, googleapi.NotRouted(r.Method, r.Path)
	}
	k := store.Key{Project: project, Scope: sc, Collection: api.CollectionBackendServices, Name: service}
	if _, err := s.compute.Store().Get(r.Context(), k); errors.Is(err, store.ErrNotFound) {
		return nil, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "%s does not exist: IAP protects a backend service that exists.", k.Path())
	} else if err != nil {
		return nil, err
	}
	resource := "projects/" + googleapi.ProjectNumber(project) + "/iap_web/" + where + "/services/" + service
	return s.policies.PolicyMethod(r, method, project, resource)
}
