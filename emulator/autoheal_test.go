package emulator_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// managedTarget serves HTTP at the one address of a /30 managed-instance
// range (its first host), answering status.
type managedTarget struct {
	status atomic.Int32
	port   int
}

func startManagedTarget(t *testing.T, ip string) *managedTarget {
	t.Helper()
	mt := &managedTarget{}
	mt.status.Store(200)
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	mt.port = l.Addr().(*net.TCPAddr).Port
	s := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(int(mt.status.Load()))
	})}}
	s.Start()
	t.Cleanup(s.Close)
	return mt
}

// managedSetup makes a one-instance managed group whose autohealing check
// probes port, with initial delay delay and hook hook ("" for none).
func managedSetup(t *testing.T, ip string, port, delay int, hook string) (*emulator.Emulator, string) {
	t.Helper()
	cfg := emulator0()
	cfg.ManagedInstanceRange = netip.MustParsePrefix(ip + "/30").Masked()
	e := startEmulator(t, cfg)
	mustCall(t, e, "POST", "global/healthChecks", fmt.Sprintf(`{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
		"unhealthyThreshold": 1, "httpHealthCheck": {"port": %d}}`, port))
	mustCall(t, e, "POST", "global/instanceTemplates", `{"name": "web", "properties": {"networkInterfaces": [{}]}}`)
	mustCall(t, e, "POST", "zones/us-east1-b/instanceGroupManagers", fmt.Sprintf(`{"name": "mig", "baseInstanceName": "web",
		"instanceTemplate": "global/instanceTemplates/web", "targetSize": 1,
		"autoHealingPolicies": [{"healthCheck": "global/healthChecks/hc", "initialDelaySec": %d, "hookUrl": %q}]}`, delay, hook))
	return e, "zones/us-east1-b/instanceGroupManagers/mig"
}

func managed(t *testing.T, e *emulator.Emulator, mig string) api.ManagedInstance {
	t.Helper()
	var out api.ListManagedInstancesResponse
	apiCall(t, e, "POST", mig+"/listManagedInstances", "", &out)
	if len(out.ManagedInstances) != 1 {
		t.Fatalf("managed instances: %+v, want one", out)
	}
	return out.ManagedInstances[0]
}

func healthOf(mi api.ManagedInstance) string {
	if len(mi.InstanceHealth) == 0 {
		return ""
	}
	return mi.InstanceHealth[0].DetailedHealthState
}

// TestAutohealing_RecreatesAnUnhealthyInstance: an instance the autohealing
// check finds UNHEALTHY is recreated (RECREATING, then VERIFYING with a
// new id, then NONE once HEALTHY again), and the group's hook is called,
// here restarting the broken server.
func TestAutohealing_RecreatesAnUnhealthyInstance(t *testing.T) {
	t.Parallel()
	const ip = "127.1.9.1"
	target := startManagedTarget(t, ip)
	var hooked atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hooked.Add(1)
		target.status.Store(200) // the "restart" of the process behind the instance
	}))
	t.Cleanup(hook.Close)
	e, mig := managedSetup(t, ip, target.port, 0, hook.URL)

	waitFor(t, "the instance HEALTHY", func() bool { return healthOf(managed(t, e, mig)) == "HEALTHY" })
	first := managed(t, e, mig)
	var in api.Instance
	apiCall(t, e, "GET", "zones/us-east1-b/instances/"+first.Name, "", &in)
	if in.PrimaryIP() != ip {
		t.Fatalf("instance address %q, want %s from the managed-instance range", in.PrimaryIP(), ip)
	}

	target.status.Store(500)
	seen := map[string]bool{}
	waitFor(t, "recreated, verified and HEALTHY again", func() bool {
		mi := managed(t, e, mig)
		seen[mi.CurrentAction] = true
		return mi.ID != first.ID && mi.CurrentAction == "NONE" && healthOf(mi) == "HEALTHY"
	})
	if !seen["RECREATING"] && !seen["VERIFYING"] {
		t.Errorf("actions seen %v, want RECREATING or VERIFYING on the way", seen)
	}
	if hooked.Load() == 0 {
		t.Error("the hook was not called")
	}
	// The timeline has each step, in order, for the instance.
	var steps []string
	for _, ev := range e.Timeline().Read(0, timeline.Filter{Kind: timeline.KindInstance}, 0).Events {
		if strings.HasSuffix(ev.Resource, "/instances/"+first.Name) && strings.HasSuffix(ev.Group, mig) {
			steps = append(steps, ev.From+">"+ev.To)
		}
	}
	if got := strings.Join(steps, " "); got != "NONE>RECREATING RECREATING>VERIFYING VERIFYING>NONE" {
		t.Errorf("the instance's steps on the timeline: %q", got)
	}
	if mi := managed(t, e, mig); mi.Name != first.Name {
		t.Errorf("recreated as %s, want the same name %s", mi.Name, first.Name)
	}
	var m api.InstanceGroupManager
	apiCall(t, e, "GET", mig, "", &m)
	if m.Status == nil || !m.Status.IsStable || m.Status.RecreateLoop != "" {
		t.Errorf("status %+v, want stable and no loop", m.Status)
	}
}

// TestAutohealing_ReportsARecreateLoop: an instance that never passes its
// check (an initial delay shorter than its start-up, here forever) is
// recreated again and again; the group's status names the loop.
func TestAutohealing_ReportsARecreateLoop(t *testing.T) {
	t.Parallel()
	const ip = "127.1.9.5"
	target := startManagedTarget(t, ip)
	target.status.Store(500)
	e, mig := managedSetup(t, ip, target.port, 0, "")
	waitFor(t, "a recreate loop in the group's status", func() bool {
		var m api.InstanceGroupManager
		apiCall(t, e, "GET", mig, "", &m)
		return m.Status != nil && m.Status.RecreateLoop != ""
	})
	var m api.InstanceGroupManager
	apiCall(t, e, "GET", mig, "", &m)
	name := managed(t, e, mig).Name
	for _, part := range []string{"instance " + name + " was recreated", "times in a row without passing hc", "initialDelaySec (0)"} {
		if !strings.Contains(m.Status.RecreateLoop, part) {
			t.Errorf("recreateLoop %q does not say %q", m.Status.RecreateLoop, part)
		}
	}
	if page := statusPageText(t, e); !strings.Contains(page, "RECREATE LOOP") || !strings.Contains(page, "instance "+name+" was recreated") {
		t.Errorf("the status page does not show the recreate loop:\n%s", page)
	}
}

// TestAutohealing_ThroughTheTargetSimulator: the target simulator stands in
// for a managed instance (it listens at the instance's address); broken
// through its control API, the instance is detected UNHEALTHY, recreated,
// and the group's hook, the simulator's recover endpoint, mends it: the
// instance is verified HEALTHY again.
func TestAutohealing_ThroughTheTargetSimulator(t *testing.T) {
	t.Parallel()
	const ip = "127.1.9.9"
	sim, err := targets.Start(context.Background(), targets.Config{Host: ip, HTTP: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	target := sim.Targets()[0]
	_, port, _ := net.SplitHostPort(target.Addr())
	p, _ := strconv.Atoi(port)
	hook := sim.ControlURL() + "/targets/" + target.Name + "/recover"
	e, mig := managedSetup(t, ip, p, 0, hook)

	waitFor(t, "the instance HEALTHY", func() bool { return healthOf(managed(t, e, mig)) == "HEALTHY" })
	first := managed(t, e, mig)
	if err := sim.SetMode(target.Name, targets.ModeStatus500); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "recreated, mended by the hook, verified HEALTHY", func() bool {
		mi := managed(t, e, mig)
		return mi.ID != first.ID && mi.CurrentAction == "NONE" && healthOf(mi) == "HEALTHY"
	})
	if m := sim.Targets()[0].Mode(); m != targets.ModeOK {
		t.Errorf("simulator target mode %s, want ok (the hook recovered it)", m)
	}
}

// TestManagedGroups_RemakeAnInstanceDeletedByHand: a managed group keeps
// its target size: an instance deleted by hand is made again.
func TestManagedGroups_RemakeAnInstanceDeletedByHand(t *testing.T) {
	t.Parallel()
	const ip = "127.1.9.13"
	target := startManagedTarget(t, ip)
	e, mig := managedSetup(t, ip, target.port, 0, "")
	first := managed(t, e, mig)
	mustCall(t, e, "DELETE", "zones/us-east1-b/instances/"+first.Name, "")
	waitFor(t, "a new instance in the group", func() bool {
		var out api.ListManagedInstancesResponse
		apiCall(t, e, "POST", mig+"/listManagedInstances", "", &out)
		return len(out.ManagedInstances) == 1 && out.ManagedInstances[0].ID != first.ID
	})
}

// statusPageText is the status page (GET /) as served.
func statusPageText(t *testing.T, e *emulator.Emulator) string {
	t.Helper()
	return getText(t, e, "/")
}

// metricsText is GET /metrics as served.
func metricsText(t *testing.T, e *emulator.Emulator) string {
	t.Helper()
	return getText(t, e, "/metrics")
}

func getText(t *testing.T, e *emulator.Emulator, path string) string {
	t.Helper()
	resp, err := http.Get(e.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", path, resp.Status, err)
	}
	return string(body)
}
