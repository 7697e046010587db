package emulator_test

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// udpServer answers "PING" with "PONG" on a loopback UDP socket while up
// is true, and stays silent otherwise.
func udpServer(t *testing.T) (port int64, up *atomic.Bool) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	up = &atomic.Bool{}
	up.Store(true)
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if up.Load() && string(buf[:n]) == "PING" {
				_, _ = pc.WriteTo([]byte("PONG"), from)
			}
		}
	}()
	return int64(pc.LocalAddr().(*net.UDPAddr).Port), up
}

// TestUDPCheck: a check type lbhealth adds to the Compute API is stored and
// returned in the API's shape (type plus its block), its block refuses the
// fields it does not have, and it probes a real UDP server.
func TestUDPCheck(t *testing.T) {
	t.Parallel()
	port, up := udpServer(t)
	e := startEmulator(t, emulator0())
	p := strconv.FormatInt(port, 10)

	// proxyHeader is not a field of the UDP block: dropped as the API drops
	// fields it does not know, refused with --strict-fields.
	strict := emulator0()
	strict.StrictFields = true
	var out map[string]any
	withProxy := `{"name":"bad","udpHealthCheck":{"port":` + p + `,"proxyHeader":"PROXY_V1"}}`
	if code := apiCall(t, startEmulator(t, strict), "POST", "global/healthChecks", withProxy, &out); code != 400 ||
		!strings.Contains(fmt.Sprint(out), "udpHealthCheck.proxyHeader") {
		t.Fatalf("strict fields, a UDP block with proxyHeader: %d %v, want 400 naming udpHealthCheck.proxyHeader", code, out)
	}
	mustCall(t, e, "POST", "global/healthChecks", withProxy)
	var bad map[string]any
	apiCall(t, e, "GET", "global/healthChecks/bad", "", &bad)
	if b, _ := bad["udpHealthCheck"].(map[string]any); b == nil || b["proxyHeader"] != nil {
		t.Fatalf("the UDP block kept a field it does not have: %v", bad)
	}
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"udpHealthCheck":{"port":`+p+`,"request":"PING","response":"PONG"}}`)
	var hc map[string]any
	apiCall(t, e, "GET", "global/healthChecks/hc", "", &hc)
	block, _ := hc["udpHealthCheck"].(map[string]any)
	if hc["type"] != "UDP" || block["request"] != "PING" || block["response"] != "PONG" || block["port"] != float64(port) {
		t.Fatalf("stored check: %v", hc)
	}
	if _, ok := block["proxyHeader"]; ok {
		t.Errorf("the UDP block got a proxyHeader default: %v", block)
	}

	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":`+p+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	waitFor(t, "the UDP endpoint HEALTHY", func() bool { return health(t, e, "bs")[port].HealthState == "HEALTHY" })
	up.Store(false)
	waitFor(t, "the silent UDP endpoint UNHEALTHY (TIMEOUT)", func() bool {
		h := health(t, e, "bs")[port]
		return h.HealthState == "UNHEALTHY" && h.Reason == "TIMEOUT"
	})
	up.Store(true)
	waitFor(t, "the UDP endpoint HEALTHY again", func() bool { return health(t, e, "bs")[port].HealthState == "HEALTHY" })
}
