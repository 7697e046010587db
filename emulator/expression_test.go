package emulator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// TestExpressionChecksOnABackupNode: on an emulator started as a BACKUP
// node, an expression asking for the MASTER role makes the endpoints
// UNHEALTHY with RESPONSE_MISMATCH and one asking for BACKUP HEALTHY, with
// no server behind them (an expression sends nothing); a syntax error and
// a function definition are refused.
func TestExpressionChecksOnABackupNode(t *testing.T) {
	t.Parallel()
	cfg := emulator0()
	cfg.NodeID, cfg.NodeRole = "lb-2", emulator.RoleBackup
	e := startEmulator(t, cfg)
	for body, want := range map[string]string{
		`{"name":"bad","expressionHealthCheck":{"expression":"node.role ="}}`:                  `expressionHealthCheck.expression ("node.role =") is not a JSONata expression`,
		`{"name":"bad","expressionHealthCheck":{"expression":"$map([1], function($v) {$v})"}}`: `defines a function: expressions run inside the emulator`,
	} {
		var refused map[string]any
		if code := apiCall(t, e, "POST", "global/healthChecks", body, &refused); code != 400 || !strings.Contains(fmt.Sprint(refused), want) {
			t.Errorf("%s: %d %v, want 400 with %q", body, code, refused, want)
		}
	}
	const fast = `"checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1`
	for name, expr := range map[string]string{"master": `node.role = \"MASTER\"`, "backup": `node.role = \"BACKUP\" and node.id = \"lb-2\"`} {
		mustCall(t, e, "POST", "global/healthChecks", `{"name":"`+name+`",`+fast+`,"expressionHealthCheck":{"expression":"`+expr+`"}}`)
		mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"`+name+`","endpoints":[{"ipAddress":"127.0.0.1","port":9}]}`)
		mustCall(t, e, "POST", "global/backendServices", `{"name":"`+name+`","backends":[{"group":"zones/z/networkEndpointGroups/`+name+`"}],"healthChecks":["`+name+`"]}`)
	}
	var hc map[string]any
	apiCall(t, e, "GET", "global/healthChecks/master", "", &hc)
	if hc["type"] != "EXPRESSION" {
		t.Fatalf("stored check %v, want type EXPRESSION", hc)
	}
	waitFor(t, "master UNHEALTHY and backup HEALTHY", func() bool {
		m, b := health(t, e, "master")[9], health(t, e, "backup")[9]
		return m.HealthState == "UNHEALTHY" && m.Reason == "RESPONSE_MISMATCH" && b.HealthState == "HEALTHY"
	})
}

// TestICMPCheck: an ICMP check (an empty block) pings the endpoint's
// address, whatever its port: a loopback endpoint is HEALTHY.
func TestICMPCheck(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator0())
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"ping","checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1,"icmpHealthCheck":{}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"ping","endpoints":[{"ipAddress":"127.0.0.1","port":9}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"ping","backends":[{"group":"zones/z/networkEndpointGroups/ping"}],"healthChecks":["ping"]}`)
	var hc map[string]any
	apiCall(t, e, "GET", "global/healthChecks/ping", "", &hc)
	if hc["type"] != "ICMP" {
		t.Fatalf("stored check %v, want type ICMP", hc)
	}
	waitFor(t, "the pinged endpoint HEALTHY", func() bool { return health(t, e, "ping")[9].HealthState == "HEALTHY" })
}
