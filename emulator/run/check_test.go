package run

import (
	"strings"
	"testing"

	runv1 "google.golang.org/api/run/v1"
	runv2 "google.golang.org/api/run/v2"
)

// Every rule of a v2 service's check, by the message that names the
// field, the value and the rule.
func TestCheckService_Rules(t *testing.T) {
	container := func(port int64) *runv2.GoogleCloudRunV2Service {
		return &runv2.GoogleCloudRunV2Service{Template: &runv2.GoogleCloudRunV2RevisionTemplate{Containers: []*runv2.GoogleCloudRunV2Container{{Image: "hello",
			Ports: []*runv2.GoogleCloudRunV2ContainerPort{{ContainerPort: port}}}}}}
	}
	for _, tt := range []struct {
		name string
		svc  *runv2.GoogleCloudRunV2Service
		want string
	}{
		{"ingress", &runv2.GoogleCloudRunV2Service{Ingress: "INGRESS_TRAFFIC_SOME"}, `ingress ("INGRESS_TRAFFIC_SOME") must be one of`},
		{"no container", &runv2.GoogleCloudRunV2Service{}, "template.containers: a service runs one container at least."},
		{"no image", &runv2.GoogleCloudRunV2Service{Template: &runv2.GoogleCloudRunV2RevisionTemplate{Containers: []*runv2.GoogleCloudRunV2Container{{}}}},
			"template.containers[0].image is required."},
		{"port", container(70000), "template.containers[0].ports[0].containerPort (70000) must be 1 to 65535."},
		{"traffic", func() *runv2.GoogleCloudRunV2Service {
			s := container(8080)
			s.Traffic = []*runv2.GoogleCloudRunV2TrafficTarget{{Type: "TRAFFIC_TARGET_ALLOCATION_TYPE_LATEST", Percent: 60}}
			return s
		}(), "traffic: the percents must add up to 100, not 60."},
	} {
		if err := checkService(tt.svc); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	ok := container(0)
	if err := checkService(ok); err != nil || ok.Template.Containers[0].Ports[0].ContainerPort != 8080 || ok.Ingress != IngressAll ||
		ok.Traffic[0].Percent != 100 || ok.Template.Containers[0].Resources.Limits["memory"] != "512Mi" {
		t.Errorf("the defaults: %v %+v", err, ok)
	}
}

// Every rule of a v1 service's check.
func TestCheckKnative_Rules(t *testing.T) {
	svc := func(edit func(*runv1.Service)) *runv1.Service {
		s := &runv1.Service{ApiVersion: "serving.knative.dev/v1", Kind: "Service", Metadata: &runv1.ObjectMeta{Name: "hello"},
			Spec: &runv1.ServiceSpec{Template: &runv1.RevisionTemplate{Spec: &runv1.RevisionSpec{Containers: []*runv1.Container{{Image: "hello"}}}}}}
		edit(s)
		return s
	}
	for _, tt := range []struct {
		name string
		svc  *runv1.Service
		want string
	}{
		{"kind", svc(func(s *runv1.Service) { s.Kind = "Route" }), `apiVersion ("serving.knative.dev/v1") and kind ("Route") must be serving.knative.dev/v1 and Service.`},
		{"name", svc(func(s *runv1.Service) { s.Metadata.Name = "hello-" }), `metadata.name ("hello-"): a service's name must use only lowercase letters`},
		{"ingress", svc(func(s *runv1.Service) { s.Metadata.Annotations = map[string]string{ingressAnnotation: "private"} }),
			`metadata.annotations["run.googleapis.com/ingress"] ("private") must be all, internal or internal-and-cloud-load-balancing.`},
		{"no container", svc(func(s *runv1.Service) { s.Spec.Template.Spec.Containers = nil }), "spec.template.spec.containers: a service runs one container at least."},
		{"no image", svc(func(s *runv1.Service) { s.Spec.Template.Spec.Containers[0].Image = "" }), "spec.template.spec.containers[0].image is required."},
		{"port", svc(func(s *runv1.Service) {
			s.Spec.Template.Spec.Containers[0].Ports = []*runv1.ContainerPort{{ContainerPort: -1}}
		}), "spec.template.spec.containers[0].ports[0].containerPort (-1) must be 1 to 65535."},
		{"target", svc(func(s *runv1.Service) { s.Spec.Traffic = []*runv1.TrafficTarget{{Percent: 100}} }),
			"spec.traffic[0]: a traffic target names a revision (revisionName) or the latest one (latestRevision)."},
		{"traffic", svc(func(s *runv1.Service) { s.Spec.Traffic = []*runv1.TrafficTarget{{Percent: 50, LatestRevision: true}} }),
			"spec.traffic: the percents must add up to 100, not 50."},
	} {
		if err := checkKnative(tt.svc); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	ok := svc(func(*runv1.Service) {})
	if err := checkKnative(ok); err != nil || ok.Spec.Template.Spec.ContainerConcurrency != 80 || ok.Spec.Template.Spec.TimeoutSeconds != 300 ||
		ok.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort != 8080 || !ok.Spec.Traffic[0].LatestRevision {
		t.Errorf("the defaults: %v %+v", err, ok.Spec.Template.Spec)
	}
}
