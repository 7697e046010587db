package health

import (
	"math"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// engineCounts is what the benchmark reads of the engine's metrics at one
// instant; two of them subtract to a measurement window.
type engineCounts struct {
	probes   float64            // every probe run
	failures map[string]float64 // failed probes by reason
	missed   float64
	lag      []bucket // cumulative, as exposed
}

// bucket is one cumulative histogram bucket; upper is +Inf for the last.
type bucket struct {
	upper float64
	count float64
}

// gatherEngineCounts reads the engine's metrics from reg.
func gatherEngineCounts(tb testing.TB, reg prometheus.Gatherer) engineCounts {
	tb.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatalf("gather metrics: %v", err)
	}
	c := engineCounts{failures: map[string]float64{}}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetName() {
			case "lbhealth_probes_total":
				v := m.GetCounter().GetValue()
				c.probes += v
				if label(m, "result") == "failure" {
					c.failures[label(m, "reason")] += v
				}
			case "lbhealth_probes_missed_total":
				c.missed += m.GetCounter().GetValue()
			case "lbhealth_scheduler_lag_seconds":
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					c.lag = append(c.lag, bucket{b.GetUpperBound(), float64(b.GetCumulativeCount())})
				}
				c.lag = append(c.lag, bucket{math.Inf(1), float64(h.GetSampleCount())})
			}
		}
	}
	return c
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// sub is what happened between before and c.
func (c engineCounts) sub(before engineCounts) engineCounts {
	d := engineCounts{probes: c.probes - before.probes, missed: c.missed - before.missed, failures: map[string]float64{}}
	for r, v := range c.failures {
		if v -= before.failures[r]; v != 0 {
			d.failures[r] = v
		}
	}
	for i, b := range c.lag {
		if i < len(before.lag) {
			b.count -= before.lag[i].count
		}
		d.lag = append(d.lag, b)
	}
	return d
}

func (c engineCounts) failed() float64 {
	n := 0.0
	for _, v := range c.failures {
		n += v
	}
	return n
}

// quantile estimates the q-quantile of cumulative buckets the way
// Prometheus' histogram_quantile does: linear interpolation inside the
// bucket the rank falls in, from 0 for the first bucket, and the highest
// finite bound when the rank falls in +Inf. NaN without observations.
func quantile(q float64, buckets []bucket) float64 {
	if len(buckets) == 0 || buckets[len(buckets)-1].count == 0 {
		return math.NaN()
	}
	rank := q * buckets[len(buckets)-1].count
	lower, below := 0.0, 0.0
	for i, b := range buckets {
		if b.count >= rank && b.count > below {
			if math.IsInf(b.upper, 1) {
				if i == 0 {
					return math.NaN()
				}
				return buckets[i-1].upper
			}
			return lower + (b.upper-lower)*(rank-below)/(b.count-below)
		}
		lower, below = b.upper, b.count
	}
	return buckets[len(buckets)-2].upper
}

func TestBenchQuantile(t *testing.T) {
	inf := math.Inf(1)
	buckets := []bucket{{0.001, 50}, {0.002, 90}, {0.005, 100}, {inf, 100}}
	for _, tc := range []struct {
		q, want float64
	}{
		{0.5, 0.001},     // the rank is the first bucket's upper bound
		{0.25, 0.0005},   // halfway into the first bucket, from 0
		{0.7, 0.0015},    // halfway into the second
		{0.99, 0.0047},   // 9/10 into the third
		{1, 0.005},       // the last observation
		{0.999, 0.00497}, // still inside the last finite bucket
	} {
		if got := quantile(tc.q, buckets); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	overflow := []bucket{{0.001, 10}, {inf, 20}}
	if got := quantile(0.99, overflow); got != 0.001 {
		t.Errorf("rank in +Inf: got %v, want the highest finite bound 0.001", got)
	}
	if got := quantile(0.5, []bucket{{0.001, 0}, {inf, 0}}); !math.IsNaN(got) {
		t.Errorf("no observations: got %v, want NaN", got)
	}
}
