package emulator_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// TestSMTPChecksThroughTheSimulator: SMTP and SMTPS checks are stored in
// the API's shape and probe the simulator's SMTP targets (the SMTP one
// through STARTTLS); a target that rejects sessions is UNHEALTHY with
// BAD_STATUS and the server's reply as the detail, a reset one with
// CONNECTION_RESET, and they recover; a bad heloDomain is refused.
func TestSMTPChecksThroughTheSimulator(t *testing.T) {
	t.Parallel()
	sim, err := targets.Start(t.Context(), targets.Config{SMTP: 1, SMTPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	e := startEmulator(t, emulator0())
	var refused map[string]any
	if code := apiCall(t, e, "POST", "global/healthChecks", `{"name":"bad","smtpHealthCheck":{"heloDomain":"two words"}}`, &refused); code != 400 ||
		!strings.Contains(fmt.Sprint(refused), `smtpHealthCheck.heloDomain ("two words") must be a domain name`) {
		t.Fatalf("an SMTP check with heloDomain \"two words\": %d %v, want 400", code, refused)
	}
	const fast = `"checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1`
	for _, tg := range sim.Targets() {
		name, field := strings.ToLower(tg.Kind), strings.ToLower(tg.Kind)+"HealthCheck"
		mustCall(t, e, "POST", "global/healthChecks", `{"name":"`+name+`",`+fast+`,"`+field+`":{"port":`+strconv.Itoa(tg.Port)+`,"heloDomain":"probe.example.com"}}`)
		var hc map[string]any
		apiCall(t, e, "GET", "global/healthChecks/"+name, "", &hc)
		if hc["type"] != tg.Kind {
			t.Fatalf("stored check %v, want type %s", hc, tg.Kind)
		}
		mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"`+name+`","endpoints":[{"ipAddress":"`+tg.IP+`","port":`+strconv.Itoa(tg.Port)+`}]}`)
		mustCall(t, e, "POST", "global/backendServices", `{"name":"`+name+`","backends":[{"group":"zones/z/networkEndpointGroups/`+name+`"}],"healthChecks":["`+name+`"]}`)
	}
	for _, tg := range sim.Targets() {
		bs := strings.ToLower(tg.Kind)
		for _, step := range []struct {
			mode   targets.Mode
			reason string
		}{{targets.ModeOK, ""}, {targets.ModeReject, "BAD_STATUS"}, {targets.ModeReset, "CONNECTION_RESET"}, {targets.ModeOK, ""}} {
			if err := sim.SetMode(tg.Name, step.mode); err != nil {
				t.Fatal(err)
			}
			waitFor(t, fmt.Sprintf("%s in mode %s: reason %q", tg.Name, step.mode, step.reason), func() bool {
				h := health(t, e, bs)[int64(tg.Port)]
				if step.reason == "" {
					return h.HealthState == "HEALTHY"
				}
				return h.HealthState == "UNHEALTHY" && h.Reason == step.reason &&
					(step.mode != targets.ModeReject || strings.Contains(h.Detail, "554 5.3.2"))
			})
		}
	}
}
