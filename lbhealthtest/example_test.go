package lbhealthtest_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/option"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// A test of failover, start to end: an emulator and three sample targets,
// a backend service over them made with Google's Go client (as the code
// under test would, or Terraform), every endpoint HEALTHY, then one
// target broken by a scenario and seen UNHEALTHY on the timeline.
func Example() {
	runAsTest(func(t testing.TB) {
		emu := lbhealthtest.Start(t)
		sim := lbhealthtest.StartTargets(t, targets.Config{HTTP: 3})

		ctx := context.Background()
		svc, err := compute.NewService(ctx, option.WithEndpoint(emu.ComputeEndpoint()),
			option.WithoutAuthentication(), option.WithHTTPClient(http.DefaultClient))
		if err != nil {
			t.Fatal(err)
		}
		const project, zone = "my-project", "us-central1-a"
		must := func(op *compute.Operation, err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(svc.HealthChecks.Insert(project, &compute.HealthCheck{Name: "web", Type: "HTTP", CheckIntervalSec: 1, TimeoutSec: 1,
			HealthyThreshold: 1, UnhealthyThreshold: 1,
			HttpHealthCheck: &compute.HTTPHealthCheck{PortSpecification: "USE_SERVING_PORT"}}).Do())
		must(svc.NetworkEndpointGroups.Insert(project, zone, &compute.NetworkEndpointGroup{Name: "web",
			NetworkEndpointType: "NON_GCP_PRIVATE_IP_PORT"}).Do())
		var endpoints []*compute.NetworkEndpoint
		for _, target := range sim.Targets() {
			host, port, _ := net.SplitHostPort(target.Addr())
			p, _ := strconv.Atoi(port)
			endpoints = append(endpoints, &compute.NetworkEndpoint{IpAddress: host, Port: int64(p)})
		}
		must(svc.NetworkEndpointGroups.AttachNetworkEndpoints(project, zone, "web",
			&compute.NetworkEndpointGroupsAttachEndpointsRequest{NetworkEndpoints: endpoints}).Do())
		must(svc.BackendServices.Insert(project, &compute.BackendService{Name: "web", HealthChecks: []string{"global/healthChecks/web"},
			Backends: []*compute.Backend{{Group: "zones/" + zone + "/networkEndpointGroups/web", BalancingMode: "RATE", MaxRatePerEndpoint: 100}}}).Do())

		emu.WaitHealthy(t, lbhealthtest.BackendService("projects/"+project+"/global/backendServices/web"), time.Minute)
		fmt.Println("every endpoint HEALTHY")

		broken := sim.Targets()[0]
		emu.RunScenario(t, `
name: break-one
steps:
  - {at: 0s, target: "`+sim.ControlURL()+`/targets/`+broken.Name+`", mode: status-500}
`)
		ev := emu.WaitEvent(t, 0, lbhealthtest.Unhealthy(broken.Addr()), time.Minute)
		fmt.Printf("%s turned %s (%s)\n", broken.Name, ev.To, ev.Reason)
	})
	// Output:
	// every endpoint HEALTHY
	// http-1 turned UNHEALTHY (BAD_STATUS)
}

// runAsTest runs f as a test function would run, with a testing.TB:
// an Example has none of its own. Inside a test, call the body with the
// test's t instead.
func runAsTest(f func(t testing.TB)) {
	ctx, cancel := context.WithCancel(context.Background())
	t := &exampleTB{ctx: ctx}
	defer t.cleanUp()
	defer cancel() // as a test's context ends before its cleanups run
	f(t)
}

// exampleTB is the testing.TB an Example lends the kit: a failure panics
// (the Example then fails), and cleanups run when it ends, last first.
type exampleTB struct {
	testing.TB // what the kit does not call
	ctx        context.Context
	cleanups   []func()
}

func (t *exampleTB) Context() context.Context { return t.ctx }

func (t *exampleTB) Helper()                         {}
func (t *exampleTB) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }
func (t *exampleTB) Logf(format string, args ...any) {}
func (t *exampleTB) Errorf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}
func (t *exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }

func (t *exampleTB) cleanUp() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
