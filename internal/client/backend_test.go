package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// recorder answers every request with answer and records method, path and
// body, enough to check the paths and bodies the client sends.
type recorder struct {
	mu       sync.Mutex
	requests []string
	answer   any
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.requests = append(r.requests, strings.TrimSpace(req.Method+" "+req.URL.Path+" "+string(body)))
	r.mu.Unlock()
	_ = json.NewEncoder(w).Encode(r.answer)
}

func newRecorder(t *testing.T, answer any) (*Client, *recorder) {
	t.Helper()
	rec := &recorder{answer: answer}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return New(strings.TrimPrefix(srv.URL, "http://"), "p"), rec
}

func TestClient_scopePaths(t *testing.T) {
	c, rec := newRecorder(t, api.NetworkEndpointGroup{Meta: api.Meta{Name: "neg"}})
	ctx := context.Background()
	for _, scope := range []Scope{{Zone: "z1"}, {Region: "r1"}, {Project: "q", Zone: "z1", Region: "r1"}} {
		if _, err := c.GetNetworkEndpointGroup(ctx, scope, "neg"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetBackendService(ctx, Global, "bs"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /compute/v1/projects/p/zones/z1/networkEndpointGroups/neg",
		"GET /compute/v1/projects/p/regions/r1/networkEndpointGroups/neg",
		"GET /compute/v1/projects/q/zones/z1/networkEndpointGroups/neg", // a zone wins
		"GET /compute/v1/projects/p/global/backendServices/bs",
	}
	if strings.Join(rec.requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests =\n%s\nwant\n%s", strings.Join(rec.requests, "\n"), strings.Join(want, "\n"))
	}
	if (Scope{Zone: "z", Region: "r"}).IsRegional() || !(Scope{Region: "r"}).IsRegional() {
		t.Error("IsRegional: a zone is not a region")
	}
}

func TestClient_GetBackendServiceHealth(t *testing.T) {
	answer := api.BackendServiceGroupHealth{Kind: api.KindBackendServiceGroupHealth,
		HealthStatus: []api.HealthStatus{{IPAddress: "127.0.0.1", Port: 9000, HealthState: "HEALTHY"}}}
	c, rec := newRecorder(t, answer)
	ctx := context.Background()
	got, err := c.GetBackendServiceHealth(ctx, Scope{Region: "r1"}, "bs", "")
	if err != nil || len(got.HealthStatus) != 1 || got.HealthStatus[0].HealthState != "HEALTHY" {
		t.Fatalf("getHealth = %+v, %v", got, err)
	}
	if _, err := c.GetBackendServiceHealth(ctx, Global, "bs", "zones/z/networkEndpointGroups/neg"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetBackendServiceHealth(ctx, Global, "", ""); err != errNoName {
		t.Errorf("no name: %v, want errNoName", err)
	}
	want := []string{
		// No body at all asks for every group.
		"POST /compute/v1/projects/p/regions/r1/backendServices/bs/getHealth",
		`POST /compute/v1/projects/p/global/backendServices/bs/getHealth {"group":"zones/z/networkEndpointGroups/neg"}`,
	}
	if strings.Join(rec.requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests =\n%s\nwant\n%s", strings.Join(rec.requests, "\n"), strings.Join(want, "\n"))
	}
}
