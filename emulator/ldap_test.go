package emulator_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// TestLDAPChecksThroughTheSimulator: LDAP and LDAPS checks bind to the
// simulator's directories and search them; a directory that refuses binds
// is UNHEALTHY with BAD_STATUS (49), one whose search finds nothing with
// RESPONSE_MISMATCH, and they recover; the bind password is never
// answered, and a bad filter is refused.
func TestLDAPChecksThroughTheSimulator(t *testing.T) {
	t.Parallel()
	sim, err := targets.Start(t.Context(), targets.Config{LDAP: 1, LDAPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	e := startEmulator(t, emulator0())
	var refused map[string]any
	if code := apiCall(t, e, "POST", "global/healthChecks", `{"name":"bad","ldapHealthCheck":{"baseDn":"dc=example,dc=com","filter":"uid=probe"}}`, &refused); code != 400 ||
		!strings.Contains(fmt.Sprint(refused), `ldapHealthCheck.filter ("uid=probe") is not an LDAP search filter`) {
		t.Fatalf("an LDAP check with filter \"uid=probe\": %d %v, want 400", code, refused)
	}
	const secret = "bind-secret"
	const fast = `"checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1`
	for _, tg := range sim.Targets() {
		field := strings.ToLower(tg.Kind) + "HealthCheck"
		mustCall(t, e, "POST", "global/healthChecks", `{"name":"`+tg.Name+`",`+fast+`,"`+field+`":{"port":`+strconv.Itoa(tg.Port)+
			`,"bindDn":"cn=monitor,dc=example,dc=com","bindPassword":"`+secret+`","baseDn":"ou=people,dc=example,dc=com","filter":"(objectClass=person)"}}`)
		mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"`+tg.Name+`","endpoints":[{"ipAddress":"`+tg.IP+`","port":`+strconv.Itoa(tg.Port)+`}]}`)
		mustCall(t, e, "POST", "global/backendServices", `{"name":"`+tg.Name+`","backends":[{"group":"zones/z/networkEndpointGroups/`+tg.Name+`"}],"healthChecks":["`+tg.Name+`"]}`)
		if body := rawGet(t, e, "global/healthChecks/"+tg.Name, true); strings.Contains(body, secret) || !strings.Contains(body, "cn=monitor") {
			t.Errorf("GET %s shows the password or not the DN: %s", tg.Name, body)
		}
	}
	for _, tg := range sim.Targets() {
		for _, step := range []struct {
			mode   targets.Mode
			reason string
		}{{targets.ModeOK, ""}, {targets.ModeReject, "BAD_STATUS"}, {targets.ModeWrongBody, "RESPONSE_MISMATCH"}, {targets.ModeOK, ""}} {
			if err := sim.SetMode(tg.Name, step.mode); err != nil {
				t.Fatal(err)
			}
			waitFor(t, fmt.Sprintf("%s in mode %s: reason %q", tg.Name, step.mode, step.reason), func() bool {
				h := health(t, e, tg.Name)[int64(tg.Port)]
				if step.reason == "" {
					return h.HealthState == "HEALTHY"
				}
				return h.HealthState == "UNHEALTHY" && h.Reason == step.reason &&
					(step.mode != targets.ModeReject || strings.HasPrefix(h.Detail, "bind: 49 Invalid Credentials"))
			})
		}
	}
}
