package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	runv1 "google.golang.org/api/run/v1"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// KnativePath is where Cloud Run's Admin API v1 (the Knative-shaped
// services of serving.knative.dev/v1) is served, under a location:
// /run/LOCATION/apis/..., and its IAM methods at /run/LOCATION/v1/....
// The cloud serves it on a regional host (LOCATION-run.googleapis.com);
// terraform-provider-google fills {{location}} in
// cloud_run_custom_endpoint as it does in its own regional address, so
// the endpoint lbhealth-emulator terraform-override writes
// (http://HOST/run/{{location}}/) carries it here.
const KnativePath = "/run/{location}/"

// knativeCollection holds the v1 services, as the API answers them.
const knativeCollection = "run.knativeServices"

// ingressAnnotation is where a v1 service keeps its ingress setting.
const ingressAnnotation = "run.googleapis.com/ingress"

// knativeIngress are the v1 annotation's values, as v2 names them.
var knativeIngress = map[string]string{
	"all":                               IngressAll,
	"internal":                          IngressInternalOnly,
	"internal-and-cloud-load-balancing": IngressInternalLoadBalancer,
}

// knativeNames are what v1 takes as a service's name: a DNS label.
var knativeNames = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// knativeRoutes mounts the v1 API.
func (s *Service) knativeRoutes(m googleapi.Mux) {
	services := KnativePath + "apis/serving.knative.dev/v1/namespaces/{project}/services"
	m.Handle("POST "+services, s.createKnative)
	m.Handle("GET "+services, s.listKnative)
	m.Handle("GET "+services+"/{service}", s.getKnative)
	m.Handle("PUT "+services+"/{service}", s.replaceKnative)
	m.Handle("DELETE "+services+"/{service}", s.deleteKnative)
	iamPath := KnativePath + "v1/projects/{project}/locations/{region}/services/{service}"
	m.Handle("GET "+iamPath, s.knativePolicy)
	m.Handle("POST "+iamPath, s.knativePolicy)
}

// knativeName is the name a v1 service shares with v2's: its workload's
// and its IAM policy's.
func knativeName(r *googleapi.Call, id string) string {
	return "projects/" + r.PathValue("project") + "/locations/" + r.PathValue("location") + "/services/" + id
}

func knativeKey(project, name string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: knativeCollection, Name: name}
}

func (s *Service) createKnative(r *googleapi.Call) (any, error) {
	var svc runv1.Service
	if err := googleapi.ReadJSON(r, &svc); err != nil {
		return nil, err
	}
	if err := checkKnative(&svc); err != nil {
		return nil, err
	}
	now := s.timestamp()
	svc.Metadata.Uid, svc.Metadata.Generation, svc.Metadata.CreationTimestamp = newUID(), 1, now
	s.completeKnative(r, &svc, now, "")
	name := knativeName(r, svc.Metadata.Name)
	body, err := json.Marshal(&svc)
	if err != nil {
		return nil, err
	}
	err = s.store.Insert(r.Context(), store.Object{Key: knativeKey(r.PathValue("project"), name), Body: body})
	if errors.Is(err, store.ErrAlreadyExists) {
		return nil, googleapi.Errorf(http.StatusConflict, "ALREADY_EXISTS", "Resource '%s' already exists.", svc.Metadata.Name)
	}
	if err != nil {
		return nil, err
	}
	s.serve(name, knativeWorkload(name, &svc))
	return &svc, nil
}

// checkKnative applies v1's rules to what a client wrote, and fills the
// defaults the API gives: a container's port and resources, the
// revision's concurrency, timeout and service account, the traffic to the
// latest revision.
func checkKnative(svc *runv1.Service) error {
	if svc.ApiVersion != "serving.knative.dev/v1" || svc.Kind != "Service" {
		return invalid("apiVersion (%q) and kind (%q) must be serving.knative.dev/v1 and Service.", svc.ApiVersion, svc.Kind)
	}
	if svc.Metadata == nil || !knativeNames.MatchString(svc.Metadata.Name) {
		name := ""
		if svc.Metadata != nil {
			name = svc.Metadata.Name
		}
		return invalid("metadata.name (%q): a service's name must use only lowercase letters, numbers and '-', begin with a letter, "+
			"not end with a '-', and be at most 63 characters long.", name)
	}
	if v, ok := svc.Metadata.Annotations[ingressAnnotation]; ok && knativeIngress[v] == "" {
		return invalid("metadata.annotations[%q] (%q) must be all, internal or internal-and-cloud-load-balancing.", ingressAnnotation, v)
	}
	if svc.Spec == nil || svc.Spec.Template == nil || svc.Spec.Template.Spec == nil || len(svc.Spec.Template.Spec.Containers) == 0 {
		return invalid("spec.template.spec.containers: a service runs one container at least.")
	}
	rs := svc.Spec.Template.Spec
	for i, c := range rs.Containers {
		if c.Image == "" {
			return invalid("spec.template.spec.containers[%d].image is required.", i)
		}
		if len(c.Ports) == 0 && len(rs.Containers) == 1 {
			c.Ports = []*runv1.ContainerPort{{Name: "http1", ContainerPort: 8080}}
		}
		for j, p := range c.Ports {
			if err := checkPort(fmt.Sprintf("spec.template.spec.containers[%d].ports[%d].containerPort", i, j), &p.ContainerPort); err != nil {
				return err
			}
		}
		if c.Resources == nil {
			c.Resources = &runv1.ResourceRequirements{}
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = defaultLimits()
		}
	}
	if rs.ContainerConcurrency == 0 {
		rs.ContainerConcurrency = 80
	}
	if rs.TimeoutSeconds == 0 {
		rs.TimeoutSeconds = 300
	}
	if len(svc.Spec.Traffic) == 0 {
		svc.Spec.Traffic = []*runv1.TrafficTarget{{Percent: 100, LatestRevision: true}}
	}
	var percents []int64
	for i, t := range svc.Spec.Traffic {
		if !t.LatestRevision && t.RevisionName == "" {
			return invalid("spec.traffic[%d]: a traffic target names a revision (revisionName) or the latest one (latestRevision).", i)
		}
		percents = append(percents, t.Percent)
	}
	return checkTraffic("spec.traffic", percents)
}

// completeKnative sets what the API sets on a write: the namespace (the
// project's number), the revision, the status (Ready, or Unknown while
// the revision's workload boots; the URL, the traffic by revision).
// priorReady is the revision ready before the write.
func (s *Service) completeKnative(r *googleapi.Call, svc *runv1.Service, now, priorReady string) {
	project, location := r.PathValue("project"), r.PathValue("location")
	number := googleapi.ProjectNumber(project)
	md := svc.Metadata
	md.Namespace = number
	md.SelfLink = "/apis/serving.knative.dev/v1/namespaces/" + number + "/services/" + md.Name
	md.ResourceVersion = newUID()[:16]
	if md.Labels == nil {
		md.Labels = map[string]string{}
	}
	md.Labels["cloud.googleapis.com/location"] = location
	if md.Annotations == nil {
		md.Annotations = map[string]string{}
	}
	if md.Annotations["serving.knative.dev/creator"] == "" {
		md.Annotations["serving.knative.dev/creator"] = "emulator@lbhealth.invalid"
	}
	md.Annotations["serving.knative.dev/lastModifier"] = "emulator@lbhealth.invalid"
	md.Annotations["run.googleapis.com/ingress-status"] = ingressOf(svc, "all")
	rs := svc.Spec.Template.Spec
	if rs.ServiceAccountName == "" {
		rs.ServiceAccountName = strings.TrimLeft(number, "0") + "-compute@developer.gserviceaccount.com"
	}
	revision := fmt.Sprintf("%s-%05d-%s", md.Name, md.Generation, newUID()[:3])
	if tm := svc.Spec.Template.Metadata; tm != nil && tm.Name != "" {
		revision = tm.Name
	}
	// The service's deterministic URL, as v2 answers it too.
	url := "https://" + md.Name + "-" + strings.Trim(number, "0") + "." + location + ".run.app"
	ready := func(kind string) *runv1.GoogleCloudRunV1Condition {
		return &runv1.GoogleCloudRunV1Condition{Type: kind, Status: "True", LastTransitionTime: now}
	}
	st := &runv1.ServiceStatus{ObservedGeneration: md.Generation, LatestCreatedRevisionName: revision, LatestReadyRevisionName: revision,
		Url: url, Address: &runv1.Addressable{Url: url},
		Conditions: []*runv1.GoogleCloudRunV1Condition{ready("Ready"), ready("ConfigurationsReady"), ready("RoutesReady")}}
	if s.serving != nil {
		// Ready once the revision's workload has booted (settleKnative);
		// until then the revision ready before it stays the ready one.
		st.LatestReadyRevisionName = priorReady
		for _, c := range st.Conditions {
			c.Status, c.Reason, c.Message = "Unknown", "Deploying", "Deploying revision "+revision+"."
		}
	}
	for _, t := range svc.Spec.Traffic {
		name := t.RevisionName
		if t.LatestRevision {
			name = revision // ready once its workload is
		}
		st.Traffic = append(st.Traffic, &runv1.TrafficTarget{RevisionName: name, Percent: t.Percent, LatestRevision: t.LatestRevision, Tag: t.Tag})
	}
	svc.Status = st
}

// settleKnative makes a v1 service Ready once its revision's workload has
// booted.
func (s *Service) settleKnative(name string, svc *runv1.Service) {
	if len(svc.Status.Conditions) == 0 || svc.Status.Conditions[0].Status != "Unknown" || s.serving != nil && !s.serving.Booted(name) {
		return
	}
	now := s.timestamp()
	svc.Status.LatestReadyRevisionName = svc.Status.LatestCreatedRevisionName
	for _, c := range svc.Status.Conditions {
		c.Status, c.Reason, c.Message, c.LastTransitionTime = "True", "", "", now
	}
}

// ingressOf is a v1 service's ingress annotation (def when unset).
func ingressOf(svc *runv1.Service, def string) string {
	if v := svc.Metadata.Annotations[ingressAnnotation]; v != "" {
		return v
	}
	return def
}

// knativeWorkload is what a v1 service runs.
func knativeWorkload(name string, svc *runv1.Service) *Workload {
	w := &Workload{Service: name, Port: 8080, Ingress: knativeIngress[ingressOf(svc, "all")], Generation: svc.Metadata.Generation}
	for _, c := range svc.Spec.Template.Spec.Containers {
		if len(c.Ports) > 0 && c.Ports[0].ContainerPort > 0 {
			w.Port = int(c.Ports[0].ContainerPort)
			for _, e := range c.Env {
				w.setEnv(e.Name, e.Value)
			}
			break
		}
	}
	for _, t := range svc.Status.Traffic {
		w.Revisions = append(w.Revisions, Split{Revision: t.RevisionName, Percent: t.Percent})
		w.tag(t.Tag, t.RevisionName)
	}
	return w
}

func (s *Service) loadKnative(r *googleapi.Call, id string) (runv1.Service, error) {
	var svc runv1.Service
	o, err := s.store.Get(r.Context(), knativeKey(r.PathValue("project"), knativeName(r, id)))
	if errors.Is(err, store.ErrNotFound) {
		return svc, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Resource '%s' of kind 'SERVICE' in region '%s' in project '%s' does not exist.",
			id, r.PathValue("location"), r.PathValue("project"))
	}
	if err != nil {
		return svc, err
	}
	return svc, json.Unmarshal(o.Body, &svc)
}

func (s *Service) getKnative(r *googleapi.Call) (any, error) {
	svc, err := s.loadKnative(r, r.PathValue("service"))
	if err != nil {
		return nil, err
	}
	s.settleKnative(knativeName(r, svc.Metadata.Name), &svc)
	return &svc, nil
}

func (s *Service) listKnative(r *googleapi.Call) (any, error) {
	items, err := storedUnder[runv1.Service](r, s.store, knativeCollection, knativeName(r, ""))
	if err != nil {
		return nil, err
	}
	for _, svc := range items {
		s.settleKnative(knativeName(r, svc.Metadata.Name), svc)
	}
	if items == nil {
		items = []*runv1.Service{}
	}
	return &runv1.ListServicesResponse{ApiVersion: "serving.knative.dev/v1", Kind: "ServiceList", Items: items, Metadata: &runv1.ListMeta{}}, nil
}

// replaceKnative is replaceService: the service as sent replaces what its
// client wrote, at the next generation, with a new revision.
func (s *Service) replaceKnative(r *googleapi.Call) (any, error) {
	prior, err := s.loadKnative(r, r.PathValue("service"))
	if err != nil {
		return nil, err
	}
	s.settleKnative(knativeName(r, prior.Metadata.Name), &prior)
	var svc runv1.Service
	if err := googleapi.ReadJSON(r, &svc); err != nil {
		return nil, err
	}
	if err := checkKnative(&svc); err != nil {
		return nil, err
	}
	if svc.Metadata.Name != prior.Metadata.Name {
		return nil, invalid("metadata.name (%q) must be the service's name, %q.", svc.Metadata.Name, prior.Metadata.Name)
	}
	if v := svc.Metadata.ResourceVersion; v != "" && v != prior.Metadata.ResourceVersion {
		return nil, googleapi.Errorf(http.StatusConflict, "ABORTED", "metadata.resourceVersion (%s) is stale: the service has changed since (it is now %s).",
			v, prior.Metadata.ResourceVersion)
	}
	md := svc.Metadata
	md.Uid, md.CreationTimestamp, md.Generation = prior.Metadata.Uid, prior.Metadata.CreationTimestamp, prior.Metadata.Generation+1
	if c := prior.Metadata.Annotations["serving.knative.dev/creator"]; c != "" {
		if md.Annotations == nil {
			md.Annotations = map[string]string{}
		}
		md.Annotations["serving.knative.dev/creator"] = c
	}
	s.completeKnative(r, &svc, s.timestamp(), prior.Status.LatestReadyRevisionName)
	body, err := json.Marshal(&svc)
	if err != nil {
		return nil, err
	}
	name := knativeName(r, md.Name)
	if err := s.store.Update(r.Context(), store.Object{Key: knativeKey(r.PathValue("project"), name), Body: body}); err != nil {
		return nil, err
	}
	s.serve(name, knativeWorkload(name, &svc))
	return &svc, nil
}

// deleteKnative answers with the Status v1 gives a deletion.
func (s *Service) deleteKnative(r *googleapi.Call) (any, error) {
	svc, err := s.loadKnative(r, r.PathValue("service"))
	if err != nil {
		return nil, err
	}
	name := knativeName(r, svc.Metadata.Name)
	if err := s.store.Delete(r.Context(), knativeKey(r.PathValue("project"), name)); err != nil {
		return nil, err
	}
	s.serve(name, nil)
	return &runv1.Status{Status: "Success", Details: &runv1.StatusDetails{Name: svc.Metadata.Name, Group: "serving.knative.dev",
		Kind: "services", Uid: svc.Metadata.Uid}}, nil
}

// knativePolicy is v1's :getIamPolicy (GET) and :setIamPolicy (POST) of a
// service: the policy v2 keeps for the same service.
func (s *Service) knativePolicy(r *googleapi.Call) (any, error) {
	id, method, _ := strings.Cut(r.PathValue("service"), ":")
	if r.PathValue("region") != r.PathValue("location") ||
		!(method == "getIamPolicy" && r.Method == http.MethodGet || method == "setIamPolicy" && r.Method == http.MethodPost) {
		return nil, googleapi.NotRouted(r.Method, r.Path)
	}
	if _, err := s.loadKnative(r, id); err != nil {
		return nil, err
	}
	return s.policies.PolicyMethod(r, method, r.PathValue("project"), knativeName(r, id))
}
