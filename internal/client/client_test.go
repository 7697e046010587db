package client

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8686":         "http://127.0.0.1:8686",
		"http://localhost:9000/": "http://localhost:9000",
		"https://emu.example":    "https://emu.example",
		"":                       "http://" + DefaultEndpoint,
		" [::1]:8686 ":           "http://[::1]:8686",
	} {
		if got := BaseURL(in); got != want {
			t.Errorf("BaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAPIError_Is(t *testing.T) {
	tests := []struct {
		err  *APIError
		want error
	}{
		{&APIError{Code: 404, Reason: api.ReasonNotFound}, ErrNotFound},
		{&APIError{Code: 404}, ErrNotFound},
		{&APIError{Code: 409, Reason: api.ReasonAlreadyExists}, ErrAlreadyExists},
		{&APIError{Code: 400, Reason: api.ReasonResourceInUse}, ErrInUse},
		{&APIError{Code: 412, Reason: api.ReasonConditionNotMet}, ErrConditionNotMet},
		{&APIError{Code: 400, Reason: api.ReasonInvalid}, ErrInvalid},
	}
	all := []error{ErrNotFound, ErrAlreadyExists, ErrInUse, ErrConditionNotMet, ErrInvalid}
	for _, tt := range tests {
		for _, sentinel := range all {
			if got := errors.Is(tt.err, sentinel); got != (sentinel == tt.want) {
				t.Errorf("errors.Is(%+v, %v) = %v", tt.err, sentinel, got)
			}
		}
	}
}

// uuidV4 matches a random UUID, the form of the API's requestId.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// fakeServer is a tiny in-memory health-check collection, enough to check
// the client's paths, methods, paging and error decoding.
type fakeServer struct {
	mu       sync.Mutex
	items    map[string]api.HealthCheck
	requests []string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	if r.Method != http.MethodGet && !uuidV4.MatchString(r.URL.Query().Get("requestId")) {
		writeErr(w, 400, api.ReasonInvalid, "mutation without a requestId: "+r.URL.RequestURI())
		return
	}
	const coll = "/compute/v1/projects/p/regions/r1/healthChecks"
	name := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, coll), "/")
	switch {
	case r.Method == http.MethodPost && name == "":
		var hc api.HealthCheck
		_ = json.NewDecoder(r.Body).Decode(&hc)
		if _, ok := f.items[hc.Name]; ok {
			writeErr(w, 409, api.ReasonAlreadyExists, "The resource 'x' already exists")
			return
		}
		hc.ID = 42
		f.items[hc.Name] = hc
		_ = json.NewEncoder(w).Encode(api.Operation{Status: "DONE"})
	case r.Method == http.MethodGet && name == "":
		page := api.List[api.HealthCheck]{Items: []api.HealthCheck{{Meta: api.Meta{Name: "a"}}}, NextPageToken: "t1"}
		if r.URL.Query().Get("pageToken") == "t1" {
			page = api.List[api.HealthCheck]{Items: []api.HealthCheck{{Meta: api.Meta{Name: "b"}}}}
		}
		_ = json.NewEncoder(w).Encode(page)
	case r.Method == http.MethodGet:
		hc, ok := f.items[name]
		if !ok {
			writeErr(w, 404, api.ReasonNotFound, "not found")
			return
		}
		_ = json.NewEncoder(w).Encode(hc)
	default:
		writeErr(w, 400, api.ReasonInvalid, "checkIntervalSec (0) must be between 1 and 300.")
	}
}

func writeErr(w http.ResponseWriter, code int, reason, msg string) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(api.ErrorBody{Error: api.ErrorDetail{Code: code, Message: msg,
		Errors: []api.ErrorItem{{Reason: reason, Message: msg}}}})
}

func TestClient_healthChecks(t *testing.T) {
	fake := &fakeServer{items: map[string]api.HealthCheck{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := New(strings.TrimPrefix(srv.URL, "http://"), "p")
	ctx := context.Background()
	scope := Scope{Region: "r1"}

	got, err := c.InsertHealthCheck(ctx, scope, &api.HealthCheck{Meta: api.Meta{Name: "hc"}})
	if err != nil || got.ID != 42 {
		t.Fatalf("insert = %+v, %v; want the object read back with id 42", got, err)
	}
	if _, err := c.InsertHealthCheck(ctx, scope, &api.HealthCheck{Meta: api.Meta{Name: "hc"}}); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("second insert: %v, want ErrAlreadyExists", err)
	}
	if _, err := c.GetHealthCheck(ctx, scope, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("get missing: %v, want ErrNotFound", err)
	}
	_, err = c.UpdateHealthCheck(ctx, scope, &api.HealthCheck{Meta: api.Meta{Name: "hc"}})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "checkIntervalSec (0) must be between 1 and 300." || !errors.Is(err, ErrInvalid) {
		t.Errorf("update: %v, want the emulator's message verbatim", err)
	}
	items, err := c.ListHealthChecks(ctx, scope)
	if err != nil || len(items) != 2 || items[1].Name != "b" {
		t.Errorf("list = %+v, %v; want both pages", items, err)
	}
	want := []string{
		"POST /compute/v1/projects/p/regions/r1/healthChecks",
		"GET /compute/v1/projects/p/regions/r1/healthChecks/hc",
	}
	for i, w := range want {
		if fake.requests[i] != w {
			t.Errorf("request %d = %q, want %q", i, fake.requests[i], w)
		}
	}
}

func TestClient_unreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now

	c := New(addr, "p", WithEndpointSource("LBHEALTH_EMULATOR_HOST"))
	c.retry.backoff = time.Millisecond
	_, err = c.GetHealthCheck(context.Background(), Global, "hc")
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("err = %v, want *UnreachableError", err)
	}
	for _, want := range []string{"http://" + addr, "LBHEALTH_EMULATOR_HOST", "connection refused",
		"Is lbhealth-emulator running there?", `"lbhealth-emulator --listen ` + addr + `"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
}
