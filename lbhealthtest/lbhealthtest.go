// Package lbhealthtest starts an lbhealth emulator, and targets to probe,
// inside a Go test, and gives the test what it needs to drive and to
// judge them: the endpoints to point Terraform or Google's client at, waits
// that end when health is as wanted, the timeline of what happened, and
// chaos scenarios. Everything started is stopped by t.Cleanup.
//
//	emu := lbhealthtest.Start(t)
//	sim := lbhealthtest.StartTargets(t, targets.Config{HTTP: 3})
//	// ... apply a configuration against emu.ComputeEndpoint() ...
//	emu.WaitHealthy(t, lbhealthtest.BackendService("projects/p/global/backendServices/web"), time.Minute)
//	emu.RunScenario(t, `{"name": "break", "steps": [{"at": "0s", "target": "`+sim.ControlURL()+`/targets/http-1", "mode": "status-500"}]}`)
//	down := emu.WaitEvent(t, 0, lbhealthtest.Unhealthy(sim.Targets()[0].Addr()), time.Minute)
//	// ... heal it ...
//	emu.WaitEvent(t, down.Seq, lbhealthtest.HealthyAgain(sim.Targets()[0].Addr()), time.Minute)
package lbhealthtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/scenario"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// poll is how often the waits read again.
const poll = 100 * time.Millisecond

// Emulator is an emulator running in the test's process, in memory, on a
// free loopback port.
type Emulator struct {
	*emulator.Emulator
	client *client.Client
}

// Start starts an emulator for t, with configure (if given) changing its
// configuration first; it is closed when the test ends. The data plane
// and the simulated workloads are on, as in the command.
func Start(t testing.TB, configure ...func(*emulator.Config)) *Emulator {
	t.Helper()
	cfg := emulator.Config{InMemory: true, DataPlane: true, Workloads: true}
	for _, f := range configure {
		f(&cfg)
	}
	cfg.Listen = "127.0.0.1:0"
	e, err := emulator.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("lbhealthtest: starting the emulator: %v", err)
	}
	t.Cleanup(func() {
		// A provider served in this process keeps connections its client
		// dialed and never used; the server counts each as busy for a
		// while, so a graceful Close would wait on them: close them first.
		client.CloseIdleConnections()
		if err := e.Close(); err != nil {
			t.Errorf("lbhealthtest: closing the emulator: %v", err)
		}
	})
	return &Emulator{Emulator: e, client: client.New(e.URL(), "", client.WithToken(cfg.Token), client.WithUserAgent("lbhealthtest"))}
}

// ComputeEndpoint is the Compute API's base URL, for the compute_custom_endpoint
// of hashicorp/google or option.WithEndpoint of Google's Go client.
func (e *Emulator) ComputeEndpoint() string { return e.URL() + "/compute/v1/" }

// GoogleProvider is a provider block that points hashicorp/google at the
// emulator, for project: its Compute API and the APIs beside it.
func (e *Emulator) GoogleProvider(project string) string {
	var b strings.Builder
	b.WriteString("provider \"google\" {\n")
	fmt.Fprintf(&b, "  %s = %q\n  %s = %q\n  %s = %q\n", "project", project, "access_token", "lbhealthtest", "universe_domain", "emulator.invalid")
	for _, ep := range api.ProviderEndpoints {
		fmt.Fprintf(&b, "  %s = %q\n", ep.Attribute, e.URL()+ep.Path)
	}
	b.WriteString("}\n")
	return b.String()
}

// LbhealthProvider is a provider block that points the lbhealth provider
// at the emulator, for project.
func (e *Emulator) LbhealthProvider(project string) string {
	return `provider "lbhealth" {
  endpoint = "` + e.URL() + `"
  project  = "` + project + `"
}
`
}

// Healthy is what WaitHealthy waits for: the backend service, target pool
// or composite check at a path, one of them.
type Healthy struct {
	BackendService, TargetPool, CompositeCheck string
	// MinHealthy is how many endpoints must be HEALTHY; 0: every one (and
	// at least one). A composite check must be HEALTHY.
	MinHealthy int64
}

// BackendService waits until every endpoint of the backend service at
// path (projects/p/global/backendServices/web, or regions/r/ in place of
// global/) is HEALTHY; set MinHealthy for fewer.
func BackendService(path string) Healthy { return Healthy{BackendService: path} }

// TargetPool waits until every instance of the target pool at path is
// HEALTHY.
func TargetPool(path string) Healthy { return Healthy{TargetPool: path} }

// CompositeCheck waits until the composite health check at path is
// HEALTHY.
func CompositeCheck(path string) Healthy { return Healthy{CompositeCheck: path} }

// WaitHealthy waits until what h names is healthy, and fails the test
// after timeout, saying what it saw.
func (e *Emulator) WaitHealthy(t testing.TB, h Healthy, timeout time.Duration) {
	t.Helper()
	w := client.WaitTarget{BackendService: h.BackendService, TargetPool: h.TargetPool, CompositeCheck: h.CompositeCheck, MinHealthy: h.MinHealthy}
	if _, err := e.client.WaitHealthy(t.Context(), w, timeout, poll); err != nil {
		t.Fatalf("lbhealthtest: %v", err)
	}
}

// Events is the timeline since the emulator started, as filter selects it.
func (e *Emulator) Events(filter timeline.Filter) []timeline.Event {
	return e.Timeline().Read(0, filter, 0).Events
}

// WaitEvent waits for the first event of the timeline after since (the
// Seq of an event WaitEvent returned, or 0 for the timeline's start) that
// match accepts, and returns it; it fails the test after timeout. Give
// the Seq of the change that broke an endpoint to wait for it to heal:
// from the start, HealthyAgain matches its first HEALTHY.
func (e *Emulator) WaitEvent(t testing.TB, since uint64, match func(timeline.Event) bool, timeout time.Duration) timeline.Event {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed := e.Timeline().Changed()
		page := e.Timeline().Read(since, timeline.Filter{}, 0)
		for _, ev := range page.Events {
			if match(ev) {
				return ev
			}
		}
		since = page.Next
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("lbhealthtest: no event on the timeline matched in %s (%d events in all)", timeout, page.Next)
		case <-t.Context().Done():
			t.Fatalf("lbhealthtest: the test ended while waiting for an event")
		}
	}
}

// Unhealthy matches the change of the endpoint at addr (ip:port) to
// UNHEALTHY.
func Unhealthy(addr string) func(timeline.Event) bool {
	return endpointTo(addr, api.StateHealthy, false)
}

// HealthyAgain matches the change of the endpoint at addr (ip:port) to
// HEALTHY: wait for it after the Seq of its change to UNHEALTHY.
func HealthyAgain(addr string) func(timeline.Event) bool {
	return endpointTo(addr, api.StateHealthy, true)
}

func endpointTo(addr, state string, is bool) func(timeline.Event) bool {
	return func(ev timeline.Event) bool {
		return ev.Kind == timeline.KindEndpoint && ev.Endpoint == addr && (ev.To == state) == is && ev.To != api.StateUnknown
	}
}

// RunScenario starts the scenario doc (YAML or JSON) and returns its
// status; it fails the test if the scenario breaks a rule.
func (e *Emulator) RunScenario(t testing.TB, doc string) scenario.Status {
	t.Helper()
	sc, err := scenario.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("lbhealthtest: %v", err)
	}
	body, _ := json.Marshal(sc)
	st, err := e.client.StartScenario(t.Context(), body)
	if err != nil {
		t.Fatalf("lbhealthtest: starting scenario %s: %v", sc.Name, err)
	}
	return *st
}

// FreePort is a loopback port nothing listens on at the time of asking:
// for a forwarding rule's port_range, or a server of the test's own.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("lbhealthtest: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// StartTargets starts the target simulator (the servers that
// `lbhealth-emulator targets` runs) for t: by default on free loopback
// ports, its control API too (ControlURL); it is closed when the test ends.
func StartTargets(t testing.TB, cfg targets.Config) *targets.Set {
	t.Helper()
	s, err := targets.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("lbhealthtest: starting the target simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
