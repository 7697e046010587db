// Package run is Cloud Run: its Admin API v2 (/run/v2/), services as
// terraform-provider-google's google_cloud_run_v2_service and Google's
// clients write and read them, stored and validated, each write answered
// with a finished long-running operation that can be read again, and
// their IAM policies; and the services' workloads (Serving), which
// serverless network endpoint groups send load balancers' traffic to.
// terraform-provider-google reaches the API through
// cloud_run_v2_custom_endpoint (lbhealth-emulator terraform-override
// writes it).
package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/run/apiv2/runpb"
	runv1 "google.golang.org/api/run/v1"
	runv2 "google.golang.org/api/run/v2"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iam"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Path is where Cloud Run's Admin API v2 is served.
const Path = "/run/v2/"

// Store collections of what Cloud Run holds.
const (
	servicesCollection   = "run.services"
	operationsCollection = "run.operations"
)

// serviceType is the type of a service in an operation's metadata and
// response.
const serviceType = "type.googleapis.com/google.cloud.run.v2.Service"

// Service is Cloud Run over the store.
type Service struct {
	store    store.Store
	policies *iam.Service
	now      func() time.Time
	serving  *Serving // nil: services do not run
}

// New returns Cloud Run over st, its policies kept by policies; now
// stamps what is written (nil: time.Now).
func New(st store.Store, policies *iam.Service, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, policies: policies, now: now}
}

// ServeWith runs every service stored, and each written from now on, on
// sv.
func (s *Service) ServeWith(ctx context.Context, sv *Serving) error {
	s.serving = sv
	return s.Reset(ctx)
}

// Reset runs what the store holds now, and stops every other service:
// at start, and after the store was reset (googleapi.Resetter).
func (s *Service) Reset(ctx context.Context) error {
	if s.serving == nil {
		return nil
	}
	objects, err := s.store.All(ctx, servicesCollection)
	if err != nil {
		return err
	}
	stored := map[string]bool{}
	for _, o := range objects {
		var svc runv2.GoogleCloudRunV2Service
		if err := json.Unmarshal(o.Body, &svc); err != nil {
			return err
		}
		stored[svc.Name] = true
		s.serving.Set(svc.Name, workloadOf(&svc))
	}
	objects, err = s.store.All(ctx, knativeCollection)
	if err != nil {
		return err
	}
	for _, o := range objects {
		var svc runv1.Service
		if err := json.Unmarshal(o.Body, &svc); err != nil {
			return err
		}
		stored[o.Key.Name] = true
		s.serving.Set(o.Key.Name, knativeWorkload(o.Key.Name, &svc))
	}
	for _, st := range s.serving.List() {
		if !stored[st.Service] {
			s.serving.Set(st.Service, nil)
		}
	}
	return nil
}

// serve runs service name's workload w as now stored (nil: the service
// is gone, and stops), for v1 and v2 alike.
func (s *Service) serve(name string, w *Workload) {
	if s.serving != nil {
		s.serving.Set(name, w)
	}
}

// setEnv takes a container's variable: CommandEnv is the command, the
// others its environment.
func (w *Workload) setEnv(name, value string) {
	if name == CommandEnv {
		w.Command = value
		return
	}
	w.Env = append(w.Env, name+"="+value)
}

// workloadOf is what svc runs: its serving container's port, its ingress,
// its traffic split by revision.
func workloadOf(svc *runv2.GoogleCloudRunV2Service) *Workload {
	w := &Workload{Service: svc.Name, Port: 8080, Ingress: svc.Ingress, Generation: svc.Generation}
	if svc.Template != nil {
		for _, c := range svc.Template.Containers {
			if len(c.Ports) > 0 && c.Ports[0].ContainerPort > 0 {
				w.Port = int(c.Ports[0].ContainerPort)
				for _, e := range c.Env {
					w.setEnv(e.Name, e.Value)
				}
				break
			}
		}
	}
	for _, t := range svc.TrafficStatuses {
		rev := t.Revision
		if t.Type == "TRAFFIC_TARGET_ALLOCATION_TYPE_LATEST" || rev == "" {
			rev = shortName(svc.LatestCreatedRevision) // ready once its workload is
		}
		w.Revisions = append(w.Revisions, Split{Revision: rev, Percent: t.Percent})
		w.tag(t.Tag, rev)
	}
	return w
}

// tag names revision rev by tag (none: nothing).
func (w *Workload) tag(tag, rev string) {
	if tag == "" {
		return
	}
	if w.Tags == nil {
		w.Tags = map[string]string{}
	}
	w.Tags[tag] = rev
}

// Routes mounts Cloud Run v2, at Path and at the root as run.googleapis.com
// serves it ("/v2/projects/..."), where Google's Go clients poll an
// operation whatever endpoint they were given; and v1.
func (s *Service) Routes(m googleapi.Mux) {
	for _, root := range []string{Path, "/v2/"} {
		services := root + "projects/{project}/locations/{location}/services"
		m.Handle("POST "+services, s.createService)
		m.Handle("GET "+services, s.listServices)
		m.Handle("GET "+services+"/{service}", s.getService)
		m.Handle("POST "+services+"/{service}", s.serviceMethod)
		m.Handle("PATCH "+services+"/{service}", s.patchService)
		m.Handle("DELETE "+services+"/{service}", s.deleteService)
		m.Handle("GET "+root+"projects/{project}/locations/{location}/operations/{operation}", s.getOperation)
	}
	s.knativeRoutes(m)
}

// serviceIDs are what the API takes as a service's id.
var serviceIDs = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,47}[a-z0-9])?$`)

// ingresses are a service's ingress settings.
var ingresses = []string{"INGRESS_TRAFFIC_ALL", "INGRESS_TRAFFIC_INTERNAL_ONLY", "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER", "INGRESS_TRAFFIC_NONE"}

func invalid(format string, args ...any) error {
	return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", format, args...)
}

func (s *Service) timestamp() string { return s.now().UTC().Format(time.RFC3339Nano) }

func parentOf(r *googleapi.Call) string {
	return "projects/" + r.PathValue("project") + "/locations/" + r.PathValue("location")
}

func (s *Service) createService(r *googleapi.Call) (any, error) {
	id := r.Query().Get("serviceId")
	if !serviceIDs.MatchString(id) {
		return nil, invalid("serviceId (%q) must be 1 to 49 lower-case letters, digits or dashes, starting with a letter and not ending with a dash.", id)
	}
	svc, err := readService(r)
	if err != nil {
		return nil, err
	}
	if err := checkService(&svc); err != nil {
		return nil, err
	}
	now := s.timestamp()
	svc.Name, svc.Uid, svc.Generation, svc.CreateTime = parentOf(r)+"/services/"+id, newUID(), 1, now
	if r.Query().Get("validateOnly") == "true" {
		return s.operation(r, svc, false)
	}
	s.complete(r, &svc, now, "")
	body, err := json.Marshal(&svc)
	if err != nil {
		return nil, err
	}
	err = s.store.Insert(r.Context(), store.Object{Key: serviceKey(r.PathValue("project"), svc.Name), Body: body})
	if errors.Is(err, store.ErrAlreadyExists) {
		return nil, googleapi.Errorf(http.StatusConflict, "ALREADY_EXISTS", "Resource '%s' already exists.", id)
	}
	if err != nil {
		return nil, err
	}
	s.serve(svc.Name, workloadOf(&svc))
	return s.operation(r, svc, true)
}

// readService reads a service a client sent. The API takes an enum's
// number as well as its name (Google's Go clients send numbers), so the
// body is read by the API's own protocol buffer type first, which takes
// both, and written out with names for the service's JSON type.
func readService(r *googleapi.Call) (runv2.GoogleCloudRunV2Service, error) {
	var svc runv2.GoogleCloudRunV2Service
	body, err := r.Body()
	if err != nil {
		return svc, err
	}
	var pb runpb.Service
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, &pb); err != nil {
		return svc, invalid("Invalid JSON payload received: %s.", strings.TrimPrefix(err.Error(), "proto: "))
	}
	named, err := protojson.Marshal(&pb)
	if err != nil {
		return svc, err
	}
	return svc, json.Unmarshal(named, &svc)
}

// checkService applies the API's rules to what a client wrote, and fills
// the defaults the API gives: the ingress, a container's port and
// resources, the traffic to the latest revision.
func checkService(svc *runv2.GoogleCloudRunV2Service) error {
	if svc.Ingress == "" || svc.Ingress == "INGRESS_TRAFFIC_UNSPECIFIED" {
		svc.Ingress = "INGRESS_TRAFFIC_ALL"
	}
	if !slices.Contains(ingresses, svc.Ingress) {
		return invalid("ingress (%q) must be one of %s.", svc.Ingress, strings.Join(ingresses, ", "))
	}
	if svc.Template == nil || len(svc.Template.Containers) == 0 {
		return invalid("template.containers: a service runs one container at least.")
	}
	for i, c := range svc.Template.Containers {
		if c.Image == "" {
			return invalid("template.containers[%d].image is required.", i)
		}
		if len(c.Ports) == 0 && (i == 0 || len(svc.Template.Containers) == 1) {
			c.Ports = []*runv2.GoogleCloudRunV2ContainerPort{{Name: "http1", ContainerPort: 8080}}
		}
		for j, p := range c.Ports {
			if err := checkPort(fmt.Sprintf("template.containers[%d].ports[%d].containerPort", i, j), &p.ContainerPort); err != nil {
				return err
			}
		}
		if c.Resources == nil {
			c.Resources = &runv2.GoogleCloudRunV2ResourceRequirements{CpuIdle: true, ForceSendFields: []string{"CpuIdle"}}
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = defaultLimits()
		}
	}
	if len(svc.Traffic) == 0 {
		svc.Traffic = []*runv2.GoogleCloudRunV2TrafficTarget{{Type: "TRAFFIC_TARGET_ALLOCATION_TYPE_LATEST", Percent: 100}}
	}
	var percents []int64
	for _, t := range svc.Traffic {
		percents = append(percents, t.Percent)
	}
	return checkTraffic("traffic", percents)
}

// checkPort applies both APIs' rule to a container's port at field, and
// gives the default (8080) for none.
func checkPort(field string, port *int64) error {
	if *port < 0 || *port > 65535 {
		return invalid("%s (%d) must be 1 to 65535.", field, *port)
	}
	if *port == 0 {
		*port = 8080
	}
	return nil
}

// defaultLimits are the resources a container gets unless it says.
func defaultLimits() map[string]string { return map[string]string{"cpu": "1000m", "memory": "512Mi"} }

// checkTraffic applies both APIs' rule to a traffic split at field.
func checkTraffic(field string, percents []int64) error {
	total := int64(0)
	for _, p := range percents {
		total += p
	}
	if total != 100 {
		return invalid("%s: the percents must add up to 100, not %d.", field, total)
	}
	return nil
}

// complete sets the fields the API sets on a write: its revision (the
// first, or the next when the template changed), Ready (or reconciling
// while the revision's workload boots; priorReady is the revision ready
// before the write).
func (s *Service) complete(r *googleapi.Call, svc *runv2.GoogleCloudRunV2Service, now, priorReady string) {
	id := shortName(svc.Name)
	svc.UpdateTime, svc.ObservedGeneration, svc.LaunchStage = now, svc.Generation, "GA"
	if svc.Creator == "" {
		svc.Creator = "emulator@lbhealth.invalid"
	}
	svc.LastModifier = "emulator@lbhealth.invalid"
	revision := fmt.Sprintf("%s-%05d-%s", id, svc.Generation, newUID()[:3])
	svc.LatestCreatedRevision = svc.Name + "/revisions/" + revision
	svc.LatestReadyRevision = svc.LatestCreatedRevision
	ready := func(kind string) *runv2.GoogleCloudRunV2Condition {
		return &runv2.GoogleCloudRunV2Condition{Type: kind, State: "CONDITION_SUCCEEDED", LastTransitionTime: now}
	}
	svc.TerminalCondition = ready("Ready")
	svc.Conditions = []*runv2.GoogleCloudRunV2Condition{ready("RoutesReady"), ready("ConfigurationsReady")}
	if s.serving != nil {
		// The new revision is ready once its workload has booted (settle):
		// until then the service reconciles, the revision ready before it
		// (none, for a new service) stays the ready one, and the write's
		// operation is not done.
		svc.Reconciling, svc.LatestReadyRevision = true, priorReady
		for _, c := range append(svc.Conditions, svc.TerminalCondition) {
			c.State = "CONDITION_RECONCILING"
		}
	}
	svc.TrafficStatuses = nil
	for _, t := range svc.Traffic {
		svc.TrafficStatuses = append(svc.TrafficStatuses, &runv2.GoogleCloudRunV2TrafficTargetStatus{Type: t.Type, Percent: t.Percent, Revision: t.Revision, Tag: t.Tag})
	}
	number := strings.Trim(googleapi.ProjectNumber(r.PathValue("project")), "0")
	svc.Uri = "https://" + id + "-" + number + "." + r.PathValue("location") + ".run.app"
	svc.Urls = []string{svc.Uri}
	svc.Etag = `"` + newUID()[:16] + `"`
}

// settle makes a reconciling service Ready once its workload has booted:
// its latest revision is then the ready one. It tells whether svc is
// settled (Ready).
func (s *Service) settle(svc *runv2.GoogleCloudRunV2Service) bool {
	if !svc.Reconciling {
		return true
	}
	if s.serving != nil && !s.serving.Booted(svc.Name) {
		return false
	}
	now := s.timestamp()
	svc.Reconciling, svc.LatestReadyRevision = false, svc.LatestCreatedRevision
	for _, c := range append(svc.Conditions, svc.TerminalCondition) {
		c.State, c.LastTransitionTime = "CONDITION_SUCCEEDED", now
	}
	return true
}

func newUID() string {
	var b [16]byte
	rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func serviceKey(project, name string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: servicesCollection, Name: name}
}

func (s *Service) load(r *googleapi.Call) (runv2.GoogleCloudRunV2Service, error) {
	id, _, _ := strings.Cut(r.PathValue("service"), ":")
	name := parentOf(r) + "/services/" + id
	var svc runv2.GoogleCloudRunV2Service
	o, err := s.store.Get(r.Context(), serviceKey(r.PathValue("project"), name))
	if errors.Is(err, store.ErrNotFound) {
		return svc, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Resource '%s' was not found", name)
	}
	if err != nil {
		return svc, err
	}
	return svc, json.Unmarshal(o.Body, &svc)
}

// getService is services.get, and :getIamPolicy (GET).
func (s *Service) getService(r *googleapi.Call) (any, error) {
	svc, err := s.load(r)
	if err != nil {
		return nil, err
	}
	if _, method, ok := strings.Cut(r.PathValue("service"), ":"); ok {
		if method != "getIamPolicy" {
			return nil, googleapi.NotRouted(r.Method, r.Path)
		}
		return s.policies.GetPolicy(r, r.PathValue("project"), svc.Name)
	}
	s.settle(&svc)
	return &svc, nil
}

// serviceMethod is a service's :getIamPolicy and :setIamPolicy (POST).
func (s *Service) serviceMethod(r *googleapi.Call) (any, error) {
	_, method, _ := strings.Cut(r.PathValue("service"), ":")
	if method != "getIamPolicy" && method != "setIamPolicy" {
		return nil, googleapi.NotRouted(r.Method, r.Path)
	}
	svc, err := s.load(r)
	if err != nil {
		return nil, err
	}
	return s.policies.PolicyMethod(r, method, r.PathValue("project"), svc.Name)
}

func (s *Service) listServices(r *googleapi.Call) (any, error) {
	list, err := storedUnder[runv2.GoogleCloudRunV2Service](r, s.store, servicesCollection, parentOf(r)+"/services/")
	if err != nil {
		return nil, err
	}
	for _, svc := range list {
		s.settle(svc)
	}
	return map[string]any{"services": list}, nil
}

// storedUnder reads every object of collection whose name starts with
// prefix, in the order of their names.
func storedUnder[T any](r *googleapi.Call, st store.Store, collection, prefix string) ([]*T, error) {
	objects, err := st.All(r.Context(), collection)
	if err != nil {
		return nil, err
	}
	objects = slices.Clone(objects) // sorted here, not where the store keeps them
	slices.SortFunc(objects, func(a, b store.Object) int { return strings.Compare(a.Key.Name, b.Key.Name) })
	var list []*T
	for _, o := range objects {
		if !strings.HasPrefix(o.Key.Name, prefix) {
			continue
		}
		v := new(T)
		if err := json.Unmarshal(o.Body, v); err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	return list, nil
}

// patchService is services.patch: the service as sent replaces what its
// client wrote (the fields the API sets stay its own); a changed template
// makes a new revision.
func (s *Service) patchService(r *googleapi.Call) (any, error) {
	prior, err := s.load(r)
	if err != nil {
		return nil, err
	}
	s.settle(&prior)
	svc, err := readService(r)
	if err != nil {
		return nil, err
	}
	if err := checkService(&svc); err != nil {
		return nil, err
	}
	if svc.Etag != "" && svc.Etag != prior.Etag {
		return nil, googleapi.Errorf(http.StatusConflict, "ABORTED", "etag (%s) is stale: the service has changed since (its etag is now %s).", svc.Etag, prior.Etag)
	}
	svc.Name, svc.Uid, svc.CreateTime, svc.Creator, svc.Generation = prior.Name, prior.Uid, prior.CreateTime, prior.Creator, prior.Generation+1
	s.complete(r, &svc, s.timestamp(), prior.LatestReadyRevision)
	body, err := json.Marshal(&svc)
	if err != nil {
		return nil, err
	}
	if err := s.store.Update(r.Context(), store.Object{Key: serviceKey(r.PathValue("project"), svc.Name), Body: body}); err != nil {
		return nil, err
	}
	s.serve(svc.Name, workloadOf(&svc))
	return s.operation(r, svc, true)
}

func (s *Service) deleteService(r *googleapi.Call) (any, error) {
	svc, err := s.load(r)
	if err != nil {
		return nil, err
	}
	if err := s.store.Delete(r.Context(), serviceKey(r.PathValue("project"), svc.Name)); err != nil {
		return nil, err
	}
	svc.DeleteTime = s.timestamp()
	s.serve(svc.Name, nil)
	return s.operation(r, svc, true)
}

// operation is the long-running operation that answers a write of svc,
// kept (when keep) so that it can be read again: done with the service as
// its response, or (a service reconciling) done once the service has
// settled (getOperation).
func (s *Service) operation(r *googleapi.Call, svc runv2.GoogleCloudRunV2Service, keep bool) (any, error) {
	typed, err := typedService(&svc)
	if err != nil {
		return nil, err
	}
	op := map[string]any{"name": parentOf(r) + "/operations/" + newUID(), "done": !svc.Reconciling, "metadata": typed}
	if !svc.Reconciling {
		op["response"] = typed
	}
	if keep {
		body, _ := json.Marshal(op)
		if err := s.store.Insert(r.Context(), store.Object{Key: operationKey(r.PathValue("project"), op["name"].(string)), Body: body}); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// typedService is svc as an operation carries it, with its type.
func typedService(svc *runv2.GoogleCloudRunV2Service) (json.RawMessage, error) {
	body, err := json.Marshal(svc)
	if err != nil {
		return nil, err
	}
	var fields map[string]any
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, err
	}
	fields["@type"] = serviceType
	return json.Marshal(fields)
}

func operationKey(project, name string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: operationsCollection, Name: name}
}

func (s *Service) getOperation(r *googleapi.Call) (any, error) {
	name := parentOf(r) + "/operations/" + r.PathValue("operation")
	o, err := s.store.Get(r.Context(), operationKey(r.PathValue("project"), name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Operation '%s' was not found", name)
	}
	if err != nil {
		return nil, err
	}
	var op struct {
		Name     string          `json:"name"`
		Done     bool            `json:"done"`
		Metadata json.RawMessage `json:"metadata"`
		Response json.RawMessage `json:"response,omitempty"`
	}
	if err := json.Unmarshal(o.Body, &op); err != nil {
		return nil, err
	}
	if op.Done {
		return &op, nil
	}
	// A write whose service was reconciling: done once it has settled
	// (or is gone).
	var svc runv2.GoogleCloudRunV2Service
	if err := json.Unmarshal(op.Metadata, &svc); err != nil {
		return nil, err
	}
	if current, err := s.store.Get(r.Context(), serviceKey(r.PathValue("project"), svc.Name)); err == nil {
		if err := json.Unmarshal(current.Body, &svc); err != nil {
			return nil, err
		}
	}
	if !s.settle(&svc) {
		return &op, nil
	}
	typed, err := typedService(&svc)
	if err != nil {
		return nil, err
	}
	op.Done, op.Metadata, op.Response = true, typed, typed
	return &op, nil
}
