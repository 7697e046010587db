package emulator_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/iam/apiv1/iampb"
	cloudrun "cloud.google.com/go/run/apiv2"
	"cloud.google.com/go/run/apiv2/runpb"
	"google.golang.org/api/option"
	runv1 "google.golang.org/api/run/v1"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
)

// Cloud Run's Go client (REST) creates a service and waits for its
// operation: the service is Ready with its first revision, the defaults
// the API gives filled; a bad id or a service without a container is
// refused and nothing is stored; a service is deleted the same way.
func TestCloudRun_GoClientCreatesAndWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c := runClient(t, e)
	parent := "projects/demo-project/locations/us-central1"
	op, err := c.CreateService(ctx, &runpb.CreateServiceRequest{Parent: parent, ServiceId: "hello",
		Service: &runpb.Service{Template: &runpb.RevisionTemplate{Containers: []*runpb.Container{{Image: "us-docker.pkg.dev/cloudrun/container/hello"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := op.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != parent+"/services/hello" || svc.TerminalCondition.GetType() != "Ready" ||
		svc.TerminalCondition.GetState() != runpb.Condition_CONDITION_SUCCEEDED || !strings.HasPrefix(svc.LatestReadyRevision, svc.Name+"/revisions/hello-00001-") ||
		svc.Ingress != runpb.IngressTraffic_INGRESS_TRAFFIC_ALL || svc.Template.Containers[0].Ports[0].ContainerPort != 8080 ||
		len(svc.Traffic) != 1 || svc.Traffic[0].Percent != 100 || svc.Uri == "" {
		t.Fatalf("created %v", svc)
	}
	got, err := c.GetService(ctx, &runpb.GetServiceRequest{Name: svc.Name})
	if err != nil || got.Uid != svc.Uid || got.Generation != 1 {
		t.Fatalf("read back %v %v", got, err)
	}
	for _, bad := range []struct {
		id, want string
		svc      *runpb.Service
	}{
		{"Bad_Id", `serviceId ("Bad_Id") must be`, &runpb.Service{Template: &runpb.RevisionTemplate{Containers: []*runpb.Container{{Image: "x"}}}}},
		{"empty", "a service runs one container at least", &runpb.Service{Template: &runpb.RevisionTemplate{}}},
	} {
		if _, err := c.CreateService(ctx, &runpb.CreateServiceRequest{Parent: parent, ServiceId: bad.id, Service: bad.svc}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.id, err, bad.want)
		}
	}
	it := c.ListServices(ctx, &runpb.ListServicesRequest{Parent: parent})
	if first, err := it.Next(); err != nil || first.Name != svc.Name {
		t.Fatalf("list: %v %v", first, err)
	}
	if _, err := it.Next(); err == nil {
		t.Fatal("list: more than the one service created")
	}
	del, err := c.DeleteService(ctx, &runpb.DeleteServiceRequest{Name: svc.Name})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := del.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetService(ctx, &runpb.GetServiceRequest{Name: svc.Name}); err == nil {
		t.Fatal("the service is still there after its delete")
	}
}

// A Cloud Run service serves, and a serverless NEG carries an external
// Application Load Balancer's traffic to it: the answer names the service
// and the revision its traffic split chose. A service for internal
// traffic and load balancers only refuses a direct request (404, as Cloud
// Run does), whatever mark the client forges, and answers through the
// load balancer; an internal-only one refuses an external load balancer
// too. A new revision takes the traffic; a deleted service leaves the
// load balancer with no healthy upstream.
func TestCloudRun_ServesThroughServerlessNEG(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, Workloads: true})
	c := runClient(t, e)
	parent := "projects/p/locations/us-central1"
	create := func(id string, ingress runpb.IngressTraffic) *runpb.Service {
		op, err := c.CreateService(ctx, &runpb.CreateServiceRequest{Parent: parent, ServiceId: id, Service: &runpb.Service{Ingress: ingress,
			Template: &runpb.RevisionTemplate{Containers: []*runpb.Container{{Image: "us-docker.pkg.dev/cloudrun/container/hello",
				Ports: []*runpb.ContainerPort{{ContainerPort: int32(freePort(t))}}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := op.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	hello := create("hello", runpb.IngressTraffic_INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER)
	create("private", runpb.IngressTraffic_INGRESS_TRAFFIC_INTERNAL_ONLY)
	for _, id := range []string{"hello", "private"} {
		serverlessService(t, e, id, `{"service":"`+id+`"}`)
	}
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/hello",
		"hostRules":[{"hosts":["private.example"],"pathMatcher":"p"}],"pathMatchers":[{"name":"p","defaultService":"global/backendServices/private"}]}`)

	revision := func(svc *runpb.Service) string {
		return svc.LatestReadyRevision[strings.LastIndex(svc.LatestReadyRevision, "/")+1:]
	}
	want := "ok hello revision " + revision(hello) + " at "
	waitFor(t, "the service answering through the load balancer", func() bool {
		code, _, body := get(t, lb+"/")
		return code == 200 && strings.HasPrefix(body, want)
	})
	// The service's own address, as the load balancer reached it, which
	// the status page lists.
	_, _, body := get(t, lb+"/")
	direct := "http://" + strings.TrimSpace(body[len(want):])
	if _, _, page := get(t, e.URL()+"/"); !strings.Contains(page, "<h2>Cloud Run services</h2>") ||
		!strings.Contains(page, hello.Name+"</td><td>"+strings.TrimPrefix(direct, "http://")) {
		t.Errorf("the status page does not list %s at %s", hello.Name, direct)
	}
	for _, forged := range []string{"", "x"} {
		if code, _, body := get(t, direct+"/", "X-Lbhealth-Via", forged); code != 404 || !strings.Contains(body, "404") {
			t.Errorf("a direct request (mark %q) to an ingress INTERNAL_LOAD_BALANCER service: %d %q, want 404", forged, code, body)
		}
	}
	if code, _, body := get(t, lb+"/", "Host", "private.example"); code != 404 {
		t.Errorf("an external load balancer to an INTERNAL_ONLY service: %d %q, want 404", code, body)
	}

	// Invoker bindings are kept as IAM keeps policies.
	policy, err := c.SetIamPolicy(ctx, &iampb.SetIamPolicyRequest{Resource: hello.Name,
		Policy: &iampb.Policy{Bindings: []*iampb.Binding{{Role: "roles/run.invoker", Members: []string{"allUsers"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: hello.Name}); err != nil || len(got.Bindings) != 1 ||
		got.Bindings[0].Members[0] != "allUsers" || string(got.Etag) != string(policy.Etag) {
		t.Errorf("the policy read back: %v %v", got, err)
	}

	// A new revision takes the traffic.
	hello.Template.Containers[0].Env = []*runpb.EnvVar{{Name: "GREETING", Values: &runpb.EnvVar_Value{Value: "hi"}}}
	op, err := c.UpdateService(ctx, &runpb.UpdateServiceRequest{Service: hello})
	if err != nil {
		t.Fatal(err)
	}
	updated, err := op.Wait(ctx)
	if err != nil || revision(updated) == revision(hello) {
		t.Fatalf("update: %v %v", updated, err)
	}
	if _, err := c.UpdateService(ctx, &runpb.UpdateServiceRequest{Service: hello}); err == nil || !strings.Contains(err.Error(), "etag ("+hello.Etag+") is stale") {
		t.Errorf("an update from a stale read: %v", err)
	}
	if code, _, body := get(t, lb+"/"); code != 200 || !strings.HasPrefix(body, "ok hello revision "+revision(updated)+" at ") {
		t.Errorf("after the update: %d %q, want revision %s", code, body, revision(updated))
	}

	del, err := c.DeleteService(ctx, &runpb.DeleteServiceRequest{Name: hello.Name})
	if err == nil {
		_, err = del.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "no healthy upstream once the service is gone", func() bool { code, _, _ := get(t, lb+"/"); return code == 503 })
	// The timeline tells the service's life: it served, then stopped.
	var changes []string
	for _, ev := range e.Timeline().Read(0, timeline.Filter{Kind: timeline.KindCloudRun, Resource: hello.Name}, 0).Events {
		changes = append(changes, ev.From+">"+ev.To)
	}
	if want := []string{"BOOTING>SERVING", "SERVING>STOPPED"}; !slices.Equal(changes, want) {
		t.Errorf("the timeline of %s: %v, want %v", hello.Name, changes, want)
	}
}

// Cloud Run's v1 (Knative) API, through Google's Go client for it: a
// service is created Ready with the API's defaults, its bad name refused
// with nothing stored, its ingress annotation honoured through a
// serverless NEG, its invoker binding kept; replaced, it serves its new
// revision; after a restart it serves again, and so does a v2 service.
func TestCloudRun_KnativeServiceRunsAndSurvivesARestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	first, err := emulator.Start(ctx, emulator.Config{Listen: "127.0.0.1:0", DataDir: dir, DataPlane: true, Workloads: true})
	if err != nil {
		t.Fatal(err)
	}
	client := func(e *emulator.Emulator) *runv1.APIService {
		c, err := runv1.NewService(ctx, option.WithEndpoint(e.URL()+"/run/us-central1/"), option.WithoutAuthentication())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := client(first)
	port := freePort(t)
	svc := &runv1.Service{ApiVersion: "serving.knative.dev/v1", Kind: "Service",
		Metadata: &runv1.ObjectMeta{Name: "knative", Annotations: map[string]string{"run.googleapis.com/ingress": "internal-and-cloud-load-balancing"}},
		Spec: &runv1.ServiceSpec{Template: &runv1.RevisionTemplate{Spec: &runv1.RevisionSpec{Containers: []*runv1.Container{{Image: "gcr.io/cloudrun/hello",
			Ports: []*runv1.ContainerPort{{ContainerPort: int64(port)}}}}}}}}
	bad := *svc
	bad.Metadata = &runv1.ObjectMeta{Name: "Bad_Name"}
	if _, err := c.Namespaces.Services.Create("namespaces/p", &bad).Do(); err == nil || !strings.Contains(err.Error(), `metadata.name ("Bad_Name")`) {
		t.Errorf("a bad name: %v", err)
	}
	created, err := c.Namespaces.Services.Create("namespaces/p", svc).Do()
	if err != nil {
		t.Fatal(err)
	}
	// Ready is Unknown until the revision's workload has booted, as a
	// client polls for.
	if created.Status.Conditions[0].Type != "Ready" || created.Status.Conditions[0].Status != "Unknown" || created.Metadata.Generation != 1 ||
		created.Spec.Template.Spec.ContainerConcurrency != 80 || created.Spec.Traffic[0].Percent != 100 || !created.Spec.Traffic[0].LatestRevision {
		t.Fatalf("created: %+v %+v", created.Status, created.Spec)
	}
	waitFor(t, "the service Ready", func() bool {
		got, err := c.Namespaces.Services.Get("namespaces/p/services/knative").Do()
		if err != nil || got.Status.Conditions[0].Status != "True" {
			return false
		}
		created = got
		return got.Status.LatestReadyRevisionName == got.Status.LatestCreatedRevisionName
	})
	list, err := c.Namespaces.Services.List("namespaces/p").Do()
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list after a refused create and a create: %v %v", list, err)
	}
	if _, err := c.Projects.Locations.Services.SetIamPolicy("projects/p/locations/us-central1/services/knative",
		&runv1.SetIamPolicyRequest{Policy: &runv1.Policy{Bindings: []*runv1.Binding{{Role: "roles/run.invoker", Members: []string{"allUsers"}}}}}).Do(); err != nil {
		t.Fatal(err)
	}

	serverlessService(t, first, "knative", `{"service":"knative"}`)
	lbPort := freePort(t)
	lb := applicationLB(t, first, lbPort, `{"name":"um","defaultService":"global/backendServices/knative"}`)
	answers := func(lb, revision string) func() bool {
		return func() bool {
			code, _, body := get(t, lb+"/")
			return code == 200 && strings.HasPrefix(body, "ok knative revision "+revision+" at ")
		}
	}
	waitFor(t, "the v1 service through the load balancer", answers(lb, created.Status.LatestReadyRevisionName))
	if code, _, _ := get(t, fmt.Sprintf("http://127.254.0.1:%d/", port)); code != 404 {
		t.Errorf("a direct request to an internal-and-cloud-load-balancing service: %d, want 404", code)
	}

	created.Spec.Template.Spec.Containers[0].Env = []*runv1.EnvVar{{Name: "GREETING", Value: "hi"}}
	replaced, err := c.Namespaces.Services.ReplaceService("namespaces/p/services/knative", created).Do()
	if err != nil {
		t.Fatal(err)
	}
	// The new revision is created; the one ready before it stays ready
	// until it has booted.
	if replaced.Metadata.Generation != 2 || replaced.Status.LatestCreatedRevisionName == created.Status.LatestReadyRevisionName ||
		replaced.Status.LatestReadyRevisionName != created.Status.LatestReadyRevisionName {
		t.Fatalf("replaced: generation %d, revisions %s (ready) %s (created)", replaced.Metadata.Generation,
			replaced.Status.LatestReadyRevisionName, replaced.Status.LatestCreatedRevisionName)
	}
	waitFor(t, "the new revision through the load balancer", answers(lb, replaced.Status.LatestCreatedRevisionName))
	// A replace from a stale read, or of another name, is refused.
	if _, err := c.Namespaces.Services.ReplaceService("namespaces/p/services/knative", created).Do(); err == nil ||
		!strings.Contains(err.Error(), "metadata.resourceVersion ("+created.Metadata.ResourceVersion+") is stale") {
		t.Errorf("a replace from a stale read: %v", err)
	}
	replaced.Metadata.Name = "other"
	if _, err := c.Namespaces.Services.ReplaceService("namespaces/p/services/knative", replaced).Do(); err == nil ||
		!strings.Contains(err.Error(), `metadata.name ("other") must be the service's name, "knative".`) {
		t.Errorf("a replace of another name: %v", err)
	}
	// A v2 service beside it, kept and served again too.
	v2, err := runClient(t, first).CreateService(ctx, &runpb.CreateServiceRequest{Parent: "projects/p/locations/us-central1", ServiceId: "second",
		Service: &runpb.Service{Template: &runpb.RevisionTemplate{Containers: []*runpb.Container{{Image: "hello",
			Ports: []*runpb.ContainerPort{{ContainerPort: int32(freePort(t))}}}}}}})
	if err == nil {
		_, err = v2.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	e := startEmulator(t, emulator.Config{DataDir: dir, DataPlane: true, Workloads: true})
	waitFor(t, "the v1 service through the load balancer after a restart", answers(lb, replaced.Status.LatestCreatedRevisionName))
	waitFor(t, "the v2 service serving again after a restart", func() bool {
		for _, ev := range e.Timeline().Read(0, timeline.Filter{Kind: timeline.KindCloudRun, Resource: "services/second"}, 0).Events {
			if code, _, body := get(t, "http://"+ev.Endpoint+"/"); ev.To == "SERVING" && code == 200 && strings.HasPrefix(body, "ok second revision ") {
				return true
			}
		}
		return false
	})
	policy, err := client(e).Projects.Locations.Services.GetIamPolicy("projects/p/locations/us-central1/services/knative").Do()
	if err != nil || len(policy.Bindings) != 1 || policy.Bindings[0].Members[0] != "allUsers" {
		t.Errorf("the policy after a restart: %v %v", policy, err)
	}
}

// A write is done once the new revision's workload has booted, as the
// cloud's operation is: until then the operation is not done, the service
// reconciles with no ready revision, and a load balancer in front of it
// has no healthy upstream; once the emulator's clock has passed the boot
// time, the operation is done with the service Ready and traffic reaches
// it.
func TestCloudRun_ReadyOnceBooted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, Workloads: true, WorkloadBoot: time.Hour})
	c := runClient(t, e)
	op, err := c.CreateService(ctx, &runpb.CreateServiceRequest{Parent: "projects/p/locations/us-central1", ServiceId: "slow",
		Service: &runpb.Service{Template: &runpb.RevisionTemplate{Containers: []*runpb.Container{{Image: "hello",
			Ports: []*runpb.ContainerPort{{ContainerPort: int32(freePort(t))}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Poll(ctx); err != nil || op.Done() {
		t.Fatalf("the operation before the boot: done %v, %v", op.Done(), err)
	}
	svc, err := c.GetService(ctx, &runpb.GetServiceRequest{Name: "projects/p/locations/us-central1/services/slow"})
	if err != nil || !svc.Reconciling || svc.LatestReadyRevision != "" || svc.TerminalCondition.GetState() != runpb.Condition_CONDITION_RECONCILING {
		t.Fatalf("the service before the boot: %v %v", svc, err)
	}
	serverlessService(t, e, "slow", `{"service":"slow"}`)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/slow"}`)
	waitFor(t, "the load balancer listening", func() bool { code, _, _ := get(t, lb+"/"); return code == 503 })

	e.FastForward(ctx, time.Hour)
	svc, err = op.Wait(ctx)
	if err != nil || svc.Reconciling || svc.LatestReadyRevision != svc.LatestCreatedRevision ||
		svc.TerminalCondition.GetState() != runpb.Condition_CONDITION_SUCCEEDED {
		t.Fatalf("the service once booted: %v %v", svc, err)
	}
	waitFor(t, "traffic reaching the booted service", func() bool {
		code, _, body := get(t, lb+"/")
		return code == 200 && strings.HasPrefix(body, "ok slow revision ")
	})
}

// A serverless NEG's tag reaches the revision the tag names through the
// load balancer; a tag the service does not have is Cloud Run's 404. A
// NEG's URL mask reads the service from each request's host: one that
// names no service gets no healthy upstream.
func TestCloudRun_NEGTagPicksRevision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, Workloads: true})
	c := runClient(t, e)
	op, err := c.CreateService(ctx, &runpb.CreateServiceRequest{Parent: "projects/p/locations/us-central1", ServiceId: "tagged",
		Service: &runpb.Service{Template: &runpb.RevisionTemplate{Containers: []*runpb.Container{{Image: "hello",
			Ports: []*runpb.ContainerPort{{ContainerPort: int32(freePort(t))}}}}},
			Traffic: []*runpb.TrafficTarget{{Type: runpb.TrafficTargetAllocationType_TRAFFIC_TARGET_ALLOCATION_TYPE_LATEST, Percent: 100, Tag: "blue"}}}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := op.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"blue", "nope"} {
		serverlessService(t, e, tag, `{"service":"tagged","tag":"`+tag+`"}`)
	}
	serverlessService(t, e, "masked", `{"urlMask":"<service>.run.example"}`)
	lb := applicationLB(t, e, freePort(t), `{"name":"um","defaultService":"global/backendServices/blue",
		"hostRules":[{"hosts":["nope.example"],"pathMatcher":"p"},{"hosts":["*.run.example"],"pathMatcher":"m"}],
		"pathMatchers":[{"name":"p","defaultService":"global/backendServices/nope"},{"name":"m","defaultService":"global/backendServices/masked"}]}`)
	want := "ok tagged revision " + svc.LatestReadyRevision[strings.LastIndex(svc.LatestReadyRevision, "/")+1:] + " at "
	waitFor(t, "the tagged revision through the load balancer", func() bool {
		code, _, body := get(t, lb+"/")
		return code == 200 && strings.HasPrefix(body, want)
	})
	if code, _, body := get(t, lb+"/", "Host", "nope.example"); code != 404 {
		t.Errorf("a tag the service does not have: %d %q, want 404", code, body)
	}
	if code, _, body := get(t, lb+"/", "Host", "tagged.run.example"); code != 200 || !strings.HasPrefix(body, "ok tagged revision ") {
		t.Errorf("the URL mask's service: %d %q", code, body)
	}
	if code, _, body := get(t, lb+"/", "Host", "missing.run.example"); code != 503 {
		t.Errorf("a URL mask naming no service: %d %q, want 503", code, body)
	}
}

// runClient is Cloud Run v2's Go client (REST) of e.
func runClient(t *testing.T, e *emulator.Emulator) *cloudrun.ServicesClient {
	t.Helper()
	c, err := cloudrun.NewServicesRESTClient(t.Context(), option.WithEndpoint(e.URL()+"/run"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// serverlessService makes a serverless NEG of us-central1, neg-NAME, with
// the cloudRun block given, and an external backend service NAME over it
// (HTTPS: the data plane still speaks plain HTTP to Cloud Run's
// workloads, as the cloud's front end does that hop itself).
func serverlessService(t *testing.T, e *emulator.Emulator, name, cloudRun string) {
	t.Helper()
	mustCall(t, e, "POST", "regions/us-central1/networkEndpointGroups", `{"name":"neg-`+name+`","networkEndpointType":"SERVERLESS","cloudRun":`+cloudRun+`}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"`+name+`","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTPS",
		"backends":[{"group":"regions/us-central1/networkEndpointGroups/neg-`+name+`"}]}`)
}
