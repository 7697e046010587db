//go:build linux

package emulator_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/procstat"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// BenchmarkIdleCost is what the emulator as a whole costs with nothing to
// do but probe: the API, the probe engine with 1,000 HTTP endpoints every
// 5 s (a separate process serves them, emulator/internal/benchtarget), the
// data plane with a listener that no client uses, and the autohealing and
// autoscaling loops; the cores this process uses over a window after the
// endpoints are HEALTHY, for each GOMAXPROCS of LBHEALTH_BENCH_PROCS
// (default 2,16), over LBHEALTH_BENCH_WINDOW (30 s), and the context
// switches of its threads a second, which vary less from run to run. The
// target: under 2% of one core at GOMAXPROCS 16.
func BenchmarkIdleCost(b *testing.B) {
	procs := []int{2, 16}
	if v := os.Getenv("LBHEALTH_BENCH_PROCS"); v != "" {
		procs = nil
		for f := range strings.SplitSeq(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				b.Fatalf("LBHEALTH_BENCH_PROCS=%q: want GOMAXPROCS values such as 2,16", v)
			}
			procs = append(procs, n)
		}
	}
	window := 30 * time.Second
	if testing.Short() { // make bench's sweep of every benchmark: one short look
		procs, window = []int{runtime.GOMAXPROCS(0)}, 5*time.Second
	}
	if v := os.Getenv("LBHEALTH_BENCH_WINDOW"); v != "" {
		var err error
		if window, err = time.ParseDuration(v); err != nil {
			b.Fatal(err)
		}
	}
	var rows []string
	for _, p := range procs {
		b.Run(fmt.Sprintf("GOMAXPROCS=%d", p), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
			const endpoints, interval = 1000, 5 * time.Second
			addrs := startBenchTargets(b, endpoints)
			e := startEmulator(b, emulator.Config{InMemory: true, DataPlane: true})
			mustCall(b, e, "POST", "global/healthChecks", `{"name": "idle", "checkIntervalSec": 5, "timeoutSec": 5,
				"httpHealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`)
			var eps []string
			for _, a := range addrs {
				host, port, _ := net.SplitHostPort(a)
				eps = append(eps, fmt.Sprintf(`{"ipAddress": %q, "port": %s}`, host, port))
			}
			mustCall(b, e, "POST", "zones/z/networkEndpointGroups", `{"name": "idle", "endpoints": [`+strings.Join(eps, ",")+`]}`)
			mustCall(b, e, "POST", "global/backendServices", `{"name": "idle", "protocol": "HTTP", "loadBalancingScheme": "EXTERNAL_MANAGED",
				"backends": [{"group": "zones/z/networkEndpointGroups/idle", "balancingMode": "RATE", "maxRatePerEndpoint": 100}],
				"healthChecks": ["global/healthChecks/idle"]}`)
			applicationLB(b, e, freePort(b), `{"name": "um", "defaultService": "global/backendServices/idle"}`)
			deadline := time.Now().Add(time.Minute)
			for healthyIdle(b, e) < endpoints {
				if time.Now().After(deadline) {
					b.Fatalf("the endpoints did not all turn HEALTHY within a minute")
				}
				time.Sleep(time.Second)
			}
			time.Sleep(interval) // past the first round of probes
			before, err := procstat.CPU(os.Getpid())
			if err != nil {
				b.Fatal(err)
			}
			switchesBefore, err := procstat.ContextSwitches(os.Getpid())
			if err != nil {
				b.Fatal(err)
			}
			time.Sleep(window)
			after, _ := procstat.CPU(os.Getpid())
			switchesAfter, _ := procstat.ContextSwitches(os.Getpid())
			cores := (after - before).Seconds() / window.Seconds()
			switches := float64(switchesAfter-switchesBefore) / window.Seconds()
			b.ReportMetric(100*cores, "%core")
			b.ReportMetric(switches, "ctxsw/s")
			b.ReportMetric(0, "ns/op")
			rows = append(rows, fmt.Sprintf("| %d | %d | %v | %.2f%% | %.0f |", p, endpoints, interval, 100*cores, switches))
		})
	}
	fmt.Printf("\nthe emulator idle (API, engine, data plane listener, autohealing and autoscaling loops), on %d CPUs, over %v\n", runtime.NumCPU(), window)
	fmt.Println("| GOMAXPROCS | HTTP endpoints | interval | CPU (% of one core) | context switches / s |\n|---:|---:|---:|---:|---:|")
	fmt.Println(strings.Join(rows, "\n"))
}

// startBenchTargets runs emulator/internal/benchtarget on n loopback
// addresses, in a process of its own, and returns them (host:port). It
// builds benchtarget unless LBHEALTH_BENCH_TARGET names one built
// beforehand (for a machine without Go).
func startBenchTargets(b *testing.B, n int) []string {
	b.Helper()
	bin := os.Getenv("LBHEALTH_BENCH_TARGET")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "benchtarget")
		if out, err := exec.Command("go", "build", "-o", bin, "./internal/benchtarget").CombinedOutput(); err != nil {
			b.Fatalf("go build benchtarget: %v\n%s", err, out)
		}
	}
	cmd := exec.Command(bin, "-n", strconv.Itoa(n))
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close() // benchtarget exits when its stdin closes
		cmd.Wait()
	})
	var addrs []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		switch f := strings.Fields(lines.Text()); {
		case len(f) == 1 && f[0] == "ready":
			return addrs
		case len(f) == 2 && f[0] == "listen":
			addrs = append(addrs, f[1])
		}
	}
	b.Fatalf("benchtarget did not get ready: %v", lines.Err())
	return nil
}

// healthyIdle counts the HEALTHY endpoints of the idle service.
func healthyIdle(b *testing.B, e *emulator.Emulator) int {
	var out api.BackendServiceGroupHealth
	apiCall(b, e, "POST", "global/backendServices/idle/getHealth", `{"group": "zones/z/networkEndpointGroups/idle"}`, &out)
	n := 0
	for _, s := range out.HealthStatus {
		if s.HealthState == "HEALTHY" {
			n++
		}
	}
	return n
}
