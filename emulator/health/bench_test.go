//go:build linux

package health

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/procstat"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// BenchmarkEngineVsHAProxy measures the engine probing 1,000 and 5,000
// loopback HTTP endpoints every second with real probes, then HAProxy
// checking the same endpoints, and reports both side by side. Each size
// runs its window once whatever b.N is: run it with -benchtime=1x (make
// bench does). The targets answer from a process of their own
// (emulator/internal/benchtarget), so neither checker pays for them.
//
// It takes about 45 s per size, so it never runs under -short, nor without
// -bench. Settings (environment):
//
//	LBHEALTH_BENCH_SIZES     endpoint counts, comma-separated (1000,5000)
//	LBHEALTH_BENCH_WARMUP    warm-up before each window (3s, and at
//	                         least two intervals)
//	LBHEALTH_BENCH_WINDOW    measurement window (15s)
//	LBHEALTH_BENCH_HAPROXY   haproxy command (haproxy); without one, or
//	                         with "off", only the engine is measured
//	                         (the scale rows: HAProxy would need a
//	                         descriptor per server beyond this machine's
//	                         limit)
//	LBHEALTH_BENCH_NBTHREAD  HAProxy's nbthread (1)
//	LBHEALTH_BENCH_INTERVAL  the check interval of both checkers (1s), for
//	                         the scale rows: 100,000 endpoints at 10s
//	LBHEALTH_BENCH_HEAPPROFILE  a file to write the heap profile to at the
//	                         end of the engine's window, engine running
//	LBHEALTH_BENCH_TARGET    a benchtarget binary built beforehand (go build
//	                         ./emulator/internal/benchtarget), for a
//	                         machine without Go; otherwise it is built
//	LBHEALTH_BENCH_PROTOCOL  the health check type (HTTP): HTTPS, the
//	                         targets speak TLS (a self-signed
//	                         certificate), HAProxy checks with check-ssl
//	                         verify none; SSL, a TLS handshake alone on
//	                         both sides (HAProxy: check-ssl, mode tcp);
//	                         HTTP2, HTTP/2 over TLS (HAProxy: check-alpn
//	                         h2, check-proto h2); GRPC or GRPC_WITH_TLS,
//	                         the targets serve the gRPC health service
//	                         and the engine alone probes them (HAProxy
//	                         has no gRPC check, and Envoy is in no
//	                         registry here)
func BenchmarkEngineVsHAProxy(b *testing.B) {
	if testing.Short() {
		b.Skip("long benchmark: not under -short")
	}
	opt := benchOptionsFromEnv(b)
	bin := buildBenchTarget(b)
	haproxy, err := exec.LookPath(opt.haproxy)
	switch {
	case opt.haproxy == "off":
		haproxy = ""
		b.Logf("LBHEALTH_BENCH_HAPROXY=off: measuring the engine only")
	case strings.HasPrefix(opt.protocol, "GRPC"):
		haproxy = ""
		b.Logf("%s: measuring the engine only (HAProxy has no gRPC health check)", opt.protocol)
	case err != nil:
		haproxy = ""
		b.Logf("no HAProxy (%v): measuring the engine only; `apt-get install haproxy` (Debian, Ubuntu) gets the comparison", err)
	}
	machine := fmt.Sprintf("%s every %v; %d CPUs (%s), GOMAXPROCS %d, %s; warm-up %v, window %v", opt.protocol, opt.interval,
		runtime.NumCPU(), cpuModel(), runtime.GOMAXPROCS(0), runtime.Version(), opt.warmup, opt.window)
	if haproxy != "" {
		machine += fmt.Sprintf("; %s, nbthread %s", haproxyVersion(haproxy), opt.nbthread)
	}
	for _, n := range opt.sizes {
		b.Run("endpoints="+strconv.Itoa(n), func(b *testing.B) {
			b.Logf("%s", machine) // a parent benchmark's log is not shown
			targets := startBenchTargets(b, bin, n, opt.protocol)
			ours := measureEngine(b, targets, opt)
			var theirs *haproxyResult
			if haproxy != "" {
				time.Sleep(time.Second) // let the engine's last connections go
				r := measureHAProxy(b, haproxy, targets, opt)
				theirs = &r
			}
			report(b, n, ours, theirs)
		})
	}
}

type benchOptions struct {
	sizes          []int
	warmup, window time.Duration
	haproxy        string
	nbthread       string
	protocol       string
	interval       time.Duration
}

func benchOptionsFromEnv(b *testing.B) benchOptions {
	opt := benchOptions{sizes: []int{1000, 5000}, warmup: 3 * time.Second, window: 15 * time.Second,
		haproxy: "haproxy", nbthread: "1", protocol: "HTTP", interval: time.Second}
	if v := os.Getenv("LBHEALTH_BENCH_SIZES"); v != "" {
		opt.sizes = nil
		for f := range strings.SplitSeq(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("LBHEALTH_BENCH_SIZES=%q: want positive integers separated by commas", v)
			}
			opt.sizes = append(opt.sizes, n)
		}
	}
	for name, d := range map[string]*time.Duration{"LBHEALTH_BENCH_WARMUP": &opt.warmup, "LBHEALTH_BENCH_WINDOW": &opt.window,
		"LBHEALTH_BENCH_INTERVAL": &opt.interval} {
		if v := os.Getenv(name); v != "" {
			var err error
			if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
				b.Fatalf("%s=%q: want a positive duration such as 15s", name, v)
			}
		}
	}
	if os.Getenv("LBHEALTH_BENCH_WARMUP") == "" {
		// The first round starts every series at once: measure after it.
		opt.warmup = max(opt.warmup, 2*opt.interval)
	}
	if v := os.Getenv("LBHEALTH_BENCH_HAPROXY"); v != "" {
		opt.haproxy = v
	}
	if v := os.Getenv("LBHEALTH_BENCH_NBTHREAD"); v != "" {
		opt.nbthread = v
	}
	switch v := os.Getenv("LBHEALTH_BENCH_PROTOCOL"); v {
	case "", "HTTP":
	case "HTTPS", "SSL", "HTTP2", "GRPC", "GRPC_WITH_TLS":
		opt.protocol = v
	default:
		b.Fatalf("LBHEALTH_BENCH_PROTOCOL=%q: want HTTP, HTTPS, SSL, HTTP2, GRPC or GRPC_WITH_TLS", v)
	}
	return opt
}

// engineResult is the engine's half of one size.
type engineResult struct {
	window     time.Duration
	counts     engineCounts // metrics over the window
	answered   int64        // connections the targets answered in the window
	cpu        time.Duration
	switches   uint64 // context switches of this process's threads
	rss, hwm   int64
	p50, p99   float64 // scheduler lag, seconds
	goroutines int
	heap       uint64 // bytes of heap in use at the end
}

// benchTargetList is what Plan would give for one health check of the
// targets' protocol on the port of every target address, with the API's
// defaults but 1 s.
func benchTargetList(t *benchTargets, interval time.Duration) []Target {
	out := make([]Target, len(t.ip))
	for i, ip := range t.ip {
		out[i] = Target{
			Owner:    "projects/bench/global/backendServices/bench",
			Group:    "projects/bench/zones/z/networkEndpointGroups/bench",
			Endpoint: Endpoint{IP: ip, Port: t.ports[i]},
			Check: Check{Name: "projects/bench/global/healthChecks/bench", Probe: prober.Spec{Protocol: t.protocol},
				Port: t.ports[i], Interval: interval, Timeout: time.Second, HealthyThreshold: 2, UnhealthyThreshold: 2},
		}
	}
	return out
}

// measureEngine probes t with a real engine and the real prober.
func measureEngine(b *testing.B, t *benchTargets, opt benchOptions) engineResult {
	b.Helper()
	TuneGC() // as lbhealth-emulator runs
	reg := prometheus.NewRegistry()
	e := New(Config{Probers: 1, Metrics: NewMetrics(reg)})
	defer e.Close()
	e.Update(benchTargetList(t, opt.interval))
	time.Sleep(opt.warmup)

	c0, n0 := gatherEngineCounts(b, reg), t.answered(b)
	s0 := switchesSelf(b)
	cpu0, t0 := cpuSelf(b), time.Now()
	time.Sleep(opt.window)
	cpu1, window := cpuSelf(b), time.Since(t0)
	s1 := switchesSelf(b)
	c1, n1 := gatherEngineCounts(b, reg), t.answered(b)

	r := engineResult{window: window, counts: c1.sub(c0), answered: n1 - n0, cpu: cpu1 - cpu0, switches: s1 - s0}
	r.rss, r.hwm = memOf(b, "self")
	r.p50, r.p99 = quantile(0.50, r.counts.lag), quantile(0.99, r.counts.lag)
	r.goroutines = runtime.NumGoroutine()
	if path := os.Getenv("LBHEALTH_BENCH_HEAPPROFILE"); path != "" {
		runtime.GC()
		writeHeapProfile(b, path)
		b.Logf("heap profile: %s", path)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.heap = ms.HeapInuse
	if f := r.counts.failed(); f > 0 {
		// A failed probe measured the failure path, not the engine.
		b.Fatalf("%v of %v probes failed in the window (by reason: %v): the numbers would mean nothing",
			f, r.counts.probes, r.counts.failures)
	}
	return r
}

// switchesSelf is the context switches of this process's threads so far:
// they vary far less from run to run than its CPU on a shared machine.
func switchesSelf(b *testing.B) uint64 {
	b.Helper()
	n, err := procstat.ContextSwitches(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// report prints one size: benchmark metrics and a markdown table row.
func report(b *testing.B, n int, ours engineResult, theirs *haproxyResult) {
	probes := ours.counts.probes
	perSec := probes / ours.window.Seconds()
	cpuPer1k := ours.cpu.Seconds() / probes * 1000
	cores := ours.cpu.Seconds() / ours.window.Seconds()
	b.ReportMetric(perSec, "probes/s")
	b.ReportMetric(cpuPer1k, "cpu-s/1k-probes")
	b.ReportMetric(cores, "cpu-cores")
	b.ReportMetric(ours.p50*1000, "p50-lag-ms")
	b.ReportMetric(ours.p99*1000, "p99-lag-ms")
	b.ReportMetric(ours.counts.missed, "missed")
	b.ReportMetric(float64(ours.rss)/(1<<20), "rss-MB")
	b.ReportMetric(float64(ours.switches)/probes, "ctxsw/probe")
	b.Logf("engine: %.0f probes (targets answered %d), %.2f context switches per probe, %d goroutines, VmHWM %.0f MB, heap in use %.0f MB (%.0f bytes per endpoint)",
		probes, ours.answered, float64(ours.switches)/probes, ours.goroutines, float64(ours.hwm)/(1<<20), float64(ours.heap)/(1<<20), float64(ours.heap)/float64(n))

	row := fmt.Sprintf("| %d | %.0f | %.2f | %.3f | %.2f / %.2f ms | %.0f | %.0f MB |",
		n, perSec, cores, cpuPer1k, ours.p50*1000, ours.p99*1000, ours.counts.missed, float64(ours.rss)/(1<<20))
	if theirs == nil {
		row += " - | - | - | - |" // the benchmark said at its start why
	} else {
		checks := float64(theirs.answered)
		hCores := theirs.cpu.Seconds() / theirs.window.Seconds()
		hPer1k := theirs.cpu.Seconds() / checks * 1000
		// Per probe, not per second: a checker that ran a few checks fewer
		// in the window is not flattered.
		ratio := cpuPer1k / hPer1k
		b.ReportMetric(checks/theirs.window.Seconds(), "haproxy-checks/s")
		b.ReportMetric(hPer1k, "haproxy-cpu-s/1k-checks")
		b.ReportMetric(hCores, "haproxy-cpu-cores")
		b.ReportMetric(ratio, "cpu-ratio")
		b.Logf("haproxy: %d servers UP, %d not UP, %d failed checks, RSS %.0f MB",
			theirs.up, theirs.down, theirs.chkfail, float64(theirs.rss)/(1<<20))
		if theirs.down > 0 {
			b.Errorf("HAProxy reports %d of %d servers not UP: its numbers would mean nothing", theirs.down, n)
		}
		row += fmt.Sprintf(" %.0f | %.2f | %.3f | %.2f |", checks/theirs.window.Seconds(), hCores, hPer1k, ratio)
	}
	b.Logf("| endpoints | probes/s | CPU cores | CPU s / 1k probes | lag p50 / p99 | missed | RSS | HAProxy checks/s | HAProxy CPU cores | HAProxy CPU s / 1k checks | CPU ratio (ours / HAProxy) |")
	b.Logf("|---|---|---|---|---|---|---|---|---|---|---|")
	b.Logf("%s", row)
}

// cpuModel is the "model name" of /proc/cpuinfo.
func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.Lines(string(raw)) {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown CPU"
}
