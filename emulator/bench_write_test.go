package emulator

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// BenchmarkWriteBackendService is what one write of a backend service costs
// the emulator, with N backend services stored beside it: an insert and a
// patch per iteration, served in process (no network), each through the
// whole write path (decoding, rules, references, the store, operations,
// sync and the data plane). It reports allocations per write, the objects
// sync decoded and the store handed out per write (parses of the body
// inside the API are not counted), and writes per CPU-second of the
// process. Compare runs of one invocation: go test -run '^$' -bench
// WriteBackendService -benchtime 2000x ./emulator/.
func BenchmarkWriteBackendService(b *testing.B) {
	for _, stored := range []int{100, 1000} {
		b.Run(fmt.Sprintf("stored=%d", stored), func(b *testing.B) {
			e, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", InMemory: true, DataPlane: true,
				ProbeNetworks: []netip.Prefix{}})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			send := func(method, path, body string) {
				req := httptest.NewRequest(method, e.URL()+"/compute/v1/projects/p/"+path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				e.http.Handler.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
				}
			}
			send("POST", "global/healthChecks", `{"name":"hc","tcpHealthCheck":{"port":80}}`)
			send("POST", "zones/z/networkEndpointGroups", `{"name":"neg","networkEndpointType":"GCE_VM_IP_PORT","defaultPort":80}`)
			service := func(name string) string {
				return `{"name":"` + name + `","loadBalancingScheme":"EXTERNAL_MANAGED","protocol":"HTTP","healthChecks":["global/healthChecks/hc"],` +
					`"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100}]}`
			}
			for i := range stored {
				send("POST", "global/backendServices", service(fmt.Sprintf("stored-%05d", i)))
			}
			reads, decoded := e.store.(*store.Memory).ObjectsRead(), e.state.decoded
			cpu := cpuTime()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				name := fmt.Sprintf("bench-%07d", i)
				send("POST", "global/backendServices", service(name))
				send("PATCH", "global/backendServices/"+name, `{"description":"patched"}`)
			}
			b.StopTimer()
			writes := float64(2 * b.N)
			b.ReportMetric(float64(e.store.(*store.Memory).ObjectsRead()-reads)/writes, "store-reads/write")
			b.ReportMetric(float64(e.state.decoded-decoded)/writes, "sync-decodes/write")
			b.ReportMetric(writes/(cpuTime()-cpu).Seconds(), "writes/cpu-s")
		})
	}
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
