package emulator_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// TestScenarioChecks: AND and OR scenarios over an HTTP and a DNS check
// probe one endpoint both ways: a broken DNS server makes AND UNHEALTHY,
// naming the DNS check, while OR stays HEALTHY until HTTP breaks too; a
// member's update re-plans the scenario; members must exist, be no
// scenario, and cannot be deleted while a scenario uses them.
func TestScenarioChecks(t *testing.T) {
	t.Parallel()
	sim, err := targets.Start(t.Context(), targets.Config{HTTP: 1, DNS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	web, dns := sim.Targets()[0], sim.Targets()[1]
	e := startEmulator(t, emulator0())
	const fast = `"checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1`
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"web",`+fast+`,"httpHealthCheck":{"port":`+strconv.Itoa(web.Port)+`}}`)
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"dns",`+fast+`,"dnsHealthCheck":{"port":`+strconv.Itoa(dns.Port)+
		`,"queryName":"web.example.com","expectedAnswer":"`+targets.DNSAnswerOK+`"}}`)
	for body, want := range map[string]string{
		`{"name":"bad","scenarioHealthCheck":{"operator":"AND","healthChecks":["missing"]}}`: `scenarioHealthCheck.healthChecks[0]`,
		`{"name":"bad","scenarioHealthCheck":{"operator":"NAND","healthChecks":["web"]}}`:    `scenarioHealthCheck.operator ("NAND") must be one of AND, OR.`,
	} {
		var refused map[string]any
		if code := apiCall(t, e, "POST", "global/healthChecks", body, &refused); code < 400 || !strings.Contains(fmt.Sprint(refused), want) {
			t.Errorf("%s: %d %v, want an error with %q", body, code, refused, want)
		}
	}
	for _, op := range []string{"AND", "OR"} {
		name := strings.ToLower(op)
		mustCall(t, e, "POST", "global/healthChecks", `{"name":"`+name+`",`+fast+`,"scenarioHealthCheck":{"operator":"`+op+`","healthChecks":["web","global/healthChecks/dns"]}}`)
		mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"`+name+`","endpoints":[{"ipAddress":"`+web.IP+`","port":`+strconv.Itoa(web.Port)+`}]}`)
		mustCall(t, e, "POST", "global/backendServices", `{"name":"`+name+`","backends":[{"group":"zones/z/networkEndpointGroups/`+name+`"}],"healthChecks":["`+name+`"]}`)
	}
	var refused map[string]any
	if code := apiCall(t, e, "POST", "global/healthChecks", `{"name":"nested","scenarioHealthCheck":{"operator":"OR","healthChecks":["and"]}}`, &refused); code != 400 ||
		!strings.Contains(fmt.Sprint(refused), `("and") is a scenario`) {
		t.Errorf("a scenario of a scenario: %d %v, want 400", code, refused)
	}
	if code := apiCall(t, e, "DELETE", "global/healthChecks/dns", "", &refused); code != 400 || !strings.Contains(fmt.Sprint(refused), "healthChecks/and") {
		t.Errorf("deleting a member: %d %v, want 400 naming the scenario", code, refused)
	}
	var hc map[string]any
	apiCall(t, e, "GET", "global/healthChecks/and", "", &hc)
	block, _ := hc["scenarioHealthCheck"].(map[string]any)
	if hc["type"] != "SCENARIO" || !strings.HasSuffix(fmt.Sprint(block["healthChecks"]), "/global/healthChecks/dns]") {
		t.Fatalf("stored scenario %v: want type SCENARIO and its checks as URLs", hc)
	}
	port := int64(web.Port)
	state := func(service string) (string, string, string) {
		h := health(t, e, service)[port]
		return h.HealthState, h.Reason, h.Detail
	}
	waitFor(t, "both scenarios HEALTHY", func() bool {
		a, _, _ := state("and")
		o, _, _ := state("or")
		return a == "HEALTHY" && o == "HEALTHY"
	})
	if err := sim.SetMode(dns.Name, targets.ModeServfail); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "AND UNHEALTHY for the DNS check, OR HEALTHY", func() bool {
		a, reason, detail := state("and")
		o, _, _ := state("or")
		return a == "UNHEALTHY" && reason == "BAD_STATUS" && strings.HasPrefix(detail, "dns: BAD_STATUS") && o == "HEALTHY"
	})
	if err := sim.SetMode(web.Name, targets.ModeStatus500); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "OR UNHEALTHY when no check passes", func() bool {
		o, _, detail := state("or")
		return o == "UNHEALTHY" && strings.HasPrefix(detail, "none passed: web: BAD_STATUS")
	})
	for _, tg := range sim.Targets() {
		if err := sim.SetMode(tg.Name, targets.ModeOK); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "both scenarios HEALTHY again", func() bool {
		a, _, _ := state("and")
		o, _, _ := state("or")
		return a == "HEALTHY" && o == "HEALTHY"
	})
	// A member changed: the scenario probes with its new settings.
	mustCall(t, e, "PATCH", "global/healthChecks/dns", `{"dnsHealthCheck":{"port":`+strconv.Itoa(dns.Port)+`,"queryName":"web.example.com","expectedAnswer":"192.0.2.250"}}`)
	waitFor(t, "AND UNHEALTHY after its DNS check changed", func() bool {
		a, reason, _ := state("and")
		return a == "UNHEALTHY" && reason == "RESPONSE_MISMATCH"
	})
}
