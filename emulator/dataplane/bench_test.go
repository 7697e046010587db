//go:build linux

package dataplane_test

// The data plane against HAProxy as the same reverse proxy to the same
// loopback backends, side by side in one run (make bench):
//
//   - throughput: requests per second and per CPU-second of the proxy
//     process, with benchClients keep-alive clients asking as fast as
//     they can: once with every process free to run on every CPU, and
//     once with the proxy on a CPU of its own and the load and the
//     backends on another (per core, without the scheduler's contention
//     with the load; on a machine of two CPUs or more);
//   - latency at benchRate requests a second, open loop: p50 and p99, and
//     what each proxy adds to the backends' own;
//   - failover: at a steady rate, one of two backends starts answering
//     500; the requests that failed and the time until none fails, with
//     the same check settings on both sides (interval 1 s, timeout 1 s,
//     fall 2, rise 2).
//
// Every party has a process of its own, so that each CPU is measured
// alone: the emulator (built from ../cmd/lbhealth-emulator), HAProxy, the
// backends (this test binary, started again as benchBackendEnv says), and
// the load in this process. A third proxy, for reference in throughput
// alone, is net/http's reverse proxy with nothing around it (this binary
// again, as benchBareEnv says): a round-robin proxy to the two backends,
// without routing, health or metrics, which shows what of the gap to
// HAProxy is the data plane's own and what is its HTTP library's and Go's.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/procstat"
)

const (
	benchBackendEnv = "LBHEALTH_BENCH_BACKENDS" // set: this process is the backends
	benchBareEnv    = "LBHEALTH_BENCH_BARE"     // the backends' addresses: this process is the bare proxy
	benchClients    = 32
	benchRate       = 1000 // requests a second, for latency
)

func TestMain(m *testing.M) {
	if os.Getenv(benchBackendEnv) != "" {
		serveBackends()
		return
	}
	if addrs := os.Getenv(benchBareEnv); addrs != "" {
		serveBare(strings.Split(addrs, ","))
		return
	}
	os.Exit(m.Run())
}

// serveBackends is the backends' process: two HTTP servers on loopback,
// whose addresses it prints, each answering 200 until a line "fail N" on
// stdin makes server N (0 or 1) answer 500, and "ok N" heals it. It
// exits when stdin closes.
func serveBackends() {
	var failing [2]atomic.Bool
	for i := range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr())
		body := []byte("ok")
		go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "2")
			if failing[i].Load() {
				w.WriteHeader(http.StatusInternalServerError)
			}
			w.Write(body)
		}))
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		verb, n, _ := strings.Cut(in.Text(), " ")
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < 2 {
			failing[i].Store(verb == "fail")
		}
		fmt.Println("done")
	}
}

// serveBare is the bare proxy's process: net/http's server and reverse
// proxy, to each backend in turn, on a loopback address it prints. It
// exits when stdin closes.
func serveBare(addrs []string) {
	var turn atomic.Uint64
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: addrs[turn.Add(1)%uint64(len(addrs))]})
		},
		Transport: &http.Transport{MaxIdleConnsPerHost: 256},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	go http.Serve(ln, rp)
	io.Copy(io.Discard, os.Stdin)
}

// startSelf starts this test binary again, as env says (benchBackendEnv,
// benchBareEnv), until the benchmark ends: its pid, stdin and stdout.
func startSelf(b *testing.B, env string) (int, io.WriteCloser, *bufio.Reader) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	return cmd.Process.Pid, in, bufio.NewReader(stdout)
}

// startReference runs a reference proxy over bk, this binary again as
// env (benchBareEnv) says.
func startReference(b *testing.B, bk *backends, env, name string) proxy {
	b.Helper()
	pid, _, out := startSelf(b, env+"="+strings.Join(bk.addrs, ","))
	addr, err := out.ReadString('\n')
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return proxy{name: name, pid: pid, addr: strings.TrimSpace(addr)}
}

// backends is the running backends' process.
type backends struct {
	pid   int
	addrs []string
	in    io.WriteCloser
	out   *bufio.Reader
}

func startBackends(b *testing.B) *backends {
	b.Helper()
	pid, in, out := startSelf(b, benchBackendEnv+"=1")
	bk := &backends{pid: pid, in: in, out: out}
	for {
		line, err := bk.out.ReadString('\n')
		if err != nil {
			b.Fatalf("backends: %v", err)
		}
		if line = strings.TrimSpace(line); line == "ready" {
			return bk
		}
		bk.addrs = append(bk.addrs, line)
	}
}

// set makes backend i fail or heal, and waits until it has.
func (bk *backends) set(b *testing.B, verb string, i int) {
	b.Helper()
	fmt.Fprintf(bk.in, "%s %d\n", verb, i)
	if _, err := bk.out.ReadString('\n'); err != nil {
		b.Fatal(err)
	}
}

// proxy is one of the two proxies under test: a process and its address.
type proxy struct {
	name string
	pid  int
	addr string
}

// startEmulator runs lbhealth-emulator with the data plane and builds a
// global external Application Load Balancer over the backends, with a
// check as HAProxy's below.
func startEmulator(b *testing.B, bk *backends) proxy {
	b.Helper()
	dir := b.TempDir()
	bin := filepath.Join(dir, "lbhealth-emulator")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/lbhealth-emulator").CombinedOutput(); err != nil {
		b.Fatalf("go build lbhealth-emulator: %v\n%s", err, out)
	}
	api, lb := freeAddr(b), freeAddr(b)
	cmd := exec.Command(bin, "serve", "--in-memory", "--listen", api, "--log-level", "error")
	// LBHEALTH_BENCH_EMULATOR_ENV adds variables to the emulator's
	// environment ("GOGC=100 GOMAXPROCS=1"), to see what they change.
	cmd.Env = append(os.Environ(), strings.Fields(os.Getenv("LBHEALTH_BENCH_EMULATOR_ENV"))...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	root := "http://" + api + "/compute/v1/projects/p/"
	waitUntil(b, "the emulator's API", func() bool {
		resp, err := http.Get("http://" + api + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	var eps []string
	for _, a := range bk.addrs {
		host, port, _ := net.SplitHostPort(a)
		eps = append(eps, fmt.Sprintf(`{"ipAddress":%q,"port":%s}`, host, port))
	}
	_, port, _ := net.SplitHostPort(lb)
	for _, c := range []struct{ path, body string }{
		{"global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":2,"unhealthyThreshold":2,
			"httpHealthCheck":{"portSpecification":"USE_SERVING_PORT"}}`},
		{"zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP_PORT","endpoints":[` + strings.Join(eps, ",") + `]}`},
		{"global/backendServices", `{"name":"web","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP",
			"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100000}],
			"healthChecks":["global/healthChecks/hc"]}`},
		{"global/urlMaps", `{"name":"um","defaultService":"global/backendServices/web"}`},
		{"global/targetHttpProxies", `{"name":"proxy","urlMap":"global/urlMaps/um"}`},
		{"global/forwardingRules", `{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP","portRange":"` + port + `",
			"loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpProxies/proxy"}`},
	} {
		resp, err := http.Post(root+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			b.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("POST %s: %d %s", c.path, resp.StatusCode, msg)
		}
	}
	return proxy{name: "lbhealth", pid: cmd.Process.Pid, addr: lb}
}

// startHAProxy runs HAProxy as the same reverse proxy, one thread.
func startHAProxy(b *testing.B, haproxy string, bk *backends) proxy {
	b.Helper()
	lb := freeAddr(b)
	var servers strings.Builder
	for i, a := range bk.addrs {
		fmt.Fprintf(&servers, "  server s%d %s check inter 1s fall 2 rise 2\n", i, a)
	}
	cfg := fmt.Sprintf(`global
  nbthread 1
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  timeout check 1s
frontend fe
  bind %s
  default_backend be
backend be
  balance roundrobin
  option httpchk GET /
%s`, lb, servers.String())
	path := filepath.Join(b.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(haproxy, "-f", path, "-db")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return proxy{name: "haproxy", pid: cmd.Process.Pid, addr: lb}
}

func freeAddr(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitUntil(b *testing.B, what string, cond func() bool) {
	b.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	b.Fatalf("timed out waiting for %s", what)
}

// client sends the load: keep-alive connections, as many as benchClients.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients * 2, MaxConnsPerHost: benchClients * 2,
	DisableCompression: true}, Timeout: 5 * time.Second}

// fetch sends one request and tells whether it succeeded (200).
func fetch(url string) bool {
	resp, err := client.Get(url)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == 200
}

// bothServing waits until both backends answer through p.
func bothServing(b *testing.B, p proxy) {
	b.Helper()
	waitUntil(b, p.name+" serving", func() bool {
		for range 10 {
			if !fetch("http://" + p.addr + "/") {
				return false
			}
		}
		return true
	})
	time.Sleep(2 * time.Second) // both checks past rise, on both proxies
}

// throughput runs benchClients clients as fast as they go for d: the
// requests a second, and per CPU-second of pid.
func throughput(b *testing.B, addr string, pid int, d time.Duration) (perSec, perCPUSec float64) {
	b.Helper()
	var n atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cpu0, t0 := cpuOf(b, pid), time.Now()
	var wg sync.WaitGroup
	for range benchClients {
		wg.Go(func() {
			for ctx.Err() == nil {
				if fetch("http://" + addr + "/") {
					n.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(t0).Seconds(), (cpuOf(b, pid) - cpu0).Seconds()
	return float64(n.Load()) / elapsed, float64(n.Load()) / max(cpu, 1e-3)
}

// ownCore runs f with p on a CPU of its own and this process (the load)
// and the backends on another, and tells whether it could: the machine
// may have a single CPU.
func ownCore(b *testing.B, bk *backends, p proxy, f func()) bool {
	b.Helper()
	cpus, err := procstat.CPUs()
	if err != nil || len(cpus) < 2 {
		return false
	}
	pin := func(pid int, cpus ...int) {
		if err := procstat.Pin(pid, cpus...); err != nil {
			b.Fatal(err)
		}
	}
	pin(p.pid, cpus[1])
	pin(os.Getpid(), cpus[0])
	pin(bk.pid, cpus[0])
	defer func() {
		for _, pid := range []int{p.pid, os.Getpid(), bk.pid} {
			pin(pid)
		}
	}()
	// Go's runtime sets GOMAXPROCS to the CPUs a process may use again
	// about once a second.
	time.Sleep(2 * time.Second)
	f()
	return true
}

// latency sends rate requests a second for d, open loop, and returns
// the p50 and p99 latency of those that succeeded, and the failures.
func latency(addr string, rate int, d time.Duration) (p50, p99 time.Duration, failed int) {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for end := time.Now().Add(d); time.Now().Before(end); {
		<-tick.C
		wg.Go(func() {
			t := time.Now()
			ok := fetch("http://" + addr + "/")
			dt := time.Since(t)
			mu.Lock()
			if ok {
				lat = append(lat, dt)
			} else {
				failed++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(lat)
	if len(lat) == 0 {
		return 0, 0, failed
	}
	return lat[len(lat)/2], lat[len(lat)*99/100], failed
}

// failoverTrials is how many times failover breaks a backend per proxy:
// when a break falls in the checks' interval decides how long it takes
// to see, so one trial says little.
const failoverTrials = 6

// failover breaks backend 0 failoverTrials times, at a random moment of
// the check interval, at a steady rate, and returns the mean of the
// requests that failed from the break on and of the time until the last
// one; it heals the backend after each.
func failover(b *testing.B, bk *backends, p proxy) (failed float64, until time.Duration) {
	b.Helper()
	for range failoverTrials {
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second))))
		n, d := failOnce(b, bk, p.addr)
		failed += float64(n) / failoverTrials
		until += d / failoverTrials
		bothServing(b, p)
	}
	return failed, until
}

// failOnce breaks backend 0 at a steady rate and counts the requests that
// fail from then on, and how long until the last one; then heals it.
func failOnce(b *testing.B, bk *backends, addr string) (failed int, until time.Duration) {
	b.Helper()
	const rate, window = 200, 5 * time.Second
	var mu sync.Mutex
	var last time.Time
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	bk.set(b, "fail", 0)
	broke := time.Now()
	for end := broke.Add(window); time.Now().Before(end); {
		<-tick.C
		wg.Go(func() {
			if !fetch("http://" + addr + "/") {
				mu.Lock()
				failed++
				last = time.Now()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	bk.set(b, "ok", 0)
	if failed == 0 {
		return 0, 0
	}
	return failed, last.Sub(broke)
}

func BenchmarkDataPlaneVsHAProxy(b *testing.B) {
	if testing.Short() {
		b.Skip("a minute of side-by-side load: make bench runs it on its own")
	}
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		b.Skip("haproxy is not installed (apt-get install haproxy): no side-by-side run")
	}
	bk := startBackends(b)
	ours, theirs := startEmulator(b, bk), startHAProxy(b, haproxy, bk)
	proxies := []proxy{ours, theirs}
	references := []proxy{startReference(b, bk, benchBareEnv, "net/http alone")}
	for _, p := range append(proxies, references...) {
		bothServing(b, p)
	}
	b.ResetTimer()
	type row struct {
		perSec, perCPU float64
		ownPerSec      float64 // on a CPU of its own
		ownPerCPU      float64
		p50, p99       time.Duration
		latFailed      int
		failed         float64
		until          time.Duration
	}
	rows := map[string]row{}
	for range b.N {
		d50, d99, _ := latency(bk.addrs[1], benchRate, 5*time.Second) // the backend alone
		b.Logf("backend alone at %d req/s: p50 %v, p99 %v", benchRate, d50, d99)
		for _, p := range proxies {
			var r row
			r.perSec, r.perCPU = throughput(b, p.addr, p.pid, 5*time.Second)
			ownCore(b, bk, p, func() {
				r.ownPerSec, r.ownPerCPU = throughput(b, p.addr, p.pid, 5*time.Second)
			})
			r.p50, r.p99, r.latFailed = latency(p.addr, benchRate, 5*time.Second)
			r.failed, r.until = failover(b, bk, p)
			rows[p.name] = r
		}
		for _, p := range references { // throughput alone
			var r row
			r.perSec, r.perCPU = throughput(b, p.addr, p.pid, 5*time.Second)
			ownCore(b, bk, p, func() {
				r.ownPerSec, r.ownPerCPU = throughput(b, p.addr, p.pid, 5*time.Second)
			})
			rows[p.name] = r
		}
		b.Logf("| proxy | req/s (%d clients) | req per CPU-second | on a CPU of its own: req/s, per CPU-second | p50 / p99 at %d req/s | p99 added | failed | failed requests after a backend breaks (mean of %d) | until none fail |",
			benchClients, benchRate, failoverTrials)
		b.Logf("|---|---|---|---|---|---|---|---|---|")
		for _, p := range proxies {
			r := rows[p.name]
			b.Logf("| %s | %.0f | %.0f | %.0f, %.0f | %v / %v | %v | %d | %.0f | %v |", p.name, r.perSec, r.perCPU,
				r.ownPerSec, r.ownPerCPU, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), (r.p99 - d99).Round(time.Microsecond),
				r.latFailed, r.failed, r.until.Round(time.Millisecond))
		}
		for _, p := range references {
			r := rows[p.name]
			b.Logf("| %s | %.0f | %.0f | %.0f, %.0f | | | | | |", p.name, r.perSec, r.perCPU, r.ownPerSec, r.ownPerCPU)
		}
	}
	o, h := rows["lbhealth"], rows["haproxy"]
	b.ReportMetric(o.perSec, "req/s")
	b.ReportMetric(o.perCPU, "req/cpu-s")
	b.ReportMetric(h.perCPU, "haproxy-req/cpu-s")
	b.ReportMetric(o.perCPU/max(h.perCPU, 1), "per-core-ratio")
	if h.ownPerCPU > 0 {
		b.ReportMetric(o.ownPerCPU/h.ownPerCPU, "own-core-ratio")
		b.ReportMetric(rows["net/http alone"].ownPerCPU/h.ownPerCPU, "bare-own-core-ratio")
	}
	b.ReportMetric(float64(o.p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(h.p99.Microseconds())/1000, "haproxy-p99-ms")
	b.ReportMetric(o.failed, "failed")
	b.ReportMetric(h.failed, "haproxy-failed")
}

// cpuOf is the CPU process pid has used so far (procstat.CPU).
func cpuOf(b *testing.B, pid int) time.Duration {
	b.Helper()
	d, err := procstat.CPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
