package aggregate

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"

	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// Apply re-evaluates what it changes (and the composites that list it),
// nothing else; OwnersChanged re-evaluates the sources of a service whose
// endpoints were added or removed, which makes no transition.
func TestAggregator_ApplyAndOwnersChangedAreIncremental(t *testing.T) {
	const a, b = "projects/p/regions/r/backendServices/a", "projects/p/regions/r/backendServices/b"
	statuses := fixedStatuses{a: {{Owner: a, State: api.StateHealthy}}, b: {{Owner: b, State: api.StateHealthy}}}
	var logs bytes.Buffer
	agg := NewAggregator(statuses, slog.New(slog.NewTextHandler(&logs, nil)), nil)
	srcA := &Source{Path: "projects/p/regions/r/healthSources/a", Service: a, HealthyPercent: 60, MinHealthy: 1}
	srcB := &Source{Path: "projects/p/regions/r/healthSources/b", Service: b, HealthyPercent: 60, MinHealthy: 1}
	chc := &Composite{Path: "projects/p/regions/r/compositeHealthChecks/c", Sources: []string{srcA.Path}}
	agg.Apply(map[string]*Source{srcA.Path: srcA, srcB.Path: srcB}, map[string]*Composite{chc.Path: chc})
	if got := agg.States(); len(got) != 3 || got[0].State != api.StateHealthy {
		t.Fatalf("states %+v", got)
	}

	// A stricter policy for b: only b is evaluated (and logged).
	logs.Reset()
	strict := *srcB
	strict.MinHealthy = 2
	agg.Apply(map[string]*Source{srcB.Path: &strict}, nil)
	if out := logs.String(); !strings.Contains(out, "healthSources/b from=HEALTHY to=UNHEALTHY") || strings.Contains(out, "healthSources/a") {
		t.Errorf("logs after changing b:\n%s", out)
	}

	// a loses its endpoint without a transition (its service was changed).
	logs.Reset()
	statuses[a] = nil
	agg.OwnersChanged([]string{a})
	out := logs.String()
	for _, want := range []string{"healthSources/a from=HEALTHY to=UNHEALTHY", "compositeHealthChecks/c from=HEALTHY to=UNHEALTHY"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs after a lost its endpoint lack %q:\n%s", want, out)
		}
	}

	// Deleting a source forgets its state; the composite that lists it is
	// evaluated again.
	agg.Apply(map[string]*Source{srcA.Path: nil}, map[string]*Composite{chc.Path: nil})
	if got := agg.States(); len(got) != 1 || got[0].Path != srcB.Path {
		t.Fatalf("after deleting a and c: %+v", got)
	}
}
