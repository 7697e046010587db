package health

import (
	"net"
	"strconv"
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
			Name:    "lbhealth_scheduler_lag_seconds",
			Help:    "How late each probe started against its slot.",
			Buckets: []float64{.0001, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}),
		missedC: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lbhealth_probes_missed_total",
			Help: "Probe slots skipped because the previous probe or the scheduler ran a whole interval late.",
		}),
	}
	reg.MustRegister(m.probes, m.duration, m.lag, m.missedC)
	return m
}

func (m *Metrics) observeProbe(t *Target, res prober.Result, d time.Duration) {
	if m == nil {
		return
	}
	result := "success"
	if !res.Healthy {
		result = "failure"
	}
	m.probes.WithLabelValues(t.Check.Name, t.Check.Probe.Protocol, result, res.Reason).Inc()
	m.duration.WithLabelValues(t.Check.Probe.Protocol).Observe(d.Seconds())
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
	engine *Engine
	desc   *prometheus.Desc
}

// RegisterStateGauge exposes lbhealth_endpoint_state for engine's targets.
func RegisterStateGauge(reg prometheus.Registerer, engine *Engine) {
	reg.MustRegister(&stateCollector{engine: engine, desc: prometheus.NewDesc("lbhealth_endpoint_state",
		"1 for the current health state of each probed endpoint (per owner, group and endpoint).",
		[]string{"owner", "group", "endpoint", "check", "state"}, nil)})
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.engine.All() {
		addr := net.JoinHostPort(s.Endpoint.IP, strconv.Itoa(s.Endpoint.Port))
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 1, s.Owner, s.Group, addr, s.Check, s.State)
	}
}
