package aggregate

import (
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"

	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// fixedStatuses is a StatusReader with fixed endpoint states.
type fixedStatuses map[string][]health.Status

func (f fixedStatuses) Statuses(owner string) []health.Status { return f[owner] }

func (f fixedStatuses) Count(owner string) health.Counts {
	var c health.Counts
	for _, st := range f[owner] {
		c.Add(st.State)
	}
	return c
}

// TestAggregator_transitionCause: the log line of a health-source and
// composite transition names the endpoint that caused it by address and
// port, since endpoints of one service often share an address (the
// failover example's do).
func TestAggregator_transitionCause(t *testing.T) {
	const svc = "projects/p/regions/r/backendServices/bs"
	ep := func(port int, state string) health.Status {
		return health.Status{Owner: svc, Endpoint: health.Endpoint{IP: "127.0.0.1", Port: port}, State: state}
	}
	statuses := fixedStatuses{svc: {ep(9000, api.StateHealthy), ep(9001, api.StateHealthy)}}
	var logs bytes.Buffer
	a := NewAggregator(statuses, slog.New(slog.NewTextHandler(&logs, nil)), nil)
	a.Update([]Source{{Path: "projects/p/regions/r/healthSources/src", Service: svc, HealthyPercent: 60, MinHealthy: 1}},
		[]Composite{{Path: "projects/p/regions/r/compositeHealthChecks/chc", Sources: []string{"projects/p/regions/r/healthSources/src"}}})
	logs.Reset()

	statuses[svc][1] = ep(9001, api.StateUnhealthy) // 1 of 2 is 50% < 60%
	a.OnTransition(health.Transition{Status: statuses[svc][1], From: api.StateHealthy})
	out := logs.String()
	for _, want := range []string{
		`msg="health source transition" resource=projects/p/regions/r/healthSources/src from=HEALTHY to=UNHEALTHY ` +
			`cause="endpoint 127.0.0.1:9001 of ` + svc + ` HEALTHY -> UNHEALTHY"`,
		`msg="composite health transition" resource=projects/p/regions/r/compositeHealthChecks/chc from=HEALTHY to=UNHEALTHY ` +
			`cause="health source projects/p/regions/r/healthSources/src HEALTHY -> UNHEALTHY"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("logs\n%s\ndo not contain\n%s", out, want)
		}
	}
}
