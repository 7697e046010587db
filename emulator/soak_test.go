//go:build soak && linux

package emulator_test

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// TestSoak runs an in-process emulator that holds many loopback endpoints
// (10,000 by default) for minutes, one in twenty of them misbehaving (hang,
// reset, slowloris), with timeout == interval, and prints over time what
// must stay flat: probe lag, missed probes, memory and open descriptors.
// The endpoints answer from a process of their own
// (emulator/internal/benchtarget), so what is measured is the emulator's.
//
// It is behind the soak build tag: `make soak` runs it, `make test` never
// does. Settings (environment):
//
//	LBHEALTH_SOAK_DURATION    how long to hold the endpoints (3m)
//	LBHEALTH_SOAK_ENDPOINTS   how many (10000)
//	LBHEALTH_SOAK_MISBEHAVE   one in this many misbehaves (20: 5%)
//	LBHEALTH_SOAK_INTERVAL    check interval, and timeout (5s)
//	LBHEALTH_SOAK_EVERY       how often to print a line (15s)
//
// It fails if the verdicts are wrong at the end (every misbehaving endpoint
// UNHEALTHY, every other HEALTHY), or if the open descriptors grow over
// the run: the numbers themselves are for the reader.
func TestSoak(t *testing.T) {
	opt := soakOptionsFromEnv(t)
	targets := startSoakTargets(t, opt)
	cfg := emulator0()
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e := startEmulator(t, cfg)
	declareSoak(t, e, targets, opt)
	t.Logf("%d endpoints (%d misbehaving: %v), interval = timeout = %v, on %d CPUs, %s",
		len(targets.addrs), targets.bad(), targets.modes(), opt.interval, runtime.NumCPU(), runtime.Version())

	start := time.Now()
	prev := scrapeSoak(t, e)
	var first, last soakSample
	t.Logf("%8s %9s %13s %13s %13s %13s %20s %8s %6s %10s", "elapsed", "probes/s", "lag p50 (ms)", "lag p99 (ms)",
		"lag max (ms)", "missed (all)", "healthy/unhealthy/?", "RSS (MB)", "fds", "goroutines")
	for time.Since(start) < opt.duration {
		time.Sleep(min(opt.every, opt.duration-time.Since(start)))
		cur := scrapeSoak(t, e)
		cur.states = soakStates(t, e, targets, opt)
		w := cur.sub(prev)
		t.Logf("%8s %9.0f %13.2f %13.2f %13s %6.0f (%4.0f) %20s %8.1f %6d %10d",
			time.Since(start).Round(time.Second), w.probes/w.window.Seconds(), 1000*quantile(0.5, w.lag), 1000*quantile(0.99, w.lag),
			maxBucket(w.lag), w.missed, cur.missed, fmt.Sprintf("%d/%d/%d", cur.states[0], cur.states[1], cur.states[2]),
			float64(cur.rss)/(1<<20), cur.fds, cur.goroutines)
		if first.at.IsZero() && time.Since(start) >= 2*opt.interval+opt.every {
			first = cur // after warm-up: every endpoint probed a few times
		}
		prev, last = cur, cur
	}
	good := len(targets.addrs) - targets.bad()
	if last.states[0] != good || last.states[1] != targets.bad() {
		t.Errorf("at the end %d HEALTHY and %d UNHEALTHY, want %d and %d", last.states[0], last.states[1], good, targets.bad())
	}
	if !first.at.IsZero() && last.fds > first.fds+first.fds/5+200 {
		t.Errorf("open descriptors grew from %d to %d over the run", first.fds, last.fds)
	}
}

type soakOptions struct {
	duration, interval, every time.Duration
	endpoints, misbehave      int
}

func soakOptionsFromEnv(t *testing.T) soakOptions {
	opt := soakOptions{duration: 3 * time.Minute, interval: 5 * time.Second, every: 15 * time.Second, endpoints: 10000, misbehave: 20}
	for name, d := range map[string]*time.Duration{"LBHEALTH_SOAK_DURATION": &opt.duration,
		"LBHEALTH_SOAK_INTERVAL": &opt.interval, "LBHEALTH_SOAK_EVERY": &opt.every} {
		if v := os.Getenv(name); v != "" {
			var err error
			if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
				t.Fatalf("%s=%q: want a positive duration such as 3m", name, v)
			}
		}
	}
	if opt.interval%time.Second != 0 {
		t.Fatalf("LBHEALTH_SOAK_INTERVAL=%v: the API takes whole seconds", opt.interval)
	}
	for name, n := range map[string]*int{"LBHEALTH_SOAK_ENDPOINTS": &opt.endpoints, "LBHEALTH_SOAK_MISBEHAVE": &opt.misbehave} {
		if v := os.Getenv(name); v != "" {
			var err error
			if *n, err = strconv.Atoi(v); err != nil || *n < 1 {
				t.Fatalf("%s=%q: want a positive integer", name, v)
			}
		}
	}
	return opt
}

// soakTargets is a running benchtarget: every address, and what the
// misbehaving ones do.
type soakTargets struct {
	addrs []string
	mode  map[string]string // address -> hang, reset or slowloris
}

func (st *soakTargets) bad() int { return len(st.mode) }

func (st *soakTargets) modes() map[string]int {
	out := map[string]int{}
	for _, m := range st.mode {
		out[m]++
	}
	return out
}

// startSoakTargets builds and starts benchtarget and reads its addresses.
func startSoakTargets(t *testing.T, opt soakOptions) *soakTargets {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "benchtarget")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/benchtarget").CombinedOutput(); err != nil {
		t.Fatalf("go build benchtarget: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-n", strconv.Itoa(opt.endpoints), "-misbehave", strconv.Itoa(opt.misbehave))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start benchtarget: %v", err)
	}
	t.Cleanup(func() {
		in.Close() // benchtarget exits when its stdin closes
		cmd.Wait()
	})
	st := &soakTargets{mode: map[string]string{}}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		switch {
		case len(f) == 1 && f[0] == "ready":
			return st
		case len(f) >= 2 && f[0] == "listen":
			st.addrs = append(st.addrs, f[1])
			if len(f) == 3 {
				st.mode[f[1]] = f[2]
			}
		default:
			t.Fatalf("benchtarget: unexpected line %q", lines.Text())
		}
	}
	t.Fatalf("benchtarget did not get ready: %v\n%s", lines.Err(), stderr.Bytes())
	return nil
}

// soakGroups is how many endpoint groups hold the endpoints.
const soakGroups = 10

// declareSoak declares one HTTP check (timeout == interval) and a backend
// service over soakGroups endpoint groups holding every target.
func declareSoak(t *testing.T, e *emulator.Emulator, st *soakTargets, opt soakOptions) {
	t.Helper()
	secs := int(opt.interval / time.Second)
	mustCall(t, e, "POST", "global/healthChecks", fmt.Sprintf(`{"name": "soak", "checkIntervalSec": %d, "timeoutSec": %d,
		"httpHealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`, secs, secs))
	var backends []string
	for g := range soakGroups {
		var eps []string
		for i := g; i < len(st.addrs); i += soakGroups {
			host, port, _ := net.SplitHostPort(st.addrs[i])
			eps = append(eps, fmt.Sprintf(`{"ipAddress": %q, "port": %s}`, host, port))
		}
		mustCall(t, e, "POST", "zones/z/networkEndpointGroups", fmt.Sprintf(`{"name": "soak-%d", "endpoints": [%s]}`, g, strings.Join(eps, ",")))
		backends = append(backends, fmt.Sprintf(`{"group": "zones/z/networkEndpointGroups/soak-%d"}`, g))
	}
	mustCall(t, e, "POST", "global/backendServices", fmt.Sprintf(`{"name": "soak", "protocol": "HTTP",
		"backends": [%s], "healthChecks": ["global/healthChecks/soak"]}`, strings.Join(backends, ",")))
}

// soakStates counts HEALTHY, UNHEALTHY and other endpoints, and fails on
// a misbehaving endpoint seen HEALTHY.
func soakStates(t *testing.T, e *emulator.Emulator, st *soakTargets, opt soakOptions) [3]int {
	t.Helper()
	var n [3]int
	for g := range soakGroups {
		var out struct {
			HealthStatus []struct {
				IPAddress   string `json:"ipAddress"`
				Port        int64  `json:"port"`
				HealthState string `json:"healthState"`
			} `json:"healthStatus"`
		}
		body := fmt.Sprintf(`{"group": "zones/z/networkEndpointGroups/soak-%d"}`, g)
		if code := apiCall(t, e, "POST", "global/backendServices/soak/getHealth", body, &out); code != http.StatusOK {
			t.Fatalf("getHealth: %d", code)
		}
		for _, hs := range out.HealthStatus {
			switch hs.HealthState {
			case "HEALTHY":
				n[0]++
				if m := st.mode[net.JoinHostPort(hs.IPAddress, strconv.FormatInt(hs.Port, 10))]; m != "" {
					t.Errorf("%s:%d (%s) is HEALTHY", hs.IPAddress, hs.Port, m)
				}
			case "UNHEALTHY":
				n[1]++
			default:
				n[2]++
			}
		}
	}
	return n
}

// soakSample is what one scrape saw.
type soakSample struct {
	at             time.Time
	probes, missed float64
	lag            []soakBucket // cumulative
	rss            int64
	fds            int
	goroutines     int
	states         [3]int
}

type soakBucket struct{ upper, count float64 }

// window is what happened between two samples.
type window struct {
	window         time.Duration
	probes, missed float64
	lag            []soakBucket
}

func (s soakSample) sub(before soakSample) window {
	w := window{window: s.at.Sub(before.at), probes: s.probes - before.probes, missed: s.missed - before.missed}
	for i, b := range s.lag {
		if i < len(before.lag) {
			b.count -= before.lag[i].count
		}
		w.lag = append(w.lag, b)
	}
	return w
}

// scrapeSoak reads the emulator's /metrics, and this process's memory,
// descriptors and goroutines (the emulator runs in it).
func scrapeSoak(t *testing.T, e *emulator.Emulator) soakSample {
	t.Helper()
	resp, err := http.Get(e.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	s := soakSample{at: time.Now(), goroutines: runtime.NumGoroutine()}
	sum := func(name string) float64 {
		total := 0.0
		for _, m := range families[name].GetMetric() {
			total += m.GetCounter().GetValue()
		}
		return total
	}
	s.probes, s.missed = sum("lbhealth_probes_total"), sum("lbhealth_probes_missed_total")
	if f := families["lbhealth_scheduler_lag_seconds"]; f != nil && len(f.GetMetric()) == 1 {
		s.lag = histogram(f.GetMetric()[0].GetHistogram())
	}
	s.rss = vmRSS(t)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	s.fds = len(fds)
	return s
}

func histogram(h *dto.Histogram) []soakBucket {
	var out []soakBucket
	for _, b := range h.GetBucket() {
		out = append(out, soakBucket{b.GetUpperBound(), float64(b.GetCumulativeCount())})
	}
	return append(out, soakBucket{math.Inf(1), float64(h.GetSampleCount())})
}

// quantile interpolates within cumulative buckets as histogram_quantile
// does; the highest finite bound when the rank falls in +Inf.
func quantile(q float64, buckets []soakBucket) float64 {
	if len(buckets) == 0 || buckets[len(buckets)-1].count == 0 {
		return math.NaN()
	}
	rank := q * buckets[len(buckets)-1].count
	i := sort.Search(len(buckets), func(i int) bool { return buckets[i].count >= rank })
	if math.IsInf(buckets[i].upper, 1) {
		return buckets[max(i-1, 0)].upper
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = buckets[i-1].upper, buckets[i-1].count
	}
	if buckets[i].count == below {
		return buckets[i].upper
	}
	return lower + (buckets[i].upper-lower)*(rank-below)/(buckets[i].count-below)
}

// maxBucket is the upper bound, in ms, of the highest bucket with an
// observation: "<= 20" says the worst lag of the window was at most 20 ms.
func maxBucket(buckets []soakBucket) string {
	for i := len(buckets) - 1; i > 0; i-- {
		if buckets[i].count > buckets[i-1].count {
			if math.IsInf(buckets[i].upper, 1) {
				return fmt.Sprintf("> %g", 1000*buckets[i-1].upper)
			}
			return fmt.Sprintf("<= %g", 1000*buckets[i].upper)
		}
	}
	if len(buckets) > 0 && buckets[0].count > 0 {
		return fmt.Sprintf("<= %g", 1000*buckets[0].upper)
	}
	return "-"
}

func vmRSS(t *testing.T) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
