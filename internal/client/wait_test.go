package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Wait returns the first answer ready accepts, ends on a read error, and
// past its timeout says what ready saw last.
func TestWait(t *testing.T) {
	n := 0
	got, _, err := Wait(context.Background(), time.Minute, time.Millisecond, func(context.Context) (int, error) { n++; return n, nil },
		func(v int) (bool, string) { return v == 3, "not yet" })
	if err != nil || got != 3 {
		t.Fatalf("got %d, %v; want 3", got, err)
	}
	boom := errors.New("boom")
	if _, _, err := Wait(context.Background(), time.Minute, time.Millisecond, func(context.Context) (int, error) { return 0, boom },
		func(int) (bool, string) { return false, "" }); !errors.Is(err, boom) {
		t.Fatalf("a read error: %v", err)
	}
	_, _, err = Wait(context.Background(), 0, time.Millisecond, func(context.Context) (int, error) { return 1, nil },
		func(int) (bool, string) { return false, "1 of 2" })
	if err == nil || err.Error() != "waited 0s: 1 of 2" {
		t.Fatalf("past the timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = Wait(ctx, time.Minute, time.Hour, func(context.Context) (int, error) { return 1, nil },
		func(int) (bool, string) { return false, "1 of 2" })
	if err == nil || !strings.HasPrefix(err.Error(), "stopped waiting (context canceled): 1 of 2") {
		t.Fatalf("a canceled wait: %v", err)
	}
}

// EndpointsHealthy counts HEALTHY endpoints against every one or a
// minimum, and names the others with their reasons; an endpoint with no
// verdict yet is not given the API's stand-in reason.
func TestEndpointsHealthy(t *testing.T) {
	statuses := []api.HealthStatus{
		{IPAddress: "10.0.0.1", Port: 80, HealthState: "HEALTHY"},
		{IPAddress: "10.0.0.2", Port: 80, HealthState: "UNHEALTHY", Reason: "TIMEOUT"},
		{IPAddress: "10.0.0.3", HealthState: "UNHEALTHY", Reason: api.ReasonNoVerdict},
	}
	ok, saw := EndpointsHealthy(statuses, 0)
	if ok || saw != "1 of 3 endpoints HEALTHY, want every one; 10.0.0.2:80 UNHEALTHY (TIMEOUT), 10.0.0.3 UNKNOWN" {
		t.Errorf("every one: %v %q", ok, saw)
	}
	if ok, saw := EndpointsHealthy(statuses, 1); !ok || !strings.HasPrefix(saw, "1 of 3 endpoints HEALTHY, want at least 1") {
		t.Errorf("at least 1: %v %q", ok, saw)
	}
	if ok, _ := EndpointsHealthy(nil, 0); ok {
		t.Error("no endpoint at all counted as every one healthy")
	}
}

// EndpointsUnhealthy waits for a break: UNHEALTHY endpoints counted
// against every one or a minimum, the others named.
func TestEndpointsUnhealthy(t *testing.T) {
	statuses := []api.HealthStatus{
		{IPAddress: "10.0.0.1", Port: 80, HealthState: "HEALTHY"},
		{IPAddress: "10.0.0.2", Port: 80, HealthState: "UNHEALTHY", Reason: "TIMEOUT"},
	}
	if ok, saw := EndpointsUnhealthy(statuses, 1); !ok || saw != "1 of 2 endpoints UNHEALTHY, want at least 1; 10.0.0.1:80 HEALTHY" {
		t.Errorf("at least 1: %v %q", ok, saw)
	}
	if ok, saw := EndpointsUnhealthy(statuses, 0); ok || !strings.HasPrefix(saw, "1 of 2 endpoints UNHEALTHY, want every one") {
		t.Errorf("every one: %v %q", ok, saw)
	}
}
