package lbhealthtest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/option"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// computeClient is Google's Compute client of emu.
func computeClient(t *testing.T, emu *lbhealthtest.Emulator) *compute.Service {
	t.Helper()
	svc, err := compute.NewService(context.Background(), option.WithEndpoint(emu.ComputeEndpoint()), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// The kit, driven by Google's own client: resources made through
// ComputeEndpoint are probed; WaitHealthy ends once they are HEALTHY; a
// scenario breaks a target and heals it; WaitEvent (from the start, and
// after the break) and Events read the timeline.
func TestKit(t *testing.T) {
	t.Parallel()
	emu := lbhealthtest.Start(t)
	sim := lbhealthtest.StartTargets(t, targets.Config{HTTP: 2})
	svc := computeClient(t, emu)
	var eps []*compute.NetworkEndpoint
	for _, tg := range sim.Targets() {
		eps = append(eps, &compute.NetworkEndpoint{IpAddress: tg.IP, Port: int64(tg.Port)})
	}
	ops := []func() error{
		func() error {
			_, err := svc.HealthChecks.Insert("p", &compute.HealthCheck{Name: "hc", Type: "HTTP", CheckIntervalSec: 1, TimeoutSec: 1,
				HealthyThreshold: 1, UnhealthyThreshold: 1, HttpHealthCheck: &compute.HTTPHealthCheck{PortSpecification: "USE_SERVING_PORT"}}).Do()
			return err
		},
		func() error {
			_, err := svc.NetworkEndpointGroups.Insert("p", "us-central1-a", &compute.NetworkEndpointGroup{Name: "neg",
				NetworkEndpointType: "GCE_VM_IP_PORT"}).Do()
			return err
		},
		func() error {
			_, err := svc.NetworkEndpointGroups.AttachNetworkEndpoints("p", "us-central1-a", "neg",
				&compute.NetworkEndpointGroupsAttachEndpointsRequest{NetworkEndpoints: eps}).Do()
			return err
		},
		func() error {
			_, err := svc.BackendServices.Insert("p", &compute.BackendService{Name: "web", HealthChecks: []string{"global/healthChecks/hc"},
				Backends: []*compute.Backend{{Group: "zones/us-central1-a/networkEndpointGroups/neg"}}}).Do()
			return err
		},
	}
	for _, op := range ops {
		if err := op(); err != nil {
			t.Fatal(err)
		}
	}
	emu.WaitHealthy(t, lbhealthtest.BackendService("projects/p/global/backendServices/web"), time.Minute)

	broken := sim.Targets()[1]
	st := emu.RunScenario(t, "name: break\nsteps:\n  - {at: 0s, target: \""+sim.ControlURL()+"/targets/"+broken.Name+"\", mode: hang}\n")
	if st.State != "RUNNING" || st.Steps != 1 {
		t.Errorf("the scenario started as %+v", st)
	}
	down := emu.WaitEvent(t, 0, lbhealthtest.Unhealthy(broken.Addr()), time.Minute)
	if down.Reason != "TIMEOUT" || !strings.HasSuffix(down.Resource, "/backendServices/web") {
		t.Errorf("the hung target's change: %+v, want TIMEOUT on web", down)
	}
	scenarios := emu.Events(timeline.Filter{Kind: timeline.KindScenario})
	if len(scenarios) != 1 || scenarios[0].Seq > down.Seq || scenarios[0].To != "hang" {
		t.Errorf("the scenario's steps on the timeline: %+v, want the hang, before %d", scenarios, down.Seq)
	}

	// Healed, it is HEALTHY again: after the break, not its first HEALTHY.
	emu.RunScenario(t, "name: heal\nsteps:\n  - {at: 0s, target: \""+sim.ControlURL()+"/targets/"+broken.Name+"\", mode: ok}\n")
	again := emu.WaitEvent(t, down.Seq, lbhealthtest.HealthyAgain(broken.Addr()), time.Minute)
	if again.Seq <= down.Seq || again.From != "UNHEALTHY" {
		t.Errorf("healthy again: %+v, want a change from UNHEALTHY after %d", again, down.Seq)
	}
	if first := emu.WaitEvent(t, 0, lbhealthtest.HealthyAgain(broken.Addr()), time.Minute); first.Seq >= down.Seq {
		t.Errorf("from the start, HealthyAgain matches %+v, want the first HEALTHY, before %d", first, down.Seq)
	}
	for _, block := range []string{emu.GoogleProvider("p"), emu.LbhealthProvider("p")} {
		if !strings.Contains(block, emu.URL()) {
			t.Errorf("a provider block that does not point here:\n%s", block)
		}
	}
}

// WaitHealthy fails the test, naming what it read, when that cannot
// become healthy.
func TestKit_WaitHealthyFailsSayingWhatItSaw(t *testing.T) {
	t.Parallel()
	emu := lbhealthtest.Start(t)
	ft := &fakeT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		emu.WaitHealthy(ft, lbhealthtest.CompositeCheck("projects/p/regions/r/compositeHealthChecks/none"), time.Second)
	}()
	<-done
	if !strings.Contains(ft.msg, "compositeHealthChecks/none") {
		t.Errorf("the failure: %q, want it to name what it read", ft.msg)
	}
}

// fakeT records a fatal failure instead of failing the test.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}

// Fatalf ends the goroutine, as testing.T's does.
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
