package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func int64p(v int64) *int64 { return &v }

// TestClient_compositeRequests checks what the composite methods send: the
// regional paths, the updateMask query and the fingerprint in the body, a
// requestId on mutations, and getHealth with no body.
func TestClient_compositeRequests(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		uri, q := r.URL.Path, r.URL.Query()
		if uuidV4.MatchString(q.Get("requestId")) {
			q.Set("requestId", "UUID")
		}
		if len(q) > 0 {
			uri += "?" + q.Encode()
		}
		mu.Lock()
		got = append(got, strings.TrimSpace(r.Method+" "+uri+" "+string(body)))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"status":"DONE"}`)
	}))
	defer srv.Close()
	c := New(strings.TrimPrefix(srv.URL, "http://"), "p")
	ctx := context.Background()
	r1 := Scope{Region: "r1"}
	p := &api.HealthAggregationPolicy{HealthyPercentThreshold: int64p(75), Fingerprint: "fp1"}
	if _, err := c.PatchHealthAggregationPolicy(ctx, r1, "pol", p, "healthyPercentThreshold", "description"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PatchHealthSource(ctx, r1, "src", &api.HealthSource{Fingerprint: "fp2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetHealthSourceHealth(ctx, r1, "src"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetCompositeHealthCheckHealth(ctx, r1, "chc"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetCompositeHealthCheckHealth(ctx, r1, ""); err != errNoName {
		t.Errorf("no name: %v, want errNoName", err)
	}
	want := []string{
		`PATCH /compute/v1/projects/p/regions/r1/healthAggregationPolicies/pol?requestId=UUID&updateMask=healthyPercentThreshold%2Cdescription {"healthyPercentThreshold":75,"fingerprint":"fp1"}`,
		"GET /compute/v1/projects/p/regions/r1/healthAggregationPolicies/pol",
		`PATCH /compute/v1/projects/p/regions/r1/healthSources/src?requestId=UUID {"fingerprint":"fp2"}`,
		"GET /compute/v1/projects/p/regions/r1/healthSources/src",
		"POST /compute/v1/projects/p/regions/r1/healthSources/src/getHealth",
		"POST /compute/v1/projects/p/regions/r1/compositeHealthChecks/chc/getHealth",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// startEmulator starts an in-memory emulator for one test.
func startEmulator(t *testing.T) *Client {
	t.Helper()
	e, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Idle keep-alive connections of the default transport would make
		// a graceful Close wait: close them first.
		if tr, ok := http.DefaultTransport.(*http.Transport); ok {
			tr.CloseIdleConnections()
		}
		_ = e.Close()
	})
	return New(e.Addr(), "p")
}

// TestClient_policyFingerprint runs the optimistic locking of aggregation policies
// against the emulator: a stale fingerprint is ErrConditionNotMet and
// changes nothing; a mask resets the masked fields the patch leaves out.
func TestClient_policyFingerprint(t *testing.T) {
	c := startEmulator(t)
	ctx := context.Background()
	r := Scope{Region: "us-central1"}
	p, err := c.InsertHealthAggregationPolicy(ctx, r, &api.HealthAggregationPolicy{Meta: api.Meta{Name: "pol", Description: "d"},
		MinHealthyThreshold: int64p(2)})
	if err != nil {
		t.Fatal(err)
	}
	if *p.HealthyPercentThreshold != 60 || p.PolicyType != api.PolicyTypeBackendService || p.Fingerprint == "" || p.ID == 0 {
		t.Fatalf("inserted policy = %+v, want defaults, a fingerprint and an id", p)
	}
	stale := p.Fingerprint
	p2, err := c.PatchHealthAggregationPolicy(ctx, r, "pol",
		&api.HealthAggregationPolicy{HealthyPercentThreshold: int64p(80), Fingerprint: stale}, "healthyPercentThreshold", "description")
	if err != nil {
		t.Fatal(err)
	}
	if *p2.HealthyPercentThreshold != 80 || *p2.MinHealthyThreshold != 2 || p2.Description != "" || p2.Fingerprint == stale {
		t.Fatalf("after the masked patch: %+v, want 80%%/2, no description and a new fingerprint", p2)
	}
	_, err = c.PatchHealthAggregationPolicy(ctx, r, "pol", &api.HealthAggregationPolicy{HealthyPercentThreshold: int64p(90), Fingerprint: stale})
	var apiErr *APIError
	if !errors.Is(err, ErrConditionNotMet) || !errors.As(err, &apiErr) || apiErr.Code != http.StatusPreconditionFailed {
		t.Fatalf("patch with a stale fingerprint: %v, want 412 conditionNotMet", err)
	}
	_, err = c.PatchHealthAggregationPolicy(ctx, r, "pol", &api.HealthAggregationPolicy{HealthyPercentThreshold: int64p(90)})
	if !errors.Is(err, ErrConditionNotMet) || !errors.As(err, &apiErr) || apiErr.Code != http.StatusPreconditionFailed ||
		!strings.Contains(err.Error(), "fingerprint is required") {
		t.Fatalf("patch without a fingerprint: %v, want 412 conditionNotMet naming the fingerprint", err)
	}
	if got, _ := c.GetHealthAggregationPolicy(ctx, r, "pol"); *got.HealthyPercentThreshold != 80 {
		t.Errorf("refused patches changed the policy: %+v", got)
	}
	if items, err := c.ListHealthAggregationPolicies(ctx, r); err != nil || len(items) != 1 {
		t.Errorf("list = %+v, %v", items, err)
	}
	if err := c.DeleteHealthAggregationPolicy(ctx, r, "pol"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetHealthAggregationPolicy(ctx, r, "pol"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v, want ErrNotFound", err)
	}
}
