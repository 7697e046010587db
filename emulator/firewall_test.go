package emulator_test

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/plan"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// webLB stores a global external Application LB's backend: an instance
// tagged web in the default network (whose default rules let no prober
// in), in a zonal NEG on the port of srv, checked over HTTP every second.
func webLB(t *testing.T, e *emulator.Emulator, srv *switchable) {
	t.Helper()
	mustCall(t, e, "POST", "zones/us-central1-a/instances", `{"name": "web-1", "tags": {"items": ["web"]},
		"networkInterfaces": [{"network": "global/networks/default", "networkIP": "127.0.0.1"}]}`)
	mustCall(t, e, "POST", "global/healthChecks", `{"name": "hc", "checkIntervalSec": 1, "timeoutSec": 1, "healthyThreshold": 1,
		"unhealthyThreshold": 1, "httpHealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`)
	mustCall(t, e, "POST", "zones/us-central1-a/networkEndpointGroups", `{"name": "neg", "networkEndpointType": "GCE_VM_IP_PORT",
		"network": "global/networks/default", "defaultPort": `+srv.port()+`}`)
	mustCall(t, e, "POST", "zones/us-central1-a/networkEndpointGroups/neg/attachNetworkEndpoints", `{"networkEndpoints": [{"instance": "web-1"}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name": "bs", "loadBalancingScheme": "EXTERNAL_MANAGED", "protocol": "HTTP",
		"healthChecks": ["hc"], "backends": [{"group": "zones/us-central1-a/networkEndpointGroups/neg", "balancingMode": "RATE", "maxRatePerEndpoint": 100}]}`)
}

const allowProbers = `{"name": "allow-health-checks", "network": "global/networks/default", "direction": "INGRESS",
	"sourceRanges": ["35.191.0.0/16"], "targetTags": ["web"], "allowed": [{"IPProtocol": "tcp"}]}`

// only is the one endpoint of service bs.
func only(t *testing.T, e *emulator.Emulator, bs string) api.HealthStatus {
	t.Helper()
	h := health(t, e, bs)
	if len(h) != 1 {
		t.Fatalf("%d endpoints, want 1: %+v", len(h), h)
	}
	for _, hs := range h {
		return hs
	}
	panic("unreachable")
}

// With the firewall enforced, a backend the cloud's probers cannot reach is
// UNHEALTHY (FIREWALL_BLOCKED), as the implied deny makes it in the cloud,
// and the finding names the rule to add. It is probed behind the block, so
// that adding the rule shows its real verdict at once.
func TestFirewalls_EnforcedBlockUntilARuleLetsTheProbersIn(t *testing.T) {
	t.Parallel()
	srv := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, Firewalls: plan.FirewallsEnforce})
	webLB(t, e, srv)
	waitFor(t, "FIREWALL_BLOCKED", func() bool { return only(t, e, "bs").Reason == "FIREWALL_BLOCKED" })
	hs := only(t, e, "bs")
	if hs.HealthState != "UNHEALTHY" || hs.LoadBalancer != "global external Application LB" ||
		!strings.Contains(hs.Firewall, "add a rule to allow tcp:"+srv.port()+" from 35.191.0.0/16 to tag web in network default") ||
		hs.Detail != hs.Firewall {
		t.Errorf("blocked: %+v, want UNHEALTHY, the load balancer, and the rule to add as finding and detail", hs)
	}
	waitFor(t, "probes behind the block", func() bool { return srv.hits.Load() > 0 })
	if hs := only(t, e, "bs"); hs.Reason != "FIREWALL_BLOCKED" {
		t.Errorf("a probe that passed behind the block changed the state reported: %+v", hs)
	}

	mustCall(t, e, "POST", "global/firewalls", allowProbers)
	waitFor(t, "HEALTHY once the probers are let in", func() bool { return only(t, e, "bs").HealthState == "HEALTHY" })
	if hs := only(t, e, "bs"); hs.Firewall != "" {
		t.Errorf("with the rule: finding %q, want none", hs.Firewall)
	}

	mustCall(t, e, "DELETE", "global/firewalls/allow-health-checks", "")
	waitFor(t, "FIREWALL_BLOCKED again without the rule", func() bool { return only(t, e, "bs").Reason == "FIREWALL_BLOCKED" })
}

// By default the finding is a warning: the backend is probed and judged
// as if the probers got in, and getHealth and the status page say they
// would not. Google's own clients, which ask for no extension, never see it.
func TestFirewalls_WarnByDefault(t *testing.T) {
	t.Parallel()
	srv := newSwitchable(t)
	var logs lockedWriter
	e := startEmulator(t, emulator.Config{InMemory: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	webLB(t, e, srv)
	waitFor(t, "HEALTHY", func() bool { return only(t, e, "bs").HealthState == "HEALTHY" })
	if hs := only(t, e, "bs"); !strings.Contains(hs.Firewall, "every probe would be blocked") {
		t.Errorf("warn: finding %q, want every probe blocked", hs.Firewall)
	}
	if n := strings.Count(logs.String(), "health-check probers would not reach"); n != 1 {
		t.Errorf("the finding was logged %d times, want once:\n%s", n, logs.String())
	}
	_, metrics, _ := call("GET", e.URL()+"/metrics", "")
	if !strings.Contains(string(metrics), `lbhealth_endpoint_firewall{endpoint="127.0.0.1:`+srv.port()+`",group="projects/p/zones/us-central1-a/networkEndpointGroups/neg",`+
		`load_balancer="global external Application LB",owner="projects/p/global/backendServices/bs",verdict="BLOCKED"} 1`) {
		t.Errorf("/metrics lacks the endpoint's firewall gauge:\n%s", metrics)
	}
	_, b, err := call("GET", e.URL()+"/", "")
	if err != nil {
		t.Fatal(err)
	}
	if page := string(b); !strings.Contains(page, "every probe would be blocked") || !strings.Contains(page, "global external Application LB") {
		t.Errorf("the status page lacks the finding or the load balancer:\n%s", page)
	}
	// The badge itself, folded, says what to add.
	if page := string(b); !regexp.MustCompile(`<summary>BLOCKED: add a rule to allow tcp:\d+ from [^<]+ to [^<]+ in network default</summary>`).MatchString(page) {
		t.Errorf("the status page's firewall badge does not say which rule to add:\n%s", page)
	}
	code, body, err := call("POST", e.URL()+"/compute/v1/projects/p/global/backendServices/bs/getHealth", "")
	if err != nil || code != 200 || strings.Contains(string(body), "firewall") || strings.Contains(string(body), "loadBalancer") {
		t.Errorf("getHealth without extensions: %d %s %v, want the Compute API's fields only", code, body, err)
	}

	mustCall(t, e, "POST", "global/firewalls", allowProbers)
	waitFor(t, "no finding once the probers are let in", func() bool { return only(t, e, "bs").Firewall == "" })
	if hs := only(t, e, "bs"); hs.HealthState != "HEALTHY" {
		t.Errorf("a warning's rule changed the verdict: %+v", hs)
	}
}

// Off reads no rule at all.
func TestFirewalls_Off(t *testing.T) {
	t.Parallel()
	srv := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, Firewalls: plan.FirewallsOff})
	webLB(t, e, srv)
	waitFor(t, "HEALTHY", func() bool { return only(t, e, "bs").HealthState == "HEALTHY" })
	if hs := only(t, e, "bs"); hs.Firewall != "" {
		t.Errorf("off: finding %q", hs.Firewall)
	}
}

// With --probe-multiplicity, a backend behind two target proxies is probed
// twice per interval; /metrics and the status page show the rate asked
// for and the rate delivered. Without it, once.
func TestProbeMultiplicity_TwoProxies(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		srv := newSwitchable(t)
		e := startEmulator(t, emulator.Config{InMemory: true, ProbeMultiplicity: on})
		webLB(t, e, srv)
		mustCall(t, e, "POST", "global/urlMaps", `{"name": "web", "defaultService": "global/backendServices/bs"}`)
		for _, name := range []string{"http", "http-too"} {
			mustCall(t, e, "POST", "global/targetHttpProxies", `{"name": "`+name+`", "urlMap": "global/urlMaps/web"}`)
		}
		want := map[bool]string{true: "2", false: "1"}[on]
		series := `lbhealth_endpoint_expected_probe_rate{endpoint="127.0.0.1:` + srv.port() + `",group="projects/p/zones/us-central1-a/networkEndpointGroups/neg",owner="projects/p/global/backendServices/bs"} ` + want + "\n"
		waitFor(t, "the expected rate", func() bool {
			_, metrics, _ := call("GET", e.URL()+"/metrics", "")
			return strings.Contains(string(metrics), series)
		})
		waitFor(t, "a delivered rate on the status page", func() bool {
			_, page, _ := call("GET", e.URL()+"/", "")
			return strings.Contains(string(page), `<td class="num">`+want+".00 / "+want+".")
		})
	}
}
