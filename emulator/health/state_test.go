package health

import (
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// run feeds a sequence of results ("+" success, "-" failure) for prober 0
// and returns the states after each, as a string of H, U and ?.
func run(v *verdict, results string, healthyT, unhealthyT int) string {
	var b strings.Builder
	for _, r := range results {
		switch v.observe(0, r == '+', healthyT, unhealthyT) {
		case api.StateHealthy:
			b.WriteByte('H')
		case api.StateUnhealthy:
			b.WriteByte('U')
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

func TestVerdict_Thresholds(t *testing.T) {
	tests := []struct {
		name               string
		healthy, unhealthy int
		results, want      string
	}{
		{"new endpoint healthy after first success", 3, 3, "+", "H"},
		{"new endpoint unhealthy after exactly U failures", 2, 3, "---", "??U"},
		{"new endpoint: a success resets the failure count", 2, 3, "--+", "??H"},
		{"healthy to unhealthy at exactly U failures", 2, 3, "+---", "HHHU"},
		{"healthy: failures interrupted by a success start again", 2, 3, "+--+--", "HHHHHH"},
		{"unhealthy to healthy at exactly H successes", 3, 2, "--+++", "?UUUH"},
		{"unhealthy: one failure resets the success count", 3, 2, "--++-+++", "?UUUUUUH"},
		{"threshold 1 flips on every result", 1, 1, "+-+-", "HUHU"},
		{"threshold 10", 10, 10, "+---------" + "-", "HHHHHHHHHHU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerdict(1)
			if got := run(&v, tt.results, tt.healthy, tt.unhealthy); got != tt.want {
				t.Errorf("results %s: states %s, want %s", tt.results, got, tt.want)
			}
		})
	}
}

func TestVerdict_AnyProber(t *testing.T) {
	v := newVerdict(2)
	v.observe(0, true, 2, 2)
	v.observe(1, true, 2, 2)
	// Prober 0 fails twice while prober 1 keeps succeeding: one prober at
	// the threshold is enough.
	v.observe(0, false, 2, 2)
	v.observe(1, true, 2, 2)
	if got := v.observe(0, false, 2, 2); got != api.StateUnhealthy {
		t.Fatalf("after 2 failures of prober 0: %s, want UNHEALTHY", got)
	}
	// Back to healthy when one prober sees 2 successes, even if the other
	// one has just failed.
	v.observe(0, false, 2, 2)
	if got := v.observe(1, true, 2, 2); got != api.StateHealthy {
		// prober 1 had successes before: its count is already >= 2.
		t.Fatalf("prober 1 at 3 consecutive successes: %s, want HEALTHY", got)
	}
}

func TestVerdict_ProbersCountSeparately(t *testing.T) {
	v := newVerdict(2)
	v.observe(0, true, 2, 2)
	v.observe(0, false, 2, 2)
	// Two failures in a row across the endpoint, but one per prober: no
	// prober has reached the threshold.
	if got := v.observe(1, false, 2, 2); got != api.StateHealthy {
		t.Fatalf("one failure on each of two probers: %s, want HEALTHY", got)
	}
	if got := v.observe(0, false, 2, 2); got != api.StateUnhealthy {
		t.Fatalf("second failure of prober 0: %s, want UNHEALTHY", got)
	}
}
