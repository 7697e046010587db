package client

import (
	"context"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestClient_legacyPaths: legacy checks are global whatever the scope says,
// one method serves both collections; target pools and forwarding rules
// follow the scope.
func TestClient_legacyPaths(t *testing.T) {
	c, rec := newRecorder(t, api.Operation{Kind: api.KindOperation, Status: "DONE"})
	ctx := context.Background()
	hc := &api.LegacyHealthCheck{Meta: api.Meta{Name: "lh"}}
	if _, err := c.InsertLegacyHealthCheck(ctx, Scope{Project: "q", Region: "r1"}, api.CollectionHTTPSHealthChecks, hc); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteLegacyHealthCheck(ctx, Global, api.CollectionHTTPHealthChecks, "lh"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTargetPool(ctx, Scope{Region: "r1"}, "tp"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetForwardingRule(ctx, Global, "fr"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetForwardingRule(ctx, Scope{Region: "r1"}, "fr"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`POST /compute/v1/projects/q/global/httpsHealthChecks {"name":"lh"}`,
		"GET /compute/v1/projects/q/global/httpsHealthChecks/lh",
		"DELETE /compute/v1/projects/p/global/httpHealthChecks/lh",
		"GET /compute/v1/projects/p/regions/r1/targetPools/tp",
		"GET /compute/v1/projects/p/global/forwardingRules/fr",
		"GET /compute/v1/projects/p/regions/r1/forwardingRules/fr",
	}
	if strings.Join(rec.requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests =\n%s\nwant\n%s", strings.Join(rec.requests, "\n"), strings.Join(want, "\n"))
	}
}

func TestClient_GetTargetPoolHealth(t *testing.T) {
	answer := api.TargetPoolInstanceHealth{Kind: api.KindTargetPoolInstanceHealth,
		HealthStatus: []api.HealthStatus{{IPAddress: "127.0.0.1", Port: 9000, Instance: "127.0.0.1:9000", HealthState: "HEALTHY"}}}
	c, rec := newRecorder(t, answer)
	ctx := context.Background()
	got, err := c.GetTargetPoolHealth(ctx, Scope{Region: "r1"}, "tp", "")
	if err != nil || len(got.HealthStatus) != 1 || got.HealthStatus[0].Instance != "127.0.0.1:9000" {
		t.Fatalf("getHealth = %+v, %v", got, err)
	}
	if _, err := c.GetTargetPoolHealth(ctx, Scope{Region: "r1"}, "tp", "127.0.0.1:9000"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTargetPoolHealth(ctx, Scope{Region: "r1"}, "", ""); err != errNoName {
		t.Errorf("no name: %v, want errNoName", err)
	}
	want := []string{
		// No body at all asks for every instance.
		"POST /compute/v1/projects/p/regions/r1/targetPools/tp/getHealth",
		`POST /compute/v1/projects/p/regions/r1/targetPools/tp/getHealth {"instance":"127.0.0.1:9000"}`,
	}
	if strings.Join(rec.requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests =\n%s\nwant\n%s", strings.Join(rec.requests, "\n"), strings.Join(want, "\n"))
	}
}
