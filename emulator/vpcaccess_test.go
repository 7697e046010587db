package emulator_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/api/option"
	"google.golang.org/api/vpcaccess/v1"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// Serverless VPC Access through Google's Go client: a connector is
// created (a finished operation), given the API's defaults (instances
// from the throughput), read, listed and deleted; a bad range or id is
// refused with the field named, and nothing is stored.
func TestVPCAccess_ConnectorsThroughGoClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c, err := vpcaccess.NewService(ctx, option.WithEndpoint(e.URL()+"/vpcaccess/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	parent := "projects/p/locations/us-east1"
	connectors := c.Projects.Locations.Connectors
	for _, bad := range []struct {
		id, want string
		conn     *vpcaccess.Connector
	}{
		{"conn", `ipCidrRange ("10.8.0.0/24") must be an unused IPv4 /28 range`, &vpcaccess.Connector{IpCidrRange: "10.8.0.0/24", Network: "default"}},
		{"conn", `maxThroughput (200) must be a multiple of 100 above minThroughput (300)`, &vpcaccess.Connector{IpCidrRange: "10.8.0.0/28", Network: "default", MinThroughput: 300, MaxThroughput: 200}},
		{"Conn_1", `connectorId ("Conn_1")`, &vpcaccess.Connector{IpCidrRange: "10.8.0.0/28", Network: "default"}},
	} {
		if _, err := connectors.Create(parent, bad.conn).ConnectorId(bad.id).Do(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.conn, err, bad.want)
		}
	}
	if list, err := connectors.List(parent).Do(); err != nil || len(list.Connectors) != 0 {
		t.Fatalf("after refused creates: %v %v", list, err)
	}
	op, err := connectors.Create(parent, &vpcaccess.Connector{IpCidrRange: "10.8.0.0/28", Network: "int-lb-network", MinThroughput: 300, MaxThroughput: 500}).
		ConnectorId("int-lb-vpc-connector").Do()
	if err != nil || !op.Done {
		t.Fatalf("create: %v %v", op, err)
	}
	if again, err := c.Projects.Locations.Operations.Get(op.Name).Do(); err != nil || !again.Done {
		t.Fatalf("the operation read again: %v %v", again, err)
	}
	got, err := connectors.Get(parent + "/connectors/int-lb-vpc-connector").Do()
	if err != nil || got.State != "READY" || got.MinInstances != 3 || got.MaxInstances != 5 || got.MachineType != "e2-micro" ||
		len(got.ConnectedProjects) != 1 || got.ConnectedProjects[0] != "p" {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if _, err := connectors.Delete(got.Name).Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := connectors.Get(got.Name).Do(); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("after the delete: %v", err)
	}
}
