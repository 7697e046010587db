package emulator_test

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// dnsServer is a miekg/dns server on a loopback UDP port that answers
// web.example.com. A 192.0.2.10 while failing is false, and SERVFAIL to
// everything while it is true.
func dnsServer(t *testing.T) (port int64, failing *atomic.Bool) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	failing = &atomic.Bool{}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		switch {
		case failing.Load():
			m.Rcode = dns.RcodeServerFailure
		case q.Question[0].Name == "web.example.com.":
			rr, _ := dns.NewRR("web.example.com. 60 IN A 192.0.2.10")
			m.Answer = append(m.Answer, rr)
		default:
			m.Rcode = dns.RcodeNameError
		}
		_ = w.WriteMsg(m)
	})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return int64(pc.LocalAddr().(*net.UDPAddr).Port), failing
}

// TestDNSCheck: a DNS check is stored and returned in the API's shape
// (type plus dnsHealthCheck), probes a real DNS server, is UNHEALTHY with
// reason BAD_STATUS while the server fails and HEALTHY again after; its
// rules refuse a query type that does not exist, and it cannot become
// another type, nothing stored changing.
func TestDNSCheck(t *testing.T) {
	t.Parallel()
	port, failing := dnsServer(t)
	e := startEmulator(t, emulator0())
	p := strconv.FormatInt(port, 10)

	var refused map[string]any
	if code := apiCall(t, e, "POST", "global/healthChecks", `{"name":"bad","dnsHealthCheck":{"port":`+p+`,"queryName":"web.example.com","queryType":"AXFRX"}}`, &refused); code != 400 ||
		!strings.Contains(fmt.Sprint(refused), `dnsHealthCheck.queryType ("AXFRX") must be one of A, AAAA`) {
		t.Fatalf("a DNS check with query type AXFRX: %d %v, want 400 naming dnsHealthCheck.queryType", code, refused)
	}

	mustCall(t, e, "POST", "global/healthChecks", `{"name":"hc","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,
		"dnsHealthCheck":{"port":`+p+`,"queryName":"web.example.com","expectedAnswer":"192.0.2.10"}}`)
	var hc map[string]any
	apiCall(t, e, "GET", "global/healthChecks/hc", "", &hc)
	block, _ := hc["dnsHealthCheck"].(map[string]any)
	if hc["type"] != "DNS" || block["queryName"] != "web.example.com" || block["expectedAnswer"] != "192.0.2.10" || block["port"] != float64(port) {
		t.Fatalf("stored check: %v", hc)
	}

	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"neg","endpoints":[{"ipAddress":"127.0.0.1","port":`+p+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"bs","backends":[{"group":"zones/z/networkEndpointGroups/neg"}],"healthChecks":["hc"]}`)
	waitFor(t, "the DNS endpoint HEALTHY", func() bool { return health(t, e, "bs")[port].HealthState == "HEALTHY" })
	failing.Store(true)
	waitFor(t, "the failing DNS server UNHEALTHY (BAD_STATUS)", func() bool {
		h := health(t, e, "bs")[port]
		return h.HealthState == "UNHEALTHY" && h.Reason == "BAD_STATUS" && strings.Contains(h.Detail, "SERVFAIL")
	})
	failing.Store(false)
	waitFor(t, "the DNS endpoint HEALTHY again", func() bool { return health(t, e, "bs")[port].HealthState == "HEALTHY" })

	var out map[string]any
	if code := apiCall(t, e, "PUT", "global/healthChecks/hc", `{"name":"hc","httpHealthCheck":{"port":80}}`, &out); code != 400 ||
		!strings.Contains(fmt.Sprint(out), "type cannot change from DNS to HTTP") {
		t.Fatalf("turning a DNS check into an HTTP one: %d %v, want 400 saying the type cannot change", code, out)
	}
	apiCall(t, e, "GET", "global/healthChecks/hc", "", &hc)
	if hc["type"] != "DNS" {
		t.Errorf("after a refused type change the check is %v", hc)
	}
}

// TestDNSAndUDPChecksThroughTheSimulator: DNS and UDP checks probe the
// target simulator's datagram targets; each way the simulator breaks them
// shows as its reason (a DNS SERVFAIL as BAD_STATUS, a wrong address as
// RESPONSE_MISMATCH, a closed socket as CONNECTION_REFUSED, silence as
// TIMEOUT), and they recover.
func TestDNSAndUDPChecksThroughTheSimulator(t *testing.T) {
	t.Parallel()
	sim, err := targets.Start(t.Context(), targets.Config{UDP: 1, DNS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	udp, dnsTarget := sim.Targets()[0], sim.Targets()[1]
	e := startEmulator(t, emulator0())
	const fast = `"checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1`
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"dns",`+fast+`,
		"dnsHealthCheck":{"port":`+strconv.Itoa(dnsTarget.Port)+`,"queryName":"web.example.com","expectedAnswer":"`+targets.DNSAnswerOK+`"}}`)
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"udp",`+fast+`,
		"udpHealthCheck":{"port":`+strconv.Itoa(udp.Port)+`,"request":"PING","response":"PONG"}}`)
	for _, tg := range []targets.Target{udp, dnsTarget} {
		name := strings.ToLower(tg.Kind)
		mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"`+name+`","endpoints":[{"ipAddress":"`+tg.IP+`","port":`+strconv.Itoa(tg.Port)+`}]}`)
		mustCall(t, e, "POST", "global/backendServices", `{"name":"`+name+`","backends":[{"group":"zones/z/networkEndpointGroups/`+name+`"}],"healthChecks":["`+name+`"]}`)
	}
	state := func(tg targets.Target) api.HealthStatus {
		return health(t, e, strings.ToLower(tg.Kind))[int64(tg.Port)]
	}
	for _, step := range []struct {
		target targets.Target
		mode   targets.Mode
		reason string // "" for HEALTHY
	}{
		{dnsTarget, targets.ModeOK, ""},
		{dnsTarget, targets.ModeServfail, "BAD_STATUS"},
		{dnsTarget, targets.ModeWrongBody, "RESPONSE_MISMATCH"},
		{dnsTarget, targets.ModeRefuse, "CONNECTION_REFUSED"},
		{dnsTarget, targets.ModeHang, "TIMEOUT"},
		{dnsTarget, targets.ModeOK, ""},
		{udp, targets.ModeOK, ""},
		{udp, targets.ModeWrongBody, "RESPONSE_MISMATCH"},
		{udp, targets.ModeRefuse, "CONNECTION_REFUSED"},
		{udp, targets.ModeOK, ""},
	} {
		if err := sim.SetMode(step.target.Name, step.mode); err != nil {
			t.Fatal(err)
		}
		waitFor(t, fmt.Sprintf("%s in mode %s: reason %q", step.target.Name, step.mode, step.reason), func() bool {
			h := state(step.target)
			if step.reason == "" {
				return h.HealthState == "HEALTHY"
			}
			return h.HealthState == "UNHEALTHY" && h.Reason == step.reason
		})
	}
}
