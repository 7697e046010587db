package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
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
	var healthy int64
	var others []string
	for _, hs := range statuses {
		state := hs.State()
		if state == rules.StateHealthy {
			healthy++
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
	want, done := "every one", total > 0 && healthy == total
	if min > 0 {
		want, done = fmt.Sprintf("at least %d", min), healthy >= min
	}
	saw := fmt.Sprintf("%d of %d endpoints HEALTHY, want %s", healthy, total, want)
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
	return h.HealthState == rules.StateHealthy,
		fmt.Sprintf("the check is %s, want HEALTHY; its sources: %s", h.HealthState, strings.Join(sources, ", "))
}
