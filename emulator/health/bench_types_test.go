//go:build linux

package health

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
)

// typesBasePort is where the benchmark's simulator puts its targets.
const typesBasePort = 21000

// checkType is one row of BenchmarkCheckTypes: a spec, the simulator's
// port block it probes, and blackbox_exporter's module for the same probe
// ("" when it has none).
type checkType struct {
	name     string
	spec     prober.Spec
	block    int // port block of the simulator (emulator/targets: HTTP 0, TCP 2, UDP 5 ...)
	noPort   bool
	blackbox string
}

func text(fields map[string]string) func(string) string {
	return func(f string) string { return fields[f] }
}

var checkTypes = []checkType{
	{name: "HTTP", spec: prober.Spec{Protocol: "HTTP"}, block: 0, blackbox: "http_2xx"},
	{name: "TCP", spec: prober.Spec{Protocol: "TCP"}, block: 2, blackbox: "tcp_connect"},
	{name: "UDP", spec: prober.NewSpec("UDP", "", text(map[string]string{"request": "PING", "response": "PONG"})), block: 5},
	{name: "DNS", spec: prober.NewSpec("DNS", "", text(map[string]string{"queryName": "web.example.com"})), block: 6, blackbox: "dns_a"},
	{name: "SMTP", spec: prober.NewSpec("SMTP", "", text(nil)), block: 7},
	{name: "FTP", spec: prober.NewSpec("FTP", "", text(map[string]string{"username": "probe", "password": "x"})), block: 9},
	{name: "LDAP", spec: prober.NewSpec("LDAP", "", text(map[string]string{"baseDn": "dc=example,dc=com"})), block: 11},
	{name: "SQL (postgres)", spec: prober.NewSpec("SQL", "", text(map[string]string{"driver": "postgres", "dsn": "postgres://probe:x@/app?sslmode=disable"})), block: 13},
	{name: "ICMP", spec: prober.Spec{Protocol: "ICMP"}, noPort: true, blackbox: "icmp"},
	{name: "EXPRESSION", spec: prober.NewSpec("EXPRESSION", "", text(map[string]string{"expression": `endpoint.ip = "127.0.0.1" and time.hour < 24`})), noPort: true},
}

// BenchmarkCheckTypes measures the CPU per delivered probe of the check
// types, 1,000 endpoints each probed every second, against the target
// simulator running in another process (its CPU is not the engine's), and
// blackbox_exporter (Debian's prometheus-blackbox-exporter) doing the same
// probes where it has the module (HTTP, TCP, DNS, ICMP), driven at the same
// rate through its /probe endpoint; its CPU is read from /proc, per probe
// it answered (on two cores it answers fewer than asked: the driver in this
// process and blackbox_exporter share them).
//
//	LBHEALTH_BENCH_TYPES     the rows to run, comma-separated (all)
//	LBHEALTH_BENCH_WARMUP, LBHEALTH_BENCH_WINDOW as for EngineVsHAProxy
func BenchmarkCheckTypes(b *testing.B) {
	if testing.Short() {
		b.Skip("long benchmark: not under -short")
	}
	opt := benchOptionsFromEnv(b)
	const n = 1000
	startSimulator(b)
	blackbox, err := exec.LookPath("prometheus-blackbox-exporter")
	if err != nil {
		blackbox = ""
		b.Logf("no blackbox_exporter (%v): `apt-get install prometheus-blackbox-exporter` gets the comparison", err)
	}
	only := os.Getenv("LBHEALTH_BENCH_TYPES")
	var rows []string
	for _, ct := range checkTypes {
		if only != "" && !strings.Contains(","+only+",", ","+ct.name+",") {
			continue
		}
		port := typesBasePort + ct.block*100
		if ct.noPort {
			port = 0
		}
		ours := measureTargets(b, typeTargets(ct, port, n), opt)
		perSec := ours.counts.probes / ours.window.Seconds()
		us := ours.cpu.Seconds() / ours.counts.probes * 1e6
		row := fmt.Sprintf("| %s | %.0f | %.0f | %.0f |", ct.name, perSec, us, ours.counts.failed())
		if blackbox != "" && ct.blackbox != "" {
			bb := measureBlackbox(b, blackbox, ct, port, n, opt)
			row += fmt.Sprintf(" %.0f | %.0f | %.2f |", bb.perSec, bb.usPerProbe, us/bb.usPerProbe)
		} else {
			row += " - | - | - |"
		}
		rows = append(rows, row)
	}
	b.Logf("%d endpoints @1s, %d CPUs (%s); warm-up %v, window %v", n, runtime.NumCPU(), cpuModel(), opt.warmup, opt.window)
	b.Logf("| check type | probes/s | CPU µs / probe | failed | blackbox probes/s | blackbox CPU µs / probe | ratio (ours / blackbox) |")
	b.Logf("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		b.Logf("%s", r)
	}
}

// typeTargets are n endpoints probed with ct: one owner each, so that they
// are n targets although the simulator serves them on one address.
func typeTargets(ct checkType, port, n int) []Target {
	out := make([]Target, n)
	for i := range out {
		out[i] = Target{
			Owner:    fmt.Sprintf("projects/bench/global/backendServices/bs%d", i),
			Group:    "projects/bench/zones/z/networkEndpointGroups/bench",
			Endpoint: Endpoint{IP: "127.0.0.1", Port: port},
			Check: Check{Name: "projects/bench/global/healthChecks/" + strings.ToLower(ct.name), Probe: ct.spec, Port: port,
				Interval: time.Second, Timeout: time.Second, HealthyThreshold: 2, UnhealthyThreshold: 2},
		}
	}
	return out
}

// measureTargets probes targets with a real engine over opt's window.
func measureTargets(b *testing.B, targets []Target, opt benchOptions) engineResult {
	b.Helper()
	reg := prometheus.NewRegistry()
	e := New(Config{Probers: 1, Metrics: NewMetrics(reg)})
	defer e.Close()
	e.Update(targets)
	time.Sleep(opt.warmup)
	c0, cpu0, t0 := gatherEngineCounts(b, reg), cpuSelf(b), time.Now()
	time.Sleep(opt.window)
	cpu1, window := cpuSelf(b), time.Since(t0)
	c1 := gatherEngineCounts(b, reg)
	return engineResult{window: window, counts: c1.sub(c0), cpu: cpu1 - cpu0}
}

// startSimulator builds lbhealth-emulator and runs its target simulator,
// one target of each kind, at typesBasePort, until the benchmark ends.
func startSimulator(b *testing.B) {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "lbhealth-emulator")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/lbhealth-emulator").CombinedOutput(); err != nil {
		b.Fatalf("go build lbhealth-emulator: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "targets", "--base-port", strconv.Itoa(typesBasePort), "--control", "127.0.0.1:0", "--http", "1",
		"--log-level", "error")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// It prints its targets once they all listen.
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "postgres-1") {
			go io.Copy(io.Discard, out) //nolint:errcheck // drain
			return
		}
	}
	b.Fatal("the target simulator did not start")
}

type blackboxResult struct{ perSec, usPerProbe float64 }

// measureBlackbox runs blackbox_exporter and asks it for n probes a second
// of ct's module, each a /probe request as Prometheus would send, over
// opt's window; its CPU per successful probe.
func measureBlackbox(b *testing.B, bin string, ct checkType, port, n int, opt benchOptions) blackboxResult {
	b.Helper()
	dir := b.TempDir()
	config := `modules:
  http_2xx: {prober: http, timeout: 1s}
  tcp_connect: {prober: tcp, timeout: 1s}
  icmp: {prober: icmp, timeout: 1s, icmp: {preferred_ip_protocol: ip4}}
  dns_a:
    prober: dns
    timeout: 1s
    dns: {query_name: web.example.com, query_type: A, transport_protocol: udp, preferred_ip_protocol: ip4}
`
	if err := os.WriteFile(filepath.Join(dir, "blackbox.yml"), []byte(config), 0o644); err != nil {
		b.Fatal(err)
	}
	const listen = "127.0.0.1:21999"
	cmd := exec.Command(bin, "--config.file", filepath.Join(dir, "blackbox.yml"), "--web.listen-address", listen, "--log.level", "error")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	target := "127.0.0.1"
	if port != 0 {
		target = fmt.Sprintf("127.0.0.1:%d", port)
	}
	if ct.blackbox == "http_2xx" {
		target = "http://" + target + "/"
	}
	url := "http://" + listen + "/probe?module=" + ct.blackbox + "&target=" + target
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}, Timeout: 3 * time.Second}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if resp, err := client.Get("http://" + listen + "/-/healthy"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("blackbox_exporter did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var ok, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// n probes a second: one every 1/n s, each on its own goroutine, as
	// n scrape jobs at 1 s would send them.
	wg.Go(func() {
		tick := time.NewTicker(time.Second / time.Duration(n))
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				wg.Go(func() {
					resp, err := client.Get(url)
					if err != nil {
						failed.Add(1)
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if strings.Contains(string(body), "probe_success 1") {
						ok.Add(1)
					} else {
						failed.Add(1)
					}
				})
			}
		}
	})
	time.Sleep(opt.warmup)
	ok0, cpu0, t0 := ok.Load(), cpuOf(b, cmd.Process.Pid), time.Now()
	time.Sleep(opt.window)
	ok1, cpu1, window := ok.Load(), cpuOf(b, cmd.Process.Pid), time.Since(t0)
	close(stop)
	wg.Wait()
	if failed.Load() > 0 {
		b.Logf("blackbox_exporter %s: %d probes failed", ct.blackbox, failed.Load())
	}
	probes := float64(ok1 - ok0)
	return blackboxResult{perSec: probes / window.Seconds(), usPerProbe: (cpu1 - cpu0).Seconds() / probes * 1e6}
}
