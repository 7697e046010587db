package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Waiting for health, as the provider's wait_for blocks and the
// emulator's wait command do: read again every poll until the answer is
// as wanted, or the timeout passes.

// Wait calls read every poll until ready accepts what it read, and
// returns that and what ready said of it; past timeout (or when ctx ends)
// an error that says what ready saw last. An error of read ends the wait.
func Wait[H any](ctx context.Context, timeout, poll time.Duration, read func(context.Context) (H, error), ready func(H) (bool, string)) (H, string, error) {
	deadline := time.Now().Add(timeout)
	for {
		got, err := read(ctx)
		if err != nil {
			return got, "", err
		}
		done, saw := ready(got)
		if done {
			return got, saw, nil
		}
		if !time.Now().Before(deadline) {
			return got, saw, fmt.Errorf("waited %s: %s", timeout, saw)
		}
		select {
		case <-ctx.Done():
			return got, saw, fmt.Errorf("stopped waiting (%v): %s", ctx.Err(), saw)
		case <-time.After(poll):
		}
	}
}

// EndpointsHealthy tells whether statuses has at least min endpoints
// HEALTHY (every one, and at least one, when min is 0), and says what it
// has: the count, and each endpoint that is not HEALTHY with its state
// and reason.
func EndpointsHealthy(statuses []api.HealthStatus, min int64) (bool, string) {
	return endpointsIn(statuses, api.StateHealthy, min)
}

// EndpointsUnhealthy tells whether statuses has at least min endpoints
// UNHEALTHY (every one, and at least one, when min is 0): a break seen by
// the probes. It says what it has as EndpointsHealthy does.
func EndpointsUnhealthy(statuses []api.HealthStatus, min int64) (bool, string) {
	return endpointsIn(statuses, api.StateUnhealthy, min)
}

// endpointsIn counts the endpoints of statuses in state against min, and
// names the others with their states and reasons.
func endpointsIn(statuses []api.HealthStatus, want string, min int64) (bool, string) {
	var in int64
	var others []string
	for _, hs := range statuses {
		state := hs.State()
		if state == want {
			in++
			continue
		}
		at := hs.IPAddress
		if hs.Port != 0 {
			at = fmt.Sprintf("%s:%d", at, hs.Port)
		}
		if hs.Reason != "" && hs.Reason != api.ReasonNoVerdict {
			state += " (" + hs.Reason + ")"
		}
		others = append(others, at+" "+state)
	}
	total := int64(len(statuses))
	wanted, done := "every one", total > 0 && in == total
	if min > 0 {
		wanted, done = fmt.Sprintf("at least %d", min), in >= min
	}
	saw := fmt.Sprintf("%d of %d endpoints %s, want %s", in, total, want, wanted)
	if len(others) > 0 {
		saw += "; " + strings.Join(others, ", ")
	}
	return done, saw
}

// CompositeHealthy tells whether a composite health check is HEALTHY, and
// says what it and its sources are.
func CompositeHealthy(h *api.CompositeHealthCheckHealth) (bool, string) {
	var sources []string
	for _, s := range h.HealthSources {
		sources = append(sources, s.Source+" "+s.HealthState)
	}
	return h.HealthState == api.StateHealthy,
		fmt.Sprintf("the check is %s, want HEALTHY; its sources: %s", h.HealthState, strings.Join(sources, ", "))
}

// WaitTarget is what WaitHealthy waits for: one of a backend service's
// endpoints, a target pool's instances or a composite check, each by its
// self link or projects/{project}/global|regions/{region}/{collection}/{name}.
type WaitTarget struct {
	BackendService, TargetPool, CompositeCheck string
	// MinHealthy is how many endpoints must be HEALTHY; 0: every one (and
	// at least one). A composite check must be HEALTHY.
	MinHealthy int64
}

// WaitHealthy reads the health of what w names every poll until it is
// healthy, and returns what it saw then; past timeout, an error saying
// what it saw last.
func (c *Client) WaitHealthy(ctx context.Context, w WaitTarget, timeout, poll time.Duration) (string, error) {
	type verdict struct {
		healthy bool
		saw     string
	}
	endpoints := func(statuses []api.HealthStatus) verdict {
		ok, saw := EndpointsHealthy(statuses, w.MinHealthy)
		return verdict{ok, saw}
	}
	var read func(ctx context.Context, scope Scope, name string) (verdict, error)
	ref, collection := w.CompositeCheck, api.CollectionCompositeHealthChecks
	switch {
	case w.BackendService != "":
		ref, collection = w.BackendService, api.CollectionBackendServices
		read = func(ctx context.Context, scope Scope, name string) (verdict, error) {
			h, err := c.GetBackendServiceHealth(ctx, scope, name, "")
			if err != nil {
				return verdict{}, err
			}
			return endpoints(h.HealthStatus), nil
		}
	case w.TargetPool != "":
		ref, collection = w.TargetPool, api.CollectionTargetPools
		read = func(ctx context.Context, scope Scope, name string) (verdict, error) {
			h, err := c.GetTargetPoolHealth(ctx, scope, name, "")
			if err != nil {
				return verdict{}, err
			}
			return endpoints(h.HealthStatus), nil
		}
	default:
		read = func(ctx context.Context, scope Scope, name string) (verdict, error) {
			h, err := c.GetCompositeHealthCheckHealth(ctx, scope, name)
			if err != nil {
				return verdict{}, err
			}
			ok, saw := CompositeHealthy(h)
			return verdict{ok, saw}, nil
		}
	}
	scope, name, err := ScopeOf(ref, collection)
	if err != nil {
		return "", err
	}
	_, saw, err := Wait(ctx, timeout, poll, func(ctx context.Context) (verdict, error) { return read(ctx, scope, name) },
		func(v verdict) (bool, string) { return v.healthy, v.saw })
	return saw, err
}

// ScopeOf reads ref, a self link or
// projects/{project}/global|regions/{region}/{collection}/{name}.
func ScopeOf(ref, collection string) (Scope, string, error) {
	parts := strings.Split(api.PathOf(ref), "/")
	switch {
	case len(parts) == 5 && parts[0] == "projects" && parts[2] == "global" && parts[3] == collection:
		return Scope{Project: parts[1]}, parts[4], nil
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "regions" && parts[4] == collection:
		return Scope{Project: parts[1], Region: parts[3]}, parts[5], nil
	}
	return Scope{}, "", fmt.Errorf("%q is not a %s reference: want its self link or "+
		"projects/{project}/global/%s/{name} (or regions/{region}/ in place of global/)", ref, collection, collection)
}
