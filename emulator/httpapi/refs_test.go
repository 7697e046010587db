package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const region = "/compute/v1/projects/p/regions/r/"

// A change that breaks the rule of an indirect user is refused: a health
// source reads the endpoint types of its service's groups, so a group may
// not become NON_GCP_PRIVATE_IP_PORT under it, though the health source
// does not reference the group itself.
func TestRecheck_IndirectUsers(t *testing.T) {
	e := newEmu(t)
	e.insert(region+"healthChecks", `{"name": "hc", "tcpHealthCheck": {"port": 80}}`)
	e.insert(region+"networkEndpointGroups", `{"name": "neg", "networkEndpointType": "GCE_VM_IP_PORT", "defaultPort": 80}`)
	e.insert(region+"backendServices", `{"name": "bs", "loadBalancingScheme": "INTERNAL_MANAGED",
		"backends": [{"group": "regions/r/networkEndpointGroups/neg"}], "healthChecks": ["hc"]}`)
	e.insert(region+"healthAggregationPolicies", `{"name": "policy"}`)
	e.insert(region+"healthSources", `{"name": "src", "sourceType": "BACKEND_SERVICE", "sources": ["bs"], "healthAggregationPolicy": "policy"}`)

	msg := e.fail("PUT", region+"networkEndpointGroups/neg", `{"name": "neg", "networkEndpointType": "NON_GCP_PRIVATE_IP_PORT", "defaultPort": 80}`,
		400, api.ReasonInvalid)
	for _, want := range []string{"projects/p/regions/r/healthSources/src uses projects/p/regions/r/networkEndpointGroups/neg",
		"(through projects/p/regions/r/backendServices/bs)", "GCE_VM_IP or GCE_VM_IP_PORT"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	var g api.NetworkEndpointGroup
	e.ok("GET", region+"networkEndpointGroups/neg", "", &g)
	if g.NetworkEndpointType != api.GCEVMIPPort {
		t.Errorf("the refused change was stored: %s", g.NetworkEndpointType)
	}
	// A change that keeps every rule is fine.
	e.ok("PUT", region+"networkEndpointGroups/neg", `{"name": "neg", "networkEndpointType": "GCE_VM_IP", "description": "x"}`, nil)
}

// Whether a resource is in use follows every write: a reference moved away
// frees the old target, a reset forgets every reference.
func TestDelete_InUseFollowsEveryWrite(t *testing.T) {
	e := newEmu(t)
	e.insert(globalHC, `{"name": "one", "tcpHealthCheck": {}}`)
	e.insert(globalHC, `{"name": "two", "tcpHealthCheck": {}}`)
	const services = "/compute/v1/projects/p/global/backendServices"
	e.insert(services, `{"name": "bs", "healthChecks": ["one"]}`)
	if msg := e.fail("DELETE", globalHC+"/one", "", 400, api.ReasonResourceInUse); !strings.Contains(msg, "projects/p/global/backendServices/bs") {
		t.Errorf("in use: %q does not name the user", msg)
	}
	e.ok("PATCH", services+"/bs", `{"healthChecks": ["two"]}`, nil)
	e.ok("DELETE", globalHC+"/one", "", nil)
	e.fail("DELETE", globalHC+"/two", "", 400, api.ReasonResourceInUse)
	e.ok("DELETE", services+"/bs", "", nil)
	e.ok("DELETE", globalHC+"/two", "", nil)

	e.insert(globalHC, `{"name": "three", "tcpHealthCheck": {}}`)
	e.insert(services, `{"name": "bs", "healthChecks": ["three"]}`)
	e.ok("POST", "/_emulator/reset", "", nil)
	e.insert(globalHC, `{"name": "three", "tcpHealthCheck": {}}`)
	e.ok("DELETE", globalHC+"/three", "", nil)
}

// server serves an API over st with a logger that keeps what it logs.
func server(t *testing.T, st store.Store) (*httpapi.Server, *emu, *strings.Builder) {
	t.Helper()
	return serverWith(t, st, httpapi.Options{})
}

// serverWith is server built with options o (RootURL and Log are its own).
func serverWith(t *testing.T, st store.Store, o httpapi.Options) (*httpapi.Server, *emu, *strings.Builder) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	root := "http://" + ts.Listener.Addr().String()
	var logs strings.Builder
	o.RootURL, o.Log = root, slog.New(slog.NewTextHandler(&lockedBuilder{b: &logs}, nil))
	srv := httpapi.New(st, o)
	ts.Config.Handler = srv
	ts.Start()
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	return srv, &emu{t: t, url: root, store: st}, &logs
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedBuilder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// Operations are kept up to the maximum, the oldest dropped first from the
// store too, and GET of a dropped one says why it is gone.
func TestOperations_KeptUpToTheMaximum(t *testing.T) {
	st := store.NewMemory()
	_, e, _ := serverWith(t, st, httpapi.Options{OperationsTTL: time.Hour, OperationsMax: 3})
	var ops []api.Operation
	for i := range 5 {
		ops = append(ops, e.insert(globalHC, fmt.Sprintf(`{"name": "hc-%d", "tcpHealthCheck": {}}`, i)))
	}
	for i, op := range ops {
		path := e.path(op.SelfLink)
		if i < 2 {
			msg := e.fail("GET", path, "", 404, api.ReasonNotFound)
			if !strings.Contains(msg, "at most 3") || !strings.Contains(msg, "1h0m0s") || !strings.Contains(msg, "--operations-max") {
				t.Errorf("dropped operation: %q, want the retention and the flags", msg)
			}
			continue
		}
		e.ok("GET", path, "", nil)
	}
	if all, _ := st.All(context.Background(), "operations"); len(all) != 3 {
		t.Errorf("%d operations stored, want 3", len(all))
	}
}

// failingDurability is a store whose commits fail once told to.
type failingDurability struct {
	*store.Memory
	fail atomic.Bool
}

func (f *failingDurability) WaitDurable(ctx context.Context) error {
	if f.fail.Load() {
		return fmt.Errorf("%w: writing the database failed: disk full", store.ErrUnavailable)
	}
	return nil
}

// A write that cannot be made durable fails with a storage error (and says
// so in the log), while a client's mistake stays a client's mistake.
func TestDurable_FailedCommitFailsTheRequest(t *testing.T) {
	st := &failingDurability{Memory: store.NewMemory()}
	_, e, logs := server(t, st)
	e.insert(globalHC, `{"name": "before", "tcpHealthCheck": {}}`)
	st.fail.Store(true)
	msg := e.fail("POST", globalHC, `{"name": "after", "tcpHealthCheck": {}}`, http.StatusInternalServerError, api.ReasonBackendError)
	if !strings.Contains(msg, "could not save this change") {
		t.Errorf("message %q does not say the change was not saved", msg)
	}
	if !strings.Contains(logs.String(), "disk full") {
		t.Errorf("the log does not give the cause:\n%s", logs)
	}
	e.fail("POST", globalHC, `{"name": "Bad Name"}`, 400, api.ReasonInvalid)
	e.ok("GET", globalHC+"/before", "", nil) // reads still answer
	if !errors.Is(st.WaitDurable(context.Background()), store.ErrUnavailable) {
		t.Fatal("test store broken")
	}
}

// A reference the emulator stores without following (a machine type, an
// accelerator type, a service LB policy) is answered as the API answers
// it: the full self link on this emulator, whatever form was sent; a bare
// name and a resource of another API stay as written.
func TestUnfollowedReferencesAreAnsweredAsSelfLinks(t *testing.T) {
	e := newEmu(t)
	e.insert(instancesPath, `{"name": "vm", "machineType": "zones/us-east1-b/machineTypes/e2-small",
		"guestAccelerators": [{"acceleratorType": "https://www.googleapis.com/compute/beta/projects/p/zones/us-east1-b/acceleratorTypes/nvidia-l4", "acceleratorCount": 1}]}`)
	var vm map[string]any
	e.ok("GET", instancesPath+"/vm", "", &vm)
	if got := vm["machineType"]; got != e.url+"/compute/v1/projects/p/zones/us-east1-b/machineTypes/e2-small" {
		t.Errorf("machineType = %v, want the full self link", got)
	}
	acc := vm["guestAccelerators"].([]any)[0].(map[string]any)
	if got := acc["acceleratorType"]; got != e.url+"/compute/v1/projects/p/zones/us-east1-b/acceleratorTypes/nvidia-l4" {
		t.Errorf("acceleratorType = %v, want this emulator's v1 self link", got)
	}

	e.insert("/compute/v1/projects/p/regions/us-east1/backendServices", `{"name": "bs", "loadBalancingScheme": "INTERNAL_MANAGED",
		"serviceLbPolicy": "projects/p/locations/us-east1/serviceLbPolicies/lb", "localityLbPolicy": "ROUND_ROBIN"}`)
	var bs map[string]any
	e.ok("GET", "/compute/v1/projects/p/regions/us-east1/backendServices/bs", "", &bs)
	if bs["serviceLbPolicy"] != "projects/p/locations/us-east1/serviceLbPolicies/lb" || bs["localityLbPolicy"] != "ROUND_ROBIN" {
		t.Errorf("serviceLbPolicy = %v, localityLbPolicy = %v: a reference to another API and a plain value stay as written", bs["serviceLbPolicy"], bs["localityLbPolicy"])
	}
}
