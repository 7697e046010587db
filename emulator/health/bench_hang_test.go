//go:build linux

package health

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/prober"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// BenchmarkHangingEndpoints measures what endpoints that never answer
// cost the engine: N loopback endpoints (2,000) probed every second with a
// one-second timeout, so that N probes are always waiting, over HTTP and
// over HTTPS side by side. Issue 11 asks that a hanging TLS endpoint cost
// no more memory than a hanging HTTP one (RSS within 20%).
//
// Three ways to hang:
//
//	silent  the server accepts, reads, and never writes a byte: an HTTP
//	        probe waits for the status line, an HTTPS one for the
//	        ServerHello (what benchtarget's hang does)
//	mute    HTTPS only: the TLS handshake completes, the request gets no
//	        answer (an application hung behind its TLS)
//	stalled the server starts answering and stops: "HTTP/1.1 2" for HTTP,
//	        the ServerHello record alone (the rest of its flight is never
//	        sent) for HTTPS, so the client has done its key agreement and
//	        waits for EncryptedExtensions
//
// Each engine runs in a child process (this test binary again, running
// BenchmarkHangingChild) so that neither protocol inherits the other's heap,
// and the servers run here, so that their memory and CPU are never the
// engine's. Each child runs about 11 s; run it with -benchtime=1x (make
// bench does). Settings (environment):
//
//	LBHEALTH_BENCH_HANG          endpoints (2000)
//	LBHEALTH_BENCH_HANG_WARMUP   before the window (3s)
//	LBHEALTH_BENCH_HANG_WINDOW   CPU is measured over it (8s)
//	LBHEALTH_BENCH_HANG_PROFILE  a directory: each child writes its CPU
//	                             profile of the window and a heap profile
//	                             there (hang-<mode>-<protocol>.*.pprof)
func BenchmarkHangingEndpoints(b *testing.B) {
	if testing.Short() {
		b.Skip("long benchmark: not under -short")
	}
	n := envInt(b, "LBHEALTH_BENCH_HANG", 2000)
	warmup := envDuration(b, "LBHEALTH_BENCH_HANG_WARMUP", 3*time.Second)
	window := envDuration(b, "LBHEALTH_BENCH_HANG_WINDOW", 8*time.Second)
	cert := hangCert(b)
	b.Logf("%d endpoints, interval = timeout = 1s, warm-up %v, window %v; %d CPUs (%s), GOMAXPROCS %d, %s",
		n, warmup, window, runtime.NumCPU(), cpuModel(), runtime.GOMAXPROCS(0), runtime.Version())
	b.Logf("| hang | protocol | RSS | VmHWM | heap in use | heap idle | stacks | Go runtime total | goroutines | CPU cores | probes/s | RSS / HTTP's |")
	b.Logf("|---|---|---|---|---|---|---|---|---|---|---|---|")
	var httpRSS int64
	for _, c := range hangCases {
		ports := startHangingServers(b, n, c.mode, c.protocol, cert)
		r := runHangingChild(b, c.mode, c.protocol, ports, warmup, window)
		if c.protocol == "HTTP" {
			httpRSS = r.RSS
		}
		ratio := float64(r.RSS) / float64(httpRSS)
		b.Logf("| %s | %s | %.1f MB | %.1f MB | %.1f MB | %.1f MB | %.1f MB | %.1f MB | %d | %.2f | %.0f | %.2f |",
			c.mode, c.protocol, mb(r.RSS), mb(r.HWM), mb(r.HeapInuse), mb(r.HeapIdle), mb(r.StackInuse), mb(r.Sys), r.Goroutines,
			r.CPU.Seconds()/r.Window.Seconds(), r.Probes/r.Window.Seconds(), ratio)
		unit := func(what string) string { return c.mode + "-" + strings.ToLower(c.protocol) + "-" + what }
		b.ReportMetric(mb(r.RSS), unit("rss-MB"))
		b.ReportMetric(float64(r.Goroutines), unit("goroutines"))
		b.ReportMetric(r.CPU.Seconds()/r.Window.Seconds(), unit("cpu-cores"))
		if c.protocol == "HTTPS" {
			b.ReportMetric(ratio, c.mode+"-rss-ratio")
		}
	}
}

// hangCases are the rows of BenchmarkHangingEndpoints, in order: an HTTPS
// row is compared with the HTTP row before it. A server whose application
// hangs behind its TLS ("mute") is, for HTTP, the silent one.
var hangCases = []struct{ mode, protocol string }{
	{"silent", "HTTP"}, {"silent", "HTTPS"}, {"mute", "HTTPS"},
	{"stalled", "HTTP"}, {"stalled", "HTTPS"},
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// hangResult is what a child reports of its engine.
type hangResult struct {
	RSS, HWM, HeapInuse, StackInuse int64
	HeapIdle, Sys                   int64 // kept from the OS though free; all the runtime holds
	Goroutines                      int
	CPU, Window                     time.Duration
	Probes                          float64
	Failures                        map[string]float64
}

// runHangingChild probes ports with an engine in a child process.
func runHangingChild(b *testing.B, mode, protocol string, ports []int, warmup, window time.Duration) hangResult {
	b.Helper()
	list := make([]string, len(ports))
	for i, p := range ports {
		list[i] = strconv.Itoa(p)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkHangingChild$", "-test.benchtime=1x")
	cmd.Env = append(os.Environ(),
		"LBHEALTH_HANG_CHILD="+protocol, "LBHEALTH_HANG_MODE="+mode, "LBHEALTH_HANG_PORTS="+strings.Join(list, ","),
		"LBHEALTH_HANG_WARMUP="+warmup.String(), "LBHEALTH_HANG_WINDOW="+window.String())
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s %s child: %v\n%s", mode, protocol, err, out)
	}
	for line := range strings.Lines(string(out)) {
		if js, ok := strings.CutPrefix(line, "hang-result "); ok {
			var r hangResult
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				b.Fatal(err)
			}
			for reason, v := range r.Failures {
				if reason != prober.ReasonTimeout && v > 0 {
					b.Fatalf("%s %s: %v probes failed with %s, not TIMEOUT: they did not hang", mode, protocol, v, reason)
				}
			}
			if r.Probes == 0 {
				b.Fatalf("%s %s: no probe ended in the window", mode, protocol)
			}
			return r
		}
	}
	b.Fatalf("%s %s child printed no result:\n%s", mode, protocol, out)
	return hangResult{}
}

// BenchmarkHangingChild is the engine half of BenchmarkHangingEndpoints;
// it does nothing unless that benchmark started it.
func BenchmarkHangingChild(b *testing.B) {
	protocol := os.Getenv("LBHEALTH_HANG_CHILD")
	if protocol == "" {
		b.Skip("run by BenchmarkHangingEndpoints")
	}
	var targets []Target
	for p := range strings.SplitSeq(os.Getenv("LBHEALTH_HANG_PORTS"), ",") {
		port, _ := strconv.Atoi(p)
		targets = append(targets, Target{
			Owner: "projects/bench/global/backendServices/hang", Group: "g",
			Endpoint: Endpoint{IP: "127.0.0.1", Port: port},
			Check: Check{Name: "projects/bench/global/healthChecks/hang", Probe: prober.Spec{Protocol: protocol},
				Port: port, Interval: time.Second, Timeout: time.Second, HealthyThreshold: 2, UnhealthyThreshold: 2},
		})
	}
	warmup, _ := time.ParseDuration(os.Getenv("LBHEALTH_HANG_WARMUP"))
	window, _ := time.ParseDuration(os.Getenv("LBHEALTH_HANG_WINDOW"))
	reg := prometheus.NewRegistry()
	e := New(Config{Probers: 1, Metrics: NewMetrics(reg)})
	defer e.Close()
	e.Update(targets)
	time.Sleep(warmup)

	profile := os.Getenv("LBHEALTH_BENCH_HANG_PROFILE")
	name := "hang-" + os.Getenv("LBHEALTH_HANG_MODE") + "-" + strings.ToLower(protocol)
	if profile != "" {
		stop := startCPUProfile(b, filepath.Join(profile, name+".cpu.pprof"))
		defer stop()
	}
	c0, cpu0, t0 := gatherEngineCounts(b, reg), cpuSelf(b), time.Now()
	time.Sleep(window)
	cpu1, elapsed, c1 := cpuSelf(b), time.Since(t0), gatherEngineCounts(b, reg)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r := hangResult{HeapInuse: int64(ms.HeapInuse), StackInuse: int64(ms.StackInuse),
		HeapIdle: int64(ms.HeapIdle - ms.HeapReleased), Sys: int64(ms.Sys - ms.HeapReleased),
		Goroutines: runtime.NumGoroutine(), CPU: cpu1 - cpu0, Window: elapsed}
	r.RSS, r.HWM = memOf(b, "self")
	d := c1.sub(c0)
	r.Probes, r.Failures = d.probes, d.failures
	if profile != "" {
		writeHeapProfile(b, filepath.Join(profile, name+".heap.pprof"))
	}
	js, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("hang-result %s\n", js)
}

func startCPUProfile(b *testing.B, path string) func() {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// startHangingServers listens on n loopback ports that hang the way mode
// says for protocol, until the benchmark ends.
func startHangingServers(b *testing.B, n int, mode, protocol string, cert tls.Certificate) []int {
	b.Helper()
	handle := func(c net.Conn) { _, _ = io.Copy(io.Discard, c) } // silent
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	switch {
	case mode == "mute":
		handle = func(c net.Conn) {
			tc := tls.Server(c, cfg)
			_, _ = io.Copy(io.Discard, tc) // handshake, then read the request and never answer
		}
	case mode == "stalled" && protocol == "HTTPS":
		handle = func(c net.Conn) {
			// The handshake blocks waiting for the client's Finished,
			// which never comes: it ends when the probe closes.
			_ = tls.Server(&firstRecordConn{Conn: c}, cfg).Handshake()
			_, _ = io.Copy(io.Discard, c)
		}
	case mode == "stalled":
		handle = func(c net.Conn) {
			_, _ = c.Read(make([]byte, 1024))
			_, _ = io.WriteString(c, "HTTP/1.1 2")
			_, _ = io.Copy(io.Discard, c)
		}
	}
	ports := make([]int, n)
	var lns []net.Listener
	var wg sync.WaitGroup
	for i := range ports {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			b.Fatalf("listener %d of %d: %v", i+1, n, err)
		}
		lns = append(lns, ln)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		wg.Go(func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				wg.Go(func() {
					defer c.Close()
					_ = c.SetDeadline(time.Now().Add(time.Minute)) // the probe gives up first
					handle(c)
				})
			}
		})
	}
	b.Cleanup(func() {
		for _, ln := range lns {
			ln.Close()
		}
		wg.Wait()
	})
	return ports
}

// firstRecordConn passes on only the first TLS record the server writes
// (its ServerHello) and swallows the rest of the flight.
type firstRecordConn struct {
	net.Conn
	sent bool
}

func (c *firstRecordConn) Write(p []byte) (int, error) {
	if c.sent {
		return len(p), nil
	}
	c.sent = true
	if len(p) >= 5 {
		if n := 5 + int(p[3])<<8 | int(p[4]); n <= len(p) {
			if _, err := c.Conn.Write(p[:n]); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

func hangCert(b *testing.B) tls.Certificate {
	cert, err := targets.SelfSignedCert("")
	if err != nil {
		b.Fatal(err)
	}
	return cert
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration such as 10s", name, v)
	}
	return d
}
