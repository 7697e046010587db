package emulator_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/testpg"
)

// TestSQLChecksThroughTheSimulator: a SQL check logs in to a real
// PostgreSQL server and to the simulator's POSTGRES target; the target
// refusing logins is UNHEALTHY with BAD_STATUS (28P01), returning no row
// with RESPONSE_MISMATCH, and it recovers. The DSN, which holds the
// password, is never answered; an unknown driver is refused.
func TestSQLChecksThroughTheSimulator(t *testing.T) {
	t.Parallel()
	pg := testpg.Start(t)
	sim, err := targets.Start(t.Context(), targets.Config{Postgres: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	tg := sim.Targets()[0]
	e := startEmulator(t, emulator0())
	var refused map[string]any
	if code := apiCall(t, e, "POST", "global/healthChecks", `{"name":"bad","sqlHealthCheck":{"port":3306,"driver":"mysql","dsn":"user=x"}}`, &refused); code != 400 ||
		!strings.Contains(fmt.Sprint(refused), `sqlHealthCheck.driver ("mysql") must be one of postgres, oracle.`) {
		t.Fatalf("a SQL check with driver mysql: %d %v, want 400", code, refused)
	}
	const fast = `"checkIntervalSec":1,"timeoutSec":1,"healthyThreshold":1,"unhealthyThreshold":1`
	mustCall(t, e, "POST", "global/healthChecks", `{"name":"sql",`+fast+`,"sqlHealthCheck":{"portSpecification":"USE_SERVING_PORT","driver":"postgres","dsn":"`+pg.DSN()+`"}}`)
	mustCall(t, e, "POST", "zones/z/networkEndpointGroups", `{"name":"db","endpoints":[{"ipAddress":"`+pg.IP+`","port":`+strconv.Itoa(pg.Port)+
		`},{"ipAddress":"`+tg.IP+`","port":`+strconv.Itoa(tg.Port)+`}]}`)
	mustCall(t, e, "POST", "global/backendServices", `{"name":"db","backends":[{"group":"zones/z/networkEndpointGroups/db"}],"healthChecks":["sql"]}`)
	if body := rawGet(t, e, "global/healthChecks/sql", true); strings.Contains(body, pg.Password) || strings.Contains(body, `"dsn"`) {
		t.Errorf("GET shows the DSN: %s", body)
	}
	for _, step := range []struct {
		mode   targets.Mode
		reason string
	}{{targets.ModeOK, ""}, {targets.ModeReject, "BAD_STATUS"}, {targets.ModeWrongBody, "RESPONSE_MISMATCH"}, {targets.ModeOK, ""}} {
		if err := sim.SetMode(tg.Name, step.mode); err != nil {
			t.Fatal(err)
		}
		waitFor(t, fmt.Sprintf("%s in mode %s: reason %q", tg.Name, step.mode, step.reason), func() bool {
			h := health(t, e, "db")
			if h[int64(pg.Port)].HealthState != "HEALTHY" {
				return false
			}
			got := h[int64(tg.Port)]
			if step.reason == "" {
				return got.HealthState == "HEALTHY"
			}
			return got.HealthState == "UNHEALTHY" && got.Reason == step.reason &&
				(step.mode != targets.ModeReject || strings.HasPrefix(got.Detail, "connect: 28P01"))
		})
	}
}
