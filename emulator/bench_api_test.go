package emulator

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// The API benchmarks (make bench) measure what is asked of the write
// path: writes/s and latency from 8 concurrent clients at 1k, 10k and 100k
// stored resources, in memory and durable; GET and list latency idle and
// during the write burst; and memory after 1k and 100k writes with
// operation retention. They print a table; tune them with
// LBHEALTH_BENCH_STORED (comma-separated sizes), LBHEALTH_BENCH_WRITES
// (writes per cell), LBHEALTH_BENCH_CAP (longest burst) and
// LBHEALTH_BENCH_RETENTION_WRITES.

const benchClients = 8

func benchEnvInts(name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

func benchEnvDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

// benchClient keeps connections alive across requests, as a provider does.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * benchClients}}

// timed sends one request and returns how long it took; a non-200 answer
// fails the benchmark.
func timed(b *testing.B, method, url, body string) time.Duration {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json") // the API takes JSON only (guard.go)
	}
	start := time.Now()
	resp, err := benchClient.Do(req)
	if err != nil {
		b.Error(err)
		return 0
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode != 200 {
		b.Errorf("%s %s: %d %s", method, url, resp.StatusCode, out)
	}
	return d
}

// quantile of sorted durations, in milliseconds.
func quantileMS(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))]) / float64(time.Millisecond)
}

// preloadedCheck is a stored health check as the API writes one.
func preloadedCheck(name string) string {
	return `{"kind":"compute#healthCheck","id":"4611686018427387903","creationTimestamp":"2026-01-01T00:00:00.000Z","name":"` + name +
		`","selfLink":"http://127.0.0.1/compute/v1/projects/p/global/healthChecks/` + name +
		`","checkIntervalSec":5,"timeoutSec":5,"unhealthyThreshold":2,"healthyThreshold":2,"type":"TCP","tcpHealthCheck":{"port":80,"proxyHeader":"NONE"},"logConfig":{"enable":false}}`
}

func preloadName(i int) string { return fmt.Sprintf("pre-%06d", i) }

// preloadDatabase writes n health checks into a database file in one
// transaction, with the emulator's schema, as a long-lived emulator would
// have left them.
func preloadDatabase(b *testing.B, path string, n int) {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS objects (
		project TEXT NOT NULL, scope TEXT NOT NULL, collection TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
		PRIMARY KEY (project, scope, collection, name)) WITHOUT ROWID;
		CREATE INDEX IF NOT EXISTS objects_by_collection ON objects (collection);`); err != nil {
		b.Fatal(err)
	}
	tx, _ := db.Begin()
	stmt, _ := tx.Prepare(`INSERT INTO objects VALUES ('p', 'global', 'healthChecks', ?, ?)`)
	for i := range n {
		if _, err := stmt.Exec(preloadName(i), preloadedCheck(preloadName(i))); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// preloadMemory puts n health checks straight into a memory store and has
// the emulator read everything again, as at start.
func preloadMemory(b *testing.B, e *Emulator, n int) {
	ctx := context.Background()
	for i := range n {
		o := store.Object{Key: store.Key{Project: "p", Scope: "global", Collection: "healthChecks", Name: preloadName(i)},
			Body: []byte(preloadedCheck(preloadName(i)))}
		if err := e.store.Insert(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	if err := benchReload(e); err != nil {
		b.Fatal(err)
	}
}

// fsyncLatency measures this disk's fsync, the floor of a durable write's
// latency, so that the table can be read against it.
func fsyncLatency(b *testing.B) (p50, p99 float64) {
	f, err := os.CreateTemp(b.TempDir(), "fsync")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	var ds []time.Duration
	for range 300 {
		start := time.Now()
		f.Write(page)
		f.Sync()
		ds = append(ds, time.Since(start))
	}
	return quantileMS(ds, 0.5), quantileMS(ds, 0.99)
}

// writeResult is one cell of the table.
type writeResult struct {
	mode                string
	stored, writes      int
	perSec, p50, p99    float64
	getIdle, getBurst   float64 // p99, ms
	listIdle, listBurst float64 // p99, ms
}

// BenchmarkAPIWrites: health-check inserts over HTTP from 8 clients at
// each stored size, in memory and durable, with reads during the burst.
func BenchmarkAPIWrites(b *testing.B) {
	sizes := benchEnvInts("LBHEALTH_BENCH_STORED", []int{1000, 10000, 100000})
	if testing.Short() {
		sizes = []int{1000}
	}
	var rows []writeResult
	for _, mode := range []string{"memory", "durable"} {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/stored=%d", mode, n), func(b *testing.B) {
				r := benchWrites(b, mode, n)
				b.ReportMetric(r.perSec, "writes/s")
				b.ReportMetric(r.p50, "p50-ms")
				b.ReportMetric(r.p99, "p99-ms")
				b.ReportMetric(0, "ns/op")
				rows = append(rows, r)
			})
		}
	}
	fsync50, fsync99 := fsyncLatency(b)
	fmt.Printf("\nthis disk: fsync of a 4 KiB write p50 %.2f ms, p99 %.2f ms (what every durable write waits for at least once)\n", fsync50, fsync99)
	fmt.Printf("%d clients inserting health checks over HTTP (reads: GET of one check, list of 100, from a 9th client; p99 ms)\n", benchClients)
	fmt.Printf("| store | stored | writes | writes/s | p50 ms | p99 ms | GET idle | GET burst | list idle | list burst |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Printf("| %s | %d | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
			r.mode, r.stored, r.writes, r.perSec, r.p50, r.p99, r.getIdle, r.getBurst, r.listIdle, r.listBurst)
	}
}

func benchWrites(b *testing.B, mode string, stored int) writeResult {
	dir := b.TempDir()
	cfg := Config{Listen: "127.0.0.1:0", ProbeNetworks: []netip.Prefix{}}
	if mode == "durable" {
		preloadDatabase(b, filepath.Join(dir, DatabaseFile), stored)
		cfg.DataDir = dir
	} else {
		cfg.InMemory = true
	}
	e, err := Start(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if mode == "memory" {
		preloadMemory(b, e, stored)
	}
	base := e.URL() + "/compute/v1/projects/p/global/healthChecks"
	get, list := base+"/"+preloadName(stored/2), base+"?maxResults=100&pageToken="
	reads := func(stop func() bool) (gets, lists []time.Duration) {
		for i := 0; !stop(); i++ {
			if i%2 == 0 {
				gets = append(gets, timed(b, "GET", get, ""))
			} else {
				lists = append(lists, timed(b, "GET", list, ""))
			}
		}
		return gets, lists
	}
	idleCount := 0
	getIdle, listIdle := reads(func() bool { idleCount++; return idleCount > 400 })

	writes := benchEnvInts("LBHEALTH_BENCH_WRITES", []int{4000})[0]
	if mode == "durable" {
		writes /= 2
	}
	deadline := time.Now().Add(benchEnvDuration("LBHEALTH_BENCH_CAP", 20*time.Second))
	var mu sync.Mutex
	var latencies []time.Duration
	next := 0
	var done sync.WaitGroup
	start := time.Now()
	for c := range benchClients {
		done.Go(func() {
			var mine []time.Duration
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= writes || time.Now().After(deadline) {
					break
				}
				mine = append(mine, timed(b, "POST", base, fmt.Sprintf(`{"name": "new-%d-%06d", "tcpHealthCheck": {"port": 80}}`, c, i)))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		})
	}
	finished := make(chan struct{})
	var getBurst, listBurst []time.Duration
	var readers sync.WaitGroup
	readers.Go(func() {
		getBurst, listBurst = reads(func() bool {
			select {
			case <-finished:
				return true
			default:
				return false
			}
		})
	})
	done.Wait()
	elapsed := time.Since(start)
	close(finished)
	readers.Wait()
	return writeResult{mode: mode, stored: stored, writes: len(latencies), perSec: float64(len(latencies)) / elapsed.Seconds(),
		p50: quantileMS(latencies, 0.5), p99: quantileMS(latencies, 0.99),
		getIdle: quantileMS(getIdle, 0.99), getBurst: quantileMS(getBurst, 0.99),
		listIdle: quantileMS(listIdle, 0.99), listBurst: quantileMS(listBurst, 0.99)}
}

// memoryNow is the heap in use and the resident set, after a collection
// that returns what it can to the OS.
func memoryNow() (heapMB, rssMB float64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			rssMB = float64(kb) / 1024
		}
	}
	return float64(ms.HeapInuse) / (1 << 20), rssMB
}

// BenchmarkOperationRetention: memory after 1k and after 100k writes
// (PATCHes of 100 checks, so that only operations can grow), with the
// default retention and with a short TTL.
func BenchmarkOperationRetention(b *testing.B) {
	total := benchEnvInts("LBHEALTH_BENCH_RETENTION_WRITES", []int{100000})[0]
	if testing.Short() {
		total = 5000
	}
	type row struct {
		retention                  string
		ops1k, opsN                int
		heap1k, rss1k, heapN, rssN float64
	}
	var rows []row
	for _, tc := range []struct {
		name string
		ttl  time.Duration
		max  int
	}{{"default", 0, 0}, {"ttl=2s", 2 * time.Second, 0}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := Config{Listen: "127.0.0.1:0", InMemory: true, ProbeNetworks: []netip.Prefix{}}
			label := benchRetention(&cfg, tc.ttl, tc.max)
			e, err := Start(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			base := e.URL() + "/compute/v1/projects/p/global/healthChecks"
			for i := range 100 {
				timed(b, "POST", base, fmt.Sprintf(`{"name": "hc-%d", "tcpHealthCheck": {}}`, i))
			}
			count := func() int {
				all, _ := e.store.All(context.Background(), "operations")
				return len(all)
			}
			var mu sync.Mutex
			next := 0
			burst := func(until int) {
				var wg sync.WaitGroup
				for range benchClients {
					wg.Go(func() {
						for {
							mu.Lock()
							i := next
							next++
							mu.Unlock()
							if i >= until {
								return
							}
							timed(b, "PATCH", fmt.Sprintf("%s/hc-%d", base, i%100), fmt.Sprintf(`{"description": "write %d"}`, i))
						}
					})
				}
				wg.Wait()
				mu.Lock()
				next = until
				mu.Unlock()
			}
			r := row{retention: label}
			burst(1000)
			r.ops1k = count()
			r.heap1k, r.rss1k = memoryNow()
			burst(total)
			if tc.ttl > 0 {
				time.Sleep(tc.ttl + 500*time.Millisecond) // let the last ones expire
			}
			r.opsN = count()
			r.heapN, r.rssN = memoryNow()
			b.ReportMetric(r.heapN-r.heap1k, "heap-growth-MB")
			b.ReportMetric(0, "ns/op")
			rows = append(rows, r)
		})
	}
	fmt.Printf("\nmemory after 1k and after %d PATCHes (100 checks; the process's heap in use and RSS after GC)\n", total)
	fmt.Printf("| retention | ops kept @1k | heap MB @1k | RSS MB @1k | ops kept @%d | heap MB | RSS MB |\n|---|---:|---:|---:|---:|---:|---:|\n", total)
	for _, r := range rows {
		fmt.Printf("| %s | %d | %.1f | %.1f | %d | %.1f | %.1f |\n", r.retention, r.ops1k, r.heap1k, r.rss1k, r.opsN, r.heapN, r.rssN)
	}
}
