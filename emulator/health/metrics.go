package health

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// Metrics are the probe engine's Prometheus metrics. A nil *Metrics records
// nothing, so tests need not build one.
type Metrics struct {
	probes   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	lag      prometheus.Histogram
	missedC  prometheus.Counter
}

// NewMetrics registers the engine's metrics with reg, including a gauge of
// endpoint states read from engine at scrape time.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		probes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lbhealth_probes_total",
			Help: "Probes run, by health check, protocol, result (success or failure) and failure reason.",
		}, []string{"check", "protocol", "result", "reason"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "lbhealth_probe_duration_seconds",
			Help:    "How long probes take, by protocol.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"protocol"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "lbhealth_scheduler_lag_seconds",
			Help: "How late each probe started against its slot.",
			// Fine below 50 ms, where a healthy engine lives, so that
			// histogram_quantile gives a p99 worth reading.
			Buckets: []float64{.0001, .00025, .0005, .001, .002, .003, .004, .005, .0075,
				.01, .015, .02, .03, .04, .05, .075, .1, .25, .5, 1},
		}),
		missedC: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lbhealth_probes_missed_total",
			Help: "Probe slots skipped because their deadline (slot + timeout) passed before they could start: the previous probe or the scheduler ran that late.",
		}),
	}
	reg.MustRegister(m.probes, m.duration, m.lag, m.missedC)
	return m
}

// probeMetrics are the series one target's probes land in, looked up once
// per target rather than by label values on every probe: that lookup
// hashes four strings and takes a lock, thousands of times a second.
type probeMetrics struct {
	m        *Metrics
	target   *placement // the settings the series were looked up for
	success  prometheus.Counter
	duration prometheus.Observer
}

// forTarget returns the series of t's probes.
func (m *Metrics) forTarget(t *placement) probeMetrics {
	if m == nil {
		return probeMetrics{target: t}
	}
	return probeMetrics{m: m, target: t,
		success:  m.probes.WithLabelValues(t.Check.Name, t.Check.Probe.Protocol, "success", ""),
		duration: m.duration.WithLabelValues(t.Check.Probe.Protocol)}
}

// observe records one probe of pm.target. Failures, rarer and labelled by
// reason, look their series up each time.
func (pm *probeMetrics) observe(res prober.Result, d time.Duration) {
	if pm.m == nil {
		return
	}
	if res.Healthy {
		pm.success.Inc()
	} else {
		t := pm.target
		pm.m.probes.WithLabelValues(t.Check.Name, t.Check.Probe.Protocol, "failure", res.Reason).Inc()
	}
	pm.duration.Observe(d.Seconds())
}

func (m *Metrics) observeLag(d time.Duration) {
	if m == nil {
		return
	}
	if d < 0 {
		d = 0
	}
	m.lag.Observe(d.Seconds())
}

func (m *Metrics) missed(n int) {
	if m == nil {
		return
	}
	m.missedC.Add(float64(n))
}

// stateCollector reports every endpoint's state when scraped, so the gauge
// can never disagree with getHealth.
type stateCollector struct {
	engine   *Engine
	desc     *prometheus.Desc
	firewall *prometheus.Desc
	probes   *prometheus.Desc
	expected *prometheus.Desc
}

// RegisterStateGauge exposes lbhealth_endpoint_state and
// lbhealth_endpoint_firewall for engine's targets.
func RegisterStateGauge(reg prometheus.Registerer, engine *Engine) {
	reg.MustRegister(&stateCollector{engine: engine, desc: prometheus.NewDesc("lbhealth_endpoint_state",
		"1 for the current health state of each probed endpoint (per owner, group and endpoint; probed_at is the "+
			"address probed when a probe map moved it, else empty).",
		[]string{"owner", "group", "endpoint", "check", "state", "probed_at"}, nil),
		firewall: prometheus.NewDesc("lbhealth_endpoint_firewall",
			"1 for each endpoint whose network's firewall rules keep the cloud's probers out: verdict BLOCKED (every "+
				"prober range) or PARTIAL (some), with the load balancer the probes are for.",
			[]string{"owner", "group", "endpoint", "load_balancer", "verdict"}, nil),
		probes: prometheus.NewDesc("lbhealth_endpoint_probes_total",
			"Probe results recorded for each endpoint since its check last changed: rate() of it is the rate delivered.",
			[]string{"owner", "group", "endpoint"}, nil),
		expected: prometheus.NewDesc("lbhealth_endpoint_expected_probe_rate",
			"Probes per second each endpoint's settings ask for: probers x multiplicity (--probe-multiplicity) / interval.",
			[]string{"owner", "group", "endpoint"}, nil)})
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.desc
	ch <- c.firewall
	ch <- c.probes
	ch <- c.expected
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.engine.All() {
		addr := s.Address()
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 1, s.Owner, s.Group, addr, s.Check, s.State, s.ProbedAt)
		ch <- prometheus.MustNewConstMetric(c.probes, prometheus.CounterValue, float64(s.Probes), s.Owner, s.Group, addr)
		ch <- prometheus.MustNewConstMetric(c.expected, prometheus.GaugeValue, s.ExpectedRate, s.Owner, s.Group, addr)
		if s.FirewallVerdict != "" {
			ch <- prometheus.MustNewConstMetric(c.firewall, prometheus.GaugeValue, 1, s.Owner, s.Group, addr, s.LoadBalancer, s.FirewallVerdict)
		}
	}
}
