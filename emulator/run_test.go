package emulator_test

import (
	"context"
	"strings"
	"testing"

	cloudrun "cloud.google.com/go/run/apiv2"
	"cloud.google.com/go/run/apiv2/runpb"
	"google.golang.org/api/option"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// Cloud Run's Go client (REST) creates a service and waits for its
// operation: the service is Ready with its first revision, the defaults
// the API gives filled; a bad id or a service without a container is
// refused and nothing is stored; a service is deleted the same way.
func TestCloudRun_GoClientCreatesAndWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c, err := cloudrun.NewServicesRESTClient(ctx, option.WithEndpoint(e.URL()+"/run"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
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
